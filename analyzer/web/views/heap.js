// heap.js - the Heap view (/api/heap): heapstat's peak and summary, the live heap chart
// (analyzer/web/render/heap_chart.js), and the leaks, allocations and blocks held at the peak
// by stack; a click on a stack selects its leaf function.
import { state } from '../lib/state.js';
import { api, withRange } from '../lib/api.js';
import { el, dataTable } from '../lib/dom.js';
import { fmt } from '../lib/format.js';
import { select } from '../lib/router.js';
import { HEAP_LEFT, HEAP_RIGHT, drawHeapChart } from '../render/heap_chart.js';

function drawChart() {
  drawHeapChart(document.getElementById('heap-chart'), document.getElementById('heap-chart-legend'), state.heapLive, state.range);
}

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
    drawChart();
    return;
  }
  state.heapLive = { live: h.live, peak: h.peak };
  drawChart();
  const p = h.peak, peak = document.getElementById('heap-peak');
  peak.textContent = p ? `Peak live heap: ${p.bytes} bytes at ${fmt(p.t_ns, 'ns')} s in process ${p.pid} (experiment ${p.experiment_id})`
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
      `${l.distinct_stacks} distinct stacks` + (l.stacks.length < l.distinct_stacks ? `, the first ${l.stacks.length} shown` : '');
    dataTable(document.getElementById('heap-' + key), ['#', 'Instances', 'Bytes', 'Stack (leaf first)'],
      l.stacks.map((x, i) => ({
        attrs: { 'data-count': x.count, 'data-bytes': x.bytes, 'data-leaf': x.frames.length ? x.frames[0].function : '' },
        cells: [i + 1, x.count, x.bytes, x.frames.map((f) => f.function).join(' < ')],
      })));
    document.querySelectorAll(`#heap-${key} tbody tr`).forEach((tr, i) => {
      const f = l.stacks[i].frames[0];
      if (f) tr.addEventListener('click', () => select(f.func, f.function));
    });
  }
}

export const view = { name: 'heap', show: showHeap };
