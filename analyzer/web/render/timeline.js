// timeline.js - the timeline on its canvas: a lane of LANE pixels per thread, a label row of
// PROC pixels above each process's lanes when there are several, the lanes' names in a gutter
// of GUTTER pixels; each clock sample a mark coloured by its function, heapstat's peak a red
// line, the time range (or the one being dragged) shaded.  Draws what it is given.
import { hash } from '../lib/format.js';

export const LANE = 22, PROC = 16, GUTTER = 110;

// The colour of each function name: any hue, the same name the same colour.
export function markColors(names) {
  return names.map((s) => `hsl(${hash(s) % 360}, 65%, 50%)`);
}

// The x of time t in view v ({v0, v1}: ns on the run's time base) on a canvas width wide, and back.
export function timeX(v, t, width) {
  return GUTTER + ((t - v.v0) / (v.v1 - v.v0)) * (width - GUTTER);
}

export function xTime(v, x, width) {
  return Math.max(v.v0, Math.min(v.v1, Math.round(v.v0 + ((x - GUTTER) / (width - GUTTER)) * (v.v1 - v.v0))));
}

// The timeline's rows: with several processes, a label row above each process's thread lanes.
function timelineLayout(t) {
  const many = new Set(t.lanes.map((l) => l.experiment_id)).size > 1;
  const laneY = [], labels = [];
  let y = 0, prev = null;
  t.lanes.forEach((l, i) => {
    if (many && l.experiment_id !== prev) {
      labels.push({ y, text: `process ${l.pid} (experiment ${l.experiment_id})`, experiment: l.experiment_id, start: l.start_ns });
      y += PROC;
    }
    prev = l.experiment_id;
    laneY[i] = y;
    y += LANE;
  });
  return { laneY, labels, height: y };
}

// The marks of the view: the detail asked for it once it came, else the whole run's.
function timelineMarks(tl) {
  const d = tl.detail, v = tl.view;
  return d && d.view.v0 <= v.v0 && d.view.v1 >= v.v1 ? d : { data: tl.data, colors: tl.colors };
}

// Draw tl ({data: the whole run's /api/timeline, colors, view, detail: the view's marks or
// null, peak: heapstat's or null, drag: the range being dragged or null}) on canvas, sized to
// it, range shaded when nothing is dragged; tl.layout keeps the rows.  Returns the marks drawn
// ({data, colors}) and the layout.
export function drawTimelineCanvas(canvas, tl, range) {
  const t = tl.data;
  const width = canvas.clientWidth || 800;
  const lay = tl.layout || (tl.layout = timelineLayout(t));
  canvas.width = width;
  canvas.height = Math.max(60, lay.height + 4);
  const ctx = canvas.getContext('2d');
  ctx.font = '12px monospace';
  for (const p of lay.labels) {
    ctx.fillStyle = '#2d3e50';
    ctx.fillRect(0, p.y, width, PROC);
    ctx.fillStyle = '#fff';
    ctx.fillText(p.text, 4, p.y + 12);
    const x = timeX(tl.view, p.start, width); // where the process started
    if (x >= GUTTER && x <= width) ctx.fillRect(x, p.y + 2, 1, PROC - 4);
  }
  t.lanes.forEach((l, i) => {
    ctx.fillStyle = i % 2 ? '#f7f9fb' : '#eef1f5';
    ctx.fillRect(0, lay.laneY[i], width, LANE);
  });
  const m = timelineMarks(tl), e = m.data.events, v = tl.view, scale = (width - GUTTER) / (v.v1 - v.v0);
  const mw = Math.max(1, Math.min(4, (m.data === t ? t.duration_ns / (v.v1 - v.v0) : 1) * 2));
  for (let k = 0; k < e.t.length; k++) {
    const x = e.t[k];
    if (x < v.v0 || x >= v.v1) continue;
    ctx.fillStyle = m.colors[e.leaf[k]];
    ctx.fillRect(GUTTER + (x - v.v0) * scale, lay.laneY[e.lane[k]] + 3, mw, LANE - 6);
  }
  ctx.fillStyle = '#fff'; // the gutter over marks, then the lane names
  ctx.fillRect(0, 0, GUTTER, canvas.height);
  t.lanes.forEach((l, i) => {
    ctx.fillStyle = i % 2 ? '#f7f9fb' : '#eef1f5';
    ctx.fillRect(0, lay.laneY[i], GUTTER, LANE);
    ctx.fillStyle = '#000';
    ctx.fillText(`T${l.thread} ${l.tid}`, 4, lay.laneY[i] + 15);
  });
  for (const p of lay.labels) {
    ctx.fillStyle = '#2d3e50';
    ctx.fillRect(0, p.y, GUTTER, PROC);
    ctx.fillStyle = '#fff';
    ctx.fillText(p.text, 4, p.y + 12);
  }
  if (tl.peak) { // heapstat's time is its experiment's: on the run's base from that process's start
    const lane = t.lanes.find((l) => l.experiment_id === tl.peak.experiment_id), at = tl.peak.t_ns + (lane ? lane.start_ns : 0);
    const x = timeX(v, at, width), ys = t.lanes.map((l, i) => (l.experiment_id === tl.peak.experiment_id ? lay.laneY[i] : -1)).filter((y) => y >= 0);
    ctx.fillStyle = '#c00';
    if (x >= GUTTER && x <= width) {
      for (const y of ys) ctx.fillRect(x - 1, y, 2, LANE);
      if (ys.length) ctx.fillText(`heap peak ${tl.peak.bytes} B`, Math.min(x + 4, width - 140), ys[0] + 15);
    }
    canvas.dataset.peak = String(tl.peak.t_ns);
  }
  const r = tl.drag || range;
  if (r) {
    const a = Math.max(GUTTER, timeX(v, Math.min(r.t0, r.t1), width)), b = Math.min(width, timeX(v, Math.max(r.t0, r.t1), width));
    ctx.fillStyle = 'rgba(40, 110, 220, 0.2)';
    if (b >= a) ctx.fillRect(a, 0, Math.max(b - a, 1), canvas.height);
  }
  return { marks: m, layout: lay };
}
