/*
 * experiment.c - read log.xml, map.xml and processes.xml (expat, through
 * xmlsafe: no entities, nothing external) into struct experiment, and free
 * it; exp_open.c reads the data files (experiment/datafile) on top.  Every
 * count and length read from the experiment is capped; damage becomes a
 * warning.
 */
#include "analysis/experiment_internal.h"

#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/xmlsafe.h"
#include "common/regfile.h"
#include "common/strbuf.h"
#include "common/vec.h"
#include "experiment/format.h"

#define MAX_XML_BYTES (256u << 20)
#define MAX_NOTES_BYTES (1u << 20)
#define MAX_LIST 100000u /* args, comments, warnings, objects, segments */

static char *xstrdup(const char *s)
{
	return strdup(s ? s : "");
}

static void add_str(char ***v, size_t *n, const char *s)
{
	if (*n >= MAX_LIST)
		return;
	char **p = realloc(*v, (*n + 1) * sizeof **v);
	if (!p)
		return;
	*v = p;
	p[*n] = xstrdup(s);
	if (p[*n])
		(*n)++;
}

void experiment_vwarnf(struct experiment *exp, const char *fmt, va_list ap)
{
	struct strbuf b;
	strbuf_init(&b, 4096);
	strbuf_vaddf(&b, fmt, ap);
	add_str(&exp->problems, &exp->nproblems, strbuf_str(&b));
	strbuf_release(&b);
}

void experiment_warnf(struct experiment *exp, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	experiment_vwarnf(exp, fmt, ap);
	va_end(ap);
}

/*
 * Read the file `name` of the experiment directory `dir` whole into *ret
 * (NUL-terminated, *ret_len bytes): a regular file inside dir
 * (regfile_open_in), not sparse, at most max bytes.  0, or a negative code
 * with why (room bytes) saying why in words (-ENOENT: "missing").
 */
static int read_file(const char *dir, const char *name, char **ret, size_t *ret_len, size_t max, char *why,
		     size_t room)
{
	struct stat st;
	int fd = regfile_open_in(dir, name, &st);
	if (fd < 0) {
		snprintf(why, room, "%s", fd == -ENOENT ? "missing" : regfile_strerror(fd));
		return fd;
	}
	struct strbuf m;
	strbuf_init(&m, 0);
	uint64_t stored;
	int r = 0;
	if (regfile_is_sparse(fd, &st, &stored)) {
		strbuf_adds(&m, "sparse: ");
		strbuf_add_size(&m, (uint64_t)st.st_size);
		strbuf_adds(&m, " long, ");
		strbuf_add_size(&m, stored);
		strbuf_adds(&m, " stored");
		r = -EFBIG;
	} else if ((uint64_t)st.st_size > max) {
		strbuf_add_size(&m, (uint64_t)st.st_size);
		strbuf_adds(&m, " long, past the ceiling of ");
		strbuf_add_size(&m, max);
		r = -EFBIG;
	}
	char *buf = r == 0 ? malloc((size_t)st.st_size + 1) : NULL;
	if (r == 0 && !buf)
		r = -ENOMEM;
	size_t got = 0;
	while (r == 0 && got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			r = -errno;
		if (n <= 0)
			break; /* shorter than it was: what there is */
		got += (size_t)n;
	}
	close(fd);
	if (r < 0) {
		snprintf(why, room, "%s", m.len ? strbuf_str(&m) : strerror(-r));
		strbuf_release(&m);
		free(buf);
		return r;
	}
	strbuf_release(&m);
	buf[got] = '\0';
	*ret = buf;
	*ret_len = got;
	return 0;
}

static const char *attr(const XML_Char **a, const char *name);

/* *dst = a copy of attribute `name` (NULL if absent); a repeated element replaces it. */
static void set_dup(char **dst, const XML_Char **a, const char *name)
{
	const char *v = attr(a, name);
	free(*dst);
	*dst = v ? strdup(v) : NULL;
}

static const char *attr(const XML_Char **a, const char *name)
{
	for (; a && a[0]; a += 2)
		if (strcmp(a[0], name) == 0)
			return a[1];
	return NULL;
}

static uint64_t attr_u64(const XML_Char **a, const char *name)
{
	const char *v = attr(a, name);
	if (!v || !*v)
		return 0;
	errno = 0;
	char *end;
	unsigned long long x = strtoull(v, &end, 0);
	return errno || *end ? 0 : (uint64_t)x;
}

static char *attr_dup(const XML_Char **a, const char *name)
{
	const char *v = attr(a, name);
	return v ? strdup(v) : NULL;
}

/* ------------------------------------------------------------------ log.xml */

struct log_parse {
	struct experiment *exp;
	struct strbuf text; /* character data of the current element */
	int depth;
	const char *elem; /* element whose text we collect, or NULL */
	char *elem_id;    /* id attribute of <warning>/<error> */
	int in_target;
};

/* One element of log.xml: what its start tag sets. */
typedef void (*log_elem_fn)(struct log_parse *lp, struct exp_log *l, const XML_Char *name,
			    const XML_Char **a);

static void log_collector(struct log_parse *lp, struct exp_log *l, const XML_Char *name, const XML_Char **a)
{
	(void)lp, (void)name;
	set_dup(&l->collector_version, a, "version");
}

static void log_target(struct log_parse *lp, struct exp_log *l, const XML_Char *name, const XML_Char **a)
{
	(void)name;
	set_dup(&l->target_path, a, "path");
	lp->in_target = 1;
}

static void log_arg(struct log_parse *lp, struct exp_log *l, const XML_Char *name, const XML_Char **a)
{
	(void)l, (void)name, (void)a;
	if (lp->in_target)
		lp->elem = "arg";
}

static void log_host(struct log_parse *lp, struct exp_log *l, const XML_Char *name, const XML_Char **a)
{
	(void)lp, (void)name;
	set_dup(&l->host, a, "name");
	set_dup(&l->os, a, "os");
	set_dup(&l->release, a, "release");
	set_dup(&l->arch, a, "arch");
	l->cpus = (uint32_t)attr_u64(a, "cpus");
	l->pagesize = attr_u64(a, "pagesize");
	l->pages = attr_u64(a, "pages");
	l->clock_mhz = (uint32_t)attr_u64(a, "clock_mhz");
}

static void log_process(struct log_parse *lp, struct exp_log *l, const XML_Char *name, const XML_Char **a)
{
	(void)lp, (void)name;
	set_dup(&l->cwd, a, "cwd");
	l->wordsize = (uint32_t)attr_u64(a, "wordsize");
	set_dup(&l->lineage, a, "lineage");
	set_dup(&l->origin, a, "origin");
}

static void log_params(struct log_parse *lp, struct exp_log *l, const XML_Char *name, const XML_Char **a)
{
	(void)lp, (void)name;
	set_dup(&l->clock_mode, a, "clock");
	l->clock_interval_us = attr_u64(a, "clock_interval_us");
	set_dup(&l->duration, a, "duration");
	l->depth_limit = (uint32_t)attr_u64(a, "depth_limit");
	set_dup(&l->descriptor, a, "descriptor");
	set_dup(&l->follow, a, "follow");
}

static void log_comment(struct log_parse *lp, struct exp_log *l, const XML_Char *name, const XML_Char **a)
{
	(void)l, (void)name, (void)a;
	lp->elem = "comment";
}

static void log_start_elem(struct log_parse *lp, struct exp_log *l, const XML_Char *name, const XML_Char **a)
{
	(void)lp, (void)name;
	l->start_ns = attr_u64(a, "tstamp_ns");
	l->realtime_ns = attr_u64(a, "realtime_ns");
}

static void log_collector_start(struct log_parse *lp, struct exp_log *l, const XML_Char *name,
				const XML_Char **a)
{
	(void)lp, (void)name;
	l->pid = (uint32_t)attr_u64(a, "pid");
	l->ppid = (uint32_t)attr_u64(a, "ppid");
	set_dup(&l->mechanism, a, "mechanism");
	set_dup(&l->cpu_split, a, "cpu_split");
	l->effective_interval_us = attr_u64(a, "effective_interval_us");
	set_dup(&l->first_expiry, a, "first_expiry");
	const XML_Char *sync = attr(a, "sync");
	l->sync_on = sync && strcmp(sync, "on") == 0;
	l->sync_threshold_ns = attr_u64(a, "sync_threshold_ns");
	set_dup(&l->sync_mode, a, "sync_mode");
}

static void log_note(struct log_parse *lp, struct exp_log *l, const XML_Char *name, const XML_Char **a)
{
	lp->elem = name[0] == 'w' ? "warning" : "error";
	set_dup(&lp->elem_id, a, "id");
	if (lp->elem_id && strcmp(lp->elem_id, "ended_unseen") == 0)
		l->ended_unseen = 1;
	if (lp->elem_id && strcmp(lp->elem_id, "data_lost") == 0 && !l->lost.stopped) {
		/* reported as one line with the counts (loss_line), not as its text */
		lp->elem = NULL;
		l->lost.stopped = 1;
		l->lost.since_ns = attr_u64(a, "tstamp_ns");
		set_dup(&l->lost.errno_name, a, "errno");
		l->lost.fsize_limit_bytes = attr_u64(a, "fsize_limit_bytes");
	}
}

static void log_exec(struct log_parse *lp, struct exp_log *l, const XML_Char *name, const XML_Char **a)
{
	(void)lp, (void)name;
	add_str(&l->exec_paths, &l->nexecs, attr(a, "path"));
}

static void log_collector_end(struct log_parse *lp, struct exp_log *l, const XML_Char *name,
			      const XML_Char **a)
{
	(void)lp, (void)name;
	l->samples_recorded = attr_u64(a, "samples");
	l->samples_dropped = attr_u64(a, "dropped");
	l->signals = attr_u64(a, "signals");
	l->sync_waits = attr_u64(a, "sync_waits");
	l->sync_calls = attr_u64(a, "sync_calls");
	l->hwc_overflows = attr_u64(a, "hwc_overflows");
	l->hwc_lost = attr_u64(a, "hwc_lost");
	l->hwc_open_failures = attr_u64(a, "hwc_open_failures");
	if (attr(a, "lost_since_ns")) {
		struct exp_loss *x = &l->lost;
		x->stopped = x->counted = 1;
		x->since_ns = attr_u64(a, "lost_since_ns");
		if (!x->errno_name)
			set_dup(&x->errno_name, a, "lost_errno");
		if (!x->fsize_limit_bytes)
			x->fsize_limit_bytes = attr_u64(a, "lost_fsize_limit_bytes");
		x->samples = attr_u64(a, "lost_samples");
		x->sample_ns = attr_u64(a, "lost_sample_ns");
		x->heap = attr_u64(a, "lost_heap");
		x->sync = attr_u64(a, "lost_sync");
		x->records = attr_u64(a, "lost_records");
	}
}

static void log_hwcounter(struct log_parse *lp, struct exp_log *l, const XML_Char *name, const XML_Char **a)
{
	(void)lp, (void)name;
	const XML_Char *cname = attr(a, "name");
	/* counters come numbered from 0, in order; anything else is not used */
	if (!cname || !*cname || l->nhwc == EXP_HWC_MAX_COUNTERS || attr_u64(a, "id") != l->nhwc ||
	    attr_u64(a, "interval") == 0)
		return;
	struct exp_hwc_counter *c = &l->hwc[l->nhwc];
	c->name = strdup(cname);
	if (!c->name)
		return;
	c->interval = attr_u64(a, "interval");
	c->type = (uint32_t)attr_u64(a, "type");
	c->config = attr_u64(a, "config");
	const XML_Char *unit = attr(a, "unit");
	c->time_ns = unit && strcmp(unit, "nanoseconds") == 0;
	l->nhwc++;
}

static void log_exit(struct log_parse *lp, struct exp_log *l, const XML_Char *name, const XML_Char **a)
{
	(void)lp, (void)name;
	l->has_exit = 1;
	l->exit_ns = attr_u64(a, "tstamp_ns");
	l->exit_status = (int)attr_u64(a, "status");
	l->exit_signal = (int)attr_u64(a, "signal");
	set_dup(&l->exit_signame, a, "signame");
	l->core_dumped = (int)attr_u64(a, "core");
}

static void log_rusage(struct log_parse *lp, struct exp_log *l, const XML_Char *name, const XML_Char **a)
{
	(void)lp, (void)name;
	struct exp_rusage *r = &l->rusage;
	r->valid = 1;
	r->utime_ns = attr_u64(a, "utime_ns");
	r->stime_ns = attr_u64(a, "stime_ns");
	r->maxrss_kb = attr_u64(a, "maxrss_kb");
	r->minflt = attr_u64(a, "minflt");
	r->majflt = attr_u64(a, "majflt");
	r->inblock = attr_u64(a, "inblock");
	r->oublock = attr_u64(a, "oublock");
	r->nvcsw = attr_u64(a, "nvcsw");
	r->nivcsw = attr_u64(a, "nivcsw");
}

static void log_end_elem(struct log_parse *lp, struct exp_log *l, const XML_Char *name, const XML_Char **a)
{
	(void)lp, (void)name;
	l->end_ns = attr_u64(a, "tstamp_ns");
}

/* The elements of log.xml that set something; others are skipped. */
static const struct {
	const char *name;
	log_elem_fn fn;
} log_elems[] = {
	{"collector", log_collector},
	{"target", log_target},
	{"arg", log_arg},
	{"host", log_host},
	{"process", log_process},
	{"params", log_params},
	{"comment", log_comment},
	{"start", log_start_elem},
	{"collector_start", log_collector_start},
	{"hwcounter", log_hwcounter},
	{"warning", log_note},
	{"error", log_note},
	{"exec", log_exec},
	{"collector_end", log_collector_end},
	{"exit", log_exit},
	{"rusage", log_rusage},
	{"end", log_end_elem},
};

static void log_start(void *ud, const XML_Char *name, const XML_Char **a)
{
	struct log_parse *lp = ud;
	lp->depth++;
	strbuf_reset(&lp->text);
	lp->elem = NULL;
	for (size_t i = 0; i < sizeof log_elems / sizeof log_elems[0]; i++)
		if (strcmp(name, log_elems[i].name) == 0) {
			log_elems[i].fn(lp, &lp->exp->log, name, a);
			return;
		}
}

static void log_end(void *ud, const XML_Char *name)
{
	struct log_parse *lp = ud;
	struct experiment *exp = lp->exp;
	lp->depth--;
	if (lp->elem && strcmp(name, lp->elem) == 0) {
		const char *t = strbuf_str(&lp->text);
		if (lp->elem[0] == 'a')
			add_str(&exp->log.argv, &exp->log.argc, t);
		else if (lp->elem[0] == 'c')
			add_str(&exp->log.comments, &exp->log.ncomments, t);
		else if (lp->elem[0] == 'w')
			add_str(&exp->warnings, &exp->nwarnings, t);
		else
			add_str(&exp->errors, &exp->nerrors, t);
	}
	if (strcmp(name, "target") == 0)
		lp->in_target = 0;
	if (strcmp(name, "experiment") == 0 && lp->depth == 0)
		exp->log.complete = 1;
	lp->elem = NULL;
}

static void log_text(void *ud, const XML_Char *s, int len)
{
	struct log_parse *lp = ud;
	if (lp->elem && len > 0)
		strbuf_add(&lp->text, s, (size_t)len);
}

static const char *errno_text(const char *name)
{
	static const struct {
		const char *name, *text;
	} t[] = {
		{"ENOSPC", "no space left on device"}, {"EDQUOT", "disk quota exceeded"},
		{"EFBIG", "file too large"},           {"EIO", "input/output error"},
		{"ENOMEM", "out of memory"},           {"EROFS", "read-only file system"},
		{"EMFILE", "no file descriptor free"}, {"ENFILE", "the system's file table is full"},
	};
	for (size_t i = 0; name && i < sizeof t / sizeof t[0]; i++)
		if (strcmp(name, t[i].name) == 0)
			return t[i].text;
	return "a write failed";
}

/* " at the file size limit (ulimit -f 64 KiB, EFBIG)": the limit as `ulimit -f` counts it, where it can. */
static void fsize_why(uint64_t limit, char *buf, size_t room)
{
	if (limit % 1024 == 0)
		snprintf(buf, room, " at the file size limit (ulimit -f %" PRIu64 " KiB, EFBIG)",
			 limit / 1024);
	else
		snprintf(buf, room, " at the file size limit (%" PRIu64 " bytes, EFBIG)", limit);
}

/* What was not recorded: "N clock samples (S s of CPU), N heap calls[, N sync waits]". */
static void loss_counts(const struct experiment *exp, char *buf, size_t room)
{
	const struct exp_loss *x = &exp->log.lost;
	int n = snprintf(buf, room, "%" PRIu64 " clock samples (%.3f s of CPU), %" PRIu64 " heap calls",
			 x->samples, (double)x->sample_ns / 1e9, x->heap);
	if (exp->log.sync_on && n >= 0 && (size_t)n < room)
		snprintf(buf + n, room - (size_t)n, ", %" PRIu64 " sync waits", x->sync);
}

int experiment_loss_line(const struct experiment *exp, char *buf, size_t room)
{
	const struct exp_loss *x = &exp->log.lost;
	if (!x->stopped)
		return 0;
	double at = x->since_ns > exp->log.start_ns ? (double)(x->since_ns - exp->log.start_ns) / 1e9 : 0;
	const char *name = x->errno_name ? x->errno_name : "error";
	char counts[160];
	loss_counts(exp, counts, sizeof counts);
	char why[96];
	if (x->fsize_limit_bytes && strcmp(name, "EFBIG") == 0)
		fsize_why(x->fsize_limit_bytes, why, sizeof why);
	else
		snprintf(why, sizeof why, " (%s, %s)", errno_text(name), name);
	int n;
	if (x->counted && (strcmp(name, "EMFILE") == 0 || strcmp(name, "ENFILE") == 0))
		/* recording went on wherever a descriptor could be had */
		n = snprintf(
			buf, room,
			"data lost: from %.3f s the process had no file descriptor free for the collector "
			"(%s, %s); not recorded: %s",
			at, errno_text(name), name, counts);
	else if (!x->counted)
		n = snprintf(buf, room,
			     "data lost: recording stopped at %.3f s%s; the data before is complete, "
			     "what came after was not counted (the process ended unseen)",
			     at, why);
	else
		n = snprintf(buf, room,
			     "data lost: recording stopped at %.3f s%s; not recorded: %s; the data before "
			     "is complete",
			     at, why, counts);
	return n < 0 ? 0 : 1;
}

/* Losses and drops a report must not hide: one line each in the problems. */
static void loss_problems(struct experiment *exp)
{
	char line[512];
	if (experiment_loss_line(exp, line, sizeof line))
		experiment_warnf(exp, "%s", line);
	const struct exp_log *l = &exp->log;
	uint64_t all = l->samples_recorded + l->samples_dropped;
	if (l->samples_dropped && l->samples_dropped * 1000 > all)
		experiment_warnf(
			exp,
			"%" PRIu64 " of %" PRIu64 " clock samples (%.2f%%) were dropped by the collector "
			"(see -statistics); their CPU time went to the next sample of the same thread",
			l->samples_dropped, all, 100.0 * (double)l->samples_dropped / (double)all);
}

/*
 * Parse an XML file that may still be being written: NUL padding is cut off,
 * and an error at the very end (unclosed root, torn element) is a warning.
 * Returns 0, -EBADMSG for damage before the end, or -EPERM for a document
 * xmlsafe refuses (entity declarations, external DTDs), wherever they are;
 * both with a message.
 */
static int parse_xml(struct experiment *exp, const char *file, XML_StartElementHandler st,
		     XML_EndElementHandler en, XML_CharacterDataHandler tx, void *ud, char **ret_err)
{
	struct strbuf path;
	strbuf_init(&path, 0);
	strbuf_addf(&path, "%s/%s", exp->path, file);
	char *buf, why[256];
	size_t len;
	int r = read_file(exp->path, file, &buf, &len, MAX_XML_BYTES, why, sizeof why);
	if (r < 0) {
		if (ret_err) {
			struct strbuf m;
			strbuf_init(&m, 0);
			strbuf_addf(&m, "%s: %s%s", strbuf_str(&path), why,
				    r == -ENOENT ? " (not an experiment directory?)" : "");
			*ret_err = strbuf_detach(&m);
		}
		strbuf_release(&path);
		return r;
	}
	len = strnlen(buf, len);
	struct xmlsafe x;
	if (xmlsafe_init(&x, ud, st, en, tx) < 0) {
		free(buf);
		strbuf_release(&path);
		return -ENOMEM;
	}
	r = xmlsafe_parse(&x, buf, len, 1);
	if (r == -EBADMSG) {
		enum XML_Error e = XML_GetErrorCode(x.parser);
		XML_Index at = XML_GetCurrentByteIndex(x.parser);
		/* An error at the end of the text is what a collection that did not
		 * finish looks like: keep what was parsed. */
		int at_end = e == XML_ERROR_NO_ELEMENTS || e == XML_ERROR_UNCLOSED_TOKEN ||
			     e == XML_ERROR_PARTIAL_CHAR || (at >= 0 && (size_t)at + 256 >= len);
		if (at_end && len > 0) {
			experiment_warnf(exp, "%s: %s at the end of the file (the collection did not finish)",
					 file, XML_ErrorString(e));
			r = 0;
		}
	}
	if (r < 0 && ret_err) {
		struct strbuf m;
		strbuf_init(&m, 0);
		if (r == -EBADMSG)
			strbuf_addf(&m, "%s: malformed XML at line %lu: %s", strbuf_str(&path),
				    (unsigned long)XML_GetCurrentLineNumber(x.parser), xmlsafe_error(&x));
		else
			strbuf_addf(&m, "%s: %s", strbuf_str(&path),
				    r == -EPERM ? xmlsafe_error(&x) : strerror(-r));
		*ret_err = strbuf_detach(&m);
	}
	xmlsafe_release(&x);
	free(buf);
	strbuf_release(&path);
	return r;
}

/* ------------------------------------------------------------------ map.xml */

struct map_parse {
	struct experiment *exp;
	struct exp_loadobj *cur;
	VEC(struct exp_loadobj) objs;
};

static char *basename_dup(const char *path)
{
	const char *s = strrchr(path, '/');
	return strdup(s ? s + 1 : path);
}

static void map_start(void *ud, const XML_Char *name, const XML_Char **a)
{
	struct map_parse *mp = ud;
	if (strcmp(name, "load") == 0) {
		if (mp->objs.n >= MAX_LIST)
			return;
		struct exp_loadobj o = {0};
		o.id = (uint32_t)attr_u64(a, "id");
		const char *kind = attr(a, "kind");
		o.kind = kind && strcmp(kind, "exe") == 0    ? EXP_OBJ_EXE
			 : kind && strcmp(kind, "vdso") == 0 ? EXP_OBJ_VDSO
							     : EXP_OBJ_LIB;
		const char *p = attr(a, "path");
		if (!p)
			p = "";
		if (o.kind == EXP_OBJ_VDSO && p[0] != '/') {
			/* a file of the experiment's own directory: a name with a directory in it
			 * ("../../elsewhere/x") is taken by its last part, never followed out */
			const char *base = strrchr(p, '/');
			struct strbuf b;
			strbuf_init(&b, 0);
			strbuf_addf(&b, "%s/%s", mp->exp->path, base ? base + 1 : p);
			o.path = strbuf_detach(&b);
			o.name = strdup("[vdso]");
		} else {
			o.path = strdup(p);
			o.name = basename_dup(p);
		}
		o.build_id = attr_dup(a, "build_id");
		o.base = attr_u64(a, "base");
		o.load_ns = attr_u64(a, "tstamp_ns");
		if (VEC_PUSH(&mp->objs, o) == 0)
			mp->cur = &mp->objs.v[mp->objs.n - 1];
		else
			mp->cur = NULL;
	} else if (strcmp(name, "segment") == 0 && mp->cur) {
		struct exp_loadobj *o = mp->cur;
		if (o->nsegs >= 64)
			return;
		struct exp_segment *s = realloc(o->segs, (o->nsegs + 1) * sizeof *s);
		if (!s)
			return;
		o->segs = s;
		struct exp_segment *g = &s[o->nsegs++];
		memset(g, 0, sizeof *g);
		g->vaddr = attr_u64(a, "vaddr");
		g->memsz = attr_u64(a, "memsz");
		g->foffset = attr_u64(a, "foffset");
		const char *prot = attr(a, "prot");
		snprintf(g->prot, sizeof g->prot, "%s", prot ? prot : "");
	} else if (strcmp(name, "unload") == 0) {
		uint32_t id = (uint32_t)attr_u64(a, "id");
		for (size_t i = 0; i < mp->objs.n; i++)
			if (mp->objs.v[i].id == id && !mp->objs.v[i].unload_ns)
				mp->objs.v[i].unload_ns = attr_u64(a, "tstamp_ns");
	}
}

static void map_end(void *ud, const XML_Char *name)
{
	struct map_parse *mp = ud;
	if (strcmp(name, "load") == 0)
		mp->cur = NULL;
}

/* ------------------------------------------------------------------ processes.xml */

struct procs_parse {
	struct experiment *exp;
	VEC(struct exp_process) v;
	VEC(struct exp_process) ends; /* <reaped> and <running>: pid, ppid and the end fields */
	struct strbuf cmd, text;
	int in_proc, in_arg;
};

static void procs_start(void *ud, const XML_Char *name, const XML_Char **a)
{
	struct procs_parse *pp = ud;
	int reaped = strcmp(name, "reaped") == 0;
	if ((reaped || strcmp(name, "running") == 0) && pp->ends.n < MAX_LIST) {
		struct exp_process e = {
			.pid = (uint32_t)attr_u64(a, "pid"),
			.ppid = (uint32_t)attr_u64(a, "ppid"),
			.end = reaped ? EXP_PROC_END_REAPED : EXP_PROC_END_RUNNING,
			.wait_status = (int)attr_u64(a, "status"),
			.cpu_ns = attr_u64(a, "cpu_ns") ? attr_u64(a, "cpu_ns")
							: attr_u64(a, "utime_ns") + attr_u64(a, "stime_ns"),
			.end_tstamp_ns = attr_u64(a, "tstamp_ns"),
			.path = attr_dup(a, "path"),
		};
		if (VEC_PUSH(&pp->ends, e) < 0)
			free(e.path);
		return;
	}
	if (strcmp(name, "process") == 0 && pp->v.n < MAX_LIST) {
		struct exp_process pr = {
			.pid = (uint32_t)attr_u64(a, "pid"),
			.ppid = (uint32_t)attr_u64(a, "ppid"),
			.lineage = xstrdup(attr(a, "lineage")),
			.origin = xstrdup(attr(a, "origin")),
			.followed = attr_u64(a, "followed") != 0,
			.reason = attr_dup(a, "reason"),
			.path = xstrdup(attr(a, "path")),
			.tstamp_ns = attr_u64(a, "tstamp_ns"),
		};
		if (VEC_PUSH(&pp->v, pr) < 0) {
			free(pr.lineage);
			free(pr.origin);
			free(pr.reason);
			free(pr.path);
			return;
		}
		pp->in_proc = 1;
		strbuf_reset(&pp->cmd);
	} else if (strcmp(name, "arg") == 0 && pp->in_proc) {
		pp->in_arg = 1;
		strbuf_reset(&pp->text);
	}
}

static void procs_end(void *ud, const XML_Char *name)
{
	struct procs_parse *pp = ud;
	if (strcmp(name, "arg") == 0 && pp->in_arg) {
		if (pp->cmd.len)
			strbuf_adds(&pp->cmd, " ");
		strbuf_adds(&pp->cmd, strbuf_str(&pp->text));
		pp->in_arg = 0;
	} else if (strcmp(name, "process") == 0 && pp->in_proc) {
		pp->v.v[pp->v.n - 1].command = strdup(strbuf_str(&pp->cmd));
		pp->in_proc = 0;
	}
}

static void procs_text(void *ud, const XML_Char *s, int len)
{
	struct procs_parse *pp = ud;
	if (pp->in_arg && len > 0)
		strbuf_add(&pp->text, s, (size_t)len);
}

/*
 * The process of v that end e is of: the latest with its pid that started
 * before it; for a process still running, else the first that started
 * after (a new process can write its line after collect looked), or NULL.
 */
static struct exp_process *process_of_end(struct exp_process *v, size_t n, const struct exp_process *e)
{
	struct exp_process *best = NULL, *after = NULL;
	for (size_t i = 0; i < n; i++) {
		if (v[i].pid != e->pid)
			continue;
		if (v[i].tstamp_ns <= e->end_tstamp_ns) {
			if (!best || v[i].tstamp_ns >= best->tstamp_ns)
				best = &v[i];
		} else if (!after || v[i].tstamp_ns < after->tstamp_ns) {
			after = &v[i];
		}
	}
	return best ? best : e->end == EXP_PROC_END_RUNNING ? after : NULL;
}

/*
 * Give each process its end as others saw it (pp->ends: its parent's wait,
 * collect's look at what still ran), and list a process that was reaped or
 * still ran but that no collector recorded (made by the raw clone or clone3
 * system call) as unrecorded, under the process that reaped it.  The
 * founder (the target) is not among them: collect waits for it.
 */
static void attach_ends(struct experiment *exp, struct procs_parse *pp)
{
	size_t nprocs = pp->v.n;
	for (size_t i = 0; i < pp->ends.n; i++) {
		struct exp_process *e = &pp->ends.v[i];
		struct exp_process *pr = process_of_end(pp->v.v, nprocs, e);
		if (pr) {
			pr->end = e->end;
			pr->wait_status = e->wait_status;
			pr->cpu_ns = e->cpu_ns;
			pr->end_tstamp_ns = e->end_tstamp_ns;
			continue;
		}
		if (e->pid == exp->log.pid || pp->v.n >= MAX_LIST)
			continue;
		/* its parent: a process of the list, or the founder */
		struct exp_process probe = {.pid = e->ppid, .end_tstamp_ns = e->end_tstamp_ns};
		const struct exp_process *parent = process_of_end(pp->v.v, nprocs, &probe);
		struct strbuf name;
		strbuf_init(&name, 0);
		strbuf_addf(&name, "%s_c?", parent ? parent->lineage : "");
		struct exp_process u = *e;
		u.lineage = strbuf_detach(&name);
		u.origin = strdup("unrecorded");
		u.reason = strdup(
			"made without the collector's interposers (the raw clone or clone3 system call) "
			"and never entered the collector");
		u.path = e->path ? e->path
				 : strdup(parent                 ? parent->path
					  : exp->log.target_path ? exp->log.target_path
								 : "");
		e->path = NULL;
		u.command = strdup("");
		u.tstamp_ns = e->end_tstamp_ns;
		if (!u.lineage || !u.origin || !u.reason || !u.path || !u.command ||
		    VEC_PUSH(&pp->v, u) < 0) {
			free(u.lineage);
			free(u.origin);
			free(u.reason);
			free(u.path);
			free(u.command);
		}
	}
	for (size_t i = 0; i < pp->ends.n; i++)
		free(pp->ends.v[i].path);
	free(pp->ends.v);
	pp->ends.v = NULL;
	pp->ends.n = 0;
}

/*
 * processes.xml: <process> lines appended by every process, no root element
 * (it is never closed): parsed inside a made-up one.  A torn last line is
 * what a process still writing, or killed while writing, leaves: ignored.
 * <reaped> and <running> lines say how processes ended (attach_ends).
 */
static void read_processes(struct experiment *exp)
{
	char *buf, why[256];
	size_t len;
	int r = read_file(exp->path, EXP_FILE_NAME_PROCESSES, &buf, &len, MAX_XML_BYTES, why, sizeof why);
	if (r < 0) {
		if (r != -ENOENT)
			experiment_warnf(exp, "%s: %s; the descendant processes are not listed",
					 EXP_FILE_NAME_PROCESSES, why);
		return;
	}
	len = strnlen(buf, len);
	while (len && buf[len - 1] != '\n') /* keep whole lines only */
		len--;
	struct procs_parse pp = {.exp = exp};
	strbuf_init(&pp.cmd, 1 << 20);
	strbuf_init(&pp.text, 1 << 20);
	struct xmlsafe x;
	if (xmlsafe_init(&x, &pp, procs_start, procs_end, procs_text) == 0) {
		static const char open[] = "<processes>", close[] = "</processes>";
		if (xmlsafe_parse(&x, open, strlen(open), 0) < 0 || xmlsafe_parse(&x, buf, len, 0) < 0 ||
		    xmlsafe_parse(&x, close, strlen(close), 1) < 0)
			experiment_warnf(
				exp, "%s: malformed at line %lu (%s); the process list may be incomplete",
				EXP_FILE_NAME_PROCESSES, (unsigned long)XML_GetCurrentLineNumber(x.parser),
				xmlsafe_error(&x));
		xmlsafe_release(&x);
	}
	/* an element cut at its end (the parse stopped inside it) has no command */
	for (size_t i = 0; i < pp.v.n; i++)
		if (!pp.v.v[i].command)
			pp.v.v[i].command = strdup("");
	attach_ends(exp, &pp);
	exp->procs = pp.v.v;
	exp->nprocs = pp.v.n;
	strbuf_release(&pp.cmd);
	strbuf_release(&pp.text);
	free(buf);
}

void experiment_set_err(char **ret_err, const char *path, const char *text)
{
	if (!ret_err)
		return;
	struct strbuf m;
	strbuf_init(&m, 0);
	strbuf_addf(&m, "%s: %s", path, text);
	*ret_err = strbuf_detach(&m);
}

int experiment_new(const char *path, struct experiment **ret, char **ret_err)
{
	struct stat st;
	if (stat(path, &st) < 0) {
		int e = -errno;
		experiment_set_err(ret_err, path, strerror(-e));
		return e;
	}
	if (!S_ISDIR(st.st_mode)) {
		experiment_set_err(ret_err, path, "not an experiment (an experiment is a directory NAME.er)");
		return -ENOTDIR;
	}
	struct experiment *exp = calloc(1, sizeof *exp);
	if (!exp)
		return -ENOMEM;
	size_t plen = strlen(path);
	while (plen > 1 && path[plen - 1] == '/')
		plen--;
	exp->path = strndup(path, plen);
	exp->name = exp->path ? basename_dup(exp->path) : NULL;
	if (!exp->path || !exp->name) {
		experiment_free(exp);
		return -ENOMEM;
	}
	*ret = exp;
	return 0;
}

int experiment_read_xml(struct experiment *exp, char **ret_err)
{
	struct log_parse lp = {.exp = exp};
	strbuf_init(&lp.text, 1 << 20);
	int r = parse_xml(exp, EXP_FILE_NAME_LOG, log_start, log_end, log_text, &lp, ret_err);
	strbuf_release(&lp.text);
	free(lp.elem_id);
	if (r < 0)
		return r;
	loss_problems(exp);
	struct map_parse mp = {.exp = exp};
	r = parse_xml(exp, EXP_FILE_NAME_MAP, map_start, map_end, NULL, &mp, ret_err);
	exp->objs = mp.objs.v;
	exp->nobjs = mp.objs.n;
	if (r < 0)
		return r;
	read_processes(exp);
	char *notes, why[256];
	size_t nlen;
	r = read_file(exp->path, EXP_FILE_NAME_NOTES, &notes, &nlen, MAX_NOTES_BYTES, why, sizeof why);
	if (r == 0)
		exp->notes = notes;
	else if (r != -ENOENT)
		experiment_warnf(exp, "%s: %s; not shown", EXP_FILE_NAME_NOTES, why);
	return 0;
}

int experiment_is_collector_object(const struct exp_loadobj *lo)
{
	return lo && lo->name && strncmp(lo->name, "libcollector", 12) == 0;
}

static void free_strs(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

const struct exp_io_fd *experiment_io_fd(const struct experiment *exp, uint32_t vfd)
{
	const struct exp_io_fd *v = EXP_ROWS(exp, IO_FDS);
	size_t lo = 0, hi = EXP_COUNT(exp, IO_FDS);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].vfd < vfd)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < EXP_COUNT(exp, IO_FDS) && v[lo].vfd == vfd ? &v[lo] : NULL;
}

void experiment_free(struct experiment *exp)
{
	if (!exp)
		return;
	struct exp_log *l = &exp->log;
	free(l->collector_version);
	free(l->target_path);
	free_strs(l->argv, l->argc);
	free(l->host);
	free(l->os);
	free(l->release);
	free(l->arch);
	free(l->cwd);
	free(l->lineage);
	free(l->origin);
	free(l->follow);
	free(l->first_expiry);
	free(l->sync_mode);
	for (size_t i = 0; i < l->nhwc; i++)
		free(l->hwc[i].name);
	for (size_t i = 0; i < exp->nprocs; i++) {
		free(exp->procs[i].lineage);
		free(exp->procs[i].origin);
		free(exp->procs[i].reason);
		free(exp->procs[i].path);
		free(exp->procs[i].command);
	}
	free(exp->procs);
	free(l->clock_mode);
	free(l->duration);
	free(l->descriptor);
	free(l->mechanism);
	free(l->cpu_split);
	free(l->lost.errno_name);
	free_strs(l->comments, l->ncomments);
	free(l->exit_signame);
	free_strs(l->exec_paths, l->nexecs);
	free_strs(exp->warnings, exp->nwarnings);
	free_strs(exp->problems, exp->nproblems);
	free_strs(exp->errors, exp->nerrors);
	free(exp->notes);
	for (size_t i = 0; i < exp->nobjs; i++) {
		free(exp->objs[i].path);
		free(exp->objs[i].name);
		free(exp->objs[i].build_id);
		free(exp->objs[i].segs);
	}
	free(exp->objs);
	free(exp->threads);
	for (size_t i = 0; i < exp->nstacks; i++) {
		free(exp->stacks[i].pcs);
		free(exp->stacks[i].objs);
	}
	free(exp->stacks);
	for (size_t i = 0; i < EXP_TABLE_MAX; i++) {
		struct exp_table *t = &exp->tables[i];
		if (t->release && t->rows)
			t->release(t->rows, t->count);
		free(t->rows);
	}
	free(exp->path);
	free(exp->name);
	free(exp);
}

int experiment_is_subexp_name(const char *name)
{
	size_t n = strlen(name);
	if (n < 5 || name[0] != '_' || strcmp(name + n - 3, ".er") != 0)
		return 0;
	for (size_t i = 0; i < n - 3; i++)
		if (!(name[i] == '_' || (name[i] >= '0' && name[i] <= '9') || strchr("fxcC", name[i])))
			return 0;
	return 1;
}

void experiment_parent_lineage(const char *lineage, char *ret, size_t room)
{
	const char *last = strrchr(lineage, '_');
	size_t n = last ? (size_t)(last - lineage) : 0;
	snprintf(ret, room, "%.*s", (int)n, lineage);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int experiment_descendants(const char *path, char ***ret)
{
	*ret = NULL;
	const char *base = strrchr(path, '/');
	base = base && base[1] ? base + 1 : path;
	if (experiment_is_subexp_name(base))
		return 0; /* a subexperiment has none of its own */
	DIR *d = opendir(path);
	if (!d)
		return -errno;
	VEC(char *) v = {0};
	struct dirent *de;
	int r = 0;
	while ((de = readdir(d)) && v.n < MAX_LIST) {
		if (!experiment_is_subexp_name(de->d_name))
			continue;
		struct strbuf b;
		strbuf_init(&b, 0);
		strbuf_addf(&b, "%s/%s", path, de->d_name);
		struct stat st; /* a directory of its own: not a link to one elsewhere */
		int is_dir = lstat(strbuf_str(&b), &st) == 0 && S_ISDIR(st.st_mode);
		strbuf_addf(&b, "/%s", EXP_FILE_NAME_LOG);
		int has_log = is_dir && access(strbuf_str(&b), F_OK) == 0;
		strbuf_reset(&b);
		strbuf_addf(&b, "%s/%s", path, de->d_name);
		char *s = strbuf_detach(&b);
		if (!has_log || !s || VEC_PUSH(&v, s) < 0) {
			free(s);
			if (has_log) {
				r = -ENOMEM;
				break;
			}
		}
	}
	closedir(d);
	if (r < 0) {
		for (size_t i = 0; i < v.n; i++)
			free(v.v[i]);
		free(v.v);
		return r;
	}
	if (v.n)
		qsort(v.v, v.n, sizeof *v.v, cmp_str);
	*ret = v.v;
	return (int)v.n;
}
