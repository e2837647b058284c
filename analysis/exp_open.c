/*
 * exp_open.c - experiment_open and its two lighter forms: the XML files
 * (experiment.c), then the data files through the reader table
 * (exp_read.h: the services the readers share are here), then the frames
 * pinned to their load objects (exp_timemap.c).  The top of the
 * experiment's modules: nothing below includes it.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/exp_read.h"
#include "analysis/exp_timemap.h"
#include "analysis/experiment_internal.h"
#include "analysis/heap_pack.h"
#include "analysis/zdata.h"
#include "common/strbuf.h"
#include "common/u64map.h"
#include "common/vec.h"
#include "experiment/datafile.h"
#include "experiment/format.h"

/* ------------------------------------------------------------------ data files */

/* The readers, in reading order: stacks first, the others name its stacks. */
static const struct exp_reader *const exp_readers[] = {
	&exp_reader_stacks, &exp_reader_profile, &exp_reader_overview, &exp_reader_heap,
	&exp_reader_sync,   &exp_reader_io,      &exp_reader_hwc,
};
#define NREADERS (sizeof exp_readers / sizeof exp_readers[0])
#define NPLUGGED (EXP_TABLE_MAX - EXP_TABLE_BUILTIN)

/* The readers exp_read_register plugged in, in order; the k-th fills table EXP_TABLE_BUILTIN + k. */
static const struct exp_reader *plugged[NPLUGGED];
static size_t nplugged;

int exp_read_register(const struct exp_reader *r)
{
	if (!r || !r->file || !r->read || !r->finish || !r->release)
		return -EINVAL;
	for (size_t i = 0; i < NREADERS; i++)
		if (strcmp(exp_readers[i]->file, r->file) == 0)
			return -EEXIST;
	for (size_t i = 0; i < nplugged; i++)
		if (strcmp(plugged[i]->file, r->file) == 0)
			return -EEXIST;
	if (nplugged == NPLUGGED)
		return -ENOSPC;
	plugged[nplugged] = r;
	return EXP_TABLE_BUILTIN + (int)nplugged++;
}

/* Reader i of the reading order: the built-in ones, then the plugged-in ones. */
static const struct exp_reader *reader_at(size_t i)
{
	return i < NREADERS ? exp_readers[i] : plugged[i - NREADERS];
}

struct exp_thread *exp_read_thread(struct exp_read *rd, uint32_t tid)
{
	for (size_t i = rd->threads.n; i-- > 0;)
		if (rd->threads.v[i].tid == tid)
			return &rd->threads.v[i];
	struct exp_thread t = {.tid = tid};
	if (rd->threads.n >= 1000000 || VEC_PUSH(&rd->threads, t) < 0)
		return NULL;
	return &rd->threads.v[rd->threads.n - 1];
}

void exp_read_set_stacks(struct exp_read *rd, const uint64_t *ids, size_t n, void *events, size_t stride,
			 size_t offset, const char *what)
{
	uint64_t missing = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t s = exp_read_stack_index(rd, ids[i]);
		memcpy((uint8_t *)events + i * stride + offset, &s, sizeof s);
		missing += s == rd->nknown;
	}
	if (missing)
		exp_read_warnf(rd,
			       "%" PRIu64
			       " %s name a call stack that is not in the stacks file; shown as <Unknown>",
			       missing, what);
}

uint32_t exp_read_stack_index(const struct exp_read *rd, uint64_t id)
{
	size_t lo = 0, hi = rd->nknown;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (rd->stacks.v[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < rd->nknown && rd->stacks.v[lo].id == id ? (uint32_t)lo : (uint32_t)rd->nknown;
}

void exp_read_warnf(struct exp_read *rd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	experiment_vwarnf(rd->exp, fmt, ap);
	va_end(ap);
}

void exp_read_take_rows(struct exp_read *rd, int id, void *rows, size_t *n, size_t stride,
			void (*release)(void *rows, size_t count))
{
	void **v = rows;
	struct exp_table *t = &rd->exp->tables[id];
	t->rows = *v;
	t->count = *n;
	t->stride = stride;
	t->release = release;
	*v = NULL;
	*n = 0;
}

void exp_read_finish_rows(struct exp_read *rd, int id, void *rows, size_t *n, size_t stride,
			  size_t thread_offset, const uint32_t *thread_order,
			  int (*cmp)(const void *, const void *), void (*release)(void *rows, size_t count))
{
	uint8_t *v = *(void **)rows;
	for (size_t i = 0; i < *n; i++) {
		uint32_t t;
		memcpy(&t, v + i * stride + thread_offset, sizeof t);
		t = thread_order[t];
		memcpy(v + i * stride + thread_offset, &t, sizeof t);
	}
	if (*n > 1 && cmp)
		qsort(v, *n, stride, cmp);
	exp_read_take_rows(rd, id, rows, n, stride, release);
}

int exp_read_present(const struct exp_read *rd, const char *file)
{
	struct strbuf p;
	strbuf_init(&p, 0);
	strbuf_addf(&p, "%s/%s", rd->exp->path, file);
	int present = access(strbuf_str(&p), F_OK) == 0;
	if (!present) { /* or as collect compressed it */
		strbuf_adds(&p, ".zst");
		present = access(strbuf_str(&p), F_OK) == 0;
	}
	strbuf_release(&p);
	return present;
}

/*
 * Open a data file as written or, after collect compressed it, NAME.zst;
 * *ret_buf receives a decompressed image to free after datafile_close.
 */
static int open_data(struct experiment *exp, const char *file, enum exp_file_kind kind, struct datafile **ret,
		     void **ret_buf)
{
	char why[PATH_MAX + 256];
	int r = zdata_open(exp->path, file, kind, ret, ret_buf, why, sizeof why);
	if (r == -ENOENT)
		return 0; /* absent data file: that data type was not collected */
	if (r < 0 && r != -ENOMEM) {
		/* present but unreadable, or refused: report it and use nothing from it */
		experiment_warnf(exp, "%s; ignored", why);
		*ret = NULL;
		return 0;
	}
	return r;
}

void exp_read_damage(struct exp_read *rd, const char *file, struct datafile *df, uint64_t bad_records)
{
	struct experiment *exp = rd->exp;
	struct datafile_damage *d = datafile_damage(df);
	if (d->torn_bytes)
		experiment_warnf(
			exp, "%s: truncated: the last %" PRIu64 " bytes are a partial block and were ignored",
			file, d->torn_bytes);
	if (d->bad_blocks)
		experiment_warnf(exp,
				 "%s: %" PRIu64 " damaged block(s): their remaining records were skipped",
				 file, d->bad_blocks);
	if (bad_records)
		experiment_warnf(exp, "%s: %" PRIu64 " malformed record(s) skipped", file, bad_records);
}

static int cmp_thread_start(const void *a, const void *b)
{
	const struct exp_thread *x = a, *y = b;
	/* the main thread (no creator) first, then by start time, then tid */
	if ((x->creator_tid == 0) != (y->creator_tid == 0) && x->has_start && y->has_start)
		return x->creator_tid == 0 ? -1 : 1;
	uint64_t xs = x->has_start ? x->start_ns : UINT64_MAX, ys = y->has_start ? y->start_ns : UINT64_MAX;
	if (xs != ys)
		return xs < ys ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/*
 * Number the threads (main first, then by start) into rd->threads; *ret_order
 * maps each thread's index of first appearance to its number - 1.
 */
static int number_threads(struct exp_read *rd, uint32_t **ret_order)
{
	size_t nt = rd->threads.n;
	uint32_t *order = calloc(nt ? nt : 1, sizeof *order);
	if (!order)
		return -ENOMEM;
	struct exp_thread *v = rd->threads.v;
	for (size_t i = 0; i < nt; i++)
		v[i].number = (uint32_t)i; /* remember the old index */
	if (nt)
		qsort(v, nt, sizeof *v, cmp_thread_start);
	for (size_t i = 0; i < nt; i++) {
		order[v[i].number] = (uint32_t)i;
		v[i].number = (uint32_t)i + 1;
	}
	*ret_order = order;
	return 0;
}

/*
 * Read the data files through the readers (only the stacks file's when
 * stacks_only: experiment_open_stacks, without the "unknown" stack).
 */
static int read_data(struct experiment *exp, int stacks_only)
{
	struct exp_read rd = {.exp = exp};
	u64map_init(&rd.slotmap);
	size_t n = stacks_only ? 1 : NREADERS + nplugged;
	struct datafile *df[NREADERS + NPLUGGED] = {NULL};
	void *zbuf[NREADERS + NPLUGGED] = {NULL}; /* decompressed images of .zst files */
	void *state[NREADERS + NPLUGGED] = {NULL};
	uint32_t *order = NULL;
	int r = 0;
	for (size_t i = 0; r == 0 && i < n; i++) {
		const struct exp_reader *rr = reader_at(i);
		r = open_data(exp, rr->file, rr->kind, &df[i], &zbuf[i]);
		if (r == 0 && !(state[i] = calloc(1, rr->state_bytes)))
			r = -ENOMEM;
		const struct datafile_info *fi = r == 0 && df[i] ? datafile_info(df[i]) : NULL;
		if (fi &&
		    (fi->version_major > exp->format_major ||
		     (fi->version_major == exp->format_major && fi->version_minor > exp->format_minor))) {
			exp->format_major = fi->version_major;
			exp->format_minor = fi->version_minor;
		}
	}
	for (size_t i = 0; r == 0 && i < n; i++)
		r = reader_at(i)->read(&rd, state[i], df[i]);
	if (r == 0 && stacks_only) {
		for (size_t i = rd.nknown; i < rd.stacks.n; i++)
			free(rd.stacks.v[i].pcs); /* no "unknown" nor "process exit" stack */
		rd.stacks.n = rd.nknown;
	}
	if (r == 0)
		r = number_threads(&rd, &order);
	for (size_t i = 0; r == 0 && i < n; i++)
		r = reader_at(i)->finish(&rd, state[i], order);
	if (r == 0 && !stacks_only) {
		exp->threads = rd.threads.v;
		exp->nthreads = rd.threads.n;
		rd.threads.v = NULL;
	}
	for (size_t i = 0; i < n; i++) {
		if (state[i])
			reader_at(i)->release(state[i]);
		free(state[i]);
		datafile_close(df[i]);
		free(zbuf[i]);
	}
	free(order);
	for (size_t i = 0; i < rd.stacks.n; i++)
		free(rd.stacks.v[i].pcs);
	free(rd.stacks.v);
	free(rd.threads.v);
	u64map_release(&rd.slotmap);
	return r;
}

enum open_what { OPEN_MAPS, OPEN_STACKS, OPEN_ALL };

/* The run's length: to <end>, else to the last event (a heap event may be the last). */
static void set_duration(struct experiment *exp)
{
	uint64_t end = exp->log.end_ns;
	if (!end && EXP_COUNT(exp, CLOCK))
		end = EXP_ROWS(exp, CLOCK)[EXP_COUNT(exp, CLOCK) - 1].ts_ns;
	struct exp_heap_iter it;
	struct exp_heap_event ev;
	exp_heap_iter_begin(&it, exp->log.end_ns ? NULL : EXP_ROWS(exp, HEAP));
	while (exp_heap_iter_next(&it, &ev) > 0)
		if (ev.ts_ns > end) /* in seq order: times may step back a little */
			end = ev.ts_ns;
	exp->duration_ns = end > exp->log.start_ns ? end - exp->log.start_ns : 0;
}

static int open_impl(const char *path, enum open_what what, struct experiment **ret, char **ret_err)
{
	if (ret_err)
		*ret_err = NULL;
	struct experiment *exp = NULL;
	int r = experiment_new(path, &exp, ret_err);
	if (r < 0)
		return r;
	r = experiment_read_xml(exp, ret_err);
	if (r < 0)
		goto fail;
	r = what == OPEN_ALL ? read_data(exp, 0) : what == OPEN_STACKS ? read_data(exp, 1) : 0;
	if (r == 0 && what == OPEN_ALL)
		r = exp_timemap_apply(exp);
	if (r < 0) {
		if (ret_err && !*ret_err)
			experiment_set_err(ret_err, exp->path, strerror(-r));
		goto fail;
	}
	if (!exp->log.complete)
		experiment_warnf(exp,
				 "log.xml is not closed: the collection did not finish or is still running");
	set_duration(exp);
	*ret = exp;
	return 0;
fail:
	experiment_free(exp);
	return r;
}

int experiment_open(const char *path, struct experiment **ret, char **ret_err)
{
	return open_impl(path, OPEN_ALL, ret, ret_err);
}

int experiment_open_maps(const char *path, struct experiment **ret, char **ret_err)
{
	return open_impl(path, OPEN_MAPS, ret, ret_err);
}

int experiment_open_stacks(const char *path, struct experiment **ret, char **ret_err)
{
	return open_impl(path, OPEN_STACKS, ret, ret_err);
}
