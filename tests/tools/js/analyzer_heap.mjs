// analyzer_heap.mjs - the analyzer's Heap view on a heap-traced process tree
// (tests/fixtures/heap_fork.c), in Debian's chromium (headless) driven by playwright-core,
// for tests/e2e/analyzer_browser.sh:
//   node analyzer_heap.mjs URL EXPECT.json SHOTDIR
// EXPECT.json (from er_print): {"pids": [each process's pid, experiment order],
// "peak_bytes": heapstat's peak, "peak_s": its time (seconds, 3 decimals)}.  Checks that the live
// heap chart draws a line per process in its own colour with a legend naming each process and
// their sum, and marks heapstat's peak (the child's) with a red dot labelled with its bytes and
// its time on the chart's clock and in its process.  Checks and exit status:
// analyzer_session.mjs; the screenshot goes to SHOTDIR.
import { session } from './analyzer_session.mjs';

// the line colours of app.js's HEAP_COLORS for the first two processes
const COLORS = [[0x1f, 0x6f, 0xb4], [0xe0, 0x7b, 0x00]];

await session(async ({ page, expect, shots, check, same }) => {
  await page.click('#tabs button[data-view="heap"]');
  await page.waitForFunction(() => document.getElementById('heap-chart').dataset.peakBytes);
  const chart = await page.$eval('#heap-chart', (c, colors) => {
    const d = c.dataset, ctx = c.getContext('2d'), dot = ctx.getImageData(Number(d.peakX), Number(d.peakY), 1, 1).data;
    const img = ctx.getImageData(0, 0, c.width, c.height).data, lines = colors.map(() => 0);
    for (let i = 0; i < img.length; i += 4)
      colors.forEach((k, j) => {
        if (Math.abs(img[i] - k[0]) < 40 && Math.abs(img[i + 1] - k[1]) < 40 && Math.abs(img[i + 2] - k[2]) < 40) lines[j]++;
      });
    return { series: Number(d.series), label: d.peakLabel, dot: Array.from(dot.slice(0, 3)), lines };
  }, COLORS);
  const legend = await page.$$eval('#heap-chart-legend span', (ss) => ss.map((s) => [s.dataset.pid, s.textContent]));
  const live = await page.evaluate(async () => (await (await fetch('/api/heap?width=10', { credentials: 'same-origin' })).json()).live);
  check(`a line per process (${chart.series}; ${chart.lines.join(' and ')} pixels of their colours)`,
    chart.series === expect.pids.length && chart.lines.every((n) => n > 50));
  check(`the legend names each process, then their sum (${legend.map((l) => l[1]).join('; ')})`,
    same(legend.map((l) => Number(l[0])), [...expect.pids, 0]) && legend[legend.length - 1][1].includes('all processes'));
  // on the chart's clock (the earliest process's start) the peak is at its process's offset + heapstat's time
  const p = live.experiments.find((e) => e.peak && e.peak.bytes === expect.peak_bytes);
  const want = p && `peak ${expect.peak_bytes} B at ${((p.start_offset_ns + p.peak.t) / 1e9).toFixed(3)} s ` +
    `(process ${p.pid}, ${expect.peak_s} s after its start)`;
  check(`the peak's label '${chart.label}' = '${want}' (heapstat's bytes and time)`,
    p && p.start_offset_ns > 0 && (p.peak.t / 1e9).toFixed(3) === expect.peak_s && chart.label === want);
  check(`a red dot marks the peak (${chart.dot})`, chart.dot[0] > 150 && chart.dot[1] < 80 && chart.dot[2] < 80);
  await (await page.$('#view-heap')).screenshot({ path: `${shots}/heap-processes.png` });
});
