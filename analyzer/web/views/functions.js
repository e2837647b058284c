// functions.js - the Functions view: /api/functions' list in the chosen metrics, sorted by a
// click on a column's title, narrowed by the search box; a click on a row selects its function.
import { state } from '../lib/state.js';
import { api, withRange } from '../lib/api.js';
import { el } from '../lib/dom.js';
import { fmt, pct, colTitle, hasPercent } from '../lib/format.js';
import { select } from '../lib/router.js';
import { renderChooser } from './overview.js';

async function loadFunctions() {
  const err = document.getElementById('functions-error');
  let filter;
  err.textContent = '';
  try {
    const q = new URLSearchParams();
    if (state.metrics) q.set('metrics', state.metrics);
    if (state.sort) q.set('sort', state.sort);
    filter = state.filter;
    state.functions = await api(withRange('functions?' + q));
  } catch (e) {
    err.textContent = e.message;
    return;
  }
  state.metrics = state.functions.metrics;
  if (state.sort !== state.functions.sort) state.calltree = null; // ordered by the sort metric
  state.sort = state.functions.sort;
  document.getElementById('metrics').value = state.metrics;
  document.getElementById('functions').dataset.filter = filter; // the filter the list is of
  renderFunctions();
  renderChooser();
}

function renderFunctions() {
  const f = state.functions, table = document.getElementById('functions');
  const needle = document.getElementById('search').value.toLowerCase();
  const head = el('tr');
  f.columns.forEach((c) => {
    const sortKey = c.spec;
    const th = el('th', { title: 'sort by ' + sortKey, 'data-sort': sortKey }, colTitle(c));
    if (sortKey === state.sort) th.classList.add('sorted');
    th.addEventListener('click', () => { state.sort = sortKey; loadFunctions(); });
    if (hasPercent(c)) th.colSpan = c.value ? 2 : 1;
    head.append(th);
  });
  const nameTh = el('th', { class: 'name', 'data-sort': 'name' }, 'Name');
  if (state.sort === 'name') nameTh.classList.add('sorted');
  nameTh.addEventListener('click', () => { state.sort = 'name'; loadFunctions(); });
  head.append(nameTh);
  const body = el('tbody');
  let shown = 0;
  for (const row of f.rows) {
    if (needle && row.id !== 0 && !row.name.toLowerCase().includes(needle)) continue;
    if (row.id !== 0) shown++; // <Total> is not one of the functions counted
    const tr = el('tr', { 'data-id': row.id });
    for (const c of f.columns) {
      const v = row[c.key];
      if (c.unit === 'text') tr.append(el('td', {}, v));
      else {
        if (c.value) tr.append(el('td', {}, fmt(v, c.unit)));
        if (hasPercent(c)) tr.append(el('td', {}, pct(v, c.total)));
      }
    }
    tr.append(el('td', { class: 'name' }, row.name));
    if (state.selected && state.selected.id === row.id) tr.classList.add('selected');
    tr.addEventListener('click', () => select(row.id, row.name));
    body.append(tr);
  }
  table.replaceChildren(el('thead', {}, head), body);
  document.getElementById('functions-count').textContent = `${shown} of ${f.rows.length - 1} functions`;
}

function init() {
  document.getElementById('metrics-apply').addEventListener('click', () => {
    state.metrics = document.getElementById('metrics').value;
    loadFunctions();
  });
  document.getElementById('search').addEventListener('input', () => state.functions && renderFunctions());
}

export const view = {
  name: 'functions',
  init,
  show: () => { if (!state.functions) loadFunctions(); },
};
