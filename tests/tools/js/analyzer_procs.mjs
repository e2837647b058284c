// analyzer_procs.mjs - the analyzer's Threads, Experiments and Timeline views on a process tree,
// in Debian's chromium (headless) driven by playwright-core, for tests/e2e/analyzer_browser.sh:
//   node analyzer_procs.mjs URL EXPECT.json SHOTDIR
// EXPECT.json (from er_print): {"tree": [[pid, depth], ...] (the founder first, then its
// process tree depth first), "tids": [each thread's TID in er_print's thread lists' order]}.
// Checks that the Experiments view lists the process tree (pids, depths), the Threads view the
// threads, the Timeline a label per process above its lanes, and the Compare view that one
// experiment with its descendants is one side, so that compare needs two.  Checks and exit status:
// analyzer_session.mjs; screenshots go to SHOTDIR.
import { session } from './analyzer_session.mjs';

await session(async ({ page, expect, shots, check, same }) => {

  await page.click('#tabs button[data-view="experiments"]');
  await page.waitForSelector('#experiments tbody tr');
  const tree = await page.$$eval('#experiments tbody tr', (trs) => trs.map((tr) => [Number(tr.dataset.pid), Number(tr.dataset.depth)]));
  check(`the process tree ${JSON.stringify(tree)} = er_print's ${JSON.stringify(expect.tree)}`, same(tree, expect.tree));
  await page.screenshot({ path: `${shots}/experiments.png`, fullPage: true });

  await page.click('#tabs button[data-view="threads"]');
  await page.waitForSelector('#threads tbody tr');
  const tids = await page.$$eval('#threads tbody tr', (trs) => trs.map((tr) => Number(tr.cells[2].textContent)));
  check(`the threads' TIDs ${tids.join(',')} = er_print's ${expect.tids.join(',')}`, same(tids, expect.tids));
  await page.screenshot({ path: `${shots}/threads.png`, fullPage: true });

  await page.click('#tabs button[data-view="timeline"]');
  await page.waitForFunction(() => window.__pa.state.timeline !== null && document.getElementById('timeline-canvas').dataset.processes);
  const labels = await page.$eval('#timeline-canvas', (c) => c.dataset.processes.split('|'));
  check(`the timeline labels each process (${labels.join('; ')})`,
    same(labels.map((l) => Number(l.split(' ')[1])), expect.tree.map((x) => x[0])));
  const lanes = await page.evaluate(() => window.__pa.state.timeline.layout.laneY.length);
  check(`one lane per thread (${lanes})`, lanes === expect.tids.length);
  await page.screenshot({ path: `${shots}/timeline-processes.png`, fullPage: true });

  // a founder with its descendants is one side: nothing to compare
  await page.click('#tabs button[data-view="compare"]');
  await page.waitForSelector('#compare-note.error');
  const note = await page.textContent('#compare-note');
  check(`one side: the Compare view says compare needs two (${note})`, note.startsWith('Compare needs two or more experiments') &&
    (await page.$$('#compare tr')).length === 0);
});
