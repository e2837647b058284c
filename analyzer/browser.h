/*
 * browser.h - open the analyzer's URL in the user's browser without putting
 * it on a command line, where any local user reads it (ps, /proc/PID/cmdline)
 * and with it the run's token.  As Jupyter does, the URL goes into a page
 * that redirects to it, in a file only the user can read, and xdg-open is
 * given that file's file:// URL.  Not thread-safe; no signal safety.
 */
#ifndef ANALYZER_BROWSER_H
#define ANALYZER_BROWSER_H

#include <stddef.h>

struct browser;

/*
 * Make a fresh directory of mode 0700 (mkdtemp) under $XDG_RUNTIME_DIR when that is a
 * directory of this user's that no one else may read or enter, else under $TMPDIR (when
 * absolute) or /tmp; write in it open.html, created with O_EXCL|O_NOFOLLOW and mode 0600,
 * a page that redirects to url; and start `xdg-open file://.../open.html` with its input and
 * output /dev/null and no signal blocked.  No xdg-open is not an error (nothing is opened).  url is put in the page
 * as it is: it must have none of the characters HTML escapes (&<>"').
 * Returns 0 with *ret (for browser_close), or a negative errno with a message naming the
 * file or directory in err, nothing left behind.
 */
int browser_open(const char *url, struct browser **ret, char *err, size_t errlen);

/* Remove the page and its directory, reap xdg-open if it has ended, free b.  NULL-safe. */
void browser_close(struct browser *b);

#endif
