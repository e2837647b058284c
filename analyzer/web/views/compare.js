// compare.js - the Compare view (/api/compare): each experiment (or group) given on the command
// line as one side beside the first, the baseline, as values, deltas or ratios, cell for cell
// as er_print -compare prints them.
import { state } from '../lib/state.js';
import { api, withRange } from '../lib/api.js';
import { el } from '../lib/dom.js';
import { fmt, pct, colTitle, hasPercent } from '../lib/format.js';

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
      const span = col.value && hasPercent(col) ? 2 : 1;
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
        if (hasPercent(col)) tr.append(el('td', {}, v && c.sides[k].totals[i] ? pct(v, c.sides[k].totals[i]) : '0.'));
      }
    });
    tr.append(el('td', { class: 'name' }, row.name));
    body.append(tr);
  }
  table.replaceChildren(el('thead', {}, names, titles), body);
  document.getElementById('compare-count').textContent = `${c.rows.length - 1} items, ${ns} sides`;
}

function init() {
  document.getElementById('compare-what').addEventListener('change', () => showCompare());
  document.getElementById('compare-mode').addEventListener('change', () => showCompare());
}

export const view = { name: 'compare', init, show: showCompare };
