/*
 * read_hwc.c - the hwctrace file's reader (see exp_read.h): the counter
 * overflows of collect -h, one HWC record per drain of a counter's ring
 * (format 1.7).  A record naming a counter that log.xml does not describe
 * is malformed (its interval, hence its worth, is unknown).
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>

#include "analysis/exp_read.h"
#include "experiment/record.h"

struct hwc_state {
	struct exp_read *rd;
	VEC(struct exp_hwc_event) events;
	VEC(uint64_t) stack_ids; /* per event, resolved once the file is read */
	uint64_t prev_ns;
	uint64_t bad;
};

static int hwc_record_cb(void *ctx, uint32_t tid, uint64_t base_ns, int block_start,
			 const struct exp_record *rec)
{
	struct hwc_state *st = ctx;
	if (block_start)
		st->prev_ns = base_ns;
	struct exp_hwc h;
	if (record_decode_hwc(rec, st->prev_ns, tid, &h) < 0 || h.counter >= st->rd->exp->log.nhwc) {
		st->bad++; /* malformed, another kind, or a counter log.xml does not describe */
		return 0;
	}
	st->prev_ns = h.ts_ns;
	struct exp_thread *t = exp_read_thread(st->rd, tid);
	if (!t)
		return 0;
	struct exp_hwc_event e = {.ts_ns = h.ts_ns,
				  .overflows = h.overflows,
				  .thread = (uint32_t)(t - st->rd->threads.v),
				  .counter = h.counter};
	if (VEC_PUSH(&st->events, e) < 0 || VEC_PUSH(&st->stack_ids, h.stack_id) < 0)
		return -ENOMEM;
	return 0;
}

static int hwc_read(struct exp_read *rd, void *vst, struct datafile *df)
{
	struct hwc_state *st = vst;
	st->rd = rd;
	EXP_PRESENT(rd->exp, HWC) = exp_read_present(rd, EXP_FILE_NAME_HWC) && rd->exp->log.nhwc > 0;
	if (!df)
		return 0;
	int r = datafile_walk(df, hwc_record_cb, st);
	if (r < 0)
		return r;
	exp_read_damage(rd, EXP_FILE_NAME_HWC, df, st->bad);
	exp_read_set_stacks(rd, st->stack_ids.v, st->events.n, st->events.v, sizeof *st->events.v,
			    offsetof(struct exp_hwc_event, stack), "counter overflow record(s)");
	return 0;
}

static int cmp_hwc_event(const void *a, const void *b)
{
	const struct exp_hwc_event *x = a, *y = b;
	if (x->ts_ns != y->ts_ns)
		return x->ts_ns < y->ts_ns ? -1 : 1;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return (x->counter > y->counter) - (x->counter < y->counter);
}

static int hwc_finish(struct exp_read *rd, void *vst, const uint32_t *thread_order)
{
	struct hwc_state *st = vst;
	EXP_READ_FINISH_VEC(rd, EXP_TABLE_HWC, &st->events, thread_order, cmp_hwc_event, NULL);
	return 0;
}

static void hwc_release(void *vst)
{
	struct hwc_state *st = vst;
	free(st->events.v);
	free(st->stack_ids.v);
}

const struct exp_reader exp_reader_hwc = {
	.file = EXP_FILE_NAME_HWC,
	.kind = EXP_FILE_HWC,
	.state_bytes = sizeof(struct hwc_state),
	.read = hwc_read,
	.finish = hwc_finish,
	.release = hwc_release,
};
