// heap_chart.js - the live heap chart: a step line per process and, with several, their sum
// (dashed), all on one clock (each process's times shifted by its start_offset_ns after the
// earliest's start); heapstat's peak (the highest process's) marked with a dot and labelled
// with its bytes and time on that clock (also as the canvas's data-peak-* attributes); the
// selected time range shaded (the lines are the whole run's: live memory ignores the time
// selection).  Draws what it is given.
import { el } from '../lib/dom.js';
import { fmt } from '../lib/format.js';

export const HEAP_LEFT = 80, HEAP_RIGHT = 12;
const HEAP_TOP = 22, HEAP_BOTTOM = 20;
const HEAP_COLORS = ['#1f6fb4', '#e07b00', '#2a9d3a', '#8a3fb8', '#b03a48', '#17999a'];

// The lines drawn: each process's, then the sum's when there are several.
function heapLines(live) {
  const x = live.experiments.map((e, i) => ({ e, color: HEAP_COLORS[i % HEAP_COLORS.length], dash: [],
    name: `process ${e.pid} (experiment ${e.experiment_id})` }));
  if (x.length > 1) x.push({ e: live.total, color: '#555', dash: [5, 3], name: 'all processes' });
  return x;
}

function heapLayout(lines, width, height) {
  const span = Math.max(1, ...lines.map((l) => l.e.start_offset_ns + l.e.span_ns));
  const top = Math.max(1, ...lines.map((l) => (l.e.peak ? l.e.peak.bytes : 0)));
  return {
    span, top,
    x: (t) => HEAP_LEFT + (t / span) * (width - HEAP_LEFT - HEAP_RIGHT),
    y: (b) => height - HEAP_BOTTOM - (b / top) * (height - HEAP_TOP - HEAP_BOTTOM),
  };
}

function heapAxes(ctx, lay, width, height) {
  ctx.strokeStyle = '#999';
  ctx.beginPath();
  ctx.moveTo(HEAP_LEFT, HEAP_TOP);
  ctx.lineTo(HEAP_LEFT, height - HEAP_BOTTOM);
  ctx.lineTo(width - HEAP_RIGHT, height - HEAP_BOTTOM);
  ctx.stroke();
  ctx.fillStyle = '#333';
  for (const f of [0, 0.5, 1]) {
    const b = Math.round(lay.top * f), t = lay.span * f;
    ctx.textAlign = 'right';
    ctx.fillText(`${b} B`, HEAP_LEFT - 4, lay.y(b) + 4);
    ctx.textAlign = f === 0 ? 'left' : f === 1 ? 'right' : 'center';
    ctx.fillText(`${fmt(t, 'ns')} s`, lay.x(t), height - 5);
  }
  ctx.textAlign = 'left';
}

// A step line: 0 until its first point, each point's bytes until the next, the last until its end.
function heapLine(ctx, lay, l) {
  const t = l.e.series.t, b = l.e.series.bytes, off = l.e.start_offset_ns;
  ctx.strokeStyle = l.color;
  ctx.setLineDash(l.dash);
  ctx.lineWidth = 1.5;
  ctx.beginPath();
  ctx.moveTo(lay.x(off), lay.y(0));
  let prev = 0;
  for (let i = 0; i < t.length; i++) {
    ctx.lineTo(lay.x(off + t[i]), lay.y(prev));
    ctx.lineTo(lay.x(off + t[i]), lay.y(b[i]));
    prev = b[i];
  }
  ctx.lineTo(lay.x(off + l.e.span_ns), lay.y(prev));
  ctx.stroke();
  ctx.setLineDash([]);
  ctx.lineWidth = 1;
}

// heapstat's peak: a dot on its process's line and a label; its figures as data- attributes.
function heapPeak(ctx, lay, canvas, hl) {
  const e = hl.peak && hl.live.experiments.find((s) => s.experiment_id === hl.peak.experiment_id);
  if (!e || !e.peak) return;
  const t = e.start_offset_ns + e.peak.t, px = lay.x(t), py = lay.y(e.peak.bytes);
  const label = `peak ${e.peak.bytes} B at ${fmt(t, 'ns')} s` +
    (hl.live.experiments.length > 1 ? ` (process ${e.pid}, ${fmt(e.peak.t, 'ns')} s after its start)` : '');
  ctx.fillStyle = '#c00';
  ctx.beginPath();
  ctx.arc(px, py, 4, 0, 2 * Math.PI);
  ctx.fill();
  const lw = ctx.measureText(label).width;
  ctx.fillText(label, Math.max(HEAP_LEFT + 2, Math.min(px + 6, canvas.width - HEAP_RIGHT - lw)), Math.max(12, py - 6));
  Object.assign(canvas.dataset, { peakBytes: e.peak.bytes, peakT: e.peak.t, peakX: Math.round(px), peakY: Math.round(py), peakLabel: label });
}

// Draw hl ({live, peak}: /api/heap's, or null: an empty chart) on canvas, sized to it, with
// range shaded and, with several processes, a legend entry per line in legend.
export function drawHeapChart(canvas, legend, hl, range) {
  const width = canvas.clientWidth || 800, height = canvas.height;
  canvas.width = width;
  const ctx = canvas.getContext('2d');
  ctx.clearRect(0, 0, width, height);
  for (const k of ['series', 'peakBytes', 'peakT', 'peakX', 'peakY', 'peakLabel']) delete canvas.dataset[k];
  legend.replaceChildren();
  if (!hl || !hl.live) return;
  const lines = heapLines(hl.live), lay = heapLayout(lines, width, height);
  ctx.font = '12px monospace';
  if (range) {
    const a = lay.x(Math.min(range.t0, lay.span)), b = lay.x(Math.min(range.t1, lay.span));
    ctx.fillStyle = 'rgba(40, 110, 220, 0.15)';
    ctx.fillRect(a, HEAP_TOP, Math.max(b - a, 1), height - HEAP_TOP - HEAP_BOTTOM);
  }
  heapAxes(ctx, lay, width, height);
  for (const l of lines) heapLine(ctx, lay, l);
  if (lines.length > 1)
    legend.append(...lines.map((l) => el('span', { style: `color: ${l.color}`, 'data-pid': l.e.pid || '' },
      `\u25a0 ${l.name}, peak ${l.e.peak ? l.e.peak.bytes : 0} B `)));
  canvas.dataset.series = String(hl.live.experiments.length);
  heapPeak(ctx, lay, canvas, hl);
}
