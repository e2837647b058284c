// overview.js - the Overview view: each experiment's header, the metrics recorded, and the
// metric chooser that makes the Functions view's metric list.
import { state } from '../lib/state.js';
import { el } from '../lib/dom.js';
import { fmt, hasPercent } from '../lib/format.js';
import { show } from '../lib/router.js';

// Drawn once, from /api/overview.
export function showOverview() {
  const o = state.overview, box = document.getElementById('overview');
  box.replaceChildren();
  for (const x of o.experiments) {
    const dl = el('dl');
    const add = (k, v) => dl.append(el('dt', {}, k), el('dd', {}, String(v)));
    add('Experiment', x.experiment);
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

export function renderChooser() {
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
        const c = cols.find((x) => x.spec === flavor + '.' + m.keyword);
        const box = el('input', { type: 'checkbox', 'data-flavor': flavor, 'data-what': what });
        box.checked = !!c && (what === 'value' ? c.value : hasPercent(c));
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

export const view = { name: 'overview' };
