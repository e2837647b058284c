// format.js - numbers and titles as er_print prints them, and a name's colour seed.

// A value in its unit: seconds with 3 decimals for ns (as er_print), a ratio (IPC) with 3, else an integer.
export function fmt(v, unit) {
  if (unit === 'ns') return (v / 1e9).toFixed(3);
  if (unit === 'ratio_x1000') return (v / 1000).toFixed(3);
  return String(v);
}

export function pct(v, total) {
  return total ? (100 * v / total).toFixed(2) : '0.00';
}

// A column's heading (the columns of docs/json-schema.md#tables, with the analyzer's "spec"
// and "name"): "Excl. Total CPU Time (s)", "size".
export function colTitle(c) {
  if (c.unit === 'text') return c.spec;
  const f = { e: 'Excl.', i: 'Incl.', a: 'Attr.' }[c.key[0]];
  return `${f} ${c.name}` + (c.unit === 'ns' ? ' (s)' : '');
}

// Whether a column shows a percentage (its "total" is their 100%).
export function hasPercent(c) {
  return 'total' in c;
}

// A string's hash: the same function has the same colour in every drawing.
export function hash(s) {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) >>> 0;
  return h;
}
