// threads.js - the Threads view (/api/threads): each thread's times, CPU and samples; a click
// on a thread sets the filter to it, a shift-click adds it to the filter.
import { state } from '../lib/state.js';
import { api, withRange } from '../lib/api.js';
import { dataTable } from '../lib/dom.js';
import { fmt } from '../lib/format.js';
import { setFilter } from '../lib/filter.js';

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

export const view = { name: 'threads', show: showThreads };
