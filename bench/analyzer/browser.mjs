// browser.mjs - the analyzer's page timed in Debian's chromium (headless, playwright-core from
// tests/tools/js), for bench/analyzer/run.py:
//   node bench/analyzer/browser.mjs URL [REPEAT]
// URL is the analyzer's first line (with the token).  Times, in the page (performance.now()),
// each interaction from the event to the frame after it was drawn (a requestAnimationFrame),
// and apart the time in the draw function itself (drawFlame, drawTimeline: their canvas's
// data-draw-ms); where the page then asks the server for detail (a flame graph re-rooted at
// the zoomed node, the timeline's window), the time until that is drawn too.  Prints one line
// per figure: the first time and the median of REPEAT (default 5) more, in ms.  Nothing is
// asserted: the machine is noisy.
import { createRequire } from 'node:module';

const require = createRequire(new URL('../../tests/tools/js/package.json', import.meta.url));
const { chromium } = require('playwright-core');

const [url, repeatArg] = process.argv.slice(2);
const repeat = Number(repeatArg || 5);
const median = (a) => { const s = [...a].sort((x, y) => x - y); return s[Math.floor(s.length / 2)]; };
const rows = [];
const report = (what, times) => {
  const [first, ...rest] = times;
  rows.push([what, first, rest.length ? median(rest) : first]);
  console.log(`${what.padEnd(58)} ${first.toFixed(1).padStart(9)} ${(rest.length ? median(rest) : first).toFixed(1).padStart(9)}`);
};

// (In the page, "the next frame after the work done so far" is a requestAnimationFrame and a
// task after it; the page's CSP allows no eval, so each evaluate spells it out.)
const FRAME = null;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  timeout: 60000,
});
try {
  const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
  console.log(`${'in the page (ms)'.padEnd(58)} ${'first'.padStart(9)} ${'median'.padStart(9)}`);
  // open to the functions view: navigation start to the function list's rows
  const open = [];
  for (let i = 0; i <= repeat; i++) {
    await page.goto(url);
    await page.waitForSelector('#functions tbody tr', { timeout: 120000 });
    open.push(await page.evaluate(() => performance.now()));
  }
  report('open to the functions view (navigation to its rows)', open);

  // the flame graph: the tab's first load (server + draw), then its draw alone
  const flameLoad = [], flameDraw = [];
  for (let i = 0; i <= repeat; i++)
    flameLoad.push(await page.evaluate(async (frame) => {
      state.flame = null;
      const t = performance.now();
      show('flame');
      while (!state.flame) await new Promise((r) => setTimeout(r, 1));
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      return performance.now() - t;
    }, FRAME));
  report('flame graph: open the tab (request, reply, draw)', flameLoad);
  for (let i = 0; i <= repeat; i++)
    flameDraw.push(await page.evaluate(() => { drawFlame(); return Number(document.getElementById('flame-canvas').dataset.drawMs); }));
  report('flame graph: drawFlame alone', flameDraw);
  console.log(`  (${await page.evaluate(() => `${state.flame.data.nodes.parent.length} nodes received, ${state.flame.rects.length} drawn, ${state.flame.data.pruned} pruned`)})`);

  // a click-zoom on the widest frame two levels down: the redraw from the nodes held, then the
  // re-rooted graph from the server; then back to the whole graph
  const zoomLocal = [], zoomRooted = [], hover = [];
  for (let i = 0; i <= repeat; i++) {
    const [local, rooted] = await page.evaluate(async (frame) => {
      const fl = state.flame, c = document.getElementById('flame-canvas'), b = c.getBoundingClientRect();
      const r = fl.rects.filter((x) => x.y === 2 * ROW).sort((x, y) => y.w - x.w)[0];
      const ev = new MouseEvent('click', { clientX: b.left + ((r.x + r.w / 2) * b.width) / c.width, clientY: b.top + ((r.y + 9) * b.height) / c.height });
      const t = performance.now();
      c.dispatchEvent(ev);
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      const t1 = performance.now() - t;
      while (state.flame === fl) await new Promise((res) => setTimeout(res, 1));
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      const t2 = performance.now() - t;
      state.flame.zoom = 0;
      await loadFlame();
      return [t1, t2];
    }, FRAME);
    zoomLocal.push(local);
    zoomRooted.push(rooted);
  }
  report('flame graph: click-zoom, redrawn from the nodes held', zoomLocal);
  report('flame graph: click-zoom, re-rooted graph from the server drawn', zoomRooted);
  for (let i = 0; i <= repeat; i++)
    hover.push(await page.evaluate(async (args) => {
      const [frame, k] = args;
      const c = document.getElementById('flame-canvas'), b = c.getBoundingClientRect();
      const r = state.flame.rects[(k * 7919) % state.flame.rects.length];
      const t = performance.now();
      c.dispatchEvent(new MouseEvent('mousemove', { clientX: b.left + ((r.x + r.w / 2) * b.width) / c.width, clientY: b.top + ((r.y + 9) * b.height) / c.height }));
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      return performance.now() - t;
    }, [FRAME, i]));
  report('flame graph: hover (the frame under the pointer named)', hover);

  // the timeline: the tab's first load, its draw alone, a wheel zoom and a pan
  const tlLoad = [], tlDraw = [], zoom = [], zoomDetail = [], pan = [], panDetail = [];
  for (let i = 0; i <= repeat; i++)
    tlLoad.push(await page.evaluate(async (frame) => {
      state.timeline = null;
      const t = performance.now();
      show('timeline');
      while (!state.timeline) await new Promise((r) => setTimeout(r, 1));
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      return performance.now() - t;
    }, FRAME));
  report('timeline: open the tab (request, reply, draw)', tlLoad);
  for (let i = 0; i <= repeat; i++)
    tlDraw.push(await page.evaluate(() => { drawTimeline(); return Number(document.getElementById('timeline-canvas').dataset.drawMs); }));
  report('timeline: drawTimeline alone', tlDraw);
  // (an event, then the frame; then until the server's marks of the new window are drawn)
  const timed = (kind) => page.evaluate(async (args) => {
    const [frame, what] = args;
    const c = document.getElementById('timeline-canvas'), b = c.getBoundingClientRect();
    const t = performance.now();
    if (what === 'zoom') c.dispatchEvent(new WheelEvent('wheel', { deltaY: -100, clientX: b.left + b.width * 0.6, clientY: b.top + 10, cancelable: true }));
    else c.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowLeft', cancelable: true }));
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    const t1 = performance.now() - t;
    while (c.dataset.detail !== c.dataset.view) await new Promise((r) => setTimeout(r, 1));
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    return [t1, performance.now() - t];
  }, [FRAME, kind]);
  for (let i = 0; i <= repeat; i++) {
    const [a, b] = await timed('zoom');
    zoom.push(a);
    zoomDetail.push(b);
  }
  report('timeline: wheel zoom, redrawn from the marks held', zoom);
  report('timeline: wheel zoom, the window\'s marks from the server drawn', zoomDetail);
  for (let i = 0; i <= repeat; i++) {
    const [a, b] = await timed('pan');
    pan.push(a);
    panDetail.push(b);
  }
  report('timeline: pan (arrow key), redrawn from the marks held', pan);
  report('timeline: pan, the window\'s marks from the server drawn', panDetail);
} finally {
  await browser.close();
}
