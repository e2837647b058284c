// readme_shots.mjs - the README's pictures of the analyzer: `node readme_shots.mjs URL OUTDIR`
// (scripts/readme-shots.sh runs it on the demo's experiment).  Opens URL in Debian's chromium
// (analyzer_session.mjs's launch() and testPage()), and saves OUTDIR/analyzer-functions.png (the function
// list, kernel_loop selected), analyzer-flame.png and analyzer-timeline.png.
import { launch, testPage } from './analyzer_session.mjs';

const [url, out] = process.argv.slice(2);
const browser = await launch();
try {
  const page = await testPage(browser, { viewport: { width: 1100, height: 560 } });
  await page.goto(url);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 30000 });
  await page.waitForSelector('#functions tbody tr');
  await page.click('#functions tbody tr:nth-child(2)');
  await page.screenshot({ path: `${out}/analyzer-functions.png` });
  await page.click('#tabs button[data-view="flame"]');
  await page.waitForFunction(() => document.getElementById('flame-zoom').textContent === 'Zoom: all');
  await page.screenshot({ path: `${out}/analyzer-flame.png` });
  await page.click('#tabs button[data-view="timeline"]');
  await page.waitForFunction(() => window.__pa.state.timeline !== null);
  await page.waitForTimeout(500);
  await page.screenshot({ path: `${out}/analyzer-timeline.png` });
} finally {
  await browser.close();
}
