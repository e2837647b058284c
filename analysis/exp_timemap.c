/*
 * exp_timemap.c - time-aware load maps (see exp_timemap.h).
 */
#include "analysis/exp_timemap.h"
#include "analysis/experiment_internal.h"
#include "analysis/heap_pack.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/u64map.h"
#include "common/vec.h"

struct range {
	uint64_t lo, hi; /* [lo, hi) */
};

struct seg_ref {
	uint64_t lo, hi;
	uint32_t obj;
};

static int cmp_seg(const void *a, const void *b)
{
	const struct seg_ref *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo ? 1 : x->hi < y->hi ? -1 : x->hi > y->hi;
}

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The address ranges two or more objects covered, sorted and merged.  Their count or -ENOMEM. */
/* Every object's non-empty segments, sorted by start, into *ret.  Their count or -ENOMEM. */
static long sorted_segments(const struct experiment *exp, struct seg_ref **ret)
{
	VEC(struct seg_ref) segs = {0};
	*ret = NULL;
	for (size_t i = 0; i < exp->nobjs; i++)
		for (size_t s = 0; s < exp->objs[i].nsegs; s++) {
			const struct exp_segment *g = &exp->objs[i].segs[s];
			if (!g->memsz || g->vaddr + g->memsz < g->vaddr)
				continue;
			struct seg_ref r = {.lo = g->vaddr, .hi = g->vaddr + g->memsz, .obj = (uint32_t)i};
			if (VEC_PUSH(&segs, r) < 0) {
				free(segs.v);
				return -ENOMEM;
			}
		}
	if (segs.n)
		qsort(segs.v, segs.n, sizeof *segs.v, cmp_seg);
	*ret = segs.v;
	return (long)segs.n;
}

static long shared_ranges(const struct experiment *exp, struct range **ret)
{
	struct {
		struct seg_ref *v;
		size_t n;
	} segs = {0};
	VEC(struct range) rs = {0};
	*ret = NULL;
	long ns = sorted_segments(exp, &segs.v);
	if (ns < 0)
		return ns;
	segs.n = (size_t)ns;
	for (size_t i = 0; i < segs.n; i++)
		for (size_t j = i + 1; j < segs.n && segs.v[j].lo < segs.v[i].hi; j++) {
			if (segs.v[j].obj == segs.v[i].obj)
				continue;
			struct range r = {segs.v[j].lo,
					  segs.v[j].hi < segs.v[i].hi ? segs.v[j].hi : segs.v[i].hi};
			if (VEC_PUSH(&rs, r) < 0)
				goto nomem;
		}
	free(segs.v);
	if (!rs.n)
		return 0;
	qsort(rs.v, rs.n, sizeof *rs.v, cmp_range);
	size_t k = 0;
	for (size_t i = 1; i < rs.n; i++) {
		if (rs.v[i].lo <= rs.v[k].hi) {
			if (rs.v[i].hi > rs.v[k].hi)
				rs.v[k].hi = rs.v[i].hi;
		} else {
			rs.v[++k] = rs.v[i];
		}
	}
	*ret = rs.v;
	return (long)(k + 1);
nomem:
	free(segs.v);
	free(rs.v);
	return -ENOMEM;
}

static int in_ranges(const struct range *r, size_t n, uint64_t pc)
{
	size_t lo = 0, hi = n; /* first range with r.lo > pc */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && pc < r[lo - 1].hi;
}

static int covers(const struct exp_loadobj *o, uint64_t pc)
{
	for (size_t s = 0; s < o->nsegs; s++)
		if (pc >= o->segs[s].vaddr && pc - o->segs[s].vaddr < o->segs[s].memsz)
			return 1;
	return 0;
}

const struct exp_loadobj *experiment_find_object(const struct experiment *exp, uint64_t pc)
{
	const struct exp_loadobj *best = NULL;
	for (size_t i = 0; i < exp->nobjs; i++)
		if (covers(&exp->objs[i], pc) && (!best || exp->objs[i].load_ns >= best->load_ns))
			best = &exp->objs[i];
	return best;
}

/*
 * The object whose [load, unload] holds ts_ns; else the nearest in time (a
 * library's constructor runs inside dlopen, before the collector records the
 * load; its destructor inside dlclose, before the unload).
 */
const struct exp_loadobj *experiment_find_object_at(const struct experiment *exp, uint64_t pc, uint64_t ts_ns)
{
	const struct exp_loadobj *best = NULL;
	uint64_t best_dist = UINT64_MAX;
	for (size_t i = 0; i < exp->nobjs; i++) {
		const struct exp_loadobj *o = &exp->objs[i];
		if (!covers(o, pc))
			continue;
		uint64_t end = o->unload_ns ? o->unload_ns : UINT64_MAX;
		uint64_t dist = ts_ns < o->load_ns ? o->load_ns - ts_ns : ts_ns > end ? ts_ns - end : 0;
		if (!best || dist < best_dist || (dist == best_dist && o->load_ns >= best->load_ns)) {
			best = o;
			best_dist = dist;
		}
	}
	return best;
}

const struct exp_loadobj *experiment_frame_object(const struct experiment *exp,
						  const struct exp_callstack *cs, size_t i, uint64_t pc)
{
	if (cs->objs && i < cs->nframes && cs->objs[i] < exp->nobjs)
		return &exp->objs[cs->objs[i]];
	return experiment_find_object(exp, pc);
}

struct pinner {
	struct experiment *exp;
	const struct range *rs;
	size_t nr;
	size_t nstacks0;
	VEC(struct exp_callstack) stacks; /* takes over exp->stacks */
	VEC(uint32_t) next;               /* per stack: its next copy, or UINT32_MAX */
	uint32_t *want;
};

static uint64_t frame_pc(const struct exp_callstack *cs, size_t i)
{
	return i == 0 ? cs->pcs[0] : cs->pcs[i] - 1; /* a return address: its call is before it */
}

/* The stack (s or a copy of it) whose frames are pinned to the objects in force at ts_ns. */
static int pin(struct pinner *pn, uint32_t s, uint64_t ts_ns, uint32_t *ret)
{
	const struct experiment *exp = pn->exp;
	struct exp_callstack *cs = &pn->stacks.v[s];
	size_t n = cs->nframes;
	for (size_t i = 0; i < n; i++) {
		uint64_t pc = frame_pc(cs, i);
		const struct exp_loadobj *lo =
			in_ranges(pn->rs, pn->nr, pc) ? experiment_find_object_at(exp, pc, ts_ns) : NULL;
		pn->want[i] = lo ? (uint32_t)(lo - exp->objs) : EXP_OBJ_BY_PC;
	}
	if (!cs->objs) {
		cs->objs = malloc((n ? n : 1) * sizeof *cs->objs);
		if (!cs->objs)
			return -ENOMEM;
		memcpy(cs->objs, pn->want, n * sizeof *cs->objs);
		*ret = s;
		return 0;
	}
	for (uint32_t v = s; v != UINT32_MAX; v = pn->next.v[v])
		if (memcmp(pn->stacks.v[v].objs, pn->want, n * sizeof *pn->want) == 0) {
			*ret = v;
			return 0;
		}
	struct exp_callstack copy = {.id = cs->id, .flags = cs->flags, .nframes = cs->nframes};
	copy.pcs = malloc((n ? n : 1) * sizeof *copy.pcs);
	copy.objs = malloc((n ? n : 1) * sizeof *copy.objs);
	if (!copy.pcs || !copy.objs || pn->stacks.n >= UINT32_MAX - 1) {
		free(copy.pcs);
		free(copy.objs);
		return -ENOMEM;
	}
	memcpy(copy.pcs, cs->pcs, n * sizeof *copy.pcs);
	memcpy(copy.objs, pn->want, n * sizeof *copy.objs);
	uint32_t id = (uint32_t)pn->stacks.n;
	if (VEC_PUSH(&pn->stacks, copy) < 0 || VEC_PUSH(&pn->next, pn->next.v[s]) < 0) {
		if (pn->stacks.n > id)
			pn->stacks.n = id;
		free(copy.pcs);
		free(copy.objs);
		return -ENOMEM;
	}
	pn->next.v[s] = id;
	*ret = id;
	return 0;
}

int exp_timemap_apply(struct experiment *exp)
{
	struct range *rs;
	long nr = shared_ranges(exp, &rs);
	if (nr <= 0)
		return (int)nr;
	struct pinner pn = {.exp = exp, .rs = rs, .nr = (size_t)nr, .nstacks0 = exp->nstacks};
	uint8_t *shared = calloc(exp->nstacks ? exp->nstacks : 1, 1);
	size_t maxf = 1, nshared = 0;
	int r = -ENOMEM;
	if (!shared)
		goto out;
	for (size_t s = 0; s < exp->nstacks; s++) {
		const struct exp_callstack *cs = &exp->stacks[s];
		for (size_t i = 0; i < cs->nframes && !shared[s]; i++)
			shared[s] = (uint8_t)in_ranges(rs, (size_t)nr, frame_pc(cs, i));
		nshared += shared[s];
		if (cs->nframes > maxf)
			maxf = cs->nframes;
	}
	r = 0;
	if (!nshared)
		goto out;
	r = -ENOMEM;
	pn.want = malloc(maxf * sizeof *pn.want);
	if (!pn.want)
		goto out;
	for (size_t s = 0; s < exp->nstacks; s++)
		if (VEC_PUSH(&pn.next, UINT32_MAX) < 0)
			goto out;
	pn.stacks.v = exp->stacks;
	pn.stacks.n = pn.stacks.cap = exp->nstacks;
	r = 0;
	for (size_t i = 0; i < EXP_COUNT(exp, CLOCK) && r == 0; i++) {
		struct exp_event *ev = &EXP_ROWS(exp, CLOCK)[i];
		if (ev->stack < pn.nstacks0 && shared[ev->stack])
			r = pin(&pn, ev->stack, ev->ts_ns, &ev->stack);
	}
	struct exp_heap_iter it;
	struct exp_heap_event h;
	exp_heap_iter_begin(&it, EXP_ROWS(exp, HEAP));
	while (r == 0 && exp_heap_iter_next(&it, &h) > 0)
		if (h.stack < pn.nstacks0 && shared[h.stack]) {
			uint32_t stack = h.stack;
			/* rewritten in place: the pack keeps 4 bytes for it */
			if ((r = pin(&pn, h.stack, h.ts_ns, &stack)) == 0 && stack != h.stack)
				exp_heap_iter_set_stack(&it, stack);
		}
	exp->stacks = pn.stacks.v;
	exp->nstacks = pn.stacks.n;
out:
	free(pn.want);
	free(pn.next.v);
	free(shared);
	free(rs);
	return r;
}

/* ------------------------------------------------------------ used objects */

/* Segments sorted by start, with the largest end of each prefix, to find every cover of a PC. */
struct seg_index {
	struct seg_ref *v;
	uint64_t *max_hi; /* max_hi[i] = the largest hi of v[0..i] */
	size_t n;
};

static int seg_index_build(const struct experiment *exp, struct seg_index *ix)
{
	long n = sorted_segments(exp, &ix->v);
	if (n < 0)
		return (int)n;
	ix->n = (size_t)n;
	ix->max_hi = malloc((ix->n ? ix->n : 1) * sizeof *ix->max_hi);
	if (!ix->max_hi)
		return -ENOMEM;
	for (size_t i = 0; i < ix->n; i++)
		ix->max_hi[i] = i && ix->max_hi[i - 1] > ix->v[i].hi ? ix->max_hi[i - 1] : ix->v[i].hi;
	return 0;
}

/* Mark every object with a segment covering pc; the count newly marked. */
static long mark_covers(const struct seg_index *ix, uint64_t pc, uint8_t *used)
{
	size_t lo = 0, hi = ix->n; /* first segment with lo > pc */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ix->v[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	long n = 0;
	for (size_t k = lo; k-- > 0 && ix->max_hi[k] > pc;)
		if (pc < ix->v[k].hi && !used[ix->v[k].obj]) {
			used[ix->v[k].obj] = 1;
			n++;
		}
	return n;
}

long experiment_used_objects(const struct experiment *exp, uint8_t *ret_used)
{
	struct seg_index ix = {0};
	struct u64map seen;
	u64map_init(&seen);
	long n = 0;
	if (exp->nobjs)
		memset(ret_used, 0, exp->nobjs);
	if (seg_index_build(exp, &ix) < 0)
		goto nomem;
	for (size_t s = 0; s < exp->nstacks; s++) {
		const struct exp_callstack *cs = &exp->stacks[s];
		for (size_t i = 0; i < cs->nframes; i++) {
			uint64_t pc = frame_pc(cs, i);
			if (cs->objs && cs->objs[i] < exp->nobjs) {
				n += !ret_used[cs->objs[i]];
				ret_used[cs->objs[i]] = 1;
				continue;
			}
			if (u64map_get(&seen, pc) >= 0)
				continue; /* a PC many stacks share: looked up once */
			if (u64map_put(&seen, pc, 0) < 0)
				goto nomem;
			n += mark_covers(&ix, pc, ret_used);
		}
	}
	free(ix.v);
	free(ix.max_hi);
	u64map_release(&seen);
	return n;
nomem:
	free(ix.v);
	free(ix.max_hi);
	u64map_release(&seen);
	return -ENOMEM;
}
