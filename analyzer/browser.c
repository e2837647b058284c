/*
 * browser.c - the analyzer's browser opening through a private page; see
 * browser.h.  The directory is made by mkdtemp (new, 0700, ours) and the page
 * created in it with O_EXCL|O_NOFOLLOW, so no other user can have placed,
 * linked or read it; the command line carries only the page's path.
 */
#include "analyzer/browser.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

struct browser {
	char dir[PATH_MAX];                        /* the private directory */
	char page[PATH_MAX + sizeof "/open.html"]; /* dir/open.html */
	pid_t child;                               /* xdg-open, or -1 */
};

/* 1 if path is a directory of this user's with no access for group or others. */
static int private_dir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	struct stat st;
	int ok = fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() && !(st.st_mode & 077);
	close(fd);
	return ok;
}

static const char *base_dir(void)
{
	const char *d = getenv("XDG_RUNTIME_DIR");
	if (d && d[0] == '/' && private_dir(d))
		return d;
	d = getenv("TMPDIR");
	return d && d[0] == '/' ? d : "/tmp";
}

static int write_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The page: a redirect (as Jupyter's), and the link in case the browser does not follow it. */
static int write_page(const char *path, const char *url)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, S_IRUSR | S_IWUSR);
	if (fd < 0)
		return -errno;
	char html[1024];
	int n = snprintf(html, sizeof html,
			 "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n"
			 "<meta http-equiv=\"refresh\" content=\"0;url=%s\">\n"
			 "<title>Performance Analyzer</title></head>\n"
			 "<body><p>Opening the analyzer: <a href=\"%s\">%s</a></p></body></html>\n",
			 url, url, url);
	int r = n < 0 || (size_t)n >= sizeof html ? -ENAMETOOLONG : 0;
	if (r == 0 && fchmod(fd, S_IRUSR | S_IWUSR) < 0) /* exactly 0600, whatever the umask */
		r = -errno;
	if (r == 0)
		r = write_all(fd, html, (size_t)n);
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r < 0)
		unlink(path);
	return r;
}

/* path as a file:// URL into buf: bytes outside [A-Za-z0-9/._~-] percent-encoded. */
static int file_url(const char *path, char *buf, size_t room)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t k = (size_t)snprintf(buf, room, "file://");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		int plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			    (*p >= '0' && *p <= '9') || strchr("/._~-", *p);
		if (k + 4 > room)
			return -ENAMETOOLONG;
		if (plain) {
			buf[k++] = (char)*p;
		} else {
			buf[k++] = '%';
			buf[k++] = hex[*p >> 4];
			buf[k++] = hex[*p & 15];
		}
	}
	buf[k] = 0;
	return 0;
}

/* xdg-open arg, its input and output /dev/null, no signal blocked (the analyzer blocks SIGINT and SIGTERM). */
static pid_t spawn_xdg_open(const char *arg)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	if (posix_spawn_file_actions_init(&fa) != 0)
		return -1;
	if (posix_spawnattr_init(&at) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		return -1;
	}
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	sigset_t none;
	sigemptyset(&none);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK);
	char *argv[] = {"xdg-open", (char *)arg, NULL};
	pid_t pid;
	int r = posix_spawnp(&pid, "xdg-open", &fa, &at, argv, environ);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	return r == 0 ? pid : -1;
}

int browser_open(const char *url, struct browser **ret, char *err, size_t errlen)
{
	if (strpbrk(url, "&<>\"'")) {
		snprintf(err, errlen, "the URL has characters a page must escape");
		return -EINVAL;
	}
	struct browser *b = calloc(1, sizeof *b);
	if (!b) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	b->child = -1;
	const char *base = base_dir();
	int n = snprintf(b->dir, sizeof b->dir, "%s/pa-analyzer-XXXXXX", base);
	if (n < 0 || (size_t)n + sizeof "/open.html" > sizeof b->dir) {
		snprintf(err, errlen, "the directory '%s' has too long a name", base);
		free(b);
		return -ENAMETOOLONG;
	}
	if (!mkdtemp(b->dir)) {
		int e = errno;
		snprintf(err, errlen, "cannot make a directory in '%s': %s", base, strerror(e));
		free(b);
		return -e;
	}
	snprintf(b->page, sizeof b->page, "%s/open.html", b->dir);
	char arg[3 * PATH_MAX + 8];
	int r = write_page(b->page, url);
	if (r < 0)
		snprintf(err, errlen, "cannot write '%s': %s", b->page, strerror(-r));
	else if ((r = file_url(b->page, arg, sizeof arg)) < 0)
		snprintf(err, errlen, "'%s' has too long a name", b->page);
	if (r < 0) {
		unlink(b->page);
		rmdir(b->dir);
		free(b);
		return r;
	}
	b->child = spawn_xdg_open(arg);
	*ret = b;
	return 0;
}

void browser_close(struct browser *b)
{
	if (!b)
		return;
	unlink(b->page);
	rmdir(b->dir);
	if (b->child > 0)
		waitpid(b->child, NULL, WNOHANG);
	free(b);
}
