/*
 * expgroup.c - experiment group files (.erg): parse, read, expand, append,
 * write (see expgroup.h).  The parser trusts nothing of the text: bounded
 * lines, a capped member count, NUL bytes refused.  No printing, no static
 * state.
 */
#include "experiment/expgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/io.h"
#include "common/regfile.h"

static int fail(int rc, char *err, size_t room, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int fail(int rc, char *err, size_t room, const char *fmt, ...)
{
	if (err && room) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, room, fmt, ap);
		va_end(ap);
	}
	return rc;
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static int ends_with(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);
	return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

void expgroup_release(struct expgroup *g)
{
	if (!g)
		return;
	expgroup_free_paths(g->members, g->count);
	g->members = NULL;
	g->count = 0;
}

void expgroup_free_paths(char **paths, size_t count)
{
	for (size_t i = 0; paths && i < count; i++)
		free(paths[i]);
	free(paths);
}

/* Add DIR/LINE (LINE alone when absolute or DIR is empty) to *v of *n; 0 or -ENOMEM. */
static int add_member(char ***v, size_t *n, const char *dir, const char *line, size_t len)
{
	char **nv = realloc(*v, (*n + 1) * sizeof *nv);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	int rel = line[0] != '/' && dir && *dir;
	size_t dn = rel ? strlen(dir) : 0;
	char *s = malloc(dn + 1 + len + 1);
	if (!s)
		return -ENOMEM;
	if (rel) {
		memcpy(s, dir, dn);
		if (dir[dn - 1] != '/')
			s[dn++] = '/';
	}
	memcpy(s + dn, line, len);
	s[dn + len] = '\0';
	nv[(*n)++] = s;
	return 0;
}

int expgroup_parse(const char *text, size_t len, const char *dir, struct expgroup *ret, char *err,
		   size_t room)
{
	const size_t hn = sizeof EXPGROUP_HEADER - 1;
	size_t pos = 0, lineno = 0;
	int rc = 0;

	ret->members = NULL;
	ret->count = 0;
	if (memchr(text, '\0', len))
		return fail(-EINVAL, err, room, "contains a NUL byte: not a text file");
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - text) : len, a = pos, b = end;
		pos = nl ? end + 1 : len;
		lineno++;
		while (a < b && is_blank(text[a]))
			a++;
		while (b > a && is_blank(text[b - 1]))
			b--;
		if (lineno == 1) {
			if (b - a != hn || memcmp(text + a, EXPGROUP_HEADER, hn) != 0)
				return fail(-EINVAL, err, room,
					    "not an experiment group: its first line is not '" EXPGROUP_HEADER
					    "'");
			continue;
		}
		if (a == b || text[a] == '#')
			continue;
		if (b - a > EXPGROUP_LINE_MAX_BYTES) {
			rc = fail(-ENAMETOOLONG, err, room, "line %zu: a path longer than %u bytes", lineno,
				  EXPGROUP_LINE_MAX_BYTES);
			break;
		}
		if (ends_with(text + a, b - a, EXPGROUP_SUFFIX)) {
			rc = fail(-EINVAL, err, room,
				  "line %zu: names a group (%.*s); groups cannot be nested", lineno,
				  (int)(b - a), text + a);
			break;
		}
		if (ret->count == EXPGROUP_MAX_MEMBERS) {
			rc = fail(-E2BIG, err, room, "more than %d experiments", EXPGROUP_MAX_MEMBERS);
			break;
		}
		if ((rc = add_member(&ret->members, &ret->count, dir, text + a, b - a)) < 0) {
			fail(rc, err, room, "out of memory");
			break;
		}
	}
	if (lineno == 0)
		return fail(-EINVAL, err, room, "not an experiment group: empty file");
	if (rc < 0) {
		expgroup_release(ret);
		return rc;
	}
	return (int)ret->count;
}

/* The whole of a file of at most EXPGROUP_MAX_BYTES into *ret (malloc'd) and *ret_len. */
static int slurp(const char *path, char **ret, size_t *ret_len)
{
	int fd = regfile_open(path, NULL); /* a regular file only, never blocking */
	if (fd < 0)
		return fd;
	int rc = 0;
	char *buf = NULL;
	size_t n = 0;
	if (!(buf = malloc(EXPGROUP_MAX_BYTES + 1))) {
		rc = -ENOMEM;
		goto out;
	}
	for (;;) {
		ssize_t r = read(fd, buf + n, EXPGROUP_MAX_BYTES + 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = -errno;
			goto out;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > EXPGROUP_MAX_BYTES) {
			rc = -EFBIG;
			goto out;
		}
	}
	*ret = buf;
	*ret_len = n;
	buf = NULL;
out:
	free(buf);
	close(fd);
	return rc;
}

int expgroup_read(const char *path, struct expgroup *ret, char *err, size_t room)
{
	char *text = NULL, *dir = NULL;
	size_t len = 0;

	ret->members = NULL;
	ret->count = 0;
	int rc = slurp(path, &text, &len);
	if (rc == -EFBIG)
		return fail(rc, err, room, "larger than %u bytes: not an experiment group",
			    EXPGROUP_MAX_BYTES);
	if (rc < 0)
		return fail(rc, err, room, "%s", regfile_strerror(rc));
	const char *slash = strrchr(path, '/');
	if (slash) {
		size_t dn = slash == path ? 1 : (size_t)(slash - path);
		if (!(dir = strndup(path, dn))) {
			free(text);
			return fail(-ENOMEM, err, room, "out of memory");
		}
	}
	rc = expgroup_parse(text, len, dir, ret, err, room);
	free(dir);
	free(text);
	return rc;
}

int expgroup_is_group(const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	if (ends_with(path, strlen(path), EXPGROUP_SUFFIX))
		return 1;
	char head[sizeof EXPGROUP_HEADER];
	int fd = regfile_open(path, NULL);
	if (fd < 0)
		return 0;
	ssize_t r = pread(fd, head, sizeof head - 1, 0);
	close(fd);
	return r == (ssize_t)sizeof head - 1 && memcmp(head, EXPGROUP_HEADER, sizeof head - 1) == 0;
}

int expgroup_expand(const char *const *args, size_t n, char ***ret_paths, size_t *ret_count, char *err,
		    size_t room)
{
	char **v = NULL;
	size_t count = 0;
	int rc = 0;

	for (size_t i = 0; i < n && rc == 0; i++) {
		if (!expgroup_is_group(args[i])) {
			rc = add_member(&v, &count, NULL, args[i], strlen(args[i]));
			if (rc < 0)
				fail(rc, err, room, "out of memory");
			continue;
		}
		struct expgroup g;
		char why[512];
		rc = expgroup_read(args[i], &g, why, sizeof why);
		if (rc < 0) {
			fail(rc, err, room, "%s: %s", args[i], why);
			break;
		}
		rc = 0;
		for (size_t k = 0; k < g.count && rc == 0; k++)
			if ((rc = add_member(&v, &count, NULL, g.members[k], strlen(g.members[k]))) < 0)
				fail(rc, err, room, "out of memory");
		expgroup_release(&g);
	}
	if (rc < 0) {
		expgroup_free_paths(v, count);
		return rc;
	}
	*ret_paths = v;
	*ret_count = count;
	return 0;
}

/* Check that the first bytes of FD (SIZE long) are the header line. */
static int starts_with_header(int fd, off_t size)
{
	char head[sizeof EXPGROUP_HEADER];
	size_t hn = sizeof EXPGROUP_HEADER - 1;
	if (size < (off_t)hn || pread(fd, head, hn, 0) != (ssize_t)hn ||
	    memcmp(head, EXPGROUP_HEADER, hn) != 0)
		return -EINVAL;
	return 0;
}

int expgroup_append(const char *path, const char *member)
{
	if (!*member || strchr(member, '\n'))
		return -EINVAL;
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	int rc = 0;
	struct stat st;
	char last = '\n';
	if (flock(fd, LOCK_EX) < 0 || fstat(fd, &st) < 0) {
		rc = -errno;
		goto out;
	}
	if (st.st_size == 0) {
		rc = io_write_all(fd, EXPGROUP_HEADER "\n", sizeof EXPGROUP_HEADER);
	} else {
		/* O_WRONLY cannot pread: look through a second descriptor */
		int rfd = open(path, O_RDONLY | O_CLOEXEC);
		if (rfd < 0) {
			rc = -errno;
			goto out;
		}
		rc = starts_with_header(rfd, st.st_size);
		if (rc == 0 && pread(rfd, &last, 1, st.st_size - 1) != 1)
			rc = -EIO;
		close(rfd);
		if (rc == 0 && last != '\n')
			rc = io_write_all(fd, "\n", 1);
	}
	size_t n = strlen(member);
	char *line = rc == 0 ? malloc(n + 2) : NULL;
	if (rc == 0 && !line)
		rc = -ENOMEM;
	if (rc == 0) {
		memcpy(line, member, n);
		line[n] = '\n';
		rc = io_write_all(fd, line, n + 1); /* one write: O_APPEND keeps it whole */
	}
	free(line);
out:
	close(fd); /* releases the lock */
	return rc;
}

int expgroup_write(const char *path, const char *const *members, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!*members[i] || strchr(members[i], '\n'))
			return -EINVAL;
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	int rc = io_write_all(fd, EXPGROUP_HEADER "\n", sizeof EXPGROUP_HEADER);
	for (size_t i = 0; i < n && rc == 0; i++) {
		rc = io_write_all(fd, members[i], strlen(members[i]));
		if (rc == 0)
			rc = io_write_all(fd, "\n", 1);
	}
	if (close(fd) < 0 && rc == 0)
		rc = -errno;
	if (rc < 0)
		unlink(path);
	return rc;
}
