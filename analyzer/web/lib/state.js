// state.js - what the views share: the server's replies each view keeps, the selected
// function, the filter and the time range.  One object, changed in place by the views;
// setRange (analyzer/web/lib/router.js) and setFilter (analyzer/web/lib/filter.js) forget the
// replies a new range or filter makes stale.
export const state = {
  overview: null,   // /api/overview
  selected: null,   // {id, name}: the selected function, shared by all views
  view: 'overview',
  metrics: '',      // the Functions view's metric list (er_print syntax)
  sort: '',         // its sort item
  functions: null,  // /api/functions
  calltree: null,   // /api/calltree, its children lists and the open nodes
  flame: null,      // /api/flame and its layout
  timeline: null,   // /api/timeline (the whole run) and its layout
  range: null,      // {t0, t1}: the time range every view shows (ns), or null: the whole run
  filter: '',       // the filter expression every view shows (er_print's filters), '' for none
  compare: null,    // /api/compare
  heapLive: null,   // /api/heap's live heap lines and peak: {live, peak}
};
