// threads.js - the Threads view (/api/threads): each thread's times, CPU and samples; a click
// on a thread sets the filter to it, a shift-click adds it to the filter.
import { state } from '../lib/state.js';
import { api, withRange } from '../lib/api.js';
import { dataTable } from '../lib/dom.js';
import { fmt } from '../lib/format.js';
import { setFilter } from '../lib/filter.js';

// The start routine as er_print's thread list names it.
const routine = (x) => ({ main: 'main thread', function: x.function, address: x.start_pc }[x.routine] || '');

async function showThreads() {
  const t = await api(withRange('threads'));
  const opt = (v) => (v === undefined ? '' : fmt(v, 'ns'));
  dataTable(document.getElementById('threads'),
    ['Experiment', 'Thread', 'TID', 'Start (s)', 'End (s)', 'CPU (s)', 'Samples', 'Start routine'],
    t.threads.map((x) => ({
      attrs: { 'data-experiment': x.experiment_id, 'data-thread': x.thread, title: 'filter on this thread (shift: also)' },
      cells: [x.experiment_id, x.thread, x.tid, opt(x.start_ns), opt(x.end_ns), fmt(x.cpu_ns, 'ns'), x.samples, routine(x)],
    })));
  const several = state.overview.experiments.length > 1;
  for (const tr of document.querySelectorAll('#threads tbody tr'))
    tr.addEventListener('click', (ev) => {
      const term = (several ? `EXPID==${tr.dataset.experiment} && ` : '') + `THRID==${tr.dataset.thread}`;
      // a click sets the filter to the thread; shift-click adds it to the filter (either thread)
      setFilter(ev.shiftKey && state.filter ? `(${state.filter}) || (${term})` : term);
    });
}

export const view = { name: 'threads', show: showThreads };
