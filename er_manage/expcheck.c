/*
 * expcheck.c - the operand checks of er_rm, er_mv and er_cp (expcheck.h):
 * every operand and every group member is judged before any tool touches a
 * file, so a refused argument leaves everything as it was.
 */
#include "er_manage/expcheck.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/regfile.h"
#include "experiment/expgroup.h"

void expcheck_basename(const char *path, char *ret, size_t room)
{
	size_t n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		n--;
	size_t a = n;
	while (a > 0 && path[a - 1] != '/')
		a--;
	snprintf(ret, room, "%.*s", (int)(n - a), path + a);
}

/* Skip blanks from s[i]; the new index. */
static size_t skip_blanks(const char *s, size_t n, size_t i)
{
	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n'))
		i++;
	return i;
}

/*
 * s[i..] starts a DOCTYPE: the index after it, or 0 (with *why) when it is
 * refused as the readers refuse it (analysis/xmlsafe.h): one that declares
 * an entity or names an external DTD, or one not closed within the text read.
 */
static size_t skip_doctype(const char *s, size_t n, size_t i, const char **why)
{
	size_t j = i + 9, depth = 0; /* past "<!DOCTYPE" */
	int external = 0;
	for (; j < n; j++) {
		if (s[j] == '[')
			depth++;
		else if (s[j] == ']' && depth)
			depth--;
		else if (s[j] == '>' && !depth)
			break;
		else if (depth && n - j >= 8 && memcmp(s + j, "<!ENTITY", 8) == 0)
			break;
		else if (!depth && ((n - j >= 6 && memcmp(s + j, "SYSTEM", 6) == 0) ||
				    (n - j >= 6 && memcmp(s + j, "PUBLIC", 6) == 0)))
			external = 1;
	}
	if (j < n && s[j] == '<')
		*why = "its log.xml declares an entity (entity declarations are refused)";
	else if (j >= n)
		*why = "its log.xml has a document type declaration longer than the 4 KiB read";
	else if (external)
		*why = "its log.xml names an external DTD (external DTDs are refused)";
	else
		return j + 1;
	return 0;
}

/*
 * Does log.xml's text start (after an XML declaration, comments, blanks and
 * a DOCTYPE the readers accept) with an <experiment> element?  1, or 0 with
 * *why saying why not.
 */
static int is_experiment_log(const char *s, size_t n, const char **why)
{
	size_t i = 0;
	*why = "not an experiment: its log.xml is not an experiment log (no <experiment> root element)";
	if (n >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0)
		i = 3;
	for (;;) {
		i = skip_blanks(s, n, i);
		const char *end = NULL;
		size_t end_len = 2; /* bytes of the closing "?>" or "-->" */
		if (i + 9 <= n && memcmp(s + i, "<!DOCTYPE", 9) == 0) {
			if (!(i = skip_doctype(s, n, i, why)))
				return 0;
			continue;
		}
		if (i + 2 <= n && memcmp(s + i, "<?", 2) == 0)
			end = memmem(s + i, n - i, "?>", 2);
		else if (i + 4 <= n && memcmp(s + i, "<!--", 4) == 0) {
			end = memmem(s + i, n - i, "-->", 3);
			end_len = 3;
		} else {
			break;
		}
		if (!end)
			return 0;
		i = (size_t)(end - s) + end_len;
	}
	const size_t k = sizeof "<experiment" - 1;
	return i + k < n && memcmp(s + i, "<experiment", k) == 0 &&
	       (s[i + k] == ' ' || s[i + k] == '>' || s[i + k] == '\t' || s[i + k] == '\n' ||
		s[i + k] == '\r' || s[i + k] == '/');
}

/* NAME is a descendant's subexperiment name: _f1.er, _x2.er, _f1_x1_c3.er, ... */
static int is_subexperiment_name(const char *name)
{
	const char *p = name;
	if (*p != '_')
		return 0;
	while (*p == '_') {
		p++;
		if (*p != 'f' && *p != 'x' && *p != 'c')
			return 0;
		p++;
		if (*p < '0' || *p > '9')
			return 0;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	return strcmp(p, ".er") == 0;
}

/* DIR/NAME exists (not following a last link). */
static int exists_in(const char *dir, const char *name)
{
	char p[PATH_MAX];
	struct stat st;
	if ((size_t)snprintf(p, sizeof p, "%s/%s", dir, name) >= sizeof p)
		return 0;
	return lstat(p, &st) == 0;
}

/* The founder directory of the subexperiment PATH (its parent) into RET; 1 if PATH is one. */
static int founder_of(const char *path, char *ret, size_t room)
{
	char base[NAME_MAX + 1];
	expcheck_basename(path, base, sizeof base);
	if (!is_subexperiment_name(base))
		return 0;
	size_t n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		n--;
	n -= strlen(base);
	while (n > 1 && path[n - 1] == '/')
		n--;
	snprintf(ret, room, "%.*s", n ? (int)n : 1, n ? path : ".");
	return exists_in(ret, "log.xml");
}

static int check_log(const char *path, char *why, size_t room)
{
	char buf[4096];
	int fd =
		regfile_open_in(path, "log.xml", NULL); /* a regular file of the experiment, never blocking */
	if (fd < 0) {
		if (fd == -ENOENT)
			snprintf(why, room, "not an experiment: it has no log.xml");
		else
			snprintf(why, room, "not an experiment: cannot read its log.xml: %s",
				 regfile_strerror(fd));
		return -EINVAL;
	}
	ssize_t r;
	do
		r = read(fd, buf, sizeof buf);
	while (r < 0 && errno == EINTR);
	int e = errno;
	close(fd);
	const char *no;
	if (r < 0) {
		snprintf(why, room, "not an experiment: cannot read its log.xml: %s", strerror(e));
		return -EINVAL;
	}
	if (!is_experiment_log(buf, (size_t)r, &no)) {
		snprintf(why, room, "%s", no);
		return -EINVAL;
	}
	return 0;
}

int expcheck_experiment(const char *path, char *why, size_t room)
{
	struct stat st;
	if (lstat(path, &st) < 0) {
		int e = errno;
		snprintf(why, room, "%s", e == ENOENT ? "does not exist" : strerror(e));
		return e == ENOENT ? -ENOENT : -EINVAL;
	}
	if (S_ISLNK(st.st_mode)) {
		snprintf(why, room, "is a symbolic link; name the experiment itself");
		return -EINVAL;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, room, "not an experiment: not a directory (nor an experiment group)");
		return -EINVAL;
	}
	int rc = check_log(path, why, room);
	if (rc < 0)
		return rc;
	char founder[PATH_MAX];
	if (founder_of(path, founder, sizeof founder)) {
		snprintf(why, room,
			 "a subexperiment of %s (a descendant process's data belongs to its founder); "
			 "name %s instead",
			 founder, founder);
		return -EINVAL;
	}
	return 0;
}

static int add_item(struct expcheck_list *l, const char *path, long group, int missing)
{
	struct expcheck_item *v = realloc(l->items, (l->count + 1) * sizeof *v);
	if (!v)
		return -ENOMEM;
	l->items = v;
	char *p = strdup(path);
	if (!p)
		return -ENOMEM;
	v[l->count++] = (struct expcheck_item){.path = p, .group = group, .missing = missing};
	return 0;
}

/* Check one experiment (an operand, or a member of the group operand GROUP) and add it. */
static int check_one(struct expcheck_list *l, const char *path, const char *group, long gi, int flags,
		     const char *prog)
{
	char why[PATH_MAX * 2 + 160];
	int rc = expcheck_experiment(path, why, sizeof why);
	if (rc == -ENOENT && (flags & EXPCHECK_MISSING_OK))
		return add_item(l, path, gi, 1) < 0 ? -ENOMEM : 0;
	if (rc < 0) {
		if (group)
			fprintf(stderr, "%s: %s: member %s: %s\n", prog, group, path, why);
		else
			fprintf(stderr, "%s: %s: %s\n", prog, path, why);
		return 1;
	}
	return add_item(l, path, gi, 0) < 0 ? -ENOMEM : 0;
}

static int check_group(struct expcheck_list *l, const char *path, int flags, const char *prog)
{
	struct expgroup g;
	char why[512];
	int rc = expgroup_read(path, &g, why, sizeof why);
	if (rc < 0) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, why);
		return 1;
	}
	struct expcheck_group *v = realloc(l->groups, (l->ngroups + 1) * sizeof *v);
	if (!v) {
		expgroup_release(&g);
		return -ENOMEM;
	}
	l->groups = v;
	long gi = (long)l->ngroups++;
	v[gi] = (struct expcheck_group){.path = path, .first = l->count};
	int bad = 0;
	for (size_t k = 0; k < g.count && bad >= 0; k++) {
		rc = check_one(l, g.members[k], path, gi, flags, prog);
		bad = rc < 0 ? rc : bad | rc;
	}
	v[gi].count = l->count - v[gi].first;
	expgroup_release(&g);
	return bad;
}

/* Refuse the same experiment named twice (directly or through groups). */
static int check_duplicates(const struct expcheck_list *l, const char *prog)
{
	int bad = 0;
	char(*real)[PATH_MAX] = calloc(l->count ? l->count : 1, sizeof *real);
	if (!real)
		return -ENOMEM;
	for (size_t i = 0; i < l->count; i++) {
		if (l->items[i].missing || !realpath(l->items[i].path, real[i]))
			continue;
		for (size_t j = 0; j < i; j++)
			if (real[j][0] && strcmp(real[i], real[j]) == 0) {
				fprintf(stderr, "%s: %s: named twice (also as %s)\n", prog, l->items[i].path,
					l->items[j].path);
				bad = 1;
				break;
			}
	}
	free(real);
	return bad;
}

int expcheck_collect(struct expcheck_list *l, char *const *args, size_t n, int flags, const char *prog)
{
	memset(l, 0, sizeof *l);
	int bad = 0;
	for (size_t i = 0; i < n && bad >= 0; i++) {
		int rc = expgroup_is_group(args[i]) ? check_group(l, args[i], flags, prog)
						    : check_one(l, args[i], NULL, -1, flags, prog);
		bad = rc < 0 ? rc : bad | rc;
	}
	if (bad >= 0) {
		int rc = check_duplicates(l, prog);
		bad = rc < 0 ? rc : bad | rc;
	}
	if (bad < 0) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return 1;
	}
	return bad;
}

void expcheck_list_release(struct expcheck_list *l)
{
	for (size_t i = 0; i < l->count; i++)
		free(l->items[i].path);
	free(l->items);
	free(l->groups);
	memset(l, 0, sizeof *l);
}
