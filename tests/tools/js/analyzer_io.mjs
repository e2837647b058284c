// analyzer_io.mjs - the analyzer's I/O view on an I/O-traced run (collect -i on), in Debian's
// chromium (headless) driven by playwright-core, for tests/e2e/analyzer_browser.sh:
//   node analyzer_io.mjs URL EXPECT.json SHOTDIR
// EXPECT.json (from er_print): {"files": [[name, read bytes, write bytes], ...] of ioactivity,
// "stacks": iocallstack's stack count, "writes": iostat's write calls}.  Checks that the view
// lists ioactivity's files with their bytes under <Total>, that grouping by call stack lists
// iocallstack's stacks leaf first, and that the summary has iostat's write calls.  Checks and
// exit status: analyzer_session.mjs; the screenshot goes to SHOTDIR.
import { session } from './analyzer_session.mjs';

await session(async ({ page, expect, shots, check, same }) => {
  await page.click('#tabs button[data-view="io"]');
  await page.waitForSelector('#io-rows tbody tr[data-total]');
  const files = await page.$$eval('#io-rows tbody tr:not([data-total])', (trs) =>
    trs.map((tr) => [tr.dataset.name, Number(tr.dataset.readBytes), Number(tr.dataset.writeBytes)]));
  const sort = (v) => v.slice().sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0]));
  check(`the files are ioactivity's (${JSON.stringify(files)})`, same(sort(files), sort(expect.files)));
  const summary = await page.$eval('#io-summary', (dl) => dl.textContent);
  check(`the summary has iostat's ${expect.writes} writes`, summary.includes(`${expect.writes} calls`));
  await (await page.$('#view-io')).screenshot({ path: `${shots}/io-files.png` });
  await page.selectOption('#io-by', 'stack');
  await page.waitForFunction(() => document.getElementById('io-count').textContent.includes('stacks'));
  const stacks = await page.$$eval('#io-rows tbody tr:not([data-total]) td.name', (tds) => tds.map((td) => td.textContent));
  check(`by call stack: iocallstack's ${expect.stacks} stacks (${stacks.length})`, stacks.length === expect.stacks);
  check('each stack starts at the libc function called',
    stacks.every((s) => /^(open|write|read|close)( |$)/.test(s)));
});
