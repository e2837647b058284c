// analyzer_filter.mjs - the analyzer's filter bar and Compare view on two experiments, in Debian's
// chromium (headless) driven by playwright-core, for tests/e2e/analyzer_browser.sh:
//   node analyzer_filter.mjs URL EXPECT.json SHOTDIR
// EXPECT.json (from er_print): {"total": <Total> CPU of both, "filter": EXPR, "filtered": its
// <Total> under er_print -filters EXPR, "thread": <Total> under -filters 'EXPID==1 && THRID==1',
// "compare": {MODE: [each row's cells, the name last]} of er_print -compare MODE -functions}.
// Checks that typing a filter changes the function list's <Total> to er_print's and names the
// filter in the view's title, a bad filter is an error naming its column that changes nothing,
// Clear restores the list, a click on a thread filters on it, and the Compare view shows
// er_print's compare tables (values, deltas, ratios) with a column per side.  Checks and exit
// status: analyzer_session.mjs; screenshots go to SHOTDIR.
import { session } from './analyzer_session.mjs';

await session(async ({ page, expect, shots, check, same }) => {
  const total = () => page.$eval('#functions tbody tr[data-id="0"]', (tr) => tr.cells[0].textContent);
  // do `what`, then wait for the function list of filter f (the page marks the table with its filter)
  const reloaded = async (what, f) => {
    await what();
    await page.waitForFunction((x) => document.getElementById('functions').dataset.filter === x &&
      document.querySelector('#functions tbody tr'), f);
  };
  await page.waitForSelector('#functions tbody tr');
  check(`<Total> ${await total()} = er_print's ${expect.total}`, (await total()) === expect.total);

  await page.fill('#filter', expect.filter);
  await reloaded(() => page.click('#filter-apply'), expect.filter);
  const t1 = await total();
  check(`filter ${expect.filter}: <Total> ${t1} = er_print -filters' ${expect.filtered}`, t1 === expect.filtered && t1 !== expect.total);
  const title = await page.textContent('#view-title');
  check(`the view's title names the filter (${title})`, title.includes('filter: ' + expect.filter));
  await page.screenshot({ path: `${shots}/filter-functions.png`, fullPage: true });

  await page.fill('#filter', 'EXPID==');
  await page.click('#filter-apply');
  await page.waitForFunction(() => document.getElementById('filter-error').textContent !== '');
  const err = await page.textContent('#filter-error');
  check(`a bad filter: an error naming the column (${err})`, /column 8/.test(err));
  check(`a bad filter changes nothing (${await total()})`, (await total()) === expect.filtered);
  await page.screenshot({ path: `${shots}/filter-error.png`, fullPage: true });

  await reloaded(() => page.click('#filter-clear'), '');
  check(`Clear: <Total> ${await total()} again`, (await total()) === expect.total);
  check('Clear empties the error', (await page.textContent('#filter-error')) === '');

  await page.click('#tabs button[data-view="threads"]');
  await page.waitForSelector('#threads tbody tr[data-experiment="1"][data-thread="1"]');
  await page.click('#threads tbody tr[data-experiment="1"][data-thread="1"]');
  await page.waitForFunction(() => window.__pa.state.filter !== '');
  const f = await page.inputValue('#filter');
  check(`a click on thread 1 of experiment 1 filters on it (${f})`, f === 'EXPID==1 && THRID==1');
  await reloaded(() => page.click('#tabs button[data-view="functions"]'), f);
  check(`its <Total> ${await total()} = er_print's ${expect.thread}`, (await total()) === expect.thread);
  await reloaded(() => page.click('#filter-clear'), '');

  await page.click('#tabs button[data-view="compare"]');
  for (const mode of ['on', 'delta', 'ratio']) {
    await page.selectOption('#compare-mode', mode);
    await page.waitForFunction((m) => {
      const c = window.__pa.state.compare;
      return c && c.mode === m && document.querySelector('#compare tbody tr');
    }, mode);
    const rows = await page.$$eval('#compare tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
    const want = expect.compare[mode];
    const bad = rows.findIndex((r, i) => !same(r, want[i]));
    check(`compare ${mode}: er_print -compare ${mode}'s ${want.length} rows` +
      (bad >= 0 ? ` (row ${bad}: ${JSON.stringify(rows[bad])} vs ${JSON.stringify(want[bad])})` : ''),
    rows.length === want.length && bad < 0);
    await page.screenshot({ path: `${shots}/compare-${mode}.png`, fullPage: true });
  }
  const heads = await page.$$eval('#compare thead tr:first-child th.side', (ths) => ths.map((t) => t.textContent));
  check(`a column per side (${heads.join(' ')})`, heads.length >= 2 && heads[0] === 'one.er' && heads[1] === 'two.er');
});
