// filter.js - the filter bar: an er_print filter expression every view follows.
import { state } from './state.js';
import { api } from './api.js';
import { el } from './dom.js';
import { show } from './router.js';

// Count only the events expr passes everywhere ('' for all).  The server checks it first: a bad
// expression is shown next to it (naming the column) and changes nothing.
export async function setFilter(expr) {
  expr = expr.trim();
  const err = document.getElementById('filter-error');
  err.textContent = '';
  document.getElementById('filter').value = expr;
  if (expr) {
    try {
      await api('threads?filter=' + encodeURIComponent(expr));
    } catch (e) {
      err.textContent = e.message;
      return;
    }
  }
  state.filter = expr;
  state.functions = null;
  state.calltree = null;
  state.flame = null;
  state.timeline = null;
  state.compare = null;
  show(state.view);
}

// The bar's buttons, and its help: the properties /api/overview names.
export function initFilterbar() {
  document.getElementById('filter-apply').addEventListener('click', () => setFilter(document.getElementById('filter').value));
  document.getElementById('filter').addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter') setFilter(ev.target.value);
  });
  document.getElementById('filter-clear').addEventListener('click', () => setFilter(''));
  const list = document.getElementById('filter-help-list'), props = document.getElementById('filter-props');
  for (const p of state.overview.filter_properties || []) {
    list.append(el('dt', {}, p.name), el('dd', {}, p.help));
    props.append(el('option', { value: p.name }, p.help));
  }
}
