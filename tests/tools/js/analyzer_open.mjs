// analyzer_open.mjs - what the analyzer gives xdg-open (the file:// URL of its private page,
// no token on a command line) opened in Debian's chromium:
// `node analyzer_open.mjs FILE_URL EXPECT.json SHOTDIR`, EXPECT {"base": "http://127.0.0.1:PORT",
// "cookie": "pa_token_PORT"}.  session() waits for the analyzer's page to be ready; checked: it
// is the one at base, and the token's HttpOnly cookie is set.
import { session } from './analyzer_session.mjs';

await session(async ({ page, expect, shots, check }) => {
  check(`the page is the analyzer's at ${expect.base} (${page.url()})`, page.url().startsWith(expect.base + '/'));
  const cookies = await page.context().cookies(expect.base);
  check(`the token's cookie ${expect.cookie} is set (${cookies.map((c) => c.name).join(' ')})`,
    cookies.some((c) => c.name === expect.cookie && c.httpOnly));
  await page.screenshot({ path: `${shots}/opened.png` });
});
