/*
 * read_sync.c - the synctrace file's reader (see exp_read.h): the
 * synchronization waits of collect -s, one SYNC record each (format 1.3),
 * and from format 1.4 the sampled acquisitions of watched objects
 * (SYNC_ACQ) and their exact counts (SYNC_COUNT).
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>

#include "analysis/exp_read.h"
#include "experiment/record.h"

struct sync_state {
	struct exp_read *rd;
	VEC(struct exp_sync_event) events;
	VEC(uint64_t) stack_ids; /* per event, resolved once the file is read */
	VEC(struct exp_sync_acq_event) acqs;
	VEC(uint64_t) acq_stack_ids; /* per acquisition */
	VEC(struct exp_sync_watch) watches;
	uint64_t prev_ns;
	uint64_t bad;
};

static int acq_record(struct sync_state *st, uint32_t tid, const struct exp_record *rec)
{
	struct exp_sync_acq a;
	if (record_decode_sync_acq(rec, st->prev_ns, tid, &a) < 0) {
		st->bad++;
		return 0;
	}
	st->prev_ns = a.ts_ns;
	struct exp_thread *t = exp_read_thread(st->rd, tid);
	if (!t)
		return 0;
	struct exp_sync_acq_event e = {.ts_ns = a.ts_ns,
				       .object = a.object,
				       .thread = (uint32_t)(t - st->rd->threads.v),
				       .func = a.func};
	if (VEC_PUSH(&st->acqs, e) < 0 || VEC_PUSH(&st->acq_stack_ids, a.stack_id) < 0)
		return -ENOMEM;
	return 0;
}

static int count_record(struct sync_state *st, const struct exp_record *rec)
{
	struct exp_sync_count c;
	if (record_decode_sync_count(rec, &c) < 0) {
		st->bad++;
		return 0;
	}
	struct exp_sync_watch w = {c.object, c.acquisitions, c.sample_every};
	return VEC_PUSH(&st->watches, w) < 0 ? -ENOMEM : 0;
}

static int sync_record(void *ctx, uint32_t tid, uint64_t base_ns, int block_start,
		       const struct exp_record *rec)
{
	struct sync_state *st = ctx;
	if (block_start)
		st->prev_ns = base_ns;
	if (rec->kind == EXP_REC_SYNC_ACQ)
		return acq_record(st, tid, rec);
	if (rec->kind == EXP_REC_SYNC_COUNT)
		return count_record(st, rec);
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
	EXP_PRESENT(rd->exp, SYNC) = exp_read_present(rd, EXP_FILE_NAME_SYNC);
	if (!df)
		return 0;
	int r = datafile_walk(df, sync_record, st);
	if (r < 0)
		return r;
	exp_read_damage(rd, EXP_FILE_NAME_SYNC, df, st->bad);
	exp_read_set_stacks(rd, st->stack_ids.v, st->events.n, st->events.v, sizeof *st->events.v,
			    offsetof(struct exp_sync_event, stack), "synchronization wait(s)");
	exp_read_set_stacks(rd, st->acq_stack_ids.v, st->acqs.n, st->acqs.v, sizeof *st->acqs.v,
			    offsetof(struct exp_sync_acq_event, stack), "sampled lock acquisition(s)");
	return 0;
}

static int cmp_sync_event(const void *a, const void *b)
{
	const struct exp_sync_event *x = a, *y = b;
	if (x->ts_ns != y->ts_ns)
		return x->ts_ns < y->ts_ns ? -1 : 1;
	return x->thread < y->thread ? -1 : x->thread > y->thread;
}

static int cmp_sync_acq(const void *a, const void *b)
{
	const struct exp_sync_acq_event *x = a, *y = b;
	if (x->ts_ns != y->ts_ns)
		return x->ts_ns < y->ts_ns ? -1 : 1;
	return x->thread < y->thread ? -1 : x->thread > y->thread;
}

static int cmp_sync_watch(const void *a, const void *b)
{
	const struct exp_sync_watch *x = a, *y = b;
	return (x->object > y->object) - (x->object < y->object);
}

static int sync_finish(struct exp_read *rd, void *vst, const uint32_t *thread_order)
{
	struct sync_state *st = vst;
	EXP_READ_FINISH_VEC(rd, EXP_TABLE_SYNC, &st->events, thread_order, cmp_sync_event, NULL);
	EXP_READ_FINISH_VEC(rd, EXP_TABLE_SYNC_ACQ, &st->acqs, thread_order, cmp_sync_acq, NULL);
	if (st->watches.n > 1)
		qsort(st->watches.v, st->watches.n, sizeof *st->watches.v, cmp_sync_watch);
	exp_read_take_rows(rd, EXP_TABLE_SYNC_WATCH, &st->watches.v, &st->watches.n, sizeof *st->watches.v,
			   NULL);
	return 0;
}

static void sync_release(void *vst)
{
	struct sync_state *st = vst;
	free(st->events.v);
	free(st->stack_ids.v);
	free(st->acqs.v);
	free(st->acq_stack_ids.v);
	free(st->watches.v);
}

const struct exp_reader exp_reader_sync = {
	.file = EXP_FILE_NAME_SYNC,
	.kind = EXP_FILE_SYNC,
	.state_bytes = sizeof(struct sync_state),
	.read = sync_read,
	.finish = sync_finish,
	.release = sync_release,
};
