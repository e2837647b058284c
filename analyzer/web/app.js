// app.js - the analyzer's page: every figure comes from the server's JSON API
// (/api/...), computed by libanalysis; this file only lays it out.
'use strict';

const state = {
  overview: null,   // /api/overview
  selected: null,   // {id, name}: the selected function, shared by all views
  view: 'overview',
  metrics: '',      // the Functions view's metric list (er_print syntax)
  sort: '',         // its sort item
  functions: null,  // /api/functions
  calltree: null,   // /api/calltree, its children lists and the open nodes
  flame: null,      // /api/flame and its layout
  timeline: null,   // /api/timeline (the whole run) and its layout
  range: null,      // {t0, t1}: the time range every view shows (ns), or null: the whole run
  filter: '',       // the filter expression every view shows (er_print's filters), '' for none
  compare: null,    // /api/compare
};

// path with the filter when there is one
function withFilter(path) {
  if (!state.filter) return path;
  return path + (path.includes('?') ? '&' : '?') + 'filter=' + encodeURIComponent(state.filter);
}

// path with the filter and the time range's t0 and t1 when one is selected
function withRange(path) {
  path = withFilter(path);
  if (!state.range) return path;
  return path + (path.includes('?') ? '&' : '?') + `t0=${state.range.t0}&t1=${state.range.t1}`;
}

async function api(path) {
  const r = await fetch('/api/' + path, { credentials: 'same-origin' });
  const j = await r.json();
  if (!r.ok) throw new Error(j.error || r.statusText);
  return j;
}

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}

// A value in its unit: seconds with 3 decimals for ns (as er_print), a ratio (IPC) with 3, else an integer.
function fmt(v, unit) {
  if (unit === 'ns') return (v / 1e9).toFixed(3);
  if (unit === 'ratio_x1000') return (v / 1000).toFixed(3);
  return String(v);
}
function pct(v, total) {
  return total ? (100 * v / total).toFixed(2) : '0.00';
}

function select(id, name) {
  state.selected = { id, name };
  document.getElementById('selected').textContent = name;
  for (const tr of document.querySelectorAll('#functions tr[data-id]'))
    tr.classList.toggle('selected', Number(tr.dataset.id) === id);
  if (state.view === 'callers') showCallers();
  if (state.view === 'source' || state.view === 'disasm') showCode(state.view);
}

// ------------------------------------------------------------ overview
function showOverview() {
  const o = state.overview, box = document.getElementById('overview');
  box.replaceChildren();
  for (const x of o.experiments) {
    const dl = el('dl');
    const add = (k, v) => dl.append(el('dt', {}, k), el('dd', {}, String(v)));
    add('Experiment', x.path);
    add('Target', (x.argv || []).join(' '));
    add('Host', `${x.host} (${x.cpus} CPUs, ${x.os} ${x.release}, ${x.arch})`);
    add('Duration', fmt(x.duration_ns, 'ns') + ' s');
    add('Clock profiling', `${x.clock_profiling}, ${x.clock_interval_us} us`);
    add('Heap tracing', x.heap_tracing ? 'on' : 'off');
    add('I/O tracing', x.io_tracing ? 'on' : 'off');
    add('CPU recorded', fmt(x.statistics.cpu_recorded_ns, 'ns') + ' s');
    add('Samples', `${x.statistics.samples_recorded} recorded, ${x.statistics.samples_dropped} dropped`);
    for (const w of x.warnings.concat(x.problems, x.errors)) add('Warning', w);
    box.append(el('h2', {}, `Experiment ${x.id}`), dl);
  }
  const t = el('table', { class: 'data', id: 'metric-registry' },
    el('tr', {}, el('th', { class: 'name' }, 'Metric'), el('th', { class: 'name' }, 'Name'),
      el('th', { class: 'name' }, 'Unit'), el('th', { class: 'name' }, 'Flavors')));
  for (const m of o.metrics)
    t.append(el('tr', {}, el('td', { class: 'name' }, m.keyword), el('td', { class: 'name' }, m.name),
      el('td', { class: 'name' }, m.unit), el('td', { class: 'name' }, m.flavors)));
  box.append(el('h2', {}, 'Metrics'), t);
  box.append(el('h2', {}, 'Metrics of the Functions view'),
    el('p', {}, 'Each metric exclusive (its own) or inclusive (with its callees), as a value and/or a percentage of <Total>; ' +
      'the list is er_print\'s metric list syntax.'),
    el('table', { class: 'data', id: 'metric-chooser' }),
    el('p', {}, el('code', { id: 'chooser-spec' }), ' ', el('button', { id: 'chooser-apply' }, 'Show in Functions')));
  document.getElementById('chooser-apply').addEventListener('click', () => {
    state.metrics = chooserSpec();
    document.getElementById('metrics').value = state.metrics;
    state.functions = null;
    show('functions');
  });
  renderChooser();
}

// The chooser's boxes: per metric, flavor e and i, value and percent; checked as the current list shows.
const CHOICES = [['e', 'value', 'Excl.'], ['e', 'percent', 'Excl. %'], ['i', 'value', 'Incl.'], ['i', 'percent', 'Incl. %']];

function renderChooser() {
  const t = document.getElementById('metric-chooser');
  if (!t || !state.overview) return;
  const cols = state.functions ? state.functions.columns : [];
  const head = el('tr', {}, el('th', { class: 'name' }, 'Metric'));
  for (const [, , title] of CHOICES) head.append(el('th', {}, title));
  const body = el('tbody');
  for (const m of state.overview.metrics) {
    const tr = el('tr', { 'data-keyword': m.keyword }, el('td', { class: 'name' }, m.name));
    for (const [flavor, what] of CHOICES) {
      const td = el('td');
      if (m.flavors.includes(flavor)) {
        const c = cols.find((x) => x.keyword === m.keyword && x.flavor === flavor);
        const box = el('input', { type: 'checkbox', 'data-flavor': flavor, 'data-what': what });
        box.checked = !!(c && c[what]);
        box.addEventListener('change', () => { document.getElementById('chooser-spec').textContent = chooserSpec(); });
        td.append(box);
      }
      tr.append(td);
    }
    body.append(tr);
  }
  t.replaceChildren(el('thead', {}, head), body);
  document.getElementById('chooser-spec').textContent = chooserSpec();
}

// The chooser's boxes as an er_print metric list ("e.%totalcpu:i.totalcpu:name").
function chooserSpec() {
  const items = [];
  for (const tr of document.querySelectorAll('#metric-chooser tbody tr'))
    for (const flavor of ['e', 'i']) {
      const on = (what) => { const b = tr.querySelector(`input[data-flavor="${flavor}"][data-what="${what}"]`); return b && b.checked; };
      const vis = (on('value') ? '.' : '') + (on('percent') ? '%' : '');
      if (vis) items.push(flavor + vis + tr.dataset.keyword);
    }
  return items.concat('name').join(':');
}

// ------------------------------------------------------------ functions
function colTitle(c) {
  if (c.flavor === 's') return c.keyword;
  const f = { e: 'Excl.', i: 'Incl.', a: 'Attr.' }[c.flavor];
  return `${f} ${c.name}` + (c.unit === 'ns' ? ' (s)' : '');
}

async function loadFunctions() {
  const err = document.getElementById('functions-error');
  let filter;
  err.textContent = '';
  try {
    const q = new URLSearchParams();
    if (state.metrics) q.set('metrics', state.metrics);
    if (state.sort) q.set('sort', state.sort);
    filter = state.filter;
    state.functions = await api(withRange('functions?' + q));
  } catch (e) {
    err.textContent = e.message;
    return;
  }
  state.metrics = state.functions.metrics;
  if (state.sort !== state.functions.sort) state.calltree = null; // ordered by the sort metric
  state.sort = state.functions.sort;
  document.getElementById('metrics').value = state.metrics;
  document.getElementById('functions').dataset.filter = filter; // the filter the list is of
  renderFunctions();
  renderChooser();
}

function renderFunctions() {
  const f = state.functions, table = document.getElementById('functions');
  const needle = document.getElementById('search').value.toLowerCase();
  const head = el('tr');
  f.columns.forEach((c) => {
    const sortKey = c.flavor === 's' ? c.keyword : c.flavor + '.' + c.keyword;
    const th = el('th', { title: 'sort by ' + sortKey, 'data-sort': sortKey }, colTitle(c));
    if (sortKey === state.sort) th.classList.add('sorted');
    th.addEventListener('click', () => { state.sort = sortKey; loadFunctions(); });
    if (c.percent) th.colSpan = c.value ? 2 : 1;
    head.append(th);
  });
  const nameTh = el('th', { class: 'name', 'data-sort': 'name' }, 'Name');
  if (state.sort === 'name') nameTh.classList.add('sorted');
  nameTh.addEventListener('click', () => { state.sort = 'name'; loadFunctions(); });
  head.append(nameTh);
  const body = el('tbody');
  let shown = 0;
  for (const row of f.rows) {
    if (needle && row.id !== 0 && !row.name.toLowerCase().includes(needle)) continue;
    if (row.id !== 0) shown++; // <Total> is not one of the functions counted
    const tr = el('tr', { 'data-id': row.id });
    f.columns.forEach((c, i) => {
      const v = row.values[i];
      if (c.flavor === 's') tr.append(el('td', {}, c.keyword === 'address' ? '0x' + v.toString(16) : String(v)));
      else {
        if (c.value) tr.append(el('td', {}, fmt(v, c.unit)));
        if (c.percent) tr.append(el('td', {}, pct(v, c.total)));
      }
    });
    tr.append(el('td', { class: 'name' }, row.name));
    if (state.selected && state.selected.id === row.id) tr.classList.add('selected');
    tr.addEventListener('click', () => select(row.id, row.name));
    body.append(tr);
  }
  table.replaceChildren(el('thead', {}, head), body);
  document.getElementById('functions-count').textContent = `${shown} of ${f.rows.length - 1} functions`;
}

// ------------------------------------------------------------ callers-callees
function attrTable(table, rows, base) {
  const metrics = state.overview.metrics;
  const head = el('tr');
  for (const m of metrics) head.append(el('th', { colSpan: 2 }, 'Attr. ' + m.name));
  head.append(el('th', { class: 'name' }, 'Name'));
  const body = el('tbody');
  for (const r of rows) {
    const tr = el('tr', { 'data-id': r.id });
    metrics.forEach((m, i) => {
      tr.append(el('td', {}, fmt(r.values[i], m.unit)), el('td', {}, pct(r.values[i], base[i])));
    });
    tr.append(el('td', { class: 'name' }, r.name));
    tr.addEventListener('click', () => select(r.id, r.name));
    body.append(tr);
  }
  table.replaceChildren(el('thead', {}, head), body);
}

async function showCallers() {
  const empty = document.getElementById('callers-empty');
  if (!state.selected) {
    empty.style.display = '';
    return;
  }
  empty.style.display = 'none';
  const c = await api(withRange('callers?func=' + state.selected.id + (state.sort ? '&sort=' + encodeURIComponent(state.sort) : '')));
  const base = c.function.base;
  attrTable(document.getElementById('callers'), c.callers.map((e) => ({ id: e.id, name: e.name, values: e.attributed })), base);
  attrTable(document.getElementById('callers-self'),
    [{ id: c.function.id, name: c.function.name, values: c.function.exclusive }], base);
  attrTable(document.getElementById('callees'), c.callees.map((e) => ({ id: e.id, name: e.name, values: e.attributed })), base);
}

// ------------------------------------------------------------ call tree
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

// ------------------------------------------------------------ flame graph
const ROW = 18;

// The flame graph of the chosen metric, pruned by the server to the canvas width (nodes narrower
// than a pixel are left out; their time stays in their parent's) and rooted at the call path
// root (function ids below <Total>), so that a zoom asks for the detail under the node it shows.
async function loadFlame(root) {
  const metric = document.getElementById('flame-metric').value;
  const inverted = document.getElementById('flame-inverted').checked;
  const width = document.getElementById('flame-canvas').clientWidth || 800;
  const seq = (loadFlame.seq = (loadFlame.seq || 0) + 1);
  const q = `flame?metric=${encodeURIComponent(metric)}&inverted=${inverted ? 1 : 0}&width=${width}`;
  let f;
  try {
    f = await api(withRange(q + (root && root.length ? '&root=' + root.join(',') : '')));
  } catch (e) {
    if (!root || !root.length) throw e;
    f = await api(withRange(q)); // the path is not in this range's graph: the whole graph
  }
  if (seq !== loadFlame.seq) return; // a later request superseded this one
  const n = f.nodes.parent.length;
  const children = Array.from({ length: n }, () => []);
  for (let i = 1; i < n; i++) children[f.nodes.parent[i]].push(i);
  const names = f.functions.name, func = f.nodes.func;
  const name = (i) => names[func[i]];
  for (const c of children) c.sort((a, b) => (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : a - b));
  const colors = names.map((s) => { const h = hash(s); return `hsl(${20 + (h % 40)}, 80%, ${55 + (h % 20)}%)`; });
  state.flame = { data: f, children, name, colors, zoom: f.root, unit: state.overview.metrics.find((m) => m.keyword === metric).unit };
  drawFlame();
}

function depthOf(i) {
  let d = 0;
  for (const p = state.flame.data.nodes.parent; i !== 0; i = p[i]) d++;
  return d;
}

function drawFlame() {
  const t0 = performance.now();
  const fl = state.flame, f = fl.data, canvas = document.getElementById('flame-canvas');
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
  fl.rects = rects;
  document.getElementById('flame-zoom').textContent = fl.zoom === 0 ? 'Zoom: all' : 'Zoom: ' + fl.name(fl.zoom);
  document.getElementById('flame-pruned').textContent = f.pruned ? `(${f.pruned} call paths narrower than a pixel left out)` : '';
  canvas.dataset.zoom = fl.name(fl.zoom);
  canvas.dataset.depth = String(depthOf(fl.zoom));
  canvas.dataset.drawMs = (performance.now() - t0).toFixed(2);
}

function hash(s) {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) >>> 0;
  return h;
}

function flameHit(ev) {
  const canvas = document.getElementById('flame-canvas'), b = canvas.getBoundingClientRect();
  const x = ((ev.clientX - b.left) * canvas.width) / b.width, y = ((ev.clientY - b.top) * canvas.height) / b.height;
  const row = Math.floor(y / ROW);
  return (state.flame.rects || []).find((r) => r.y === row * ROW && x >= r.x && x < r.x + r.w);
}

// The call path of node i: the function ids from <Total>'s child down to it.
function flamePath(i) {
  const f = state.flame.data, path = [];
  for (; i !== 0; i = f.nodes.parent[i]) path.unshift(f.functions.id[f.nodes.func[i]]);
  return path;
}

function flameClick(ev) {
  const r = state.flame && flameHit(ev);
  if (!r) return;
  const fl = state.flame, f = fl.data;
  if (r.i !== 0) select(f.functions.id[f.nodes.func[r.i]], fl.name(r.i));
  if (r.i === fl.zoom) return;
  fl.zoom = r.i;
  drawFlame(); // from the nodes held, then the detail under it from the server
  loadFlame(flamePath(r.i));
}

function flameHover(ev) {
  const r = state.flame && flameHit(ev), out = document.getElementById('flame-hover');
  if (!r) { out.textContent = ''; return; }
  const v = state.flame.data.nodes.value[r.i], total = state.flame.data.nodes.value[0];
  out.textContent = `${state.flame.name(r.i)}: ${fmt(v, state.flame.unit)} (${pct(v, total)}%)`;
}

// ------------------------------------------------------------ timeline
const LANE = 22, PROC = 16, GUTTER = 110;

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
  const colors = t.functions.name.map((s) => `hsl(${hash(s) % 360}, 65%, 50%)`);
  state.timeline = { data: t, colors, detail: null, drag: null, pan: null, peak: heap, view: { v0: 0, v1: Math.max(t.duration_ns, 1) } };
  drawTimeline();
}

function timeX(t, width) {
  const v = state.timeline.view;
  return GUTTER + ((t - v.v0) / (v.v1 - v.v0)) * (width - GUTTER);
}

function xTime(x, width) {
  const v = state.timeline.view;
  return Math.max(v.v0, Math.min(v.v1, Math.round(v.v0 + ((x - GUTTER) / (width - GUTTER)) * (v.v1 - v.v0))));
}

// The timeline's rows: with several processes, a label row above each process's thread lanes.
function timelineLayout(t) {
  const many = new Set(t.lanes.map((l) => l.experiment)).size > 1;
  const laneY = [], labels = [];
  let y = 0, prev = null;
  t.lanes.forEach((l, i) => {
    if (many && l.experiment !== prev) {
      labels.push({ y, text: `process ${l.pid} (experiment ${l.experiment})`, experiment: l.experiment, start: l.start_ns });
      y += PROC;
    }
    prev = l.experiment;
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

function drawTimeline() {
  const t0 = performance.now();
  const tl = state.timeline, t = tl.data, canvas = document.getElementById('timeline-canvas');
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
    const x = timeX(p.start, width); // where the process started
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
    const lane = t.lanes.find((l) => l.experiment === tl.peak.experiment), at = tl.peak.t_ns + (lane ? lane.start_ns : 0);
    const x = timeX(at, width), ys = t.lanes.map((l, i) => (l.experiment === tl.peak.experiment ? lay.laneY[i] : -1)).filter((y) => y >= 0);
    ctx.fillStyle = '#c00';
    if (x >= GUTTER && x <= width) {
      for (const y of ys) ctx.fillRect(x - 1, y, 2, LANE);
      if (ys.length) ctx.fillText(`heap peak ${tl.peak.bytes} B`, Math.min(x + 4, width - 140), ys[0] + 15);
    }
    canvas.dataset.peak = String(tl.peak.t_ns);
  }
  const r = tl.drag || state.range;
  if (r) {
    const a = Math.max(GUTTER, timeX(Math.min(r.t0, r.t1), width)), b = Math.min(width, timeX(Math.max(r.t0, r.t1), width));
    ctx.fillStyle = 'rgba(40, 110, 220, 0.2)';
    if (b >= a) ctx.fillRect(a, 0, Math.max(b - a, 1), canvas.height);
  }
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
    tl.detail = { data: t, view: t.view, colors: t.functions.name.map((s) => `hsl(${hash(s) % 360}, 65%, 50%)`) };
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
  else tl.drag = { t0: xTime(x, w), t1: xTime(x, w), x0: x }; // select a range
}

function timelineMove(ev) {
  const tl = state.timeline, w = document.getElementById('timeline-canvas').width;
  if (!tl) return;
  const t = xTime(canvasX(ev), w);
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
  else zoomView(ev.deltaY < 0 ? 0.8 : 1.25, x >= GUTTER ? xTime(x, w) : undefined);
}

function timelineKey(ev) {
  if (!state.timeline) return;
  const v = state.timeline.view, step = (v.v1 - v.v0) / 10;
  const keys = { ArrowLeft: () => panView(-step), ArrowRight: () => panView(step), '+': () => zoomView(0.8),
    '=': () => zoomView(0.8), '-': () => zoomView(1.25), '0': () => setView(0, state.timeline.data.duration_ns) };
  if (keys[ev.key]) { ev.preventDefault(); keys[ev.key](); }
}

// Show only [t0, t1) everywhere (null: the whole run); the views reload from the server.
function setRange(r) {
  state.range = r;
  document.getElementById('range').textContent = r ? `${fmt(r.t0, 'ns')} s to ${fmt(r.t1, 'ns')} s` : 'whole run';
  document.getElementById('range-clear').hidden = !r;
  state.functions = null;
  state.calltree = null;
  state.flame = null;
  state.compare = null;
  if (state.timeline) drawTimeline();
  if (state.view !== 'timeline') show(state.view);
  else viewTitle();
}

// ------------------------------------------------------------ filter
// Count only the events expr passes everywhere ('' for all).  The server checks it first: a bad
// expression is shown next to it (naming the column) and changes nothing.
async function setFilter(expr) {
  expr = expr.trim();
  const err = document.getElementById('filter-error');
  err.textContent = '';
  document.getElementById('filter').value = expr;
  if (expr) {
    try {
      await api('threads?filter=' + encodeURIComponent(expr));
    } catch (e) {
      err.textContent = e.message;
      return;
    }
  }
  state.filter = expr;
  state.functions = null;
  state.calltree = null;
  state.flame = null;
  state.timeline = null;
  state.compare = null;
  show(state.view);
}

// The view's title: its name, the filter and the time range it shows.
function viewTitle() {
  const b = document.querySelector(`#tabs button[data-view="${state.view}"]`);
  const parts = [b ? b.textContent : state.view];
  parts.push(state.filter ? 'filter: ' + state.filter : 'no filter');
  if (state.range) parts.push(`${fmt(state.range.t0, 'ns')} s to ${fmt(state.range.t1, 'ns')} s`);
  document.getElementById('view-title').textContent = parts.join(' \u2014 ');
}

function filterHelp() {
  const list = document.getElementById('filter-help-list'), props = document.getElementById('filter-props');
  for (const p of state.overview.filter_properties || []) {
    list.append(el('dt', {}, p.name), el('dd', {}, p.help));
    props.append(el('option', { value: p.name }, p.help));
  }
}

// ------------------------------------------------------------ heap
async function showHeap() {
  const err = document.getElementById('heap-error');
  err.textContent = '';
  let h;
  try {
    // the live heap in one point per pixel of the chart's plot at most
    const w = Math.max(100, (document.getElementById('heap-chart').clientWidth || 800) - HEAP_LEFT - HEAP_RIGHT);
    h = await api(withRange(`heap?width=${w}`));
  } catch (e) {
    err.textContent = e.message;
    for (const id of ['heap-peak', 'heap-summary', 'heap-leaks', 'heap-allocations', 'heap-at_peak', 'heap-chart-legend'])
      document.getElementById(id).replaceChildren();
    state.heapLive = null;
    drawHeapChart();
    return;
  }
  state.heapLive = { live: h.live, peak: h.peak };
  drawHeapChart();
  const p = h.peak, peak = document.getElementById('heap-peak');
  peak.textContent = p ? `Peak live heap: ${p.bytes} bytes at ${fmt(p.t_ns, 'ns')} s in process ${p.pid} (experiment ${p.experiment})`
    : 'No live heap';
  peak.dataset.bytes = p ? p.bytes : 0;
  const dl = document.getElementById('heap-summary'), s = h.summary;
  dl.replaceChildren();
  const add = (k, v) => dl.append(el('dt', {}, k), el('dd', {}, String(v)));
  add('Allocations', `${s.alloc_count} (${s.alloc_bytes} bytes; ${s.alloc_min_bytes} to ${s.alloc_max_bytes} bytes each)`);
  add('Leaks', `${s.leak_count} (${s.leak_bytes} bytes)`);
  add('Temporary allocations', `${s.temp_count} (${s.temp_bytes} bytes)`);
  add('Frees', `${s.free_count} (${s.unknown_free_count} of unknown blocks), ${s.failed_count} failed allocations`);
  for (const c of s.alloc_classes) add('Allocations ' + c.range, c.count);
  for (const key of ['leaks', 'allocations', 'at_peak']) {
    const l = h[key];
    document.getElementById(`heap-${key}-count`).textContent =
      `${l.distinct} distinct stacks` + (l.stacks.length < l.distinct ? `, the first ${l.stacks.length} shown` : '');
    dataTable(document.getElementById('heap-' + key), ['#', 'Instances', 'Bytes', 'Stack (leaf first)'],
      l.stacks.map((x, i) => ({
        attrs: { 'data-count': x.count, 'data-bytes': x.bytes, 'data-leaf': x.frames.length ? x.frames[0].name : '' },
        cells: [i + 1, x.count, x.bytes, x.frames.map((f) => f.name).join(' < ')],
      })));
    document.querySelectorAll(`#heap-${key} tbody tr`).forEach((tr, i) => {
      const f = l.stacks[i].frames[0];
      if (f) tr.addEventListener('click', () => select(f.func, f.name));
    });
  }
}

// ------------------------------------------------------------ I/O
// er_print's ioactivity, iodetail and iocallstack as one table grouped as chosen, and iostat.
// I/O calls are short: their times in seconds to the microsecond, as iocallstack prints them
const secs6 = (ns) => (ns / 1e9).toFixed(6);

async function showIO() {
  const err = document.getElementById('io-error');
  err.textContent = '';
  let d;
  try {
    d = await api(withRange(`io?by=${document.getElementById('io-by').value}`));
  } catch (e) {
    err.textContent = e.message;
    for (const id of ['io-summary', 'io-count', 'io-rows']) document.getElementById(id).replaceChildren();
    return;
  }
  const dl = document.getElementById('io-summary'), s = d.stat;
  dl.replaceChildren();
  const add = (k, v) => dl.append(el('dt', {}, k), el('dd', {}, String(v)));
  const dir = (name, x) => add(name, `${x.calls} calls, ${x.bytes} bytes in ${secs6(x.time_ns)} s` +
    (x.calls ? `; ${x.smallest_bytes} to ${x.largest_bytes} bytes each, the longest ${secs6(x.longest_ns)} s` : ''));
  dir('Writes', s.write);
  dir('Reads', s.read);
  add('Other calls', `${s.other.calls} in ${secs6(s.other.time_ns)} s`);
  add('Failed calls', `${s.error.calls} in ${secs6(s.error.time_ns)} s`);
  for (const c of s.write.sizes) add('Writes ' + c.range, c.calls);
  for (const c of s.read.sizes) add('Reads ' + c.range, c.calls);
  const what = { stack: 'stack', file: 'file', descriptor: 'descriptor' }[d.by];
  document.getElementById('io-count').textContent = `${d.distinct} ${what}${d.distinct === 1 ? '' : 's'}` +
    (d.rows.length < d.distinct ? `, the first ${d.rows.length} shown` : '') + ', the most I/O time first';
  const name = (r) => d.by === 'stack' ? r.frames.map((f) => f.name).join(' < ')
    : d.by === 'descriptor' ? `${r.name} (${r.vfd ? 'IOVFD=' + r.vfd : ''}${r.vfd && r.fd >= 0 ? ', ' : ''}${r.fd >= 0 ? 'FD=' + r.fd : ''})`
      : r.name;
  const cells = (r) => [r.ioreadbytes, r.ioreadcnt, secs6(r.ioreadtime_ns), r.iowritebytes, r.iowritecnt,
    secs6(r.iowritetime_ns), r.ioothercnt, secs6(r.ioothertime_ns), r.ioerrorcnt, secs6(r.ioerrortime_ns)];
  dataTable(document.getElementById('io-rows'),
    ['Read Bytes', 'Read Count', 'Read Time (s)', 'Write Bytes', 'Write Count', 'Write Time (s)', 'Other Count',
      'Other Time (s)', 'Error Count', 'Error Time (s)', d.by === 'stack' ? 'Stack (leaf first)' : 'Name'],
    [{ attrs: { 'data-total': '1' }, cells: [...cells(d.total), '<Total>'] }].concat(d.rows.map((r) => ({
      attrs: { 'data-read-bytes': r.ioreadbytes, 'data-write-bytes': r.iowritebytes, 'data-name': d.by === 'stack' ? '' : r.name },
      cells: [...cells(r), name(r)],
    }))));
  if (d.by === 'stack')
    document.querySelectorAll('#io-rows tbody tr:not([data-total])').forEach((tr, i) => {
      const f = d.rows[i].frames[0];
      if (f) tr.addEventListener('click', () => select(f.func, f.name));
    });
}

// The live heap chart: a step line per process and, with several, their sum (dashed), all on
// one clock (each process's times shifted by its start_offset_ns after the earliest's start);
// heapstat's peak (the highest process's) marked with a dot and labelled with its bytes and time
// on that clock; the selected time range shaded (the lines are the whole run's: live memory
// ignores the time selection).
state.heapLive = null; // /api/heap's live heap lines and peak: {live, peak}
const HEAP_LEFT = 80, HEAP_RIGHT = 12, HEAP_TOP = 22, HEAP_BOTTOM = 20;
const HEAP_COLORS = ['#1f6fb4', '#e07b00', '#2a9d3a', '#8a3fb8', '#b03a48', '#17999a'];

// The lines drawn: each process's, then the sum's when there are several.
function heapLines(live) {
  const x = live.experiments.map((e, i) => ({ e, color: HEAP_COLORS[i % HEAP_COLORS.length], dash: [],
    name: `process ${e.pid} (experiment ${e.experiment})` }));
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
  const e = hl.peak && hl.live.experiments.find((s) => s.experiment === hl.peak.experiment);
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

function drawHeapChart() {
  const hl = state.heapLive, canvas = document.getElementById('heap-chart');
  const width = canvas.clientWidth || 800, height = canvas.height;
  canvas.width = width;
  const ctx = canvas.getContext('2d');
  ctx.clearRect(0, 0, width, height);
  for (const k of ['series', 'peakBytes', 'peakT', 'peakX', 'peakY', 'peakLabel']) delete canvas.dataset[k];
  const legend = document.getElementById('heap-chart-legend');
  legend.replaceChildren();
  if (!hl || !hl.live) return;
  const lines = heapLines(hl.live), lay = heapLayout(lines, width, height);
  ctx.font = '12px monospace';
  if (state.range) {
    const a = lay.x(Math.min(state.range.t0, lay.span)), b = lay.x(Math.min(state.range.t1, lay.span));
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

// ------------------------------------------------------------ threads and experiments
function dataTable(table, titles, rows) {
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

async function showThreads() {
  const t = await api(withRange('threads'));
  const opt = (v) => (v === undefined ? '' : fmt(v, 'ns'));
  dataTable(document.getElementById('threads'),
    ['Experiment', 'Thread', 'TID', 'Start (s)', 'End (s)', 'CPU (s)', 'Samples', 'Start routine'],
    t.threads.map((x) => ({
      attrs: { 'data-experiment': x.experiment, 'data-thread': x.thread, title: 'filter on this thread (shift: also)' },
      cells: [x.experiment, x.thread, x.tid, opt(x.start_ns), opt(x.end_ns), fmt(x.cpu_ns, 'ns'), x.samples, x.routine || ''],
    })));
  const several = state.overview.experiments.length > 1;
  for (const tr of document.querySelectorAll('#threads tbody tr'))
    tr.addEventListener('click', (ev) => {
      const term = (several ? `EXPID==${tr.dataset.experiment} && ` : '') + `THRID==${tr.dataset.thread}`;
      // a click sets the filter to the thread; shift-click adds it to the filter (either thread)
      setFilter(ev.shiftKey && state.filter ? `(${state.filter}) || (${term})` : term);
    });
}

// ------------------------------------------------------------ compare
// A compared value as er_print prints it (er_print/table.c): the baseline's and mode "on" as values,
// the others' as a signed difference from the baseline (+0.030) or a ratio to it (x 1.600).
function cmpValue(v, unit) {
  return unit === 'ns' && v === 0 ? '0.' : fmt(v, unit);
}
function cmpDelta(v, b, unit) {
  const d = Math.abs(v - b), sign = v >= b ? '+' : '-';
  if (unit === 'ns') return d < 500000 ? '+0.' : sign + (d / 1e9).toFixed(3);
  if (unit === 'ratio_x1000') return sign + (d / 1000).toFixed(3);
  return sign + d;
}
function cmpRatio(v, b) {
  if (v === 0 && b === 0) return 'x 1.000';
  if (b === 0 || v / b > 99.999) return 'x >99.999';
  return v === 0 ? 'x 0.' : 'x ' + (v / b).toFixed(3);
}

async function showCompare() {
  const err = document.getElementById('compare-error'), table = document.getElementById('compare');
  err.textContent = '';
  const sides = state.overview.sides || [];
  if (sides.length < 2) {
    table.replaceChildren();
    document.getElementById('compare-note').textContent =
      `Compare needs two or more experiments (or groups); ${sides.length} is loaded. ` +
      'Start the analyzer with more, e.g. analyzer base.er new.er.';
    document.getElementById('compare-note').classList.add('error');
    return;
  }
  const q = new URLSearchParams();
  q.set('what', document.getElementById('compare-what').value);
  q.set('mode', document.getElementById('compare-mode').value);
  if (state.metrics) q.set('metrics', state.metrics);
  if (state.sort && state.sort !== 'name') q.set('sort', state.sort);
  try {
    state.compare = await api(withRange('compare?' + q));
  } catch (e) {
    err.textContent = e.message;
    table.replaceChildren();
    return;
  }
  renderCompare();
}

function renderCompare() {
  const c = state.compare, table = document.getElementById('compare'), ns = c.sides.length;
  const names = el('tr'), titles = el('tr');
  c.columns.forEach((col) => {
    c.sides.forEach((s, k) => {
      const span = col.value && col.percent ? 2 : 1;
      names.append(el('th', { colSpan: span, class: 'side' }, s.name));
      const kind = k === 0 || c.mode === 'on' ? '' : ' ' + c.mode;
      titles.append(el('th', { colSpan: span }, colTitle(col) + kind));
    });
  });
  names.append(el('th', { class: 'name' }, ''));
  titles.append(el('th', { class: 'name' }, 'Name'));
  const body = el('tbody');
  for (const row of c.rows) {
    const tr = el('tr', { 'data-name': row.name });
    c.columns.forEach((col, i) => {
      for (let k = 0; k < ns; k++) {
        const v = row.values[k][i], b = row.values[0][i];
        if (col.value) {
          const text = k === 0 || c.mode === 'on' ? cmpValue(v, col.unit)
            : c.mode === 'delta' ? cmpDelta(v, b, col.unit) : cmpRatio(v, b);
          tr.append(el('td', {}, text));
        }
        // a percentage of the side's own total, 0 as er_print prints it
        if (col.percent) tr.append(el('td', {}, v && c.sides[k].totals[i] ? pct(v, c.sides[k].totals[i]) : '0.'));
      }
    });
    tr.append(el('td', { class: 'name' }, row.name));
    body.append(tr);
  }
  table.replaceChildren(el('thead', {}, names, titles), body);
  document.getElementById('compare-count').textContent = `${c.rows.length - 1} items, ${ns} sides`;
}

async function showExperiments() {
  const x = await api(withRange('experiments'));
  const byId = new Map(x.experiments.map((e) => [e.id, e]));
  const rows = [];
  for (const f of x.experiments) {
    if (f.founder !== f.id) continue;
    rows.push({ attrs: { 'data-pid': f.pid, 'data-depth': 0 },
      cells: [f.id, f.pid, fmt(f.cpu_recorded_ns, 'ns'), f.ending, 'founder', `${f.path}  '${f.argv.join(' ')}'`] });
    for (const p of f.processes || []) {
      const e = p.experiment === null ? null : byId.get(p.experiment);
      rows.push({ attrs: { 'data-pid': p.pid, 'data-depth': p.depth },
        cells: [e ? e.id : '', p.pid, e ? fmt(e.cpu_recorded_ns, 'ns') : '', e ? e.ending : (p.reason || 'not profiled'),
          p.origin || '', '\u00a0\u00a0'.repeat(p.depth) + (e ? e.path : '(no experiment)') + `  '${p.command || ''}'`] });
    }
  }
  dataTable(document.getElementById('experiments'),
    ['Experiment', 'PID', 'CPU (s)', 'Ending', 'Origin', 'Process'], rows);
}

// ------------------------------------------------------------ source and disassembly
// The metric cells of an annotated row: value and percent as the column asks.
function metricCells(tr, columns, values) {
  columns.forEach((c, i) => {
    if (c.flavor === 's') return;
    const v = values ? values[i] : null;
    if (c.value) tr.append(el('td', {}, v === null ? '' : fmt(v, c.unit)));
    if (c.percent) tr.append(el('td', {}, v === null ? '' : pct(v, c.total)));
  });
}

function codeHead(columns, last) {
  const head = el('tr');
  for (const c of columns)
    if (c.flavor !== 's') head.append(el('th', { colSpan: c.value && c.percent ? 2 : 1 }, colTitle(c)));
  head.append(el('th', { class: 'name' }, last));
  return el('thead', {}, head);
}

async function showCode(kind) {
  const title = document.getElementById(kind + '-title'), err = document.getElementById(kind + '-error');
  const table = document.getElementById(kind);
  err.textContent = '';
  table.replaceChildren();
  if (!state.selected) return;
  const q = `${kind}?func=${state.selected.id}` + (state.metrics ? '&metrics=' + encodeURIComponent(state.metrics) : '');
  let d;
  try {
    d = await api(withRange(q));
  } catch (e) {
    title.textContent = state.selected.name;
    err.textContent = e.message;
    return;
  }
  const body = el('tbody');
  if (kind === 'source') {
    title.textContent = `${state.selected.name}: ${d.file}` + (d.text_found ? '' : ' (source file not found)');
    for (const l of d.lines) {
      const tr = el('tr', { 'data-line': l.line });
      if (l.hot) tr.classList.add('hot');
      metricCells(tr, d.columns, l.values || null);
      tr.append(el('td', { class: 'text' }, `${String(l.line).padStart(5)}  ${l.text === null ? '' : l.text}`));
      body.append(tr);
    }
  } else {
    title.textContent = state.selected.name + (d.entry_file ? `: ${d.entry_file}` : '');
    for (const r of d.rows) {
      const tr = el('tr');
      if (r.kind === 'source') {
        tr.classList.add('src');
        metricCells(tr, d.columns, null);
        tr.append(el('td', { class: 'text' }, `${r.file || ''}:${r.line}`));
      } else {
        if (r.hot) tr.classList.add('hot');
        metricCells(tr, d.columns, r.values);
        tr.append(el('td', { class: 'text' }, `0x${r.addr.toString(16)}  ${r.text}`));
      }
      body.append(tr);
    }
  }
  table.replaceChildren(codeHead(d.columns, kind === 'source' ? 'Source' : 'Instruction'), body);
  if (kind === 'source' && d.entry_line) {
    const row = table.querySelector(`tr[data-line="${d.entry_line}"]`);
    if (row) row.scrollIntoView({ block: 'center' });
  }
}

// ------------------------------------------------------------ views
function show(view) {
  state.view = view;
  for (const b of document.querySelectorAll('#tabs button')) b.classList.toggle('active', b.dataset.view === view);
  for (const s of document.querySelectorAll('.view')) s.classList.toggle('active', s.id === 'view-' + view);
  if (view === 'functions' && !state.functions) loadFunctions();
  if (view === 'callers') showCallers();
  if (view === 'calltree') (state.calltree ? renderCalltree : loadCalltree)();
  if (view === 'flame') (state.flame ? drawFlame : loadFlame)();
  if (view === 'timeline') (state.timeline ? drawTimeline : loadTimeline)();
  if (view === 'source' || view === 'disasm') showCode(view);
  if (view === 'threads') showThreads();
  if (view === 'heap') showHeap();
  if (view === 'io') showIO();
  if (view === 'experiments') showExperiments();
  if (view === 'compare') showCompare();
  viewTitle();
}

async function main() {
  // the token is in a cookie now: take it out of the address bar
  if (location.search) history.replaceState(null, '', '/');
  state.overview = await api('overview');
  const sel = document.getElementById('flame-metric');
  // a ratio (IPC) is no quantity to add up along stacks: the flame graph refuses it
  for (const m of state.overview.metrics) if (m.unit !== 'ratio_x1000') sel.append(el('option', { value: m.keyword }, m.name));
  for (const b of document.querySelectorAll('#tabs button')) b.addEventListener('click', () => show(b.dataset.view));
  document.getElementById('metrics-apply').addEventListener('click', () => {
    state.metrics = document.getElementById('metrics').value;
    loadFunctions();
  });
  document.getElementById('search').addEventListener('input', () => state.functions && renderFunctions());
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
  const tc = document.getElementById('timeline-canvas');
  tc.addEventListener('mousedown', timelineDown);
  tc.addEventListener('mousemove', timelineMove);
  tc.addEventListener('wheel', timelineWheel, { passive: false });
  tc.addEventListener('keydown', timelineKey);
  document.getElementById('timeline-in').addEventListener('click', () => state.timeline && zoomView(0.5));
  document.getElementById('timeline-out').addEventListener('click', () => state.timeline && zoomView(2));
  document.getElementById('timeline-reset').addEventListener('click', () => state.timeline && setView(0, state.timeline.data.duration_ns));
  window.addEventListener('mouseup', (ev) => state.timeline && timelineUp(ev));
  document.getElementById('range-clear').addEventListener('click', () => setRange(null));
  document.getElementById('io-by').addEventListener('change', () => showIO());
  document.getElementById('compare-what').addEventListener('change', () => showCompare());
  document.getElementById('compare-mode').addEventListener('change', () => showCompare());
  document.getElementById('filter-apply').addEventListener('click', () => setFilter(document.getElementById('filter').value));
  document.getElementById('filter').addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter') setFilter(ev.target.value);
  });
  document.getElementById('filter-clear').addEventListener('click', () => setFilter(''));
  filterHelp();
  showOverview();
  show('functions');
  document.body.dataset.ready = '1';
}

main().catch((e) => {
  document.body.prepend(el('p', { class: 'error' }, 'Error: ' + e.message));
});
