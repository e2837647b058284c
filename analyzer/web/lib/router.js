// router.js - which view is shown, and what every view follows: the selected function and
// the time range.  Each view (views/*.js) is registered as {name, init, show, onSelect,
// onRange}, every member but name optional: show() when its tab opens, onSelect() when a
// function is selected while it is shown, onRange() when the time range changes.
import { state } from './state.js';
import { fmt } from './format.js';

const views = new Map();

export function registerView(v) {
  views.set(v.name, v);
}

export function show(view) {
  state.view = view;
  for (const b of document.querySelectorAll('#tabs button')) b.classList.toggle('active', b.dataset.view === view);
  for (const s of document.querySelectorAll('.view')) s.classList.toggle('active', s.id === 'view-' + view);
  const v = views.get(view);
  if (v && v.show) v.show();
  viewTitle();
}

export function select(id, name) {
  state.selected = { id, name };
  document.getElementById('selected').textContent = name;
  for (const tr of document.querySelectorAll('#functions tr[data-id]'))
    tr.classList.toggle('selected', Number(tr.dataset.id) === id);
  const v = views.get(state.view);
  if (v && v.onSelect) v.onSelect();
}

// Show only [t0, t1) everywhere (null: the whole run); the views reload from the server.
export function setRange(r) {
  state.range = r;
  document.getElementById('range').textContent = r ? `${fmt(r.t0, 'ns')} s to ${fmt(r.t1, 'ns')} s` : 'whole run';
  document.getElementById('range-clear').hidden = !r;
  state.functions = null;
  state.calltree = null;
  state.flame = null;
  state.compare = null;
  for (const v of views.values()) if (v.onRange) v.onRange();
  if (state.view !== 'timeline') show(state.view);
  else viewTitle();
}

// The view's title: its name, the filter and the time range it shows.
export function viewTitle() {
  const b = document.querySelector(`#tabs button[data-view="${state.view}"]`);
  const parts = [b ? b.textContent : state.view];
  parts.push(state.filter ? 'filter: ' + state.filter : 'no filter');
  if (state.range) parts.push(`${fmt(state.range.t0, 'ns')} s to ${fmt(state.range.t1, 'ns')} s`);
  document.getElementById('view-title').textContent = parts.join(' \u2014 ');
}
