/*
 * sources.c - -A src (contract in sources.h).
 */
#include "er_archive/sources.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/archive.h"
#include "analysis/lines.h"
#include "er_archive/copy.h"
#include "er_archive/report.h"
#include "er_archive/writer.h"

#define SRC_FILES_MAX 100000

struct src_set {
	char **v;
	size_t n, cap;
};

static void src_add(void *ctx, uint64_t addr, const struct line_loc *loc)
{
	struct src_set *s = ctx;
	(void)addr;
	if (!loc->file || loc->file[0] != '/' || s->n >= SRC_FILES_MAX)
		return;
	for (size_t i = s->n; i-- > 0;) /* rows come in runs of the same file */
		if (strcmp(s->v[i], loc->file) == 0)
			return;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		char **v = realloc(s->v, cap * sizeof *v);
		if (!v)
			return;
		s->v = v;
		s->cap = cap;
	}
	if ((s->v[s->n] = strdup(loc->file)))
		s->n++;
}

/* Does `path` resolve to a file inside the directory exp (or can that not be told)? */
static int inside_experiment(const char *exp, const char *path)
{
	char re[PATH_MAX], rp[PATH_MAX];
	if (!realpath(exp, re) || !realpath(path, rp))
		return 1;
	size_t n = strlen(re);
	return strncmp(rp, re, n) == 0 && rp[n] == '/';
}

/*
 * Copy the source files named in an object's line table to
 * <exp>/archives/src/<path>: only when the line table is this machine's (the
 * object or debug file at its recorded path, or in the per-user cache), never
 * the DWARF of a copy that came inside the experiment, which may name any
 * file (~/.ssh/id_rsa) to be copied into it.
 */
void ar_archive_sources(const struct ar_options *opt, const char *exp, const struct exp_loadobj *lo)
{
	char readp[PATH_MAX], dr[PATH_MAX];
	if (archive_resolve(exp, lo->path, lo->build_id, readp, sizeof readp, NULL) < 0)
		return;
	struct lines_options lopt = {
		.debug_root = archive_debug_root(exp, lo->build_id, dr, sizeof dr) == 1 ? dr : NULL};
	struct lines *l;
	if (lines_open(readp, lo->build_id, &lopt, &l) < 0)
		return; /* no line information: no sources to name */
	if (inside_experiment(exp, lines_debug_file(l))) {
		ar_warn("%s: its line table is the experiment's own copy (%s), which may name any file; its "
			"sources are not archived",
			lo->path, lines_debug_file(l));
		lines_free(l);
		return;
	}
	struct src_set set = {0};
	lines_rows(l, 0, UINT64_MAX, src_add, &set);
	for (size_t i = 0; i < set.n && !ar_failed(); i++) {
		char dst[PATH_MAX], dir[PATH_MAX];
		uint64_t bytes;
		int src_failed;
		if (!ar_is_file(set.v[i], &bytes) ||
		    (size_t)snprintf(dst, sizeof dst, "%s/%s/src%s", exp, ARCHIVE_DIR_NAME, set.v[i]) >=
			    sizeof dst)
			continue; /* gone, or not on this machine (e.g. libc's sources) */
		if (opt->dry_run) {
			ar_plan("would copy", set.v[i], dst);
			continue;
		}
		if (!opt->force && ar_is_file(dst, &bytes))
			continue;
		snprintf(dir, sizeof dir, "%s", dst);
		char *slash = strrchr(dir, '/');
		if (slash)
			*slash = '\0';
		char from[PATH_MAX];
		snprintf(from, sizeof from, "%s/%s", exp, ARCHIVE_DIR_NAME);
		if (ar_make_dirs(from, dir) < 0)
			continue; /* reported */
		char why[PATH_MAX + 256];
		int r = copy_file(set.v[i], dst, COPY_ANY, NULL, &bytes, &src_failed, why, sizeof why);
		if (r < 0 && src_failed)
			ar_warn("cannot read %s: %s; not archived", set.v[i], why);
		else if (r < 0)
			ar_error("%s", why);
		else if (!opt->quiet)
			printf("archived %s as %s\n", set.v[i], dst);
	}
	for (size_t i = 0; i < set.n; i++)
		free(set.v[i]);
	free(set.v);
	lines_free(l);
}
