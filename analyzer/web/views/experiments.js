// experiments.js - the Experiments view (/api/experiments): each founder experiment with its
// process tree (collect -F), every descendant under its parent with the experiment that
// recorded it.
import { api, withRange } from '../lib/api.js';
import { dataTable } from '../lib/dom.js';
import { fmt } from '../lib/format.js';

// How the process ended, in words: "exit 0", "signal 11 SIGSEGV", "exec /bin/ls".
function endingText(e) {
  if (e.how === 'exit') return `exit ${e.status}`;
  if (e.how === 'signal') return `signal ${e.signal}${e.signame ? ' ' + e.signame : ''}`;
  if (e.how === 'exec') return `exec ${e.program || '?'}`;
  return e.how === 'unseen' ? 'ended unseen' : e.how;
}

async function showExperiments() {
  const x = await api(withRange('experiments'));
  const byId = new Map(x.experiments.map((e) => [e.id, e]));
  const rows = [];
  for (const f of x.experiments) {
    if (f.founder !== f.id) continue;
    rows.push({ attrs: { 'data-pid': f.pid, 'data-depth': 0 },
      cells: [f.id, f.pid, fmt(f.cpu_recorded_ns, 'ns'), endingText(f.ending), 'founder', `${f.experiment}  '${f.argv.join(' ')}'`] });
    for (const p of f.processes || []) {
      const e = p.experiment_id === null ? null : byId.get(p.experiment_id);
      rows.push({ attrs: { 'data-pid': p.pid, 'data-depth': p.depth },
        cells: [e ? e.id : '', p.pid, e ? fmt(e.cpu_recorded_ns, 'ns') : '', e ? endingText(e.ending) : (p.reason || 'not profiled'),
          p.origin || '', '\u00a0\u00a0'.repeat(p.depth) + (e ? e.experiment : '(no experiment)') + `  '${p.command || ''}'`] });
    }
  }
  dataTable(document.getElementById('experiments'),
    ['Experiment', 'PID', 'CPU (s)', 'Ending', 'Origin', 'Process'], rows);
}

export const view = { name: 'experiments', show: showExperiments };
