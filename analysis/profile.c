/*
 * profile.c - experiments -> symbolized functions and objects -> metrics.
 * Events are first summed per distinct stack (one linear pass), then each
 * stack with a non-zero sum is resolved to function ids once (memoized per
 * PC) and fed to the metrics engine, so the cost is O(events + distinct PCs
 * + distinct stacks x depth).
 */
#include "analysis/profile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/symtab.h"
#include "common/strbuf.h"
#include "common/u64map.h"
#include "common/vec.h"
#include "experiment/format.h"

static const struct metric_def metric_defs[PROFILE_METRIC_COUNT] = {
	{"totalcpu", "Total CPU Time", "Total CPU", METRIC_UNIT_TIME},
};

const struct metric_def *profile_metric_defs(size_t *ret_count)
{
	*ret_count = PROFILE_METRIC_COUNT;
	return metric_defs;
}

struct object_slot {
	struct pobject pub;
	char *name, *path, *build_id, *error;
	struct symtab *st;
	int tried;
};

struct exp_slot {
	struct experiment *exp;
	uint32_t *objmap;       /* experiment object index -> global object id */
	struct u64map pcmemo;   /* adjusted pc -> function id */
	uint32_t **stack_funcs; /* per stack: resolved function ids (with pseudo frames) */
	uint32_t *stack_len;
	uint8_t *selected; /* per thread */
};

struct profile {
	VEC(struct exp_slot) exps;
	VEC(struct object_slot) objs;
	VEC(struct pfunc) funcs;
	VEC(char *) strings; /* owned names */
	struct u64map func_index;
	char *selection_text;
	int dirty;
	struct metrics *fm, *om;
	uint64_t selected_events;
};

static char *own(struct profile *p, char *s)
{
	if (!s || VEC_PUSH(&p->strings, s) < 0) {
		free(s);
		return NULL;
	}
	return s;
}

static int add_func(struct profile *p, enum pfunc_kind kind, const char *name, const char *mangled,
		    uint32_t obj, uint64_t addr, uint64_t size, uint32_t *ret_id)
{
	struct pfunc f = {.id = (uint32_t)p->funcs.n, .kind = kind, .obj = obj, .addr = addr, .size = size};
	f.name = own(p, strdup(name));
	f.mangled = own(p, strdup(mangled ? mangled : ""));
	if (!f.name || !f.mangled || VEC_PUSH(&p->funcs, f) < 0)
		return -ENOMEM;
	*ret_id = f.id;
	return 0;
}

int profile_new(struct profile **ret)
{
	struct profile *p = calloc(1, sizeof *p);
	if (!p)
		return -ENOMEM;
	u64map_init(&p->func_index);
	uint32_t id;
	if (add_func(p, PFUNC_TOTAL, "<Total>", "", PROFILE_NO_OBJECT, 0, 0, &id) < 0 ||
	    add_func(p, PFUNC_UNKNOWN, "<Unknown>", "", PROFILE_NO_OBJECT, 0, 0, &id) < 0 ||
	    add_func(p, PFUNC_TRUNCATED, "<Truncated-stack>", "", PROFILE_NO_OBJECT, 0, 0, &id) < 0 ||
	    !(p->selection_text = strdup("all"))) {
		profile_free(p);
		return -ENOMEM;
	}
	p->dirty = 1;
	*ret = p;
	return 0;
}

static void exp_slot_release(struct exp_slot *e)
{
	if (e->stack_funcs)
		for (size_t i = 0; i < e->exp->nstacks; i++)
			free(e->stack_funcs[i]);
	free(e->stack_funcs);
	free(e->stack_len);
	free(e->objmap);
	free(e->selected);
	u64map_release(&e->pcmemo);
	experiment_free(e->exp);
}

void profile_free(struct profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->exps.n; i++)
		exp_slot_release(&p->exps.v[i]);
	free(p->exps.v);
	for (size_t i = 0; i < p->objs.n; i++) {
		struct object_slot *o = &p->objs.v[i];
		symtab_free(o->st);
		free(o->name);
		free(o->path);
		free(o->build_id);
		free(o->error);
	}
	free(p->objs.v);
	for (size_t i = 0; i < p->strings.n; i++)
		free(p->strings.v[i]);
	free(p->strings.v);
	free(p->funcs.v);
	u64map_release(&p->func_index);
	free(p->selection_text);
	metrics_free(p->fm);
	metrics_free(p->om);
	free(p);
}

static void refresh_object_views(struct profile *p)
{
	for (size_t i = 0; i < p->objs.n; i++) {
		struct object_slot *o = &p->objs.v[i];
		o->pub.id = (uint32_t)i;
		o->pub.name = o->name;
		o->pub.path = o->path;
		o->pub.error = o->error;
		o->pub.symbol_file = o->st ? symtab_symbol_file(o->st) : NULL;
	}
}

static int object_id(struct profile *p, const struct exp_loadobj *lo, uint32_t *ret)
{
	for (size_t i = 0; i < p->objs.n; i++) {
		struct object_slot *o = &p->objs.v[i];
		if (strcmp(o->path, lo->path) == 0 &&
		    (!o->build_id || !lo->build_id || strcmp(o->build_id, lo->build_id) == 0)) {
			*ret = (uint32_t)i;
			return 0;
		}
	}
	struct object_slot o = {0};
	o.name = strdup(lo->name);
	o.path = strdup(lo->path);
	o.build_id = lo->build_id ? strdup(lo->build_id) : NULL;
	if (!o.name || !o.path || (lo->build_id && !o.build_id) || VEC_PUSH(&p->objs, o) < 0) {
		free(o.name);
		free(o.path);
		free(o.build_id);
		return -ENOMEM;
	}
	refresh_object_views(p);
	*ret = (uint32_t)(p->objs.n - 1);
	return 0;
}

int profile_add_experiment(struct profile *p, const char *path, char **ret_err)
{
	struct exp_slot e = {0};
	int r = experiment_open(path, &e.exp, ret_err);
	if (r < 0)
		return r;
	u64map_init(&e.pcmemo);
	size_t no = e.exp->nobjs, ns = e.exp->nstacks, nt = e.exp->nthreads;
	e.objmap = calloc(no ? no : 1, sizeof *e.objmap);
	e.stack_funcs = calloc(ns ? ns : 1, sizeof *e.stack_funcs);
	e.stack_len = calloc(ns ? ns : 1, sizeof *e.stack_len);
	e.selected = malloc(nt ? nt : 1);
	if (!e.objmap || !e.stack_funcs || !e.stack_len || !e.selected)
		goto nomem;
	memset(e.selected, 1, nt ? nt : 1);
	for (size_t i = 0; i < no; i++)
		if (object_id(p, &e.exp->objs[i], &e.objmap[i]) < 0)
			goto nomem;
	if (VEC_PUSH(&p->exps, e) < 0)
		goto nomem;
	p->dirty = 1;
	return 0;
nomem:
	exp_slot_release(&e);
	return -ENOMEM;
}

size_t profile_experiment_count(const struct profile *p)
{
	return p->exps.n;
}

const struct experiment *profile_experiment(const struct profile *p, size_t i)
{
	return i < p->exps.n ? p->exps.v[i].exp : NULL;
}

/* ------------------------------------------------------------ symbolization */

static struct symtab *object_symtab(struct profile *p, uint32_t obj)
{
	struct object_slot *o = &p->objs.v[obj];
	if (!o->tried) {
		o->tried = 1;
		int r = symtab_open(o->path, o->build_id, NULL, &o->st);
		if (r < 0) {
			struct strbuf m;
			strbuf_init(&m, 0);
			strbuf_addf(&m, "cannot read symbols of %s: %s", o->path,
				    r == -ENOEXEC   ? "not an ELF file"
				    : r == -EBADMSG ? "corrupt ELF file"
						    : strerror(-r));
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
		refresh_object_views(p);
	}
	return o->st;
}

#define NOSYM_ADDR 0xffffffffffffull
#define SKIP_FRAME UINT32_MAX

/* The collector's own frames (its thread-start wrapper) are not the program's. */
static int is_collector_object(const struct exp_loadobj *lo)
{
	return strncmp(lo->name, "libcollector.so", 15) == 0;
}

static int func_for_pc(struct profile *p, struct exp_slot *e, uint64_t pc, uint32_t *ret)
{
	int64_t hit = u64map_get(&e->pcmemo, pc);
	if (hit >= 0) {
		*ret = (uint32_t)hit;
		return 0;
	}
	uint32_t id = PROFILE_FUNC_UNKNOWN;
	const struct exp_loadobj *lo = experiment_find_object(e->exp, pc);
	if (lo && is_collector_object(lo)) {
		id = SKIP_FRAME;
	} else if (lo) {
		uint32_t obj = e->objmap[lo - e->exp->objs];
		uint64_t vaddr = pc - lo->base;
		struct symtab *st = object_symtab(p, obj);
		const struct symtab_func *sf = st ? symtab_lookup(st, vaddr) : NULL;
		uint64_t key = ((uint64_t)obj << 48) | ((sf ? sf->addr : NOSYM_ADDR) & NOSYM_ADDR);
		int64_t f = u64map_get(&p->func_index, key);
		if (f >= 0) {
			id = (uint32_t)f;
		} else {
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
					    : add_func(p, kind, strbuf_str(&name), sf ? sf->mangled : "", obj,
						       sf ? sf->addr : 0, sf ? sf->size : 0, &id);
			strbuf_release(&name);
			if (r < 0 || u64map_put(&p->func_index, key, id) < 0)
				return -ENOMEM;
		}
	}
	if (u64map_put(&e->pcmemo, pc, id) < 0)
		return -ENOMEM;
	*ret = id;
	return 0;
}

static int is_loader(const struct exp_loadobj *lo)
{
	return lo && (strncmp(lo->name, "ld-linux", 8) == 0 || strncmp(lo->name, "ld.so", 5) == 0 ||
		      strncmp(lo->name, "ld64.so", 7) == 0);
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
	int r = name.failed ? -ENOMEM : add_func(p, PFUNC_PLT, strbuf_str(&name), "", obj, 0, 0, ret);
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
 * caller's object's @plt pseudo-function.  Returns how many leaf frames were
 * consumed; *ret_plt is the @plt function id to use as the leaf, or
 * UINT32_MAX.
 */
static int plt_rules(struct profile *p, struct exp_slot *e, const struct exp_callstack *cs, size_t *ret_skip,
		     uint32_t *ret_plt)
{
	*ret_skip = 0;
	*ret_plt = UINT32_MAX;
	if (cs->nframes < 2)
		return 0;
	const struct exp_loadobj *lo = experiment_find_object(e->exp, cs->pcs[0]);
	if (!lo || is_collector_object(lo))
		return 0;
	struct symtab *st = object_symtab(p, e->objmap[lo - e->exp->objs]);
	if (st && symtab_in_plt(st, cs->pcs[0] - lo->base)) {
		*ret_skip = 1;
		return 0;
	}
	if (!is_loader(lo))
		return 0;
	size_t j = 1;
	while (j < cs->nframes && experiment_find_object(e->exp, cs->pcs[j] - 1) == lo)
		j++;
	if (j >= cs->nframes || !st)
		return 0;
	/* the outermost loader frame must be the resolver a PLT stub jumps to */
	uint64_t pc = j - 1 == 0 ? cs->pcs[0] : cs->pcs[j - 1] - 1;
	const struct symtab_func *sf = symtab_lookup(st, pc - lo->base);
	if (!sf || strncmp(sf->name, "_dl_runtime_resolve", 19) != 0)
		return 0;
	const struct exp_loadobj *caller = experiment_find_object(e->exp, cs->pcs[j] - 1);
	if (!caller || is_collector_object(caller))
		return 0;
	*ret_skip = j;
	return plt_func(p, e->objmap[caller - e->exp->objs], ret_plt);
}

/*
 * Resolve a stack to function ids, leaf first.  Return addresses (all frames
 * but the leaf) are looked up at pc - 1, inside the call instruction.
 */
static int resolve_stack(struct profile *p, struct exp_slot *e, uint32_t s)
{
	if (e->stack_funcs[s])
		return 0;
	const struct exp_callstack *cs = &e->exp->stacks[s];
	size_t n = cs->nframes, skip;
	uint32_t *f = malloc((n + 2) * sizeof *f), plt;
	if (!f)
		return -ENOMEM;
	size_t k = 0;
	if (plt_rules(p, e, cs, &skip, &plt) < 0) {
		free(f);
		return -ENOMEM;
	}
	if (plt != UINT32_MAX)
		f[k++] = plt;
	for (size_t i = skip; i < n; i++) {
		uint64_t pc = cs->pcs[i];
		if (i > 0 && pc > 0)
			pc--;
		if (func_for_pc(p, e, pc, &f[k]) < 0) {
			free(f);
			return -ENOMEM;
		}
		if (f[k] != SKIP_FRAME)
			k++;
	}
	if (k == 0 && n > 0)
		f[k++] = PROFILE_FUNC_UNKNOWN; /* nothing but collector frames */
	else if (n == 0)
		f[k++] = PROFILE_FUNC_UNKNOWN;
	else if (cs->flags & (EXP_STACK_TRUNCATED | EXP_STACK_FAILED))
		f[k++] = PROFILE_FUNC_TRUNCATED;
	e->stack_funcs[s] = f;
	e->stack_len[s] = (uint32_t)k;
	return 0;
}

/* ------------------------------------------------------------ selection */

static int parse_ranges(const char *s, const char *end, uint8_t *set, size_t n, char **ret_err)
{
	/* "all" or comma-separated N or N-M, 1-based, into set[0..n) */
	if ((size_t)(end - s) == 3 && strncmp(s, "all", 3) == 0) {
		memset(set, 1, n);
		return 0;
	}
	memset(set, 0, n);
	const char *q = s;
	while (q < end) {
		char *e1;
		unsigned long a = strtoul(q, &e1, 10), b;
		if (e1 == q)
			goto bad;
		b = a;
		if (e1 < end && *e1 == '-') {
			const char *q2 = e1 + 1;
			b = strtoul(q2, &e1, 10);
			if (e1 == q2)
				goto bad;
		}
		if (a == 0 || b < a)
			goto bad;
		for (unsigned long i = a; i <= b && i <= n; i++)
			set[i - 1] = 1;
		q = e1;
		if (q < end && *q == ',')
			q++;
		else if (q < end)
			goto bad;
	}
	return 0;
bad:;
	struct strbuf m;
	strbuf_init(&m, 0);
	strbuf_addf(&m, "invalid selection '%.*s' (expected all, N, N-M or a comma-separated list)",
		    (int)(end - s), s);
	*ret_err = strbuf_detach(&m);
	return -EINVAL;
}

int profile_select_threads(struct profile *p, const char *spec, char **ret_err)
{
	*ret_err = NULL;
	while (*spec == ' ')
		spec++;
	size_t len = strlen(spec);
	while (len && spec[len - 1] == ' ')
		len--;
	const char *orig = spec, *end = spec + len, *colon = memchr(spec, ':', len);
	size_t ne = p->exps.n;
	uint8_t *expsel = malloc(ne ? ne : 1);
	if (!expsel)
		return -ENOMEM;
	int r = 0;
	if (colon) {
		r = parse_ranges(spec, colon, expsel, ne, ret_err);
		spec = colon + 1;
	} else {
		memset(expsel, 1, ne ? ne : 1);
	}
	if (r == 0 && spec == end) {
		struct strbuf m;
		strbuf_init(&m, 0);
		strbuf_adds(&m, "empty thread selection");
		*ret_err = strbuf_detach(&m);
		r = -EINVAL;
	}
	/* validate first, then apply */
	for (size_t i = 0; r == 0 && i < ne; i++) {
		struct exp_slot *e = &p->exps.v[i];
		size_t nt = e->exp->nthreads;
		uint8_t *tmp = malloc(nt ? nt : 1);
		if (!tmp) {
			r = -ENOMEM;
			break;
		}
		r = parse_ranges(spec, end, tmp, nt, ret_err);
		if (r == 0) {
			if (expsel[i])
				memcpy(e->selected, tmp, nt);
			else
				memset(e->selected, 0, nt);
		}
		free(tmp);
	}
	if (r == 0 && ne == 0) {
		uint8_t dummy;
		r = parse_ranges(spec, end, &dummy, 0, ret_err);
	}
	free(expsel);
	if (r == 0) {
		char *t = strndup(orig, len);
		if (t) {
			free(p->selection_text);
			p->selection_text = t;
		}
		p->dirty = 1;
	}
	return r;
}

int profile_thread_selected(const struct profile *p, size_t exp, size_t t)
{
	return exp < p->exps.n && t < p->exps.v[exp].exp->nthreads && p->exps.v[exp].selected[t];
}

const char *profile_thread_selection(const struct profile *p)
{
	return p->selection_text;
}

/* ------------------------------------------------------------ compute */

int profile_compute(struct profile *p)
{
	if (!p->dirty)
		return 0;
	metrics_free(p->fm);
	metrics_free(p->om);
	p->fm = metrics_new(PROFILE_METRIC_COUNT, PROFILE_FUNC_TOTAL);
	p->om = metrics_new(PROFILE_METRIC_COUNT, 0); /* object id + 1; 0 = <Total> */
	p->selected_events = 0;
	if (!p->fm || !p->om)
		return -ENOMEM;
	uint32_t *objs = NULL;
	size_t objs_cap = 0;
	for (size_t x = 0; x < p->exps.n; x++) {
		struct exp_slot *e = &p->exps.v[x];
		const struct experiment *exp = e->exp;
		size_t ns = exp->nstacks;
		uint64_t *sum = calloc((ns ? ns : 1) * PROFILE_METRIC_COUNT, sizeof *sum);
		if (!sum) {
			free(objs);
			return -ENOMEM;
		}
		for (size_t i = 0; i < exp->nevents; i++) {
			const struct exp_event *ev = &exp->events[i];
			if (!e->selected[ev->thread])
				continue;
			sum[(size_t)ev->stack * PROFILE_METRIC_COUNT + PROFILE_METRIC_TOTALCPU] +=
				ev->weight_ns;
			p->selected_events++;
		}
		for (size_t s = 0; s < ns; s++) {
			const uint64_t *v = sum + s * PROFILE_METRIC_COUNT;
			int any = 0;
			for (size_t k = 0; k < PROFILE_METRIC_COUNT; k++)
				any |= v[k] != 0;
			if (!any)
				continue;
			if (resolve_stack(p, e, (uint32_t)s) < 0 ||
			    metrics_add_stack(p->fm, e->stack_funcs[s], e->stack_len[s], v) < 0)
				goto nomem;
			/* the same stack as load objects (id + 1), pseudo-functions dropped */
			size_t n = e->stack_len[s], k = 0;
			if (n > objs_cap) {
				uint32_t *o2 = realloc(objs, n * 2 * sizeof *o2);
				if (!o2)
					goto nomem;
				objs = o2;
				objs_cap = n * 2;
			}
			for (size_t i = 0; i < n; i++) {
				const struct pfunc *f = &p->funcs.v[e->stack_funcs[s][i]];
				if (f->obj != PROFILE_NO_OBJECT)
					objs[k++] = f->obj + 1;
			}
			if (metrics_add_stack(p->om, objs, k, v) < 0)
				goto nomem;
		}
		free(sum);
		continue;
nomem:
		free(sum);
		free(objs);
		return -ENOMEM;
	}
	free(objs);
	p->dirty = 0;
	return 0;
}

const struct metrics *profile_metrics(const struct profile *p)
{
	return p->fm;
}

const struct metrics *profile_object_metrics(const struct profile *p)
{
	return p->om;
}

size_t profile_func_count(const struct profile *p)
{
	return p->funcs.n;
}

const struct pfunc *profile_func(const struct profile *p, uint32_t id)
{
	return id < p->funcs.n ? &p->funcs.v[id] : NULL;
}

size_t profile_object_count(const struct profile *p)
{
	return p->objs.n;
}

const struct pobject *profile_object(const struct profile *p, uint32_t id)
{
	return id < p->objs.n ? &p->objs.v[id].pub : NULL;
}

size_t profile_find_funcs(const struct profile *p, const char *name, uint32_t *ret_ids, size_t max)
{
	size_t n = 0, len = strlen(name);
	for (size_t i = 0; i < p->funcs.n; i++) {
		const struct pfunc *f = &p->funcs.v[i];
		const char *paren = strchr(f->name, '(');
		int match = strcmp(f->name, name) == 0 || strcmp(f->mangled, name) == 0 ||
			    (paren && paren != f->name && (size_t)(paren - f->name) == len &&
			     strncmp(f->name, name, len) == 0);
		if (match) {
			if (n < max)
				ret_ids[n] = (uint32_t)i;
			n++;
		}
	}
	return n;
}

const struct pfunc *profile_func_at(struct profile *p, size_t exp, uint64_t pc)
{
	uint32_t id;
	if (exp >= p->exps.n || func_for_pc(p, &p->exps.v[exp], pc, &id) < 0 || id == SKIP_FRAME ||
	    id == PROFILE_FUNC_UNKNOWN)
		return NULL;
	return &p->funcs.v[id];
}

uint64_t profile_selected_events(const struct profile *p)
{
	return p->selected_events;
}
