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

/* A growable array of metric values (rows of nm). */
struct values {
	uint64_t *v;
	size_t n, cap;
};

/* One experiment's metrics of one recorded stack (and thread): nm values at vals[off]. */
struct acc_row {
	uint32_t stack, thread;
	size_t off;
};

struct acc {
	size_t nm;
	struct u64map index; /* stack << 32 | thread -> row */
	VEC(struct acc_row) rows;
	struct values vals;
};

/* One stack handed to the callback: frames[off .. off + n) of the pool, nm values at vals[voff]. */
struct out_row {
	size_t exp;
	uint32_t thread;
	size_t off, n, voff;
};

struct out {
	size_t nm;
	struct u64map index; /* hash of (exp, thread, frames), probed linearly -> row */
	VEC(struct out_row) rows;
	VEC(uint32_t) frames;
	struct values vals;
};

/* nm zeroed values appended to *v; their offset, or SIZE_MAX. */
static size_t push_zeros(struct values *v, size_t nm)
{
	size_t off = v->n;
	for (size_t i = 0; i < nm; i++)
		if (VEC_PUSH(v, 0) < 0)
			return SIZE_MAX;
	return off;
}

static size_t acc_slot(struct acc *a, uint32_t stack, uint32_t thread)
{
	uint64_t key = (uint64_t)stack << 32 | thread;
	int64_t i = u64map_get(&a->index, key);
	if (i >= 0)
		return a->rows.v[i].off;
	struct acc_row r = {.stack = stack, .thread = thread, .off = push_zeros(&a->vals, a->nm)};
	if (r.off == SIZE_MAX || a->rows.n >= UINT32_MAX || VEC_PUSH(&a->rows, r) < 0 ||
	    u64map_put(&a->index, key, (uint32_t)(a->rows.n - 1)) < 0)
		return SIZE_MAX;
	return r.off;
}

/* A source's charge into the (stack, thread) rows: what PROFILE_STACKS_BY_THREAD adds up. */
struct acc_charge {
	struct acc *a;
	const size_t *cols;
	size_t ncols;
	uint32_t nstacks;
};

static int charge_thread(void *arg, const struct profile_charge *c)
{
	const struct acc_charge *ac = arg;
	size_t k = 0;
	while (k < ac->ncols && !c->values[k])
		k++;
	if (k == ac->ncols || c->stack >= ac->nstacks)
		return 0;
	size_t off = acc_slot(ac->a, c->stack, c->thread);
	if (off == SIZE_MAX)
		return -ENOMEM;
	for (k = 0; k < ac->ncols; k++)
		ac->a->vals.v[off + ac->cols[k]] += c->values[k];
	return 0;
}

/* Sum experiment x's selected events per stack (and thread, when split). */
static int accumulate(struct profile *p, size_t x, int by_thread, struct acc *a)
{
	struct exp_slot *e = &p->exps.v[x];
	const struct experiment *exp = e->exp;
	if (!by_thread) { /* profile_compute's own figures */
		for (size_t s = 0; e->sums && s < exp->nstacks; s++) {
			const uint64_t *v = e->sums + s * a->nm;
			size_t k = 0;
			while (k < a->nm && !v[k])
				k++;
			if (k == a->nm)
				continue;
			size_t off = acc_slot(a, (uint32_t)s, UINT32_MAX);
			if (off == SIZE_MAX)
				return -ENOMEM;
			memcpy(a->vals.v + off, v, a->nm * sizeof *v);
		}
		return 0;
	}
	for (size_t i = 0; i < p->sources.n; i++) {
		const struct source_slot *sl = &p->sources.v[i];
		if (!sl->active)
			continue;
		struct acc_charge ac = {
			.a = a, .cols = sl->cols, .ncols = sl->src.ndefs, .nstacks = (uint32_t)exp->nstacks};
		int r = sl->src.charge(p, x, charge_thread, &ac, sl->src.arg);
		if (r != 0)
			return r < 0 ? r : -ECANCELED;
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
			for (size_t k = 0; k < o->nm; k++)
				o->vals.v[r->voff + k] += m[k];
			return 0;
		}
	}
	struct out_row r = {.exp = exp,
			    .thread = thread,
			    .off = o->frames.n,
			    .n = n,
			    .voff = push_zeros(&o->vals, o->nm)};
	if (r.voff == SIZE_MAX)
		return -ENOMEM;
	memcpy(o->vals.v + r.voff, m, o->nm * sizeof *m);
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
	struct out o = {.nm = p->nsums};
	u64map_init(&o.index);
	uint32_t *buf = NULL;
	size_t cap = 0;
	int r = 0;
	for (size_t x = 0; r == 0 && x < p->exps.n; x++) {
		struct exp_slot *e = &p->exps.v[x];
		if (!e->exp_selected)
			continue;
		struct acc a = {.nm = p->nsums};
		u64map_init(&a.index);
		r = accumulate(p, x, by_thread, &a);
		if (r == 0 && a.rows.n > 1)
			qsort(a.rows.v, a.rows.n, sizeof *a.rows.v, cmp_acc_row);
		for (size_t i = 0; r == 0 && i < a.rows.n; i++) {
			const struct acc_row *row = &a.rows.v[i];
			size_t n;
			r = root_first(p, e, row->stack, &buf, &cap, &n);
			if (r == 0)
				r = out_add(&o, by_thread ? x : SIZE_MAX, row->thread, buf, n,
					    a.vals.v + row->off);
		}
		u64map_release(&a.index);
		free(a.rows.v);
		free(a.vals.v);
	}
	for (size_t i = 0; r == 0 && i < o.rows.n; i++) {
		const struct out_row *row = &o.rows.v[i];
		struct profile_stack s = {.frames = o.frames.v + row->off,
					  .nframes = row->n,
					  .metrics = o.vals.v + row->voff,
					  .exp = row->exp,
					  .thread = row->thread};
		r = fn(&s, arg);
	}
	free(buf);
	free(o.rows.v);
	free(o.frames.v);
	free(o.vals.v);
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
	uint64_t *m; /* nsums values: the event's, the others 0 */
	const size_t *cols;
	size_t ncols;
};

/* A source's charge that is an event, to the caller; a state at the end (a leak) is none. */
static int charge_event(void *arg, const struct profile_charge *ch)
{
	struct event_ctx *c = arg;
	struct exp_slot *e = &c->p->exps.v[c->x];
	if (!ch->event || ch->stack >= e->exp->nstacks)
		return 0;
	size_t n;
	if (root_first(c->p, e, ch->stack, &c->buf, &c->cap, &n) < 0)
		return -ENOMEM;
	for (size_t k = 0; k < c->ncols; k++)
		c->m[c->cols[k]] = ch->values[k];
	struct profile_stack s = {.frames = c->buf,
				  .nframes = n,
				  .metrics = c->m,
				  .exp = c->x,
				  .thread = ch->thread,
				  .ts_ns = ch->ts_ns};
	int r = c->fn(&s, c->arg);
	for (size_t k = 0; k < c->ncols; k++)
		c->m[c->cols[k]] = 0;
	return r;
}

static int foreach_event(struct profile *p, profile_stack_fn fn, void *arg)
{
	struct event_ctx c = {
		.p = p, .fn = fn, .arg = arg, .m = calloc(p->nsums ? p->nsums : 1, sizeof *c.m)};
	int r = c.m ? 0 : -ENOMEM;
	for (size_t x = 0; r == 0 && x < p->exps.n; x++) {
		if (!p->exps.v[x].exp_selected)
			continue;
		c.x = x;
		for (size_t i = 0; r == 0 && i < p->sources.n; i++) {
			const struct source_slot *sl = &p->sources.v[i];
			if (!sl->active)
				continue;
			c.cols = sl->cols;
			c.ncols = sl->src.ndefs;
			r = sl->src.charge(p, x, charge_event, &c, sl->src.arg);
		}
	}
	free(c.buf);
	free(c.m);
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
