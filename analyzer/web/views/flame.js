// flame.js - the Flame Graph view: /api/flame's graph of the chosen metric (inverted or not),
// drawn by analyzer/web/render/flame.js; a click on a frame selects its function and zooms
// into it (the server then sends the detail under it), the pointer names the frame under it.
import { state } from '../lib/state.js';
import { api, withRange } from '../lib/api.js';
import { el } from '../lib/dom.js';
import { fmt, pct } from '../lib/format.js';
import { select } from '../lib/router.js';
import { drawFlameGraph, flameColors, flameHit } from '../render/flame.js';

let seq = 0; // the latest request's number: an earlier reply is dropped

// The flame graph of the chosen metric, pruned by the server to the canvas width (nodes narrower
// than a pixel are left out; their time stays in their parent's) and rooted at the call path
// root (function ids below <Total>), so that a zoom asks for the detail under the node it shows.
export async function loadFlame(root) {
  const metric = document.getElementById('flame-metric').value;
  const inverted = document.getElementById('flame-inverted').checked;
  const width = document.getElementById('flame-canvas').clientWidth || 800;
  const mine = ++seq;
  const q = `flame?metric=${encodeURIComponent(metric)}&inverted=${inverted ? 1 : 0}&width=${width}`;
  let f;
  try {
    f = await api(withRange(q + (root && root.length ? '&root=' + root.join(',') : '')));
  } catch (e) {
    if (!root || !root.length) throw e;
    f = await api(withRange(q)); // the path is not in this range's graph: the whole graph
  }
  if (mine !== seq) return; // a later request superseded this one
  const n = f.nodes.parent.length;
  const children = Array.from({ length: n }, () => []);
  for (let i = 1; i < n; i++) children[f.nodes.parent[i]].push(i);
  const names = f.functions.name, func = f.nodes.func;
  const name = (i) => names[func[i]];
  for (const c of children) c.sort((a, b) => (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : a - b));
  const colors = flameColors(names);
  state.flame = { data: f, children, name, colors, zoom: f.root, unit: state.overview.metrics.find((m) => m.keyword === metric).unit };
  drawFlame();
}

function depthOf(i) {
  let d = 0;
  for (const p = state.flame.data.nodes.parent; i !== 0; i = p[i]) d++;
  return d;
}

export function drawFlame() {
  const t0 = performance.now();
  const fl = state.flame, f = fl.data, canvas = document.getElementById('flame-canvas');
  fl.rects = drawFlameGraph(canvas, fl);
  document.getElementById('flame-zoom').textContent = fl.zoom === 0 ? 'Zoom: all' : 'Zoom: ' + fl.name(fl.zoom);
  document.getElementById('flame-pruned').textContent = f.pruned ? `(${f.pruned} call paths narrower than a pixel left out)` : '';
  canvas.dataset.zoom = fl.name(fl.zoom);
  canvas.dataset.depth = String(depthOf(fl.zoom));
  canvas.dataset.drawMs = (performance.now() - t0).toFixed(2);
}

// The call path of node i: the function ids from <Total>'s child down to it.
function flamePath(i) {
  const f = state.flame.data, path = [];
  for (; i !== 0; i = f.nodes.parent[i]) path.unshift(f.functions.id[f.nodes.func[i]]);
  return path;
}

function hit(ev) {
  return flameHit(document.getElementById('flame-canvas'), state.flame.rects, ev);
}

function flameClick(ev) {
  const r = state.flame && hit(ev);
  if (!r) return;
  const fl = state.flame, f = fl.data;
  if (r.i !== 0) select(f.functions.id[f.nodes.func[r.i]], fl.name(r.i));
  if (r.i === fl.zoom) return;
  fl.zoom = r.i;
  drawFlame(); // from the nodes held, then the detail under it from the server
  loadFlame(flamePath(r.i));
}

function flameHover(ev) {
  const r = state.flame && hit(ev), out = document.getElementById('flame-hover');
  if (!r) { out.textContent = ''; return; }
  const v = state.flame.data.nodes.value[r.i], total = state.flame.data.nodes.value[0];
  out.textContent = `${state.flame.name(r.i)}: ${fmt(v, state.flame.unit)} (${pct(v, total)}%)`;
}

function init() {
  const sel = document.getElementById('flame-metric');
  // a ratio (IPC) is no quantity to add up along stacks: the flame graph refuses it
  for (const m of state.overview.metrics) if (m.unit !== 'ratio_x1000') sel.append(el('option', { value: m.keyword }, m.name));
  sel.addEventListener('change', () => loadFlame());
  document.getElementById('flame-inverted').addEventListener('change', () => loadFlame());
  document.getElementById('flame-reset').addEventListener('click', () => {
    if (!state.flame || state.flame.zoom === 0) return;
    state.flame.zoom = 0;
    drawFlame();
    loadFlame();
  });
  const canvas = document.getElementById('flame-canvas');
  canvas.addEventListener('click', flameClick);
  canvas.addEventListener('mousemove', flameHover);
}

export const view = { name: 'flame', init, show: () => (state.flame ? drawFlame : loadFlame)() };
