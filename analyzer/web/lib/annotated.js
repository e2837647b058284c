// annotated.js - what the Source and Disassembly views share: the selected function's
// annotated listing (/api/source, /api/disasm) in the Functions view's metrics, a row per
// line or instruction with its metric cells.
import { state } from './state.js';
import { api, withRange } from './api.js';
import { el } from './dom.js';
import { fmt, pct, colTitle, hasPercent } from './format.js';

// The metric cells of an annotated row (its values under the columns' keys; null or a row
// without them: blank cells): value and percent as the column asks.
export function metricCells(tr, columns, row) {
  for (const c of columns) {
    if (c.unit === 'text') continue;
    const v = row && c.key in row ? row[c.key] : null;
    if (c.value) tr.append(el('td', {}, v === null ? '' : fmt(v, c.unit)));
    if (hasPercent(c)) tr.append(el('td', {}, v === null ? '' : pct(v, c.total)));
  }
}

function codeHead(columns, last) {
  const head = el('tr');
  for (const c of columns)
    if (c.unit !== 'text') head.append(el('th', { colSpan: c.value && hasPercent(c) ? 2 : 1 }, colTitle(c)));
  head.append(el('th', { class: 'name' }, last));
  return el('thead', {}, head);
}

// Show the listing kind ('source' or 'disasm') of the selected function in the table of id
// kind, its last column titled last: rows(d, title, body) fills the title and the rows from the
// reply d.  Resolves to d once shown, to null when nothing is (no function, an error).
export async function showAnnotated(kind, last, rows) {
  const title = document.getElementById(kind + '-title'), err = document.getElementById(kind + '-error');
  const table = document.getElementById(kind);
  err.textContent = '';
  table.replaceChildren();
  if (!state.selected) return null;
  const q = `${kind}?func=${state.selected.id}` + (state.metrics ? '&metrics=' + encodeURIComponent(state.metrics) : '');
  let d;
  try {
    d = await api(withRange(q));
  } catch (e) {
    title.textContent = state.selected.name;
    err.textContent = e.message;
    return null;
  }
  const body = el('tbody');
  rows(d, title, body);
  table.replaceChildren(codeHead(d.columns, last), body);
  return d;
}
