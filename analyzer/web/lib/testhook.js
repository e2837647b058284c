// testhook.js - what the browser tests (tests/tools/js/analyzer_*.mjs) and the bench
// (bench/analyzer/browser.mjs) reach in the page, and only when their driver set the test
// flag window.__paTest to true before the page's scripts ran (playwright's addInitScript).
// Nothing from outside the browser's driver can set it: no URL, cookie or reply of the
// server is read for it, and `true` is no element a page could name __paTest.  The hook,
// window.__pa, holds the views' shared state and functions that draw, load or switch a view:
// what a user sees and does anyway.  No script can read the token (an HttpOnly cookie).
export function installTestHook(hook) {
  if (window.__paTest === true) window.__pa = Object.freeze(hook);
}
