/*
 * read_stacks.c - the stacks file's reader (see exp_read.h): call stacks by
 * id and the heap stack slots, shared with the other readers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/exp_read.h"
#include "experiment/record.h"

struct stacks_state {
	struct exp_read *rd;
	VEC(struct exp_stack_slot) slots;
	uint64_t *scratch;
	uint64_t bad;
};

static int stack_record(void *ctx, uint32_t tid, uint64_t base_ns, int block_start,
			const struct exp_record *rec)
{
	struct stacks_state *st = ctx;
	struct exp_read *rd = st->rd;
	(void)tid, (void)base_ns, (void)block_start;
	if (rec->kind == EXP_REC_STACK_SLOT) {
		struct exp_stack_slot sl;
		if (record_decode_stack_slot(rec, &sl) < 0) {
			st->bad++;
			return 0;
		}
		return VEC_PUSH(&st->slots, sl) < 0 ? -ENOMEM : 0;
	}
	struct exp_stack s;
	if (rec->kind != EXP_REC_STACK || record_decode_stack(rec, st->scratch, EXP_MAX_FRAMES, &s) < 0) {
		st->bad++;
		return 0;
	}
	struct exp_callstack cs = {.id = s.id, .flags = s.flags, .nframes = s.nframes};
	cs.pcs = malloc((s.nframes ? s.nframes : 1) * sizeof *cs.pcs);
	if (!cs.pcs)
		return -ENOMEM;
	memcpy(cs.pcs, s.pcs, s.nframes * sizeof *cs.pcs);
	if (VEC_PUSH(&rd->stacks, cs) < 0) {
		free(cs.pcs);
		return -ENOMEM;
	}
	return 0;
}

static int cmp_stack_id(const void *a, const void *b)
{
	const struct exp_callstack *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Sort by id, keep one copy of each (a stack may be written twice). */
static void sort_unique(struct exp_read *rd)
{
	if (rd->stacks.n)
		qsort(rd->stacks.v, rd->stacks.n, sizeof *rd->stacks.v, cmp_stack_id);
	size_t ns = 0;
	for (size_t i = 0; i < rd->stacks.n; i++) {
		if (ns && rd->stacks.v[ns - 1].id == rd->stacks.v[i].id) {
			free(rd->stacks.v[i].pcs);
			continue;
		}
		rd->stacks.v[ns++] = rd->stacks.v[i];
	}
	rd->stacks.n = ns;
}

static int stacks_read(struct exp_read *rd, void *vst, struct datafile *df)
{
	struct stacks_state *st = vst;
	if (df) {
		st->scratch = malloc(EXP_MAX_FRAMES * sizeof *st->scratch);
		if (!st->scratch)
			return -ENOMEM;
		st->rd = rd;
		int r = datafile_walk(df, stack_record, st);
		if (r < 0)
			return r;
		exp_read_damage(rd, EXP_FILE_NAME_STACKS, df, st->bad);
	}
	sort_unique(rd);
	rd->nknown = rd->stacks.n;
	/*
	 * Two extra stacks at the end: "unknown" for events whose stack is
	 * missing, then "process exit" (experiment.h).
	 */
	struct exp_callstack unknown = {.id = 0, .flags = EXP_STACK_FAILED, .nframes = 0, .pcs = malloc(8)};
	if (!unknown.pcs || VEC_PUSH(&rd->stacks, unknown) < 0) {
		free(unknown.pcs);
		return -ENOMEM;
	}
	struct exp_callstack ended = {.id = 0, .flags = 0, .nframes = 0, .pcs = malloc(8)};
	if (!ended.pcs || VEC_PUSH(&rd->stacks, ended) < 0) {
		free(ended.pcs);
		return -ENOMEM;
	}
	for (size_t i = 0; i < st->slots.n; i++)
		if (u64map_put(&rd->slotmap, st->slots.v[i].slot,
			       exp_read_stack_index(rd, st->slots.v[i].stack_id)) < 0)
			return -ENOMEM;
	return 0;
}

static int stacks_finish(struct exp_read *rd, void *st, const uint32_t *thread_order)
{
	(void)st, (void)thread_order;
	rd->exp->stacks = rd->stacks.v;
	rd->exp->nstacks = rd->stacks.n;
	rd->exp->unknown_stack = (uint32_t)rd->nknown;
	rd->exp->exit_stack =
		rd->nknown + 1 < rd->stacks.n ? (uint32_t)rd->nknown + 1 : (uint32_t)rd->stacks.n;
	rd->stacks.v = NULL;
	rd->stacks.n = 0;
	return 0;
}

static void stacks_release(void *vst)
{
	struct stacks_state *st = vst;
	free(st->slots.v);
	free(st->scratch);
}

const struct exp_reader exp_reader_stacks = {
	.file = EXP_FILE_NAME_STACKS,
	.kind = EXP_FILE_STACKS,
	.state_bytes = sizeof(struct stacks_state),
	.read = stacks_read,
	.finish = stacks_finish,
	.release = stacks_release,
};
