// flame.js - the flame graph on its canvas: one row of ROW pixels per call depth, each node as
// wide as its value, its children left to right under it; the zoomed node and its ancestors
// span the width.  Draws what it is given, asks the server nothing.
import { hash } from '../lib/format.js';

export const ROW = 18;

// The colour of each function name: warm hues, the same name the same colour.
export function flameColors(names) {
  return names.map((s) => { const h = hash(s); return `hsl(${20 + (h % 40)}, 80%, ${55 + (h % 20)}%)`; });
}

// Draw fl ({data: /api/flame's reply, children, name(i), colors, zoom: a node}) on canvas,
// sized to it; returns the rectangles drawn, {i: node, x, y, w}.
export function drawFlameGraph(canvas, fl) {
  const f = fl.data;
  const width = canvas.clientWidth || 800;
  const rects = [];
  const value = f.nodes.value, zoomValue = value[fl.zoom] || 1;
  // the zoomed node's ancestors, full width above it
  const chain = [];
  for (let i = fl.zoom; ; i = f.nodes.parent[i]) { chain.unshift(i); if (i === 0) break; }
  let maxDepth = chain.length;
  const scale = width / zoomValue;
  const place = (i, x, depth) => {
    const w = value[i] * scale;
    if (w < 0.5) return; // sub-pixel: neither drawn nor its children
    rects.push({ i, x, y: depth * ROW, w });
    if (depth + 1 > maxDepth) maxDepth = depth + 1;
    let cx = x;
    for (const c of fl.children[i]) { place(c, cx, depth + 1); cx += value[c] * scale; }
  };
  chain.slice(0, -1).forEach((i, d) => rects.push({ i, x: 0, y: d * ROW, w: width }));
  place(fl.zoom, 0, chain.length - 1);
  canvas.width = width;
  canvas.height = Math.max(100, maxDepth * ROW + 2);
  const ctx = canvas.getContext('2d');
  ctx.font = '12px monospace';
  for (const r of rects) {
    ctx.fillStyle = fl.colors[f.nodes.func[r.i]];
    ctx.fillRect(r.x, r.y, Math.max(r.w - 1, 1), ROW - 1);
  }
  ctx.fillStyle = '#000';
  for (const r of rects) {
    if (r.w <= 30) continue;
    const s = fl.name(r.i), room = Math.floor((r.w - 6) / 7.3); // monospace 12px: about 7.2 px a character
    ctx.fillText(s.length > room ? s.slice(0, Math.max(room - 1, 0)) + '\u2026' : s, r.x + 3, r.y + 13);
  }
  return rects;
}

// The rectangle of rects under the pointer of ev on canvas, or undefined.
export function flameHit(canvas, rects, ev) {
  const b = canvas.getBoundingClientRect();
  const x = ((ev.clientX - b.left) * canvas.width) / b.width, y = ((ev.clientY - b.top) * canvas.height) / b.height;
  const row = Math.floor(y / ROW);
  return (rects || []).find((r) => r.y === row * ROW && x >= r.x && x < r.x + r.w);
}
