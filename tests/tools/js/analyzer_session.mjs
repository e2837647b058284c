// analyzer_session.mjs - what the analyzer's browser checks share (analyzer_page.mjs,
// analyzer_procs.mjs): `node SCRIPT URL EXPECT.json SHOTDIR`.  session(body) opens URL in
// Debian's chromium (headless, playwright-core), waits for the page to be ready and runs
// body({page, url, expect, shots, check, same, errors}); check(desc, cond) prints "ok: ..." or
// "not ok: ...".  Then it closes the browser, prints the failures and exits 1 if any.
// launch() starts the browser alone, testPage(browser, options) opens a page in it with the
// analyzer's test flag set: its page then offers window.__pa (analyzer/web/lib/testhook.js),
// the views' state (window.__pa.state) and the functions that draw them.
import { chromium } from 'playwright-core';
import fs from 'node:fs';

// Debian's chromium, headless ($CHROMIUM overrides the path); also bench/analyzer/browser.mjs's.
export function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    timeout: 60000,
  });
}

// A new page (browser.newPage(options)) whose documents get window.__paTest = true before
// their own scripts run: the analyzer's page's test flag.
export async function testPage(browser, options) {
  const page = await browser.newPage(options);
  await page.addInitScript(() => { window.__paTest = true; });
  return page;
}

export async function session(body) {
  const [url, expectFile, shots] = process.argv.slice(2);
  const expect = JSON.parse(fs.readFileSync(expectFile, 'utf8'));
  let failures = 0;
  const check = (desc, cond) => {
    console.log(`${cond ? 'ok' : 'not ok'}: ${desc}`);
    if (!cond) failures++;
  };
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  const browser = await launch();
  try {
    const page = await testPage(browser, { viewport: { width: 1200, height: 800 } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('requestfailed', (r) => errors.push('request failed: ' + r.url()));
    await page.goto(url);
    await page.waitForSelector('body[data-ready="1"]', { timeout: 30000 });
    await body({ page, url, expect, shots, check, same, errors });
    check(`no page error (${errors.join('; ')})`, errors.length === 0);
  } finally {
    await browser.close();
  }
  console.log(`${failures} failures`);
  process.exit(failures ? 1 : 0);
}
