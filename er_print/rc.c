/*
 * rc.c - the defaults files of er_print (issue #16 item 6), read after the
 * experiments and before any command: the system's (/etc/er.rc, or the file
 * $PA_SYSTEM_RC names), then ~/.er.rc, then ./.er.rc, each line a command.
 * `dmetrics SPEC` and `dsort SPEC` (only here) set the default metric list
 * and sort: a file's dmetrics lines add up, each item kept only where the
 * experiments have its metric (so one file serves every kind of data, as
 * gprofng's does), and a later file's list replaces an earlier one's.  The
 * commands that set how reports look run as on the command line, silently:
 * setpath, addpath, pathmap, name, sthresh, dthresh, limit, inline,
 * printmode, viewmode, compare.  `en_desc on|off|=REGEX` (which
 * descendants to read) is read in a pass of its own before the experiments
 * load.  gprofng's rc commands that do not apply here (scc, dcc,
 * preload_libdirs, ...) are skipped; anything else is a warning naming the
 * file and line.  A defaults file must be a regular file of at most 1 MiB,
 * opened without blocking (common/regfile.h): a FIFO, a device or a longer
 * file is named in a warning and skipped (/dev/null, quietly: "no file").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/regfile.h"
#include "er_print/erp.h"
#include "er_print/textout.h"

#define RC_MAX_BYTES (1 << 20) /* a longer defaults file is refused */

static const char *const rc_run[] = {"setpath", "addpath",   "pathmap",  "name",   "sthresh", "dthresh",
				     "limit",   "printmode", "viewmode", "inline", "compare"};
static const char *const rc_skipped[] = {"scc",
					 "dcc",
					 "en_desc",
					 "tabs",
					 "rtabs",
					 "cc",
					 "preload_libdirs",
					 "ignore_no_xhwcprof",
					 "ignore_fs_warn",
					 "mobj_define",
					 "indxobj_define"};

static int in(const char *word, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcasecmp(word, list[i]) == 0)
			return 1;
	return 0;
}

/* The items of spec (':'-separated) that the loaded metrics allow, appended to *m. */
static void add_items(struct erp *e, const char *spec, struct mspec *m)
{
	char *buf = strdup(spec);
	for (char *save = NULL, *item = buf ? strtok_r(buf, ":", &save) : NULL; item;
	     item = strtok_r(NULL, ":", &save)) {
		struct mspec one;
		char err[256];
		if (mspec_parse(e->prof, item, 0, &one, err, sizeof err) < 0)
			continue; /* a metric these experiments do not have */
		for (size_t i = 0; i < one.n && m->n < MSPEC_MAX; i++)
			m->items[m->n++] = one.items[i];
	}
	free(buf);
}

struct rc_state {
	struct mspec dm; /* the current file's dmetrics */
	int have_dm;
	int pre; /* 1: the pass before loading, en_desc alone */
};

/* en_desc MODE, in the pass before loading. */
static void rc_en_desc(struct erp *e, const char *path, int lno, const char *mode)
{
	char *err = NULL;
	if (profile_set_descendants(e->prof, mode, &err) < 0)
		textout_printf(stderr, "%s: %s:%d: en_desc: %s; ignored\n", e->prog, path, lno,
			       err ? err : "out of memory");
	free(err);
}

/* One line of file path (line lno); warnings to stderr. */
static void rc_line(struct erp *e, struct rc_state *st, const char *path, int lno, char *line)
{
	char *p = line + strspn(line, " \t");
	p[strcspn(p, "\r\n")] = '\0';
	if (!*p || *p == '#')
		return;
	char *word = p;
	p += strcspn(p, " \t");
	if (*p)
		*p++ = '\0';
	p += strspn(p, " \t");
	if (st->pre) {
		if (strcasecmp(word, "en_desc") == 0)
			rc_en_desc(e, path, lno, p);
		return;
	}
	if (strcasecmp(word, "dmetrics") == 0) {
		add_items(e, p, &st->dm);
		st->have_dm = 1;
	} else if (strcasecmp(word, "dsort") == 0) {
		struct mspec s;
		char err[256];
		if (mspec_parse(e->prof, p, 1, &s, err, sizeof err) == 0)
			e->sort = s;
	} else if (in(word, rc_run, sizeof rc_run / sizeof rc_run[0])) {
		struct strbuf cmd;
		strbuf_init(&cmd, 0);
		strbuf_addf(&cmd, "%s %s", word, p);
		FILE *out = e->out, *null = fopen("/dev/null", "w");
		if (null)
			e->out = null;
		int r = cmd.failed ? -1 : erp_run_line(e, cmd.s);
		strbuf_release(&cmd);
		e->out = out;
		if (null)
			fclose(null);
		if (r < 0)
			textout_printf(stderr, "%s: %s:%d: '%s' failed; ignored\n", e->prog, path, lno, word);
	} else if (!in(word, rc_skipped, sizeof rc_skipped / sizeof rc_skipped[0])) {
		textout_printf(stderr, "%s: %s:%d: '%s' is not a defaults-file command; ignored\n", e->prog,
			       path, lno, word);
	}
}

/* Is path the null device (PA_SYSTEM_RC=/dev/null: no system defaults file)? */
static int is_dev_null(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3);
}

/* Read one defaults file if it exists; its dmetrics (if any) become the metric list. */
static void rc_file(struct erp *e, const char *path, int pre)
{
	struct stat fst;
	int fd = regfile_open(path, &fst); /* a regular file only: never /dev/zero, never a FIFO's wait */
	if (fd >= 0 && fst.st_size > RC_MAX_BYTES) {
		close(fd);
		textout_printf(
			stderr,
			"%s: cannot read %s: longer than %d KiB (a defaults file is a few lines); ignored\n",
			e->prog, path, RC_MAX_BYTES >> 10);
		return;
	}
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		if (fd != -ENOENT && !(fd == -REGFILE_ECHR && is_dev_null(path)))
			textout_printf(stderr, "%s: cannot read %s: %s\n", e->prog, path,
				       fd < 0 ? regfile_strerror(fd) : strerror(errno));
		return;
	}
	struct rc_state st = {.pre = pre};
	struct strbuf line;
	strbuf_init(&line, 0);
	int got;
	for (int lno = 1; (got = erp_read_line(f, &line)) != 0; lno++) {
		if (got > 0)
			rc_line(e, &st, path, lno, line.s);
		else if (pre ? got != -EILSEQ : erp_line_refused(e, path, lno, got) < 0)
			break; /* (the pass before loading leaves the messages to the other) */
	}
	strbuf_release(&line);
	fclose(f);
	if (st.have_dm && st.dm.n) {
		int named = 0;
		for (size_t i = 0; i < st.dm.n; i++)
			named |= st.dm.items[i].kind == MSPEC_NAME;
		if (!named && st.dm.n < MSPEC_MAX)
			st.dm.items[st.dm.n++] = (struct mspec_item){.kind = MSPEC_NAME};
		e->metrics = st.dm;
	}
}

static void rc_files(struct erp *e, int pre)
{
	const char *sys = getenv("PA_SYSTEM_RC");
	rc_file(e, sys && *sys ? sys : "/etc/er.rc", pre);
	char home_rc[4200] = "";
	const char *home = getenv("HOME");
	if (home && *home) {
		snprintf(home_rc, sizeof home_rc, "%s/.er.rc", home);
		rc_file(e, home_rc, pre);
	}
	struct stat a, b;
	/* ./.er.rc, unless it is the home one just read */
	if (!(home_rc[0] && stat(home_rc, &a) == 0 && stat(".er.rc", &b) == 0 && a.st_dev == b.st_dev &&
	      a.st_ino == b.st_ino))
		rc_file(e, ".er.rc", pre);
}

void erp_rc_preload(struct erp *e)
{
	rc_files(e, 1);
}

void erp_rc_load(struct erp *e)
{
	rc_files(e, 0);
}
