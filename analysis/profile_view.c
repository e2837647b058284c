/*
 * profile_view.c - viewmode (profile_view.h): the runtimes plugged into a
 * profile, the view copies of the stacks their contexts' samples use, and
 * the transform of a resolved stack.
 */
#include "analysis/profile_view.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/profile_internal.h"

struct view_state {
	VEC(struct profile_runtime) rts;
	VEC(uint32_t) pseudo; /* the pseudo-functions made by name */
	enum profile_viewmode mode;
};

static void view_release(void *state)
{
	struct view_state *v = state;
	free(v->rts.v);
	free(v->pseudo.v);
}

const struct profile_module profile_view_module = {
	.state_bytes = sizeof(struct view_state),
	.release = view_release,
};

static struct view_state *view_of(const struct profile *p)
{
	return profile_module_state(p, &profile_view_module);
}

void profile_set_viewmode(struct profile *p, enum profile_viewmode m)
{
	struct view_state *v = view_of(p);
	if (v->mode == m)
		return;
	v->mode = m;
	if (!v->rts.n)
		return; /* every mode is the machine's */
	for (size_t x = 0; x < p->exps.n; x++)
		profile_resolve_reset(&p->exps.v[x], p->exps.v[x].exp->nstacks);
	p->dirty = 1;
}

enum profile_viewmode profile_viewmode(const struct profile *p)
{
	return view_of(p)->mode;
}

int profile_pseudo_func(struct profile *p, const char *name, uint32_t *ret)
{
	struct view_state *v = view_of(p);
	for (uint32_t f = 0; f <= PROFILE_FUNC_EXIT; f++)
		if (strcmp(p->funcs.v[f].name, name) == 0) {
			*ret = f;
			return 0;
		}
	for (size_t i = 0; i < v->pseudo.n; i++)
		if (strcmp(p->funcs.v[v->pseudo.v[i]].name, name) == 0) {
			*ret = v->pseudo.v[i];
			return 0;
		}
	uint32_t id;
	if (profile_add_func(p, PFUNC_PSEUDO, name, "", PROFILE_NO_OBJECT, 0, 0, &id) < 0 ||
	    VEC_PUSH(&v->pseudo, id) < 0)
		return -ENOMEM;
	*ret = id;
	return 0;
}

int profile_runtime_register(struct profile *p, const struct profile_runtime *rt)
{
	struct view_state *v = view_of(p);
	if (!rt->name)
		return -EINVAL;
	for (size_t i = 0; rt->runtime != EXP_RUNTIME_NONE && i < v->rts.n; i++)
		if (v->rts.v[i].runtime == rt->runtime)
			return -EEXIST;
	return VEC_PUSH(&v->rts, *rt) < 0 ? -ENOMEM : 0;
}

/* ------------------------------------------------------------ view copies */

static const struct profile_runtime *runtime_of(const struct view_state *v, uint32_t runtime)
{
	for (size_t i = 0; runtime != EXP_RUNTIME_NONE && i < v->rts.n; i++)
		if (v->rts.v[i].runtime == runtime)
			return &v->rts.v[i];
	return NULL;
}

/* The copies made so far: per copy its recorded stack and its context's runtime and key. */
struct copies {
	struct experiment *exp;
	struct u64map index; /* hash of (stack, runtime, key) -> the first copy with it */
	VEC(struct exp_callstack) stacks;
	VEC(uint32_t) base;
	VEC(uint32_t) runtime;
	VEC(uint64_t) key;
};

static uint64_t copy_hash(uint32_t stack, uint32_t runtime, uint64_t key)
{
	uint64_t h = 1469598103934665603ull;
	const uint64_t v[3] = {stack, runtime, key};
	for (size_t i = 0; i < 3; i++)
		h = (h ^ v[i]) * 1099511628211ull;
	return h;
}

/* A copy of recorded stack s for context ctx (an index + 1), made or found: its index in *ret. */
static int copy_of(struct copies *c, uint32_t s, uint32_t ctx, uint32_t runtime, uint64_t key, uint32_t *ret)
{
	uint64_t h = copy_hash(s, runtime, key);
	int64_t k = u64map_get(&c->index, h);
	if (k >= 0) {
		size_t i = (size_t)k - c->exp->nstacks;
		if (c->base.v[i] == s && c->runtime.v[i] == runtime && c->key.v[i] == key) {
			*ret = (uint32_t)k;
			return 0;
		}
	}
	const struct exp_callstack *cs = &c->exp->stacks[s];
	size_t n = cs->nframes;
	struct exp_callstack copy = {.id = cs->id, .flags = cs->flags, .nframes = cs->nframes, .ctx = ctx};
	copy.pcs = malloc((n ? n : 1) * sizeof *copy.pcs);
	if (copy.pcs)
		memcpy(copy.pcs, cs->pcs, n * sizeof *copy.pcs);
	if (copy.pcs && cs->objs && (copy.objs = malloc((n ? n : 1) * sizeof *copy.objs)))
		memcpy(copy.objs, cs->objs, n * sizeof *copy.objs);
	uint64_t at = c->exp->nstacks + c->stacks.n;
	if (!copy.pcs || (cs->objs && !copy.objs) || at >= UINT32_MAX - 1 || VEC_PUSH(&c->stacks, copy) < 0) {
		free(copy.pcs);
		free(copy.objs);
		return -ENOMEM;
	}
	if (VEC_PUSH(&c->base, s) < 0 || VEC_PUSH(&c->runtime, runtime) < 0 || VEC_PUSH(&c->key, key) < 0 ||
	    (k < 0 && u64map_put(&c->index, h, (uint32_t)at) < 0))
		return -ENOMEM; /* the copy is in c->stacks: released with the others */
	*ret = (uint32_t)at;
	return 0;
}

/* Move experiment x's clock samples with a context a runtime shows apart onto view copies (c). */
static int make_copies(const struct view_state *v, struct copies *c)
{
	struct experiment *exp = c->exp;
	int r = 0;
	for (size_t i = 0; r == 0 && i < EXP_COUNT(exp, CLOCK); i++) {
		struct exp_event *ev = &EXP_ROWS(exp, CLOCK)[i];
		if (!ev->ctx || ev->ctx > EXP_COUNT(exp, CONTEXTS) || ev->stack >= exp->nstacks ||
		    exp->stacks[ev->stack].ctx)
			continue;
		const struct exp_sample_ctx *ctx = &EXP_ROWS(exp, CONTEXTS)[ev->ctx - 1];
		const struct profile_runtime *rt = runtime_of(v, ctx->runtime);
		uint64_t key = ev->ctx;
		if (!rt || (rt->key && !rt->key(rt->arg, exp, ctx, &key)))
			continue;
		r = copy_of(c, ev->stack, ev->ctx, ctx->runtime, key, &ev->stack);
	}
	return r;
}

int profile_view_copies(struct profile *p, struct experiment *exp)
{
	const struct view_state *v = view_of(p);
	int any = 0;
	for (size_t i = 0; i < v->rts.n; i++)
		any |= v->rts.v[i].runtime != EXP_RUNTIME_NONE;
	/* the reader's two extra stacks stay where they are: both must be there */
	if (!any || !EXP_COUNT(exp, CONTEXTS) || exp->unknown_stack >= exp->nstacks ||
	    exp->exit_stack >= exp->nstacks)
		return 0;
	struct copies c = {.exp = exp};
	u64map_init(&c.index);
	int r = make_copies(v, &c);
	struct exp_callstack *all = NULL;
	if (c.stacks.n && (all = realloc(exp->stacks, (exp->nstacks + c.stacks.n) * sizeof *all))) {
		memcpy(all + exp->nstacks, c.stacks.v, c.stacks.n * sizeof *all);
		exp->stacks = all;
		exp->nstacks += c.stacks.n;
	} else {
		for (size_t i = 0; i < c.stacks.n; i++) {
			free(c.stacks.v[i].pcs);
			free(c.stacks.v[i].objs);
		}
		if (c.stacks.n)
			r = -ENOMEM; /* the samples name copies that are not there: the experiment is not added */
	}
	free(c.stacks.v);
	free(c.base.v);
	free(c.runtime.v);
	free(c.key.v);
	u64map_release(&c.index);
	return r;
}

/* ------------------------------------------------------------ the transform */

/* What mode m shows of function f's frame (KEEP for pseudo-functions), the replacement in *ret. */
static enum profile_frame_view frame_view(struct profile *p, const struct view_state *v, uint32_t f,
					  uint32_t *ret)
{
	*ret = f;
	if (p->funcs.v[f].kind == PFUNC_PSEUDO)
		return PROFILE_FRAME_KEEP;
	for (size_t i = 0; i < v->rts.n; i++) {
		const struct profile_runtime *rt = &v->rts.v[i];
		enum profile_frame_view a =
			rt->frame ? rt->frame(rt->arg, p, v->mode, f, ret) : PROFILE_FRAME_KEEP;
		if (a != PROFILE_FRAME_KEEP)
			return a;
		*ret = f;
	}
	return PROFILE_FRAME_KEEP;
}

/* A stack being rebuilt: its functions, PCs and lines, leaf first. */
struct rebuilt {
	VEC(uint32_t) funcs, pcs, lines;
};

static void rebuilt_free(struct rebuilt *b)
{
	free(b->funcs.v);
	free(b->pcs.v);
	free(b->lines.v);
}

/*
 * The frames of sr mode m keeps, into b: cut (a parent is grafted) stops at
 * the outermost frame the mode drops.  -ENOMEM or 0.
 */
static int kept_frames(struct profile *p, const struct view_state *v, const struct stack_res *sr, int cut,
		       struct rebuilt *b)
{
	size_t fend = sr->nfuncs, pend = sr->npcs;
	uint32_t g;
	if (cut) { /* the outermost dropped frame and what is outside it go */
		for (size_t i = sr->nfuncs; i-- > 0;)
			if (frame_view(p, v, sr->funcs[i], &g) == PROFILE_FRAME_DROP) {
				fend = i;
				break;
			}
		for (size_t i = sr->npcs; i-- > 0;)
			if (frame_view(p, v, p->pcs.v[sr->pcs[i]].func, &g) == PROFILE_FRAME_DROP) {
				pend = i;
				break;
			}
	}
	for (size_t i = 0; i < fend; i++)
		if (frame_view(p, v, sr->funcs[i], &g) != PROFILE_FRAME_DROP && VEC_PUSH(&b->funcs, g) < 0)
			return -ENOMEM;
	for (size_t i = 0; i < pend; i++)
		if (frame_view(p, v, p->pcs.v[sr->pcs[i]].func, &g) != PROFILE_FRAME_DROP &&
		    (VEC_PUSH(&b->pcs, sr->pcs[i]) < 0 || VEC_PUSH(&b->lines, sr->lines[i]) < 0))
			return -ENOMEM;
	return 0;
}

/* The context's leaf and parent for copy s of e (UINT32_MAX: none). */
static int context_parts(struct profile *p, const struct view_state *v, size_t x,
			 const struct exp_callstack *cs, uint32_t *leaf, uint32_t *parent)
{
	*leaf = *parent = UINT32_MAX;
	const struct experiment *exp = p->exps.v[x].exp;
	if (!cs->ctx || cs->ctx > EXP_COUNT(exp, CONTEXTS))
		return 0;
	const struct exp_sample_ctx *c = &EXP_ROWS(exp, CONTEXTS)[cs->ctx - 1];
	const struct profile_runtime *rt = runtime_of(v, c->runtime);
	int r = rt && rt->context ? rt->context(rt->arg, p, x, v->mode, c, leaf, parent) : 0;
	if (*leaf != UINT32_MAX && (*leaf >= p->funcs.n || p->funcs.v[*leaf].kind != PFUNC_PSEUDO))
		*leaf = UINT32_MAX; /* a leaf is a pseudo-function */
	if (*parent != UINT32_MAX && (*parent >= exp->nstacks || exp->stacks[*parent].ctx))
		*parent = UINT32_MAX; /* a recorded stack: no copy hangs under another */
	return r;
}

/* Replace sr's arrays with b's (b's become sr's). */
static void take(struct stack_res *sr, struct rebuilt *b)
{
	free(sr->funcs);
	free(sr->pcs);
	free(sr->lines);
	sr->funcs = b->funcs.v;
	sr->nfuncs = (uint32_t)b->funcs.n;
	sr->pcs = b->pcs.v;
	sr->npcs = (uint32_t)b->pcs.n;
	sr->lines = b->lines.v;
	sr->nlines = (uint32_t)b->lines.n;
	memset(b, 0, sizeof *b);
}

int profile_view_apply(struct profile *p, size_t x, uint32_t s)
{
	const struct view_state *v = view_of(p);
	if (v->mode == PROFILE_VIEW_MACHINE || !v->rts.n)
		return 0;
	struct exp_slot *e = &p->exps.v[x];
	const struct exp_callstack *cs = &e->exp->stacks[s];
	uint32_t leaf, parent;
	int r = context_parts(p, v, x, cs, &leaf, &parent);
	if (r < 0)
		return r;
	if (parent != UINT32_MAX && (r = profile_resolve_stack(p, e, parent)) < 0)
		return r;
	struct stack_res *sr = &e->stacks[s];
	struct rebuilt b = {0};
	if ((leaf != UINT32_MAX && VEC_PUSH(&b.funcs, leaf) < 0) ||
	    kept_frames(p, v, sr, parent != UINT32_MAX, &b) < 0)
		goto nomem;
	if (parent != UINT32_MAX) {
		const struct stack_res *ps = &e->stacks[parent];
		for (size_t i = 0; i < ps->nfuncs; i++)
			if (VEC_PUSH(&b.funcs, ps->funcs[i]) < 0)
				goto nomem;
		for (size_t i = 0; i < ps->npcs; i++)
			if (VEC_PUSH(&b.pcs, ps->pcs[i]) < 0 || VEC_PUSH(&b.lines, ps->lines[i]) < 0)
				goto nomem;
	}
	if (b.funcs.n) /* nothing left: the machine's frames, rather than no stack */
		take(sr, &b);
	rebuilt_free(&b);
	return 0;
nomem:
	rebuilt_free(&b);
	return -ENOMEM;
}
