/*
 * read_heap.c - the heaptrace file's reader (see exp_read.h): heap calls
 * (collect -H), their stacks resolved as they are read.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "analysis/exp_read.h"
#include "experiment/heapstream.h"

struct heap_state {
	struct exp_read *rd;
	VEC(struct exp_heap_event) events;
	uint64_t bad, missing;
	unsigned version_minor; /* the heaptrace file's */
};

/* The stack index of an allocating call's stack reference. */
static uint32_t heap_stack(const struct heap_state *st, const struct exp_heap *h)
{
	const struct exp_read *rd = st->rd;
	if (h->stack_kind == EXP_STACKREF_ID)
		return exp_read_stack_index(rd, h->stack_id);
	if (h->stack_kind == EXP_STACKREF_SLOT0) {
		int64_t v = u64map_get(&rd->slotmap, h->stack_slot);
		return v < 0 ? (uint32_t)rd->nknown : (uint32_t)v;
	}
	return (uint32_t)rd->nknown;
}

/* One heaptrace block's events; a malformed event costs the rest of its block. */
static int heap_block(void *ctx, uint32_t tid, uint64_t base_ns, const uint8_t *events, size_t bytes)
{
	struct heap_state *st = ctx;
	struct heapstream_state hs;
	heapstream_begin(&hs, base_ns, st->version_minor);
	const uint8_t *pos = events, *end = events + bytes;
	struct exp_thread *t = NULL;
	struct exp_heap h;
	int r;
	while ((r = heapstream_next(&pos, end, &hs, tid, &h)) > 0) {
		if (!t && !(t = exp_read_thread(st->rd, tid)))
			return 0; /* past the thread cap */
		struct exp_heap_event e = {.ts_ns = h.ts_ns,
					   .seq = h.seq,
					   .size_bytes = h.size,
					   .addr = h.addr,
					   .old_addr = h.old_addr,
					   .thread = (uint32_t)(t - st->rd->threads.v),
					   .op = h.op};
		int allocates = h.op != EXP_HEAP_FREE && h.op != EXP_HEAP_MUNMAP;
		e.stack = allocates ? heap_stack(st, &h) : EXP_HEAP_NO_STACK;
		if (allocates && e.stack == st->rd->nknown)
			st->missing++;
		if (VEC_PUSH(&st->events, e) < 0)
			return -ENOMEM;
	}
	if (r < 0)
		st->bad++;
	return 0;
}

static int heap_read(struct exp_read *rd, void *vst, struct datafile *df)
{
	struct heap_state *st = vst;
	st->rd = rd;
	/* present (even damaged) means heap tracing was on */
	EXP_PRESENT(rd->exp, HEAP) = exp_read_present(rd, EXP_FILE_NAME_HEAP);
	if (!df)
		return 0;
	st->version_minor = datafile_info(df)->version_minor;
	if (st->version_minor < 1) {
		exp_read_warnf(rd, "%s was written in format 1.0, which this version no longer reads",
			       EXP_FILE_NAME_HEAP);
	} else {
		int r = datafile_walk_stream(df, heap_block, st);
		if (r < 0)
			return r;
	}
	exp_read_damage(rd, EXP_FILE_NAME_HEAP, df, st->bad);
	if (st->missing)
		exp_read_warnf(rd,
			       "%" PRIu64 " heap allocation(s) name no call stack, or one that is not in the "
			       "stacks file; shown as <Unknown>",
			       st->missing);
	return 0;
}

static int cmp_heap_event(const void *a, const void *b)
{
	const struct exp_heap_event *x = a, *y = b;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return x->thread < y->thread ? -1 : x->thread > y->thread;
}

static int heap_finish(struct exp_read *rd, void *vst, const uint32_t *thread_order)
{
	struct heap_state *st = vst;
	/* Heap calls in seq order; glibc's qsort merges, cheap on per-thread sorted runs. */
	EXP_READ_FINISH_VEC(rd, EXP_TABLE_HEAP, &st->events, thread_order, cmp_heap_event, NULL);
	return 0;
}

static void heap_release(void *vst)
{
	struct heap_state *st = vst;
	free(st->events.v);
}

const struct exp_reader exp_reader_heap = {
	.file = EXP_FILE_NAME_HEAP,
	.kind = EXP_FILE_HEAP,
	.state_bytes = sizeof(struct heap_state),
	.read = heap_read,
	.finish = heap_finish,
	.release = heap_release,
};
