// io.js - the I/O view (/api/io): er_print's ioactivity, iodetail and iocallstack as one table
// grouped as chosen (file, descriptor or call stack), and iostat; a click on a stack selects its
// leaf function.
import { api, withRange } from '../lib/api.js';
import { el, dataTable } from '../lib/dom.js';
import { select } from '../lib/router.js';

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
  const name = (r) => d.by === 'stack' ? r.frames.map((f) => f.function).join(' < ')
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
      if (f) tr.addEventListener('click', () => select(f.func, f.function));
    });
}

function init() {
  document.getElementById('io-by').addEventListener('change', () => showIO());
}

export const view = { name: 'io', init, show: showIO };
