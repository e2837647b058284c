// callers.js - the Callers-Callees view of the selected function: its callers, itself and its
// callees with their attributed metrics (/api/callers); a click on a row selects that function.
import { state } from '../lib/state.js';
import { api, withRange } from '../lib/api.js';
import { el } from '../lib/dom.js';
import { fmt, pct } from '../lib/format.js';
import { select } from '../lib/router.js';

// The rows of one section of the reply in table, under the reply's attributed columns.
function attrTable(table, columns, rows) {
  const head = el('tr');
  for (const c of columns) head.append(el('th', { colSpan: 2 }, 'Attr. ' + c.name));
  head.append(el('th', { class: 'name' }, 'Name'));
  const body = el('tbody');
  for (const r of rows) {
    const tr = el('tr', { 'data-id': r.id });
    for (const c of columns) tr.append(el('td', {}, fmt(r[c.key], c.unit)), el('td', {}, pct(r[c.key], c.total)));
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
  const section = (name) => c.rows.filter((r) => r.section === name);
  attrTable(document.getElementById('callers'), c.columns, section('Callers'));
  attrTable(document.getElementById('callers-self'), c.columns, section('Stack Fragment'));
  attrTable(document.getElementById('callees'), c.columns, section('Callees'));
}

export const view = { name: 'callers', show: showCallers, onSelect: showCallers };
