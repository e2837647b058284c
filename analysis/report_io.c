/*
 * report_io.c - the I/O reports' model (see report_io.h): each selected
 * experiment's calls summed into an array indexed by descriptor (its
 * position among the experiment's descriptors) or by stack, the groups
 * with calls made rows; by file, the rows of equal names merged.  O(n log
 * d) in the calls and descriptors, O(n) by stack, plus the sort.
 */
#include "analysis/report_io.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/experiment_internal.h"
#include "common/jsonw.h"
#include "common/vec.h"

struct group {
	uint64_t calls;
	uint64_t v[PROFILE_IO_FIGS];
};

static int call_selected(const struct profile *p, size_t x, const struct exp_io_event *y)
{
	return profile_event_selected(p, x, y->thread, PROFILE_NO_CPU, y->ts_ns);
}

static void group_add(struct group *g, const uint64_t *v)
{
	g->calls++;
	for (int k = 0; k < PROFILE_IO_FIGS; k++)
		g->v[k] += v[k];
}

/* The position of vfd among exp's descriptors, exp->nio_fds if it is none of them. */
static size_t fd_slot(const struct experiment *exp, uint32_t vfd)
{
	const struct exp_io_fd *d = vfd ? experiment_io_fd(exp, vfd) : NULL;
	return d ? (size_t)(d - EXP_ROWS(exp, IO_FDS)) : EXP_COUNT(exp, IO_FDS);
}

/* The groups' rows of experiment x (BY_VFD, or BY_FILE before merging names). */
static int fd_rows(const struct experiment *exp, size_t x, const struct group *g, void *vrows)
{
	VEC(struct report_io_row) *rows = vrows;
	for (size_t i = 0; i <= EXP_COUNT(exp, IO_FDS); i++) {
		if (!g[i].calls)
			continue;
		const struct exp_io_fd *d = i < EXP_COUNT(exp, IO_FDS) ? &EXP_ROWS(exp, IO_FDS)[i] : NULL;
		struct report_io_row r = {.name = d ? d->name : REPORT_IO_UNKNOWN_FILE,
					  .exp = x,
					  .vfd = d ? d->vfd : 0,
					  .fd = d ? d->fd : -1,
					  .calls = g[i].calls};
		memcpy(r.v, g[i].v, sizeof r.v);
		if (VEC_PUSH(rows, r) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int stack_rows(const struct experiment *exp, size_t x, const struct group *g, void *vrows)
{
	VEC(struct report_io_row) *rows = vrows;
	for (size_t i = 0; i <= exp->nstacks; i++) {
		if (!g[i].calls)
			continue;
		struct report_io_row r = {.exp = x, .stack = (uint32_t)i, .fd = -1, .calls = g[i].calls};
		memcpy(r.v, g[i].v, sizeof r.v);
		if (VEC_PUSH(rows, r) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* Experiment x's selected calls grouped, as rows; the total added to *total. */
static int experiment_rows(const struct profile *p, size_t x, enum report_io_by by, struct group *total,
			   void *rows)
{
	const struct experiment *exp = profile_experiment(p, x);
	size_t ngroups = (by == REPORT_IO_BY_STACK ? exp->nstacks : EXP_COUNT(exp, IO_FDS)) + 1;
	struct group *g = calloc(ngroups, sizeof *g);
	if (!g)
		return -ENOMEM;
	for (size_t i = 0; i < EXP_COUNT(exp, IO); i++) {
		const struct exp_io_event *y = &EXP_ROWS(exp, IO)[i];
		if (!call_selected(p, x, y))
			continue;
		uint64_t v[PROFILE_IO_FIGS];
		profile_io_values(y, v);
		size_t k = by == REPORT_IO_BY_STACK ? (y->stack < exp->nstacks ? y->stack : exp->nstacks)
						    : fd_slot(exp, y->vfd);
		group_add(&g[k], v);
		group_add(total, v);
	}
	int r = by == REPORT_IO_BY_STACK ? stack_rows(exp, x, g, rows) : fd_rows(exp, x, g, rows);
	free(g);
	return r;
}

static int cmp_name(const void *a, const void *b)
{
	const struct report_io_row *x = a, *y = b;
	return strcmp(x->name, y->name);
}

/* Rows of equal names (sorted by name) made one; the new count. */
static size_t merge_names(struct report_io_row *v, size_t n)
{
	qsort(v, n, sizeof *v, cmp_name);
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (m > 0 && strcmp(v[m - 1].name, v[i].name) == 0) {
			v[m - 1].calls += v[i].calls;
			for (int k = 0; k < PROFILE_IO_FIGS; k++)
				v[m - 1].v[k] += v[i].v[k];
			continue;
		}
		v[m] = v[i];
		v[m].exp = 0;
		v[m].vfd = 0;
		v[m].fd = -1;
		m++;
	}
	return m;
}

static uint64_t sort_value(const struct report_io_row *r, int sort_fig)
{
	if (sort_fig >= 0)
		return r->v[sort_fig];
	return r->v[PROFILE_IO_READ_TIME] + r->v[PROFILE_IO_WRITE_TIME] + r->v[PROFILE_IO_OTHER_TIME] +
	       r->v[PROFILE_IO_ERROR_TIME];
}

static int cmp_row(const void *a, const void *b, void *arg)
{
	const struct report_io_row *x = a, *y = b;
	int sort = *(const int *)arg;
	uint64_t vx = sort_value(x, sort), vy = sort_value(y, sort);
	if (vx != vy)
		return vx > vy ? -1 : 1;
	int c = x->name && y->name ? strcmp(x->name, y->name) : 0;
	if (c)
		return c;
	if (x->exp != y->exp)
		return x->exp < y->exp ? -1 : 1;
	if (x->vfd != y->vfd)
		return x->vfd < y->vfd ? -1 : 1;
	return (x->stack > y->stack) - (x->stack < y->stack);
}

ssize_t report_io_rows(const struct profile *p, enum report_io_by by, int sort, struct report_io_row **ret)
{
	*ret = NULL;
	if ((by != REPORT_IO_BY_FILE && by != REPORT_IO_BY_VFD && by != REPORT_IO_BY_STACK) ||
	    sort < REPORT_IO_SORT_TIME || sort >= PROFILE_IO_FIGS)
		return -EINVAL;
	VEC(struct report_io_row) rows = {0};
	struct report_io_row head = {.name = "<Total>", .fd = -1};
	if (VEC_PUSH(&rows, head) < 0)
		return -ENOMEM;
	struct group total = {0};
	for (size_t x = 0; x < profile_experiment_count(p); x++) {
		if (!profile_experiment_selected(p, x) || !EXP_COUNT(profile_experiment(p, x), IO))
			continue;
		if (experiment_rows(p, x, by, &total, &rows) < 0) {
			free(rows.v);
			return -ENOMEM;
		}
	}
	rows.v[0].calls = total.calls;
	memcpy(rows.v[0].v, total.v, sizeof total.v);
	size_t n = rows.n;
	if (by == REPORT_IO_BY_FILE)
		n = 1 + merge_names(rows.v + 1, n - 1);
	qsort_r(rows.v + 1, n - 1, sizeof *rows.v, cmp_row, &sort);
	*ret = rows.v;
	return (ssize_t)n;
}

/* A read or a write of `bytes` that took dur_ns, into s. */
static void sizes_add(struct report_io_sizes *s, uint64_t bytes, uint64_t dur_ns)
{
	s->calls++;
	s->bytes += bytes;
	s->time_ns += dur_ns;
	s->classes[heap_size_class(bytes)]++;
	if (dur_ns > s->longest_ns)
		s->longest_ns = dur_ns;
	if (bytes && (!s->min_bytes || bytes < s->min_bytes))
		s->min_bytes = bytes;
	if (bytes > s->max_bytes)
		s->max_bytes = bytes;
}

static void stat_add(struct report_io_stat *s, const uint64_t *v)
{
	if (v[PROFILE_IO_READ_CNT])
		sizes_add(&s->read, v[PROFILE_IO_READ_BYTES], v[PROFILE_IO_READ_TIME]);
	if (v[PROFILE_IO_WRITE_CNT])
		sizes_add(&s->write, v[PROFILE_IO_WRITE_BYTES], v[PROFILE_IO_WRITE_TIME]);
	s->other_calls += v[PROFILE_IO_OTHER_CNT];
	s->other_ns += v[PROFILE_IO_OTHER_TIME];
	s->error_calls += v[PROFILE_IO_ERROR_CNT];
	s->error_ns += v[PROFILE_IO_ERROR_TIME];
}

void report_io_stat(const struct profile *p, struct report_io_stat *ret)
{
	memset(ret, 0, sizeof *ret);
	for (size_t x = 0; x < profile_experiment_count(p); x++) {
		if (!profile_experiment_selected(p, x))
			continue;
		const struct experiment *exp = profile_experiment(p, x);
		for (size_t i = 0; i < EXP_COUNT(exp, IO); i++) {
			if (!call_selected(p, x, &EXP_ROWS(exp, IO)[i]))
				continue;
			uint64_t v[PROFILE_IO_FIGS];
			profile_io_values(&EXP_ROWS(exp, IO)[i], v);
			stat_add(ret, v);
		}
	}
}

int report_io_present(const struct profile *p)
{
	for (size_t x = 0; x < profile_experiment_count(p); x++)
		if (EXP_PRESENT(profile_experiment(p, x), IO))
			return 1;
	return 0;
}

void report_io_row_json(struct jsonw *w, const struct report_io_row *r)
{
	static const char *const key[PROFILE_IO_FIGS] = {
		"ioreadbytes",    "ioreadcnt",  "ioreadtime_ns",  "iowritebytes", "iowritecnt",
		"iowritetime_ns", "ioothercnt", "ioothertime_ns", "ioerrorcnt",   "ioerrortime_ns",
	};
	jsonw_key_uint(w, "calls", r->calls);
	for (int k = 0; k < PROFILE_IO_FIGS; k++)
		jsonw_key_uint(w, key[k], r->v[k]);
}

static void sizes_json(struct jsonw *w, const char *key, const struct report_io_sizes *s)
{
	jsonw_key(w, key);
	jsonw_object_begin(w);
	jsonw_key_uint(w, "calls", s->calls);
	jsonw_key_uint(w, "bytes", s->bytes);
	jsonw_key_uint(w, "time_ns", s->time_ns);
	jsonw_key_uint(w, "longest_ns", s->longest_ns);
	jsonw_key_uint(w, "smallest_bytes", s->min_bytes);
	jsonw_key_uint(w, "largest_bytes", s->max_bytes);
	jsonw_key(w, "sizes");
	jsonw_array_begin(w);
	for (size_t c = 0; c < HEAP_SIZE_CLASSES; c++)
		if (s->classes[c]) {
			jsonw_object_begin(w);
			jsonw_key_string(w, "range", heap_size_class_label(c));
			jsonw_key_uint(w, "calls", s->classes[c]);
			jsonw_object_end(w);
		}
	jsonw_array_end(w);
	jsonw_object_end(w);
}

static void calls_json(struct jsonw *w, const char *key, uint64_t calls, uint64_t ns)
{
	jsonw_key(w, key);
	jsonw_object_begin(w);
	jsonw_key_uint(w, "calls", calls);
	jsonw_key_uint(w, "time_ns", ns);
	jsonw_object_end(w);
}

void report_io_stat_json(struct jsonw *w, const struct report_io_stat *s)
{
	sizes_json(w, "write", &s->write);
	sizes_json(w, "read", &s->read);
	calls_json(w, "other", s->other_calls, s->other_ns);
	calls_json(w, "error", s->error_calls, s->error_ns);
}
