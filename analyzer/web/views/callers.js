// callers.js - the Callers-Callees view of the selected function: its callers, itself and its
// callees with their attributed metrics (/api/callers); a click on a row selects that function.
import { state } from '../lib/state.js';
import { api, withRange } from '../lib/api.js';
import { el } from '../lib/dom.js';
import { fmt, pct } from '../lib/format.js';
import { select } from '../lib/router.js';

function attrTable(table, rows, base) {
  const metrics = state.overview.metrics;
  const head = el('tr');
  for (const m of metrics) head.append(el('th', { colSpan: 2 }, 'Attr. ' + m.name));
  head.append(el('th', { class: 'name' }, 'Name'));
  const body = el('tbody');
  for (const r of rows) {
    const tr = el('tr', { 'data-id': r.id });
    metrics.forEach((m, i) => {
      tr.append(el('td', {}, fmt(r.values[i], m.unit)), el('td', {}, pct(r.values[i], base[i])));
    });
    tr.append(el('td', { class: 'name' }, r.name));
    tr.addEventListener('click', () => select(r.id, r.name));
    body.append(tr);
  }
  table.replaceChildren(el('thead', {}, head), body);
}

async function showCallers() {
  const empty = document.getElementById('callers-empty');
  if (!state.selected) {
    empty.style.display = '';
    return;
  }
  empty.style.display = 'none';
  const c = await api(withRange('callers?func=' + state.selected.id + (state.sort ? '&sort=' + encodeURIComponent(state.sort) : '')));
  const base = c.function.base;
  attrTable(document.getElementById('callers'), c.callers.map((e) => ({ id: e.id, name: e.name, values: e.attributed })), base);
  attrTable(document.getElementById('callers-self'),
    [{ id: c.function.id, name: c.function.name, values: c.function.exclusive }], base);
  attrTable(document.getElementById('callees'), c.callees.map((e) => ({ id: e.id, name: e.name, values: e.attributed })), base);
}

export const view = { name: 'callers', show: showCallers, onSelect: showCallers };
