/*
 * read_heap.c - the heaptrace file's reader (see exp_read.h): heap calls
 * (collect -H), their stacks resolved as they are read.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "analysis/exp_read.h"
#include "analysis/heap_pack.h"
#include "experiment/heapstream.h"

/* A run of calls in seq order in a pack: count calls from byte pos. */
struct heap_run {
	size_t pos, count;
};

struct heap_state {
	struct exp_read *rd;
	struct exp_heap_pack *pack; /* the calls as read, block by block; then in seq order */
	VEC(struct heap_run) runs;
	struct exp_heap_event last; /* the last call packed */
	int sorted;                 /* every call so far after the one before it in seq order */
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

/* (seq, thread) order: that of the calls. */
static int before(const struct exp_heap_event *x, const struct exp_heap_event *y)
{
	return x->seq != y->seq ? x->seq < y->seq : x->thread < y->thread;
}

/* Pack e; a call before the last one packed starts a run. 0 or -ENOMEM. */
static int pack_call(struct heap_state *st, const struct exp_heap_event *e, int block_start)
{
	struct exp_heap_pack *p = st->pack;
	int ordered = !p->count || !before(e, &st->last);
	if (!ordered)
		st->sorted = 0;
	if (block_start || !ordered) {
		struct heap_run run = {.pos = p->nbytes};
		if (VEC_PUSH(&st->runs, run) < 0)
			return -ENOMEM;
		heap_pack_restart(p);
	}
	if (heap_pack_append(p, e) < 0)
		return -ENOMEM;
	st->runs.v[st->runs.n - 1].count++;
	st->last = *e;
	return 0;
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
	int r, first = 1;
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
		if (pack_call(st, &e, first) < 0)
			return -ENOMEM;
		first = 0;
	}
	if (r < 0)
		st->bad++;
	return 0;
}

/* ------------------------------------------------------------ merging the runs */

#define MERGE_WAYS 1024u /* runs merged at once; more take another pass */

struct cursor {
	struct exp_heap_iter it;
	struct exp_heap_event ev; /* its next call */
};

/* Restore the min-heap property of h[0, n) (by the cursors' next calls) from i down. */
static void sift_down(struct cursor **h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		if (l < n && before(&h[l]->ev, &h[m]->ev))
			m = l;
		if (l + 1 < n && before(&h[l + 1]->ev, &h[m]->ev))
			m = l + 1;
		if (m == i)
			return;
		struct cursor *x = h[i];
		h[i] = h[m];
		h[m] = x;
		i = m;
	}
}

/* Merge runs[0, n) of src into one run appended to dst. 0 or -ENOMEM. */
static int merge_group(const struct exp_heap_pack *src, const struct heap_run *runs, size_t n,
		       struct exp_heap_pack *dst, struct cursor *cur, struct cursor **heap)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		exp_heap_iter_run(&cur[i].it, src, runs[i].pos, runs[i].count);
		if (exp_heap_iter_next(&cur[i].it, &cur[i].ev) > 0)
			heap[k++] = &cur[i];
	}
	for (size_t i = k / 2; i-- > 0;)
		sift_down(heap, k, i);
	heap_pack_restart(dst);
	while (k) {
		if (heap_pack_append(dst, &heap[0]->ev) < 0)
			return -ENOMEM;
		if (exp_heap_iter_next(&heap[0]->it, &heap[0]->ev) <= 0)
			heap[0] = heap[--k];
		sift_down(heap, k, 0);
	}
	return 0;
}

/*
 * The calls in seq order: the runs merged MERGE_WAYS at a time, pass after
 * pass (one pass up to MERGE_WAYS runs: a heaptrace block or more each).
 */
static int merge_runs(struct heap_state *st)
{
	struct cursor *cur = malloc(MERGE_WAYS * sizeof *cur);
	struct cursor **heap = malloc(MERGE_WAYS * sizeof *heap);
	int r = cur && heap ? 0 : -ENOMEM;
	while (r == 0 && st->runs.n > 1) {
		struct exp_heap_pack *dst = calloc(1, sizeof *dst);
		VEC(struct heap_run) out = {0};
		if (!dst) {
			r = -ENOMEM;
			break;
		}
		for (size_t i = 0; r == 0 && i < st->runs.n; i += MERGE_WAYS) {
			size_t n = st->runs.n - i < MERGE_WAYS ? st->runs.n - i : MERGE_WAYS;
			struct heap_run run = {.pos = dst->nbytes, .count = dst->count};
			if ((r = merge_group(st->pack, st->runs.v + i, n, dst, cur, heap)) == 0) {
				run.count = dst->count - run.count;
				r = VEC_PUSH(&out, run);
			}
		}
		if (r < 0) {
			heap_pack_release(dst);
			free(dst);
			free(out.v);
			break;
		}
		heap_pack_release(st->pack);
		free(st->pack);
		st->pack = dst;
		free(st->runs.v);
		st->runs.v = out.v;
		st->runs.n = out.n;
		st->runs.cap = out.cap;
	}
	free(cur);
	free(heap);
	return r;
}

static int heap_read(struct exp_read *rd, void *vst, struct datafile *df)
{
	struct heap_state *st = vst;
	st->rd = rd;
	st->sorted = 1;
	if (!(st->pack = calloc(1, sizeof *st->pack)))
		return -ENOMEM;
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
		if (r == 0 && !st->sorted)
			r = merge_runs(st);
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

/* The table's release: what the pack holds (experiment_free frees the pack itself). */
static void release_pack(void *rows, size_t count)
{
	(void)count;
	heap_pack_release(rows);
}

static int heap_finish(struct exp_read *rd, void *vst, const uint32_t *thread_order)
{
	struct heap_state *st = vst;
	size_t nthreads = rd->threads.n;
	uint32_t *map = malloc((nthreads ? nthreads : 1) * sizeof *map);
	if (!map)
		return -ENOMEM;
	for (size_t i = 0; i < nthreads; i++)
		map[i] = thread_order[i];
	st->pack->thread_map = map;
	st->pack->nthreads = nthreads;
	size_t n = st->pack->count;
	exp_read_take_rows(rd, EXP_TABLE_HEAP, &st->pack, &n, 0, release_pack);
	return 0;
}

static void heap_release(void *vst)
{
	struct heap_state *st = vst;
	if (st->pack)
		heap_pack_release(st->pack);
	free(st->pack);
	free(st->runs.v);
}

const struct exp_reader exp_reader_heap = {
	.file = EXP_FILE_NAME_HEAP,
	.kind = EXP_FILE_HEAP,
	.state_bytes = sizeof(struct heap_state),
	.read = heap_read,
	.finish = heap_finish,
	.release = heap_release,
};
