// timeline.js - the Timeline view: the clock samples of every thread on one time axis
// (analyzer/web/render/timeline.js draws them).  A drag selects the time range every view
// shows; the wheel, +/- and the buttons zoom, shift-drag, shift-wheel and the arrow keys pan,
// and the server then sends the marks of the window shown.
import { state } from '../lib/state.js';
import { api, withFilter } from '../lib/api.js';
import { fmt } from '../lib/format.js';
import { setRange } from '../lib/router.js';
import { GUTTER, drawTimelineCanvas, markColors, xTime } from '../render/timeline.js';

// The timeline request of the view [v0, v1) (ns on the run's time base) at the canvas's
// resolution: at most 2 marks per lane and pixel.
function timelineQuery(v) {
  const canvas = document.getElementById('timeline-canvas');
  const px = Math.max(100, (canvas.clientWidth || 800) - GUTTER);
  return withFilter(`timeline?metric=totalcpu&width=${px}&per_px=2` + (v ? `&v0=${v.v0}&v1=${v.v1}` : ''));
}

async function loadTimeline() {
  // the whole run (the range is drawn over it)
  const t = await api(timelineQuery(null));
  // with heap tracing, the peak of live heap (heapstat's) is marked in its process's lanes
  const heap = state.overview.experiments.some((x) => x.heap_tracing) ? (await api(withFilter('heap?limit=1'))).peak : null;
  const colors = markColors(t.functions.name);
  state.timeline = { data: t, colors, detail: null, drag: null, pan: null, peak: heap, view: { v0: 0, v1: Math.max(t.duration_ns, 1) } };
  drawTimeline();
}

export function drawTimeline() {
  const t0 = performance.now();
  const tl = state.timeline, t = tl.data, canvas = document.getElementById('timeline-canvas');
  const { marks: m, layout: lay } = drawTimelineCanvas(canvas, tl, state.range);
  const v = tl.view;
  const drawn = m.data.events.t.length, total = m.data.events_total;
  document.getElementById('timeline-count').textContent = drawn < total
    ? `${drawn} of ${total} samples drawn (at most 2 per pixel and lane)` : `${total} samples`;
  document.getElementById('timeline-view').textContent = v.v0 === 0 && v.v1 >= t.duration_ns ? 'the whole run'
    : `${fmt(v.v0, 'ns')} s to ${fmt(v.v1, 'ns')} s`;
  canvas.dataset.processes = lay.labels.map((p) => p.text).join('|');
  canvas.dataset.view = `${v.v0},${v.v1}`;
  canvas.dataset.detail = m.data === t ? '' : `${m.data.view.v0},${m.data.view.v1}`;
  canvas.dataset.drawMs = (performance.now() - t0).toFixed(2);
}

// Show [v0, v1) of the run (clamped to it, at least 1 us): drawn at once from the marks held,
// then with the detail of that window once the server sends it.
function setView(v0, v1) {
  const tl = state.timeline, d = Math.max(tl.data.duration_ns, 1);
  let span = Math.max(1000, Math.min(d, v1 - v0));
  v0 = Math.max(0, Math.min(d - span, v0));
  tl.view = { v0: Math.round(v0), v1: Math.round(v0 + span) };
  drawTimeline();
  clearTimeout(tl.timer);
  if (tl.view.v0 === 0 && tl.view.v1 >= d) { tl.detail = null; return; }
  tl.timer = setTimeout(async () => {
    const want = tl.view, seq = (tl.seq = (tl.seq || 0) + 1);
    let t;
    try {
      t = await api(timelineQuery(want));
    } catch (e) {
      document.getElementById('timeline-count').textContent = 'Error: ' + e.message; // the marks held stay
      return;
    }
    if (seq !== tl.seq || state.timeline !== tl) return;
    tl.detail = { data: t, view: t.view, colors: markColors(t.functions.name) };
    drawTimeline();
  }, 80);
}

// Zoom by factor (< 1: in) around time at.
function zoomView(factor, at) {
  const v = state.timeline.view, span = (v.v1 - v.v0) * factor;
  const a = at === undefined ? (v.v0 + v.v1) / 2 : at, f = (a - v.v0) / (v.v1 - v.v0);
  setView(a - f * span, a - f * span + span);
}

function panView(dt) {
  const v = state.timeline.view;
  setView(v.v0 + dt, v.v1 + dt);
}

function canvasX(ev) {
  const canvas = document.getElementById('timeline-canvas'), b = canvas.getBoundingClientRect();
  return ((ev.clientX - b.left) * canvas.width) / b.width;
}

function timelineDown(ev) {
  const tl = state.timeline;
  if (!tl) return;
  const w = document.getElementById('timeline-canvas').width, x = canvasX(ev);
  if (ev.shiftKey || document.getElementById('timeline-pan').checked) tl.pan = { x0: x, view: tl.view }; // pan
  else tl.drag = { t0: xTime(tl.view, x, w), t1: xTime(tl.view, x, w), x0: x }; // select a range
}

function timelineMove(ev) {
  const tl = state.timeline, w = document.getElementById('timeline-canvas').width;
  if (!tl) return;
  const t = xTime(tl.view, canvasX(ev), w);
  document.getElementById('timeline-hover').textContent = `${fmt(t, 'ns')} s`;
  if (tl.pan) {
    const v = tl.pan.view, dt = ((canvasX(ev) - tl.pan.x0) / (w - GUTTER)) * (v.v1 - v.v0);
    setView(v.v0 - dt, v.v1 - dt);
  } else if (tl.drag) {
    tl.drag.t1 = t;
    drawTimeline();
  }
}

function timelineUp(ev) {
  const tl = state.timeline, d = tl && tl.drag;
  if (tl) tl.pan = null;
  if (!d) return;
  tl.drag = null;
  if (Math.abs(canvasX(ev) - d.x0) < 3) setRange(null); // a click: the whole run again
  else setRange({ t0: Math.min(d.t0, d.t1), t1: Math.max(d.t0, d.t1) + 1 });
}

function timelineWheel(ev) {
  if (!state.timeline) return;
  ev.preventDefault();
  const w = document.getElementById('timeline-canvas').width, x = canvasX(ev);
  if (ev.shiftKey) panView((ev.deltaY / 1000) * (state.timeline.view.v1 - state.timeline.view.v0));
  else zoomView(ev.deltaY < 0 ? 0.8 : 1.25, x >= GUTTER ? xTime(state.timeline.view, x, w) : undefined);
}

function timelineKey(ev) {
  if (!state.timeline) return;
  const v = state.timeline.view, step = (v.v1 - v.v0) / 10;
  const keys = { ArrowLeft: () => panView(-step), ArrowRight: () => panView(step), '+': () => zoomView(0.8),
    '=': () => zoomView(0.8), '-': () => zoomView(1.25), '0': () => setView(0, state.timeline.data.duration_ns) };
  if (keys[ev.key]) { ev.preventDefault(); keys[ev.key](); }
}

function init() {
  const tc = document.getElementById('timeline-canvas');
  tc.addEventListener('mousedown', timelineDown);
  tc.addEventListener('mousemove', timelineMove);
  tc.addEventListener('wheel', timelineWheel, { passive: false });
  tc.addEventListener('keydown', timelineKey);
  document.getElementById('timeline-in').addEventListener('click', () => state.timeline && zoomView(0.5));
  document.getElementById('timeline-out').addEventListener('click', () => state.timeline && zoomView(2));
  document.getElementById('timeline-reset').addEventListener('click', () => state.timeline && setView(0, state.timeline.data.duration_ns));
  window.addEventListener('mouseup', (ev) => state.timeline && timelineUp(ev));
}

export const view = {
  name: 'timeline',
  init,
  show: () => (state.timeline ? drawTimeline : loadTimeline)(),
  onRange: () => { if (state.timeline) drawTimeline(); },
};
