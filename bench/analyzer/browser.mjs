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
import { launch, testPage } from '../../tests/tools/js/analyzer_session.mjs'; // playwright-core from there

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
// task after it; the page's CSP allows no eval, so each evaluate spells it out.  What it
// reaches in the page is its test hook, window.__pa: testPage() sets the page's test flag.)

// A view's tab (flame or timeline) opened REPEAT + 1 times from scratch (state[view]
// forgotten): the ms from show() to the frame after its draw (the request, the reply and
// the draw); then its draw function alone (its canvas's data-draw-ms).  Both reported.
async function openTab(page, view, title) {
  const times = [], draws = [];
  for (let i = 0; i <= repeat; i++)
    times.push(await page.evaluate(async (v) => {
      const { state, show } = window.__pa;
      state[v] = null;
      const t = performance.now();
      show(v);
      while (!state[v]) await new Promise((r) => setTimeout(r, 1));
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      return performance.now() - t;
    }, view));
  report(`${title}: open the tab (request, reply, draw)`, times);
  for (let i = 0; i <= repeat; i++)
    draws.push(await page.evaluate((v) => {
      (v === 'flame' ? window.__pa.drawFlame : window.__pa.drawTimeline)();
      return Number(document.getElementById(v + '-canvas').dataset.drawMs);
    }, view));
  report(`${title}: ${view === 'flame' ? 'drawFlame' : 'drawTimeline'} alone`, draws);
}

const browser = await launch();
try {
  const page = await testPage(browser, { viewport: { width: 1200, height: 800 } });
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
  await openTab(page, 'flame', 'flame graph');
  console.log(`  (${await page.evaluate(() => {
    const fl = window.__pa.state.flame;
    return `${fl.data.nodes.parent.length} nodes received, ${fl.rects.length} drawn, ${fl.data.pruned} pruned`;
  })})`);

  // a click-zoom on the widest frame two levels down: the redraw from the nodes held, then the
  // re-rooted graph from the server; then back to the whole graph
  const zoomLocal = [], zoomRooted = [], hover = [];
  for (let i = 0; i <= repeat; i++) {
    const [local, rooted] = await page.evaluate(async () => {
      const { state, loadFlame, ROW } = window.__pa;
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
    });
    zoomLocal.push(local);
    zoomRooted.push(rooted);
  }
  report('flame graph: click-zoom, redrawn from the nodes held', zoomLocal);
  report('flame graph: click-zoom, re-rooted graph from the server drawn', zoomRooted);
  for (let i = 0; i <= repeat; i++)
    hover.push(await page.evaluate(async (k) => {
      const c = document.getElementById('flame-canvas'), b = c.getBoundingClientRect();
      const rects = window.__pa.state.flame.rects, r = rects[(k * 7919) % rects.length];
      const t = performance.now();
      c.dispatchEvent(new MouseEvent('mousemove', { clientX: b.left + ((r.x + r.w / 2) * b.width) / c.width, clientY: b.top + ((r.y + 9) * b.height) / c.height }));
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      return performance.now() - t;
    }, i));
  report('flame graph: hover (the frame under the pointer named)', hover);

  // the timeline: the tab's first load, its draw alone, a wheel zoom and a pan
  await openTab(page, 'timeline', 'timeline');
  // (an event, then the frame; then until the server's marks of the new window are drawn)
  const timed = (kind) => page.evaluate(async (what) => {
    const c = document.getElementById('timeline-canvas'), b = c.getBoundingClientRect();
    const t = performance.now();
    if (what === 'zoom') c.dispatchEvent(new WheelEvent('wheel', { deltaY: -100, clientX: b.left + b.width * 0.6, clientY: b.top + 10, cancelable: true }));
    else c.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowLeft', cancelable: true }));
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    const t1 = performance.now() - t;
    while (c.dataset.detail !== c.dataset.view) await new Promise((r) => setTimeout(r, 1));
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    return [t1, performance.now() - t];
  }, kind);
  for (const [kind, title] of [['zoom', 'wheel zoom'], ['pan', 'pan (arrow key)']]) {
    const held = [], detail = [];
    for (let i = 0; i <= repeat; i++) {
      const [x, y] = await timed(kind);
      held.push(x);
      detail.push(y);
    }
    report(`timeline: ${title}, redrawn from the marks held`, held);
    report(`timeline: ${title}, the window's marks from the server drawn`, detail);
  }
} finally {
  await browser.close();
}
