// calltree.js - the Call Tree view: /api/calltree's call paths from <Total>, each child under
// its caller, hottest first, the hottest path open; a triangle opens or closes a node, a click
// on a row selects its function.
import { state } from '../lib/state.js';
import { api, withRange } from '../lib/api.js';
import { el } from '../lib/dom.js';
import { fmt, pct } from '../lib/format.js';
import { select } from '../lib/router.js';

async function loadCalltree() {
  const err = document.getElementById('calltree-error');
  err.textContent = '';
  let c;
  try {
    // paths below 0.1% of <Total> by the sort metric are left out (counted in pruned)
    c = await api(withRange('calltree?width=1000' + (state.sort ? '&sort=' + encodeURIComponent(state.sort) : '')));
  } catch (e) {
    err.textContent = e.message;
    return;
  }
  const n = c.nodes.parent.length, children = Array.from({ length: n }, () => []);
  for (let i = 1; i < n; i++) children[c.nodes.parent[i]].push(i); // the server's order: hottest first
  const open = new Set();
  for (let i = 0; i < n && children[i].length; i = children[i][0]) open.add(i); // the hottest path
  state.calltree = { data: c, children, open };
  document.getElementById('calltree-pruned').textContent = c.pruned
    ? `${c.pruned} call paths below 0.1% of <Total> (by the sort metric) are left out.` : '';
  renderCalltree();
}

function renderCalltree() {
  const ct = state.calltree, c = ct.data, metrics = state.overview.metrics, table = document.getElementById('calltree');
  const head = el('tr');
  for (const m of metrics) head.append(el('th', { colSpan: 2 }, 'Incl. ' + m.name + (m.unit === 'ns' ? ' (s)' : '')));
  head.append(el('th', { class: 'name' }, 'Name'));
  const body = el('tbody');
  const row = (i, depth) => {
    const fid = c.functions.id[c.nodes.func[i]], name = c.functions.name[c.nodes.func[i]];
    const tr = el('tr', { 'data-node': i, 'data-id': fid, 'data-depth': depth });
    metrics.forEach((m, k) => {
      const v = c.nodes.values[k][i];
      tr.append(el('td', {}, fmt(v, m.unit)), el('td', {}, pct(v, c.nodes.values[k][0])));
    });
    const kids = ct.children[i].length, isOpen = ct.open.has(i);
    const toggle = el('span', { class: 'toggle' }, kids ? (isOpen ? '\u25be' : '\u25b8') : ' ');
    if (kids) {
      tr.classList.add(isOpen ? 'open' : 'closed');
      toggle.addEventListener('click', (ev) => {
        ev.stopPropagation();
        if (ct.open.has(i)) ct.open.delete(i); else ct.open.add(i);
        renderCalltree();
      });
    }
    tr.append(el('td', { class: 'name tree', style: `padding-left: ${depth * 14 + 4}px` }, toggle, el('span', { class: 'fn' }, name)));
    if (state.selected && state.selected.id === fid) tr.classList.add('selected');
    tr.addEventListener('click', () => select(fid, name));
    body.append(tr);
    if (isOpen) for (const k of ct.children[i]) row(k, depth + 1);
  };
  row(0, 0);
  table.replaceChildren(el('thead', {}, head), body);
}

export const view = { name: 'calltree', show: () => (state.calltree ? renderCalltree : loadCalltree)() };
