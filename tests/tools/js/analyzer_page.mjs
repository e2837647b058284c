// analyzer_page.mjs - drive the analyzer's page in Debian's chromium (headless) with
// playwright-core, for tests/e2e/analyzer_browser.sh:
//   node analyzer_page.mjs URL EXPECT.json SHOTDIR
// EXPECT.json (from er_print): {"names": [function names in list order, <Total> first],
// "total_cpu": "0.500" (seconds as er_print prints them), "func": "spin_until",
// "callers": ["hot", "warm"], "zoom": "hot", "hot_lines": [27], "file": "export_prog.c",
// "metrics": "e.%totalcpu:name", "hot_insns": 2, "hot_path": [er_print's calltree's first path,
// <Total> to its leaf], "tree_nodes": the calltree's node count, "leaks": [[instances, bytes,
// leaf function] of er_print's leaks], "peak_bytes" and "peak_s": heapstat's peak and its time
// (the timeline marks it), "chooser": {"spec": a metric list, "names": er_print's function
// list for it, "total": its <Total> row's cells}}.  A drag over the middle half of the
// timeline selects a time range, and the function list's <Total> becomes the CPU time of the
// timeline's samples in it; "Whole run" brings er_print's <Total> back.  Before that the wheel
// zooms the timeline in (the server sends the window's marks), shift-drag pans it, Reset
// shows the whole run; a click-zoom on the flame graph re-roots it on the server.  Last, the page
// opened without the test flag has no test hook (window.__pa).  Checks and exit
// status: analyzer_session.mjs; screenshots of each step go to SHOTDIR.
import { session } from './analyzer_session.mjs';

await session(async ({ page, url, expect, shots, check, same }) => {
  await page.waitForSelector('#functions tbody tr');
  check('the token left the address bar', !page.url().includes('token'));
  await page.screenshot({ path: `${shots}/functions.png`, fullPage: true });

  // the function list: er_print's names in er_print's order, and its <Total>
  const rows = await page.$$eval('#functions tbody tr', (trs) =>
    trs.map((tr) => Array.from(tr.cells, (c) => c.textContent)));
  const names = rows.map((r) => r[r.length - 1]);
  check(`the function list is er_print's (${names.length} rows, er_print ${expect.names.length})`, same(names, expect.names));
  const heads = await page.$$eval('#functions thead th', (ths) => ths.map((t) => t.textContent));
  const cpuCol = heads.indexOf('Excl. Total CPU Time (s)');
  // cells: each value and percent column; find the Excl. CPU seconds cell of <Total>
  const cells = await page.$$eval('#functions tbody tr:first-child td', (tds) => tds.map((t) => t.textContent));
  check(`<Total> shows er_print's CPU ${expect.total_cpu} s (${cells.join(' ')})`, cpuCol >= 0 && cells.includes(expect.total_cpu));

  // search narrows the list; clearing it restores it
  await page.fill('#search', expect.func);
  const found = await page.$$eval('#functions tbody tr', (trs) => trs.map((tr) => tr.lastChild.textContent));
  check(`search '${expect.func}' keeps <Total> and ${expect.func} (${found.join(', ')})`,
    found[0] === '<Total>' && found.includes(expect.func) && found.every((n) => n === '<Total>' || n.includes(expect.func)));
  await page.fill('#search', '');

  // sorting by name is the server's order by name
  await page.click('#functions th[data-sort="name"]');
  await page.waitForSelector('#functions th.sorted[data-sort="name"]');
  const byName = await page.$$eval('#functions tbody tr', (trs) => trs.slice(1).map((tr) => tr.lastChild.textContent));
  check('a click on Name sorts by name', same(byName, [...byName].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))));

  // click a function, see its callers
  await page.click(`#functions tbody tr:has(td.name:text-is("${expect.func}"))`);
  check('the click selects it', (await page.textContent('#selected')) === expect.func);
  await page.click('#tabs button[data-view="callers"]');
  await page.waitForSelector('#callers tbody tr');
  const callers = await page.$$eval('#callers tbody tr', (trs) => trs.map((tr) => tr.lastChild.textContent));
  check(`callers of ${expect.func}: ${callers.join(', ')} = er_print's ${expect.callers.join(', ')}`,
    same([...callers].sort(), [...expect.callers].sort()));
  const self = await page.textContent('#callers-self tbody tr td.name');
  check('the middle row is the function', self === expect.func);
  await page.screenshot({ path: `${shots}/callers.png`, fullPage: true });

  // the call tree: er_print's hottest path open, the rest closed; a triangle closes and opens
  await page.click('#tabs button[data-view="calltree"]');
  await page.waitForSelector('#calltree tbody tr');
  const treeRows = () => page.$$eval('#calltree tbody tr', (trs) =>
    trs.map((tr) => ({ name: tr.querySelector('.fn').textContent, depth: Number(tr.dataset.depth), cls: tr.className })));
  const tree = await treeRows();
  const openNames = tree.filter((r) => r.cls.includes('open')).map((r) => r.name);
  check(`the open call path ${openNames.join(' > ')} = er_print's hottest path but its leaf`,
    same(openNames, expect.hot_path.slice(0, -1)));
  const pathRows = expect.hot_path.map((name, d) => tree.findIndex((r) => r.name === name && r.depth === d));
  check(`the hottest path's rows come in order at depths 0.. (${pathRows.join(',')})`,
    pathRows.every((k, i) => k >= 0 && (i === 0 || k > pathRows[i - 1])));
  check(`closed nodes hide their children (${tree.length} rows shown of er_print's ${expect.tree_nodes})`,
    tree.length < expect.tree_nodes && tree.some((r) => r.cls.includes('closed')));
  await page.screenshot({ path: `${shots}/calltree.png`, fullPage: true });
  const mid = expect.hot_path[expect.hot_path.length - 3]; // an open node two above the leaf
  const leaf = expect.hot_path[expect.hot_path.length - 1];
  await page.click(`#calltree tbody tr:has(.fn:text-is("${mid}")) .toggle`);
  const closed = await treeRows();
  check(`a click on ${mid}'s triangle closes it (${leaf} hidden, ${closed.length} rows)`,
    closed.length < tree.length && !closed.some((r) => r.name === leaf && r.depth === expect.hot_path.length - 1));
  await page.click(`#calltree tbody tr:has(.fn:text-is("${mid}")) .toggle`);
  check('a second click opens it again', same(await treeRows(), tree));
  await page.click(`#calltree tbody tr:has(.fn:text-is("${mid}")) .fn`);
  check(`a click on a node selects its function (${await page.textContent('#selected')})`,
    (await page.textContent('#selected')) === mid);
  await page.click('#tabs button[data-view="functions"]'); // select the function again
  await page.click(`#functions tbody tr:has(td.name:text-is("${expect.func}"))`);

  // another metric list, then its annotated source (er_print's hot lines) and disassembly
  await page.click('#tabs button[data-view="functions"]');
  await page.fill('#metrics', expect.metrics);
  await page.click('#metrics-apply');
  await page.waitForFunction((m) => window.__pa.state.functions && window.__pa.state.functions.metrics === m, expect.metrics);
  const heads2 = await page.$$eval('#functions thead th', (ths) => ths.map((t) => t.textContent));
  check(`the metric list ${expect.metrics} shows its columns (${heads2.join(' | ')})`,
    same(heads2, ['Excl. Total CPU Time (s)', 'Name']));
  await page.click('#tabs button[data-view="source"]');
  await page.waitForSelector('#source tbody tr');
  const stitle = await page.textContent('#source-title');
  check(`the source view shows ${expect.file} (${stitle})`, stitle.startsWith(expect.func + ': ') && stitle.endsWith(expect.file));
  const hot = await page.$$eval('#source tbody tr.hot', (trs) => trs.map((tr) => Number(tr.dataset.line)));
  check(`hot source lines ${hot.join(',')} = er_print's ${expect.hot_lines.join(',')}`, same(hot, expect.hot_lines));
  await page.screenshot({ path: `${shots}/source.png`, fullPage: true });
  await page.click('#tabs button[data-view="disasm"]');
  await page.waitForSelector('#disasm tbody tr');
  const insns = await page.$$eval('#disasm tbody tr:not(.src)', (trs) => trs.length);
  const hotInsns = await page.$$eval('#disasm tbody tr.hot', (trs) => trs.length);
  check(`the disassembly shows instructions (${insns}), ${hotInsns} hot = er_print's ${expect.hot_insns}`,
    insns > 0 && hotInsns > 0 && hotInsns === expect.hot_insns);
  await page.screenshot({ path: `${shots}/disasm.png`, fullPage: true });

  // the flame graph: click a frame to zoom into it
  await page.click('#tabs button[data-view="flame"]');
  await page.waitForFunction(() => document.getElementById('flame-zoom').textContent === 'Zoom: all');
  await page.screenshot({ path: `${shots}/flame.png`, fullPage: true });
  const target = await page.evaluate((name) => {
    const fl = window.__pa.state.flame, r = fl.rects.find((x) => fl.name(x.i) === name);
    return r && { x: r.x + r.w / 2, y: r.y + 9, w: r.w };
  }, expect.zoom);
  check(`the flame graph has a frame ${expect.zoom}`, !!target);
  const box = await page.locator('#flame-canvas').boundingBox();
  const canvasWidth = await page.$eval('#flame-canvas', (c) => c.width);
  check(`${expect.zoom} is narrower than the canvas before the zoom`, target && target.w < canvasWidth - 1);
  await page.mouse.click(box.x + (target.x * box.width) / canvasWidth, box.y + target.y);
  await page.waitForFunction((name) => document.getElementById('flame-zoom').textContent === 'Zoom: ' + name, expect.zoom);
  const after = await page.evaluate((name) => {
    const fl = window.__pa.state.flame, r = fl.rects.find((x) => fl.name(x.i) === name && x.i === fl.zoom);
    return r && r.w;
  }, expect.zoom);
  check(`after the click ${expect.zoom} fills the width (${after} of ${canvasWidth})`, after === canvasWidth);
  check('the click selects the frame\'s function', (await page.textContent('#selected')) === expect.zoom);
  // the zoom asks the server for the graph rooted at that call path (its ancestors first)
  await page.waitForFunction(() => window.__pa.state.flame.data.root > 0);
  const rooted = await page.evaluate(() => {
    const fl = window.__pa.state.flame, f = fl.data, r = f.root;
    return { name: fl.name(r), zoom: fl.zoom, r, parents: f.nodes.parent.slice(0, r + 1) };
  });
  check(`the zoomed graph is rooted at ${rooted.name} (node ${rooted.r}, ancestors ${rooted.parents.join(',')})`,
    rooted.name === expect.zoom && rooted.zoom === rooted.r && rooted.parents.every((p, i) => (i === 0 ? p === 4294967295 : p === i - 1)));
  await page.screenshot({ path: `${shots}/flame-zoomed.png`, fullPage: true });
  await page.click('#flame-reset');
  check('reset zoom shows all', (await page.textContent('#flame-zoom')) === 'Zoom: all');

  // select a time range on the timeline: the function list shows that range only
  const cpuCell = () => page.evaluate(() => {
    let col = 0;
    for (const th of document.querySelectorAll('#functions thead th')) {
      if (th.textContent === 'Excl. Total CPU Time (s)') break;
      col += th.colSpan;
    }
    return document.querySelector('#functions tbody tr:first-child').cells[col].textContent;
  });
  await page.click('#tabs button[data-view="timeline"]');
  await page.waitForFunction(() => window.__pa.state.timeline !== null);
  const tbox = await page.locator('#timeline-canvas').boundingBox();
  const tw = await page.$eval('#timeline-canvas', (c) => c.width);
  const px = (f) => tbox.x + ((110 + f * (tw - 110)) * tbox.width) / tw; // the lanes start after a 110 px gutter

  // zoom and pan: the wheel zooms around the pointer, the server sends the window's detail,
  // shift-drag pans, Reset shows the whole run again
  const view = () => page.$eval('#timeline-canvas', (c) => c.dataset.view.split(',').map(Number));
  const duration = await page.evaluate(() => window.__pa.state.timeline.data.duration_ns);
  await page.mouse.move(px(0.5), tbox.y + 10);
  for (let i = 0; i < 4; i++) await page.mouse.wheel(0, -100);
  await page.waitForFunction(() => { const c = document.getElementById('timeline-canvas'); return c.dataset.detail === c.dataset.view; });
  const [z0, z1] = await view();
  const detail = await page.evaluate(() => {
    const tl = window.__pa.state.timeline, d = tl.detail.data, v = tl.view;
    return { v0: d.view.v0, v1: d.view.v1, n: d.events.t.length, inside: d.events.t.every((t) => t >= d.view.v0 && t < d.view.v1), view: v };
  });
  check(`4 wheel steps zoom in around the middle: ${z0}..${z1} of 0..${duration} ns`,
    z1 - z0 < duration * 0.45 && z0 < duration / 2 && z1 > duration / 2);
  check(`the server sent the window's detail (${detail.n} marks in ${detail.v0}..${detail.v1})`,
    detail.v0 === z0 && detail.v1 === z1 && detail.inside);
  await page.screenshot({ path: `${shots}/timeline-zoomed.png`, fullPage: true });
  await page.keyboard.down('Shift');
  await page.mouse.move(px(0.5), tbox.y + 10);
  await page.mouse.down();
  await page.mouse.move(px(0.6), tbox.y + 10);
  await page.mouse.up();
  await page.keyboard.up('Shift');
  const [p0, p1] = await view();
  check(`shift-drag pans to earlier times by a tenth of the view (${p0}..${p1})`,
    p1 - p0 === z1 - z0 && Math.abs((z0 - p0) - (z1 - z0) / 10) < (z1 - z0) / 50 + 2);
  check('a pan selects no range', (await page.textContent('#range')) === 'whole run');
  await page.click('#timeline-reset');
  const [r0, r1] = await view();
  check(`Reset shows the whole run (${r0}..${r1})`, r0 === 0 && r1 === duration);
  await page.mouse.move(px(0.25), tbox.y + 10);
  await page.mouse.down();
  await page.mouse.move(px(0.5), tbox.y + 10);
  await page.mouse.move(px(0.75), tbox.y + 10);
  await page.mouse.up();
  await page.waitForFunction(() => document.getElementById('range').textContent !== 'whole run');
  const want = await page.evaluate(() => {
    const { state } = window.__pa, e = state.timeline.data.events, r = state.range;
    let sum = 0;
    for (let k = 0; k < e.t.length; k++) if (e.t[k] >= r.t0 && e.t[k] < r.t1) sum += e.value[k];
    return { sum, text: (sum / 1e9).toFixed(3), range: r };
  });
  await page.screenshot({ path: `${shots}/timeline.png`, fullPage: true });
  const peakMark = await page.$eval('#timeline-canvas', (c) => Number(c.dataset.peak));
  check(`the timeline marks heapstat's peak at ${expect.peak_s} s (${peakMark} ns)`, (peakMark / 1e9).toFixed(3) === expect.peak_s);
  await page.click('#tabs button[data-view="functions"]');
  await page.waitForFunction(() => window.__pa.state.functions !== null);
  const inRange = await cpuCell();
  check(`range ${want.range.t0}..${want.range.t1} ns: <Total> CPU ${inRange} s = the timeline's samples in it ${want.text} s`,
    inRange === want.text);
  check(`the range holds some but not all of the CPU (${want.text} of ${expect.total_cpu})`,
    want.sum > 0 && Number(want.text) < Number(expect.total_cpu));
  await page.screenshot({ path: `${shots}/functions-range.png`, fullPage: true });
  await page.click('#range-clear');
  await page.waitForFunction(() => window.__pa.state.functions !== null && document.getElementById('range').textContent === 'whole run');
  check('back to the whole run: <Total> is er_print\'s again', (await cpuCell()) === expect.total_cpu);

  // the heap view: er_print's leaks (instances, bytes, leaf function) and heapstat's peak
  await page.click('#tabs button[data-view="heap"]');
  await page.waitForSelector('#heap-leaks tbody tr');
  const leaks = await page.$$eval('#heap-leaks tbody tr', (trs) =>
    trs.map((tr) => [Number(tr.dataset.count), Number(tr.dataset.bytes), tr.dataset.leaf]));
  check(`the leaks ${JSON.stringify(leaks)} = er_print's ${JSON.stringify(expect.leaks)}`, same(leaks, expect.leaks));
  const peakBytes = await page.$eval('#heap-peak', (p) => Number(p.dataset.bytes));
  check(`the peak ${peakBytes} bytes = heapstat's ${expect.peak_bytes}`, peakBytes === expect.peak_bytes);
  await page.screenshot({ path: `${shots}/heap.png`, fullPage: true });
  // the live heap chart: a line drawn, heapstat's peak marked by a red dot and labelled
  // with its bytes and time, the same as the API's peak
  await page.waitForFunction(() => document.getElementById('heap-chart').dataset.peakBytes);
  const chart = await page.$eval('#heap-chart', (c) => {
    const d = c.dataset, ctx = c.getContext('2d'), dot = ctx.getImageData(Number(d.peakX), Number(d.peakY), 1, 1).data;
    const img = ctx.getImageData(0, 0, c.width, c.height).data;
    let line = 0; // pixels of the first process's colour (#1f6fb4)
    for (let i = 0; i < img.length; i += 4)
      if (Math.abs(img[i] - 31) < 40 && Math.abs(img[i + 1] - 111) < 40 && Math.abs(img[i + 2] - 180) < 40) line++;
    return { series: Number(d.series), bytes: Number(d.peakBytes), t: Number(d.peakT), label: d.peakLabel, dot: Array.from(dot.slice(0, 3)), line };
  });
  const apiPeak = await page.evaluate(async () => (await (await fetch('/api/heap?limit=1', { credentials: 'same-origin' })).json()).peak);
  check(`the heap chart draws one line (${chart.line} pixels of it)`, chart.series === 1 && chart.line > 50);
  check(`the chart's peak ${chart.bytes} B at ${chart.t} ns = the API's ${apiPeak.bytes} B at ${apiPeak.t_ns} ns = heapstat's ${expect.peak_bytes} B`,
    chart.bytes === apiPeak.bytes && chart.t === apiPeak.t_ns && chart.bytes === expect.peak_bytes);
  check(`the peak's label '${chart.label}' says heapstat's bytes and time (${expect.peak_s} s)`,
    chart.label === `peak ${expect.peak_bytes} B at ${expect.peak_s} s`);
  check(`a red dot marks the peak (${chart.dot})`, chart.dot[0] > 150 && chart.dot[1] < 80 && chart.dot[2] < 80);
  await (await page.$('#heap-chart')).screenshot({ path: `${shots}/heap-chart.png` });
  await page.click('#heap-leaks tbody tr:first-child');
  check(`a click on a leak selects its leaf function ${expect.leaks[0][2]}`, (await page.textContent('#selected')) === expect.leaks[0][2]);

  // the Overview's metric chooser: it shows the current list (e.%totalcpu:name), and a new choice
  // is the Functions view's metric list, with er_print's figures for that list
  await page.click('#tabs button[data-view="overview"]');
  await page.waitForSelector('#metric-chooser tbody tr');
  const checked = () => page.$$eval('#metric-chooser input:checked', (bs) =>
    bs.map((b) => `${b.dataset.flavor}.${b.dataset.what}.${b.closest('tr').dataset.keyword}`));
  check(`the chooser shows the current list ${expect.metrics} (${(await checked()).join(' ')})`,
    same(await checked(), ['e.value.totalcpu', 'e.percent.totalcpu']));
  for (const b of await page.$$('#metric-chooser input:checked')) await b.uncheck();
  await page.check('#metric-chooser tr[data-keyword="totalcpu"] input[data-flavor="e"][data-what="percent"]');
  await page.check('#metric-chooser tr[data-keyword="heapleakbytes"] input[data-flavor="i"][data-what="value"]');
  const spec = await page.textContent('#chooser-spec');
  check(`the choice reads ${spec} = ${expect.chooser.spec}`, spec === expect.chooser.spec);
  await page.screenshot({ path: `${shots}/chooser.png`, fullPage: true });
  await page.click('#chooser-apply');
  await page.waitForFunction((m) => {
    const { state } = window.__pa;
    return state.functions && state.functions.metrics === m && state.view === 'functions';
  }, spec);
  const rows2 = await page.$$eval('#functions tbody tr', (trs) => trs.map((tr) => Array.from(tr.cells, (c) => c.textContent)));
  check(`the Functions view shows er_print's list for it (${rows2.length} rows)`, same(rows2.map((r) => r[r.length - 1]), expect.chooser.names));
  check(`<Total> ${rows2[0].join(' ')} = er_print's ${expect.chooser.total.join(' ')}`, same(rows2[0], expect.chooser.total));
  await page.screenshot({ path: `${shots}/functions-chosen.png`, fullPage: true });

  // without the test flag (a browser context of its own) the page has no test hook
  const ctx = await page.context().browser().newContext();
  const plain = await ctx.newPage();
  await plain.goto(url);
  await plain.waitForSelector('body[data-ready="1"]', { timeout: 30000 });
  check('without the test flag the page offers no window.__pa', await plain.evaluate(() => !('__pa' in window)));
  await ctx.close();
});
