/*
 * profile_stacks.c - profile_foreach_stack: the selection's call stacks,
 * root first, with their metric vectors, for exporters.  Each experiment's
 * metrics are first summed per (recorded stack, thread) in a hash map, the
 * rows sorted by stack and thread, and each resolved (memoized, as
 * profile_compute does) and merged by frame sequence; so the totals are the
 * metrics engine's by construction.  Cost O(events + heap calls + distinct
 * stacks x depth).  Not thread-safe; keeps nothing between calls.
 */
#include "analysis/profile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/profile_internal.h"
#include "common/u64map.h"
#include "common/vec.h"

#define K PROFILE_METRIC_COUNT

/* One experiment's metrics of one recorded stack (and thread). */
struct acc_row {
	uint32_t stack, thread;
	uint64_t m[K];
};

struct acc {
	struct u64map index; /* stack << 32 | thread -> row */
	VEC(struct acc_row) rows;
};

/* One stack handed to the callback: frames[off .. off + n) of the pool. */
struct out_row {
	size_t exp;
	uint32_t thread;
	size_t off, n;
	uint64_t m[K];
};

struct out {
	struct u64map index; /* hash of (exp, thread, frames), probed linearly -> row */
	VEC(struct out_row) rows;
	VEC(uint32_t) frames;
};

static uint64_t *acc_slot(struct acc *a, uint32_t stack, uint32_t thread)
{
	uint64_t key = (uint64_t)stack << 32 | thread;
	int64_t i = u64map_get(&a->index, key);
	if (i >= 0)
		return a->rows.v[i].m;
	struct acc_row r = {.stack = stack, .thread = thread};
	if (a->rows.n >= UINT32_MAX || VEC_PUSH(&a->rows, r) < 0 ||
	    u64map_put(&a->index, key, (uint32_t)(a->rows.n - 1)) < 0)
		return NULL;
	return a->rows.v[a->rows.n - 1].m;
}

/* profile_heap_charges callback of PROFILE_STACKS_BY_THREAD. */
static int charge_thread(void *arg, enum heap_charge_kind kind, uint32_t stack, uint32_t thread,
			 uint64_t bytes, uint64_t ts_ns)
{
	(void)ts_ns;
	uint64_t *m = acc_slot(arg, stack, thread);
	if (!m)
		return -ENOMEM;
	int leak = kind == HEAP_CHARGE_LEAK;
	m[leak ? PROFILE_METRIC_HEAPLEAKCNT : PROFILE_METRIC_HEAPALLOCCNT]++;
	m[leak ? PROFILE_METRIC_HEAPLEAKBYTES : PROFILE_METRIC_HEAPALLOCBYTES] += bytes;
	return 0;
}

/* Sum experiment x's selected events per stack (and thread, when split). */
static int accumulate(struct profile *p, size_t x, int by_thread, struct acc *a)
{
	struct exp_slot *e = &p->exps.v[x];
	const struct experiment *exp = e->exp;
	for (size_t i = 0; i < exp->nevents; i++) {
		const struct exp_event *ev = &exp->events[i];
		if (!e->selected[ev->thread] || !ev->weight_ns)
			continue;
		uint64_t *m = acc_slot(a, ev->stack, by_thread ? ev->thread : UINT32_MAX);
		if (!m)
			return -ENOMEM;
		m[PROFILE_METRIC_TOTALCPU] += ev->weight_ns;
	}
	if (by_thread)
		return profile_heap_charges(p, x, charge_thread, a);
	for (size_t s = 0; e->heap && s < exp->nstacks; s++) { /* profile_compute's own figures */
		const struct heap_stack_stat *h = &e->heap[s];
		if (!h->alloc_count && !h->alloc_bytes && !h->leak_count && !h->leak_bytes)
			continue;
		uint64_t *m = acc_slot(a, (uint32_t)s, UINT32_MAX);
		if (!m)
			return -ENOMEM;
		m[PROFILE_METRIC_HEAPALLOCCNT] += h->alloc_count;
		m[PROFILE_METRIC_HEAPALLOCBYTES] += h->alloc_bytes;
		m[PROFILE_METRIC_HEAPLEAKCNT] += h->leak_count;
		m[PROFILE_METRIC_HEAPLEAKBYTES] += h->leak_bytes;
	}
	return 0;
}

static int cmp_acc_row(const void *pa, const void *pb)
{
	const struct acc_row *a = pa, *b = pb;
	if (a->stack != b->stack)
		return a->stack < b->stack ? -1 : 1;
	return a->thread < b->thread ? -1 : a->thread > b->thread;
}

/* The resolved frames of stack s of e, root first, into *buf (grown). */
static int root_first(struct profile *p, struct exp_slot *e, uint32_t s, uint32_t **buf, size_t *cap,
		      size_t *ret_n)
{
	if (profile_resolve_stack(p, e, s) < 0)
		return -ENOMEM;
	const struct stack_res *sr = &e->stacks[s];
	if (sr->nfuncs > *cap) {
		uint32_t *b = realloc(*buf, sr->nfuncs * 2 * sizeof *b);
		if (!b)
			return -ENOMEM;
		*buf = b;
		*cap = sr->nfuncs * 2;
	}
	for (size_t i = 0; i < sr->nfuncs; i++)
		(*buf)[i] = sr->funcs[sr->nfuncs - 1 - i];
	*ret_n = sr->nfuncs;
	return 0;
}

static uint64_t hash_stack(size_t exp, uint32_t thread, const uint32_t *f, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull ^ exp ^ ((uint64_t)thread << 20);
	for (size_t i = 0; i < n; i++) {
		h ^= f[i];
		h *= 0x100000001b3ull;
		h ^= h >> 29;
	}
	return h ^ n;
}

/* Add frames f[0..n) of (exp, thread) with metrics m to the output, merging equal stacks. */
static int out_add(struct out *o, size_t exp, uint32_t thread, const uint32_t *f, size_t n, const uint64_t *m)
{
	uint64_t key = hash_stack(exp, thread, f, n);
	for (int64_t i; (i = u64map_get(&o->index, key)) >= 0; key++) {
		struct out_row *r = &o->rows.v[i];
		if (r->exp == exp && r->thread == thread && r->n == n &&
		    memcmp(o->frames.v + r->off, f, n * sizeof *f) == 0) {
			for (size_t k = 0; k < K; k++)
				r->m[k] += m[k];
			return 0;
		}
	}
	struct out_row r = {.exp = exp, .thread = thread, .off = o->frames.n, .n = n};
	memcpy(r.m, m, sizeof r.m);
	for (size_t i = 0; i < n; i++)
		if (VEC_PUSH(&o->frames, f[i]) < 0)
			return -ENOMEM;
	if (o->rows.n >= UINT32_MAX || VEC_PUSH(&o->rows, r) < 0 ||
	    u64map_put(&o->index, key, (uint32_t)(o->rows.n - 1)) < 0)
		return -ENOMEM;
	return 0;
}

static int foreach_aggregate(struct profile *p, int by_thread, profile_stack_fn fn, void *arg)
{
	struct out o = {0};
	u64map_init(&o.index);
	uint32_t *buf = NULL;
	size_t cap = 0;
	int r = 0;
	for (size_t x = 0; r == 0 && x < p->exps.n; x++) {
		struct exp_slot *e = &p->exps.v[x];
		if (!e->exp_selected)
			continue;
		struct acc a = {0};
		u64map_init(&a.index);
		r = accumulate(p, x, by_thread, &a);
		if (r == 0 && a.rows.n > 1)
			qsort(a.rows.v, a.rows.n, sizeof *a.rows.v, cmp_acc_row);
		for (size_t i = 0; r == 0 && i < a.rows.n; i++) {
			const struct acc_row *row = &a.rows.v[i];
			size_t n;
			r = root_first(p, e, row->stack, &buf, &cap, &n);
			if (r == 0)
				r = out_add(&o, by_thread ? x : SIZE_MAX, row->thread, buf, n, row->m);
		}
		u64map_release(&a.index);
		free(a.rows.v);
	}
	for (size_t i = 0; r == 0 && i < o.rows.n; i++) {
		const struct out_row *row = &o.rows.v[i];
		struct profile_stack s = {.frames = o.frames.v + row->off,
					  .nframes = row->n,
					  .metrics = row->m,
					  .exp = row->exp,
					  .thread = row->thread};
		r = fn(&s, arg);
	}
	free(buf);
	free(o.rows.v);
	free(o.frames.v);
	u64map_release(&o.index);
	return r;
}

struct event_ctx {
	struct profile *p;
	size_t x;
	profile_stack_fn fn;
	void *arg;
	uint32_t *buf;
	size_t cap;
};

/* One event of experiment c->x to the caller. */
static int emit_event(struct event_ctx *c, uint32_t stack, uint32_t thread, uint64_t ts_ns, const uint64_t *m)
{
	size_t n;
	if (root_first(c->p, &c->p->exps.v[c->x], stack, &c->buf, &c->cap, &n) < 0)
		return -ENOMEM;
	struct profile_stack s = {
		.frames = c->buf, .nframes = n, .metrics = m, .exp = c->x, .thread = thread, .ts_ns = ts_ns};
	return c->fn(&s, c->arg);
}

/* profile_heap_charges callback of PROFILE_STACKS_BY_EVENT: allocations only. */
static int charge_event(void *arg, enum heap_charge_kind kind, uint32_t stack, uint32_t thread,
			uint64_t bytes, uint64_t ts_ns)
{
	if (kind != HEAP_CHARGE_ALLOC)
		return 0;
	uint64_t m[K] = {0};
	m[PROFILE_METRIC_HEAPALLOCCNT] = 1;
	m[PROFILE_METRIC_HEAPALLOCBYTES] = bytes;
	return emit_event(arg, stack, thread, ts_ns, m);
}

static int foreach_event(struct profile *p, profile_stack_fn fn, void *arg)
{
	struct event_ctx c = {.p = p, .fn = fn, .arg = arg};
	int r = 0;
	for (size_t x = 0; r == 0 && x < p->exps.n; x++) {
		struct exp_slot *e = &p->exps.v[x];
		const struct experiment *exp = e->exp;
		if (!e->exp_selected)
			continue;
		c.x = x;
		for (size_t i = 0; r == 0 && i < exp->nevents; i++) {
			const struct exp_event *ev = &exp->events[i];
			if (!e->selected[ev->thread])
				continue;
			uint64_t m[K] = {0};
			m[PROFILE_METRIC_TOTALCPU] = ev->weight_ns;
			r = emit_event(&c, ev->stack, ev->thread, ev->ts_ns, m);
		}
		if (r == 0)
			r = profile_heap_charges(p, x, charge_event, &c);
	}
	free(c.buf);
	return r;
}

int profile_foreach_stack(struct profile *p, const struct profile_stacks_options *opts, profile_stack_fn fn,
			  void *arg)
{
	unsigned flags = opts ? opts->flags : 0;
	if (flags & ~(PROFILE_STACKS_BY_THREAD | PROFILE_STACKS_BY_EVENT) ||
	    flags == (PROFILE_STACKS_BY_THREAD | PROFILE_STACKS_BY_EVENT) || !fn)
		return -EINVAL;
	int r = profile_compute(p);
	if (r < 0)
		return r;
	if (flags & PROFILE_STACKS_BY_EVENT)
		return foreach_event(p, fn, arg);
	return foreach_aggregate(p, !!(flags & PROFILE_STACKS_BY_THREAD), fn, arg);
}
