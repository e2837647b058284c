// app.js - the analyzer's page: every figure comes from the server's JSON API (/api/...),
// computed by libanalysis; the page only lays it out.  The entry module: it registers the
// views (views/*.js, one per tab; the canvas drawings are render/*.js, what they share lib/*.js),
// wires the tabs and the bars above them, and opens the Functions view.
import { state } from './lib/state.js';
import { api } from './lib/api.js';
import { el } from './lib/dom.js';
import { registerView, show, setRange } from './lib/router.js';
import { initFilterbar } from './lib/filter.js';
import { installTestHook } from './lib/testhook.js';
import { ROW } from './render/flame.js';
import { view as overview, showOverview } from './views/overview.js';
import { view as functions } from './views/functions.js';
import { view as callers } from './views/callers.js';
import { view as calltree } from './views/calltree.js';
import { view as flame, drawFlame, loadFlame } from './views/flame.js';
import { view as timeline, drawTimeline } from './views/timeline.js';
import { view as heap } from './views/heap.js';
import { view as io } from './views/io.js';
import { view as threads } from './views/threads.js';
import { view as experiments } from './views/experiments.js';
import { view as source } from './views/source.js';
import { view as disasm } from './views/disasm.js';
import { view as compare } from './views/compare.js';

const VIEWS = [overview, functions, callers, calltree, flame, timeline, heap, io, threads, experiments, source, disasm,
  compare];

async function main() {
  installTestHook({ state, show, loadFlame, drawFlame, drawTimeline, ROW });
  // the token is in a cookie now: take it out of the address bar
  if (location.search) history.replaceState(null, '', '/');
  state.overview = await api('overview');
  for (const v of VIEWS) {
    registerView(v);
    if (v.init) v.init();
  }
  for (const b of document.querySelectorAll('#tabs button')) b.addEventListener('click', () => show(b.dataset.view));
  document.getElementById('range-clear').addEventListener('click', () => setRange(null));
  initFilterbar();
  showOverview();
  show('functions');
  document.body.dataset.ready = '1';
}

main().catch((e) => {
  document.body.prepend(el('p', { class: 'error' }, 'Error: ' + e.message));
});
