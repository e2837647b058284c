/*
 * profile_resolve.c - call stacks to functions, PCs and source lines.
 *
 * Each distinct PC (adjusted: return addresses are looked up at pc - 1,
 * inside the call instruction) is resolved once per experiment: its load
 * object, function (symtab), chain of inlined calls and source line (lines);
 * each distinct stack once: the PLT rules, the dropping of the collector's
 * own frames, inline expansion, and a <Truncated-stack> frame where the
 * collector cut the stack.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/archive.h"
#include "analysis/profile_internal.h"
#include "common/regfile.h"
#include "common/strbuf.h"
#include "experiment/format.h"

#define NOSYM_ADDR 0xffffffffffffull
#define NO_OBJECT_KEY 0xffffull

struct symtab *profile_resolve_symtab(struct profile *p, uint32_t obj)
{
	struct object_slot *o = &p->objs.v[obj];
	if (!o->tried) {
		o->tried = 1;
		struct symtab_options so = {.debug_root = o->debug_root};
		int r = symtab_open(o->read_path, o->build_id, &so, &o->st);
		if (r < 0) {
			struct strbuf m;
			strbuf_init(&m, 0);
			strbuf_addf(
				&m, "cannot read symbols of %s: %s%s", o->path,
				r == -ENOEXEC   ? "not an ELF file"
				: r == -EBADMSG ? "corrupt ELF file"
						: regfile_strerror(r),
				r == -ENOENT
					? " (and no archived copy can be read: er_archive archives "
					  "objects while they exist; er_archive -A copy makes an experiment "
					  "portable)"
					: "");
			o->error = strbuf_detach(&m);
			o->st = NULL;
		} else if (symtab_build_id_mismatch(o->st)) {
			struct strbuf m;
			strbuf_init(&m, 0);
			strbuf_addf(&m,
				    "%s has changed since the experiment was recorded (build-id differs); "
				    "functions may be wrong",
				    o->path);
			o->error = strbuf_detach(&m);
		}
		profile_refresh_object_views(p);
	}
	return o->st;
}

/* Where the line index files go (archive_lines_index_dir), or NULL: decided once. */
static const char *lines_cache_dir(struct profile *p)
{
	if (p->lines_cache_set)
		return p->lines_cache;
	p->lines_cache_set = 1;
	char dir[4096];
	if (archive_lines_index_dir(dir, sizeof(dir)) == 0)
		p->lines_cache = profile_own(p, strdup(dir));
	return p->lines_cache;
}

struct lines *profile_resolve_lines(struct profile *p, uint32_t obj)
{
	struct object_slot *o = &p->objs.v[obj];
	if (!o->ln_tried) {
		o->ln_tried = 1;
		struct lines_options lo = {.debug_root = o->debug_root, .cache_dir = lines_cache_dir(p)};
		if (lines_open(o->read_path, o->build_id, &lo, &o->ln) < 0)
			o->ln = NULL; /* no line information: reports say so per function */
	}
	return o->ln;
}

static int is_collector_object(const struct exp_loadobj *lo)
{
	return experiment_is_collector_object(lo);
}

static int is_loader(const struct exp_loadobj *lo)
{
	return lo && (strncmp(lo->name, "ld-linux", 8) == 0 || strncmp(lo->name, "ld.so", 5) == 0 ||
		      strncmp(lo->name, "ld64.so", 7) == 0);
}

/* The real function at ELF address vaddr of obj (created on first use). */
static int symbol_func(struct profile *p, uint32_t obj, uint64_t vaddr, uint32_t *ret)
{
	struct symtab *st = profile_resolve_symtab(p, obj);
	const struct symtab_func *sf = st ? symtab_lookup(st, vaddr) : NULL;
	uint64_t key = ((uint64_t)obj << 48) | ((sf ? sf->addr : NOSYM_ADDR) & NOSYM_ADDR);
	int64_t f = u64map_get(&p->func_index, key);
	if (f >= 0) {
		*ret = (uint32_t)f;
		return 0;
	}
	struct strbuf name;
	strbuf_init(&name, 0);
	enum pfunc_kind kind;
	if (sf && !sf->synthesized) {
		strbuf_adds(&name, sf->name);
		kind = PFUNC_SYMBOL;
	} else if (sf) {
		strbuf_addf(&name, "%s (<%s>)", sf->name, p->objs.v[obj].name);
		kind = PFUNC_SYNTH;
	} else {
		strbuf_addf(&name, "<Unknown code in <%s>>", p->objs.v[obj].name);
		kind = PFUNC_NOSYM;
	}
	int r = name.failed ? -ENOMEM
			    : profile_add_func(p, kind, strbuf_str(&name), sf ? sf->mangled : "", obj,
					       sf ? sf->addr : 0, sf ? sf->size : 0, ret);
	strbuf_release(&name);
	if (r == 0 && kind == PFUNC_SYMBOL && sf->version[0]) {
		char *v = profile_own(p, strdup(sf->version));
		if (v)
			p->funcs.v[*ret].version = v;
		else
			r = -ENOMEM;
	}
	if (r == 0 && u64map_put(&p->func_index, key, *ret) < 0)
		r = -ENOMEM;
	return r;
}

/* The function standing for all the code of a hidden object. */
static int object_func(struct profile *p, uint32_t obj, uint32_t *ret)
{
	uint64_t key = ((uint64_t)obj << 48) | (NOSYM_ADDR - 2);
	int64_t f = u64map_get(&p->func_index, key);
	if (f >= 0) {
		*ret = (uint32_t)f;
		return 0;
	}
	struct strbuf name;
	strbuf_init(&name, 0);
	strbuf_addf(&name, "<%s>", p->objs.v[obj].name);
	int r = name.failed ? -ENOMEM
			    : profile_add_func(p, PFUNC_OBJECT, strbuf_str(&name), "", obj, 0, 0, ret);
	strbuf_release(&name);
	if (r == 0 && u64map_put(&p->func_index, key, *ret) < 0)
		r = -ENOMEM;
	return r;
}

/* An inlined function of obj, by name (one per object and name). */
static int inline_func(struct profile *p, uint32_t obj, const char *name, const char *mangled, uint32_t *ret)
{
	uint64_t h = 0xcbf29ce484222325ull ^ obj;
	for (const char *c = name; *c; c++)
		h = (h ^ (uint8_t)*c) * 0x100000001b3ull;
	for (;; h++) { /* probe past hash collisions */
		int64_t f = u64map_get(&p->inline_index, h);
		if (f < 0)
			break;
		if (p->funcs.v[f].obj == obj && strcmp(p->funcs.v[f].name, name) == 0) {
			*ret = (uint32_t)f;
			return 0;
		}
	}
	if (profile_add_func(p, PFUNC_INLINE, name, mangled, obj, 0, 0, ret) < 0 ||
	    u64map_put(&p->inline_index, h, *ret) < 0)
		return -ENOMEM;
	return 0;
}

/* The line id of (func, file, line); file NULL = no line information. */
static int line_id(struct profile *p, uint32_t func, const char *file, uint32_t line, uint32_t *ret)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ ((uint64_t)func << 32) ^ line;
	for (const char *c = file ? file : ""; *c; c++)
		h = (h ^ (uint8_t)*c) * 0x100000001b3ull;
	for (;; h++) {
		int64_t l = u64map_get(&p->line_index, h);
		if (l < 0)
			break;
		const struct pline *pl = &p->lines.v[l];
		if (pl->func == func && pl->line == line &&
		    ((!pl->file && !file) || (pl->file && file && strcmp(pl->file, file) == 0))) {
			*ret = (uint32_t)l;
			return 0;
		}
	}
	struct pline pl = {.id = (uint32_t)p->lines.n, .func = func, .line = line};
	if (file && !(pl.file = profile_own(p, strdup(file))))
		return -ENOMEM;
	if (VEC_PUSH(&p->lines, pl) < 0 || u64map_put(&p->line_index, h, pl.id) < 0)
		return -ENOMEM;
	*ret = pl.id;
	return 0;
}

/* The PC id of a raw PC (object-relative when it is in one). */
static int pc_id(struct profile *p, uint32_t obj, uint64_t addr, uint32_t func, uint32_t line, uint32_t *ret)
{
	uint64_t key =
		((obj == PROFILE_NO_OBJECT ? NO_OBJECT_KEY : (uint64_t)obj) << 48) | (addr & NOSYM_ADDR);
	int64_t i = u64map_get(&p->pc_index, key);
	if (i >= 0) {
		*ret = (uint32_t)i;
		return 0;
	}
	struct ppc pc = {.id = (uint32_t)p->pcs.n, .obj = obj, .vaddr = addr, .func = func, .line = line};
	if (VEC_PUSH(&p->pcs, pc) < 0 || u64map_put(&p->pc_index, key, pc.id) < 0)
		return -ENOMEM;
	*ret = pc.id;
	return 0;
}

/*
 * The pcmemo key of adjusted pc in frame i of cs: the pc itself, or, for a
 * frame pinned to one of several objects that covered it over time
 * (exp_callstack.objs), the pc tagged with that object above bit 48 (user
 * addresses are below 2^47, kernel ones above 2^63).
 */
static uint64_t memo_key(const struct experiment *exp, const struct exp_callstack *cs, size_t i, uint64_t pc)
{
	if (cs->objs && cs->objs[i] < exp->nobjs && cs->objs[i] < 0x7fff)
		return (pc & ((UINT64_C(1) << 48) - 1)) | ((uint64_t)(cs->objs[i] + 1) << 48);
	return pc;
}

/*
 * The inlined functions containing vaddr of obj (inline mode), innermost
 * first, pushed onto e->chains; *loc and *has_line its line.  An outermost
 * inlined copy of the real function into itself (gcc's partial inlining:
 * glibc's _IO_doallocbuf) is the real function's own frame, not pushed.
 */
static int inline_chain(struct profile *p, struct exp_slot *e, uint32_t obj, uint64_t vaddr, uint32_t real,
			struct line_loc *loc, int *has_line)
{
	struct line_inline inl[32];
	size_t ninl = 0;
	struct lines *ln = profile_resolve_lines(p, obj);
	if (ln) {
		*has_line = lines_lookup(ln, vaddr, loc);
		if (p->inline_mode)
			ninl = lines_inlines(ln, vaddr, inl, 32);
		if (ninl > 32)
			ninl = 32;
	}
	const struct pfunc *rf = real < p->funcs.n ? &p->funcs.v[real] : NULL;
	while (ninl > 0 && rf && strcmp(inl[ninl - 1].name, rf->name) == 0)
		ninl--;
	for (size_t i = 0; i < ninl; i++) {
		uint32_t f;
		if (inline_func(p, obj, inl[i].name, inl[i].mangled, &f) < 0 || VEC_PUSH(&e->chains, f) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* Resolve adjusted PC pc of object lo (memo key `key`): function chain and line.  Returns the pc_res index. */
static int resolve_pc(struct profile *p, struct exp_slot *e, const struct exp_loadobj *lo, uint64_t pc,
		      uint64_t key, uint32_t *ret)
{
	int64_t hit = u64map_get(&e->pcmemo, key);
	if (hit >= 0) {
		*ret = (uint32_t)hit;
		return 0;
	}
	struct pc_res r = {.chain = (uint32_t)e->chains.n};
	uint32_t real = PROFILE_FUNC_UNKNOWN;
	if (lo && is_collector_object(lo)) {
		r.nchain = 0; /* the collector's own frame: dropped */
	} else {
		struct line_loc loc = {0};
		int has_line = 0;
		if (lo && p->objs.v[e->objmap[lo - e->exp->objs]].hidden) {
			if (object_func(p, e->objmap[lo - e->exp->objs], &real) < 0)
				return -ENOMEM;
		} else if (lo) {
			uint32_t obj = e->objmap[lo - e->exp->objs];
			if (symbol_func(p, obj, pc - lo->base, &real) < 0 ||
			    inline_chain(p, e, obj, pc - lo->base, real, &loc, &has_line) < 0)
				return -ENOMEM;
		}
		if (VEC_PUSH(&e->chains, real) < 0)
			return -ENOMEM;
		r.nchain = (uint32_t)(e->chains.n - r.chain);
		uint32_t owner = e->chains.v[r.chain]; /* innermost: the code's own function */
		if (line_id(p, owner, has_line && loc.line ? loc.file : NULL, has_line ? loc.line : 0,
			    &r.line) < 0)
			return -ENOMEM;
	}
	if (VEC_PUSH(&e->res, r) < 0 || u64map_put(&e->pcmemo, key, (uint32_t)(e->res.n - 1)) < 0)
		return -ENOMEM;
	*ret = (uint32_t)(e->res.n - 1);
	return 0;
}

int profile_resolve_func(struct profile *p, struct exp_slot *e, uint64_t pc, uint64_t ts_ns, uint32_t *ret)
{
	const struct exp_loadobj *lo = experiment_find_object_at(e->exp, pc, ts_ns);
	if (!lo || is_collector_object(lo)) {
		*ret = UINT32_MAX;
		return 0;
	}
	return symbol_func(p, e->objmap[lo - e->exp->objs], pc - lo->base, ret);
}

/* The @plt pseudo-function of a load object (created on first use). */
static int plt_func(struct profile *p, uint32_t obj, uint32_t *ret)
{
	uint64_t key = ((uint64_t)obj << 48) | (NOSYM_ADDR - 1);
	int64_t f = u64map_get(&p->func_index, key);
	if (f >= 0) {
		*ret = (uint32_t)f;
		return 0;
	}
	struct strbuf name;
	strbuf_init(&name, 0);
	strbuf_addf(&name, "@plt (<%s>)", p->objs.v[obj].name);
	int r = name.failed ? -ENOMEM : profile_add_func(p, PFUNC_PLT, strbuf_str(&name), "", obj, 0, 0, ret);
	strbuf_release(&name);
	if (r == 0 && u64map_put(&p->func_index, key, *ret) < 0)
		r = -ENOMEM;
	return r;
}

/*
 * The manual's rules for calls between shared objects: a leaf PC inside a
 * PLT stub is dropped, so its time goes to the call instruction of the
 * caller; leaf frames in the dynamic loader that end in its lazy-binding
 * resolver (_dl_runtime_resolve*, entered from a PLT stub) become the
 * caller's object's @plt pseudo-function.  *ret_skip = leaf frames consumed;
 * *ret_plt = the @plt function id to use as the leaf, or UINT32_MAX.
 */
static int plt_rules(struct profile *p, struct exp_slot *e, const struct exp_callstack *cs, size_t *ret_skip,
		     uint32_t *ret_plt)
{
	*ret_skip = 0;
	*ret_plt = UINT32_MAX;
	if (cs->nframes < 2)
		return 0;
	const struct exp_loadobj *lo = experiment_frame_object(e->exp, cs, 0, cs->pcs[0]);
	if (!lo || is_collector_object(lo))
		return 0;
	struct symtab *st = profile_resolve_symtab(p, e->objmap[lo - e->exp->objs]);
	if (st && symtab_in_plt(st, cs->pcs[0] - lo->base)) {
		*ret_skip = 1;
		return 0;
	}
	if (!is_loader(lo))
		return 0;
	size_t j = 1;
	while (j < cs->nframes && experiment_frame_object(e->exp, cs, j, cs->pcs[j] - 1) == lo)
		j++;
	if (j >= cs->nframes || !st)
		return 0;
	/* the outermost loader frame must be the resolver a PLT stub jumps to */
	uint64_t pc = j - 1 == 0 ? cs->pcs[0] : cs->pcs[j - 1] - 1;
	const struct symtab_func *sf = symtab_lookup(st, pc - lo->base);
	if (!sf || strncmp(sf->name, "_dl_runtime_resolve", 19) != 0)
		return 0;
	const struct exp_loadobj *caller = experiment_frame_object(e->exp, cs, j, cs->pcs[j] - 1);
	if (!caller || is_collector_object(caller))
		return 0;
	*ret_skip = j;
	return plt_func(p, e->objmap[caller - e->exp->objs], ret_plt);
}

void profile_resolve_reset(struct exp_slot *e, size_t nstacks)
{
	for (size_t i = 0; e->stacks && i < nstacks; i++) {
		free(e->stacks[i].funcs);
		free(e->stacks[i].pcs);
		free(e->stacks[i].lines);
		memset(&e->stacks[i], 0, sizeof e->stacks[i]);
	}
	u64map_release(&e->pcmemo);
	u64map_init(&e->pcmemo);
	e->res.n = 0;
	e->chains.n = 0;
}

int profile_resolve_stack(struct profile *p, struct exp_slot *e, uint32_t s)
{
	struct stack_res *sr = &e->stacks[s];
	if (sr->done)
		return 0;
	const struct exp_callstack *cs = &e->exp->stacks[s];
	size_t n = cs->nframes, skip;
	uint32_t plt;
	if (plt_rules(p, e, cs, &skip, &plt) < 0)
		return -ENOMEM;
	/* pass 1: resolve every kept frame, sizing the arrays */
	size_t nf = 3, np = 1;
	for (size_t i = skip; i < n; i++) {
		uint32_t ri;
		uint64_t adj = i == 0 ? cs->pcs[i] : cs->pcs[i] - 1;
		if (resolve_pc(p, e, experiment_frame_object(e->exp, cs, i, adj), adj,
			       memo_key(e->exp, cs, i, adj), &ri) < 0)
			return -ENOMEM;
		nf += e->res.v[ri].nchain;
		np++;
	}
	sr->funcs = malloc(nf * sizeof *sr->funcs);
	sr->pcs = malloc(np * sizeof *sr->pcs);
	sr->lines = malloc(np * sizeof *sr->lines);
	if (!sr->funcs || !sr->pcs || !sr->lines)
		goto nomem;
	if (cs->flags & EXP_STACK_COLLECTOR)
		sr->funcs[sr->nfuncs++] =
			PROFILE_FUNC_COLLECTOR; /* the collector's time, under the program's stack */
	if (s == e->exp->exit_stack && e->exp->exit_stack > e->exp->unknown_stack) {
		/* the CPU time its process ran after its collector's end */
		sr->funcs[sr->nfuncs++] = PROFILE_FUNC_EXIT;
		sr->done = 1;
		return 0;
	}
	if (cs->flags & EXP_STACK_STARTUP) {
		/* a new image's loading: no frame of it was sampled */
		sr->funcs[sr->nfuncs++] = PROFILE_FUNC_STARTUP;
		sr->done = 1;
		return 0;
	}
	if (plt != UINT32_MAX)
		sr->funcs[sr->nfuncs++] = plt;
	for (size_t i = skip; i < n; i++) {
		uint64_t raw = cs->pcs[i], adj = i == 0 ? raw : raw - 1;
		uint32_t ri = (uint32_t)u64map_get(&e->pcmemo, memo_key(e->exp, cs, i, adj));
		const struct pc_res *r = &e->res.v[ri];
		if (!r->nchain)
			continue; /* the collector's own frame */
		for (uint32_t k = 0; k < r->nchain; k++)
			sr->funcs[sr->nfuncs++] = e->chains.v[r->chain + k];
		const struct exp_loadobj *lo = experiment_frame_object(e->exp, cs, i, adj);
		uint32_t obj = lo ? e->objmap[lo - e->exp->objs] : PROFILE_NO_OBJECT;
		uint32_t id;
		if (pc_id(p, obj, lo ? raw - lo->base : raw, e->chains.v[r->chain + r->nchain - 1], r->line,
			  &id) < 0)
			goto nomem;
		sr->pcs[sr->npcs++] = id;
		sr->lines[sr->nlines++] = r->line;
	}
	if (sr->nfuncs == 0)
		sr->funcs[sr->nfuncs++] =
			PROFILE_FUNC_UNKNOWN; /* nothing recorded, or only collector frames */
	else if (cs->flags & (EXP_STACK_TRUNCATED | EXP_STACK_FAILED))
		sr->funcs[sr->nfuncs++] = PROFILE_FUNC_TRUNCATED;
	sr->done = 1;
	return profile_view_apply(p, (size_t)(e - p->exps.v), s); /* the viewmode's frames */
nomem:
	free(sr->funcs);
	free(sr->pcs);
	free(sr->lines);
	memset(sr, 0, sizeof *sr);
	return -ENOMEM;
}
