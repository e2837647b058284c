// source.js - the Source view: the selected function's source file, each line with its
// metrics, the hot ones marked, scrolled to the function's first line.
import { state } from '../lib/state.js';
import { el } from '../lib/dom.js';
import { metricCells, showAnnotated } from '../lib/annotated.js';

function rows(d, title, body) {
  title.textContent = `${state.selected.name}: ${d.file}` + (d.text_found ? '' : ' (source file not found)');
  for (const l of d.lines) {
    const tr = el('tr', { 'data-line': l.line });
    if (l.hot) tr.classList.add('hot');
    metricCells(tr, d.columns, l);
    tr.append(el('td', { class: 'text' }, `${String(l.line).padStart(5)}  ${l.text === null ? '' : l.text}`));
    body.append(tr);
  }
}

async function showSource() {
  const d = await showAnnotated('source', 'Source', rows);
  if (d && d.entry_line) {
    const row = document.getElementById('source').querySelector(`tr[data-line="${d.entry_line}"]`);
    if (row) row.scrollIntoView({ block: 'center' });
  }
}

export const view = { name: 'source', show: showSource, onSelect: showSource };
