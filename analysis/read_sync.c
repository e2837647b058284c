/*
 * read_sync.c - the synctrace file's reader (see exp_read.h): the
 * synchronization waits of collect -s, one SYNC record each (format 1.3).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "analysis/exp_read.h"
#include "experiment/record.h"

struct sync_state {
	struct exp_read *rd;
	VEC(struct exp_sync_event) events;
	VEC(uint64_t) stack_ids; /* per event, resolved once the file is read */
	uint64_t prev_ns;
	uint64_t bad;
};

static int sync_record(void *ctx, uint32_t tid, uint64_t base_ns, int block_start,
		       const struct exp_record *rec)
{
	struct sync_state *st = ctx;
	if (block_start)
		st->prev_ns = base_ns;
	struct exp_sync y;
	if (record_decode_sync(rec, st->prev_ns, tid, &y) < 0) {
		st->bad++; /* malformed, or a kind that does not belong in this file */
		return 0;
	}
	st->prev_ns = y.ts_ns;
	struct exp_thread *t = exp_read_thread(st->rd, tid);
	if (!t)
		return 0;
	struct exp_sync_event e = {.ts_ns = y.ts_ns,
				   .wait_ns = y.wait_ns,
				   .object = y.object,
				   .thread = (uint32_t)(t - st->rd->threads.v),
				   .func = y.func};
	if (VEC_PUSH(&st->events, e) < 0 || VEC_PUSH(&st->stack_ids, y.stack_id) < 0)
		return -ENOMEM;
	return 0;
}

static int sync_read(struct exp_read *rd, void *vst, struct datafile *df)
{
	struct sync_state *st = vst;
	st->rd = rd;
	/* present (even damaged) means synchronization tracing was on */
	rd->exp->has_sync = exp_read_present(rd, EXP_FILE_NAME_SYNC);
	if (!df)
		return 0;
	int r = datafile_walk(df, sync_record, st);
	if (r < 0)
		return r;
	exp_read_damage(rd, EXP_FILE_NAME_SYNC, df, st->bad);
	uint64_t missing = 0;
	for (size_t i = 0; i < st->events.n; i++) {
		st->events.v[i].stack = exp_read_stack_index(rd, st->stack_ids.v[i]);
		missing += st->events.v[i].stack == rd->nknown;
	}
	if (missing)
		exp_read_warnf(rd,
			       "%" PRIu64
			       " synchronization wait(s) name a call stack that is not in the stacks file; "
			       "shown as <Unknown>",
			       missing);
	return 0;
}

static int cmp_sync_event(const void *a, const void *b)
{
	const struct exp_sync_event *x = a, *y = b;
	if (x->ts_ns != y->ts_ns)
		return x->ts_ns < y->ts_ns ? -1 : 1;
	return x->thread < y->thread ? -1 : x->thread > y->thread;
}

static int sync_finish(struct exp_read *rd, void *vst, const uint32_t *thread_order)
{
	struct sync_state *st = vst;
	for (size_t i = 0; i < st->events.n; i++)
		st->events.v[i].thread = thread_order[st->events.v[i].thread];
	if (st->events.n)
		qsort(st->events.v, st->events.n, sizeof *st->events.v, cmp_sync_event);
	rd->exp->sync = st->events.v;
	rd->exp->nsync = st->events.n;
	st->events.v = NULL;
	st->events.n = 0;
	return 0;
}

static void sync_release(void *vst)
{
	struct sync_state *st = vst;
	free(st->events.v);
	free(st->stack_ids.v);
}

const struct exp_reader exp_reader_sync = {
	.file = EXP_FILE_NAME_SYNC,
	.kind = EXP_FILE_SYNC,
	.state_bytes = sizeof(struct sync_state),
	.read = sync_read,
	.finish = sync_finish,
	.release = sync_release,
};
