// dom.js - building the page's elements: el() makes one, dataTable() fills a table.
// Text goes in as text, never as markup.

// An element: attrs' "class" is its class, "onEVENT" a listener, any other an attribute.
export function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}

// table's head (titles, the last one a name column) and rows ({attrs, cells}).
export function dataTable(table, titles, rows) {
  const head = el('tr');
  titles.forEach((t, i) => head.append(el('th', i === titles.length - 1 ? { class: 'name' } : {}, t)));
  const body = el('tbody');
  for (const r of rows) {
    const tr = el('tr', r.attrs || {});
    r.cells.forEach((c, i) => tr.append(el('td', i === r.cells.length - 1 ? { class: 'name' } : {}, String(c))));
    body.append(tr);
  }
  table.replaceChildren(el('thead', {}, head), body);
}
