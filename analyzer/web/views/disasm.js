// disasm.js - the Disassembly view: the selected function's instructions, each with its
// metrics, the hot ones marked, the source lines they come from between them.
import { state } from '../lib/state.js';
import { el } from '../lib/dom.js';
import { metricCells, showAnnotated } from '../lib/annotated.js';

function rows(d, title, body) {
  title.textContent = state.selected.name + (d.entry_file ? `: ${d.entry_file}` : '');
  for (const r of d.rows) {
    const tr = el('tr');
    if (r.kind === 'source') {
      tr.classList.add('src');
      metricCells(tr, d.columns, null);
      tr.append(el('td', { class: 'text' }, `${r.file || ''}:${r.line}`));
    } else {
      if (r.hot) tr.classList.add('hot');
      metricCells(tr, d.columns, r);
      tr.append(el('td', { class: 'text' }, `0x${r.addr.toString(16)}  ${r.text}`));
    }
    body.append(tr);
  }
}

const showDisasm = () => showAnnotated('disasm', 'Instruction', rows);

export const view = { name: 'disasm', show: showDisasm, onSelect: showDisasm };
