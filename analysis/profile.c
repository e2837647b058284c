/*
 * profile.c - experiments -> symbolized functions and objects -> metrics.
 * Events are first summed per distinct stack (one linear pass), then each
 * stack with a non-zero sum is resolved to function ids once (memoized per
 * PC) and fed to the metrics engine, so the cost is O(events + distinct PCs
 * + distinct stacks x depth).
 */
#include "analysis/profile.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analysis/archive.h"
#include "analysis/profile_internal.h"
#include "analysis/symtab.h"
#include "analysis/symver.h"
#include "common/regfile.h"
#include "common/strbuf.h"
#include "common/u64map.h"
#include "common/vec.h"
#include "experiment/format.h"

int profile_has_heap(const struct profile *p)
{
	for (size_t x = 0; x < p->exps.n; x++)
		if (EXP_PRESENT(p->exps.v[x].exp, HEAP))
			return 1;
	return 0;
}

/* ------------------------------------------------------------ metrics registry */

/* Clock profiling: each sample's weight (CPU time) at its stack. */
static const struct metric_def clock_defs[] = {
	{"totalcpu", "Total CPU Time", "Total CPU", METRIC_UNIT_TIME, METRIC_FLAVORS_ALL,
	 EXP_FILE_NAME_PROFILE, 0, NULL, NULL},
};

static int clock_present(const struct profile *p, size_t x, void *arg)
{
	(void)p, (void)x, (void)arg;
	return 1; /* the CPU-time axis of every report, 0 without clock data */
}

static int clock_charge(struct profile *p, size_t x, profile_charge_fn fn, void *fn_arg, void *arg)
{
	(void)arg;
	const struct exp_slot *e = &p->exps.v[x];
	const struct experiment *exp = e->exp;
	int r = 0;
	for (size_t i = 0; r == 0 && i < EXP_COUNT(exp, CLOCK); i++) {
		const struct exp_event *ev = &EXP_ROWS(exp, CLOCK)[i];
		if (!profile_event_selected(p, x, ev->thread, ev->cpu, ev->ts_ns))
			continue;
		struct profile_charge c = {.stack = ev->stack,
					   .thread = ev->thread,
					   .ts_ns = ev->ts_ns,
					   .event = 1,
					   .values = &ev->weight_ns};
		r = fn(fn_arg, &c);
	}
	return r;
}

static int clock_sum(struct profile *p, size_t x, uint64_t *sums, size_t stride, const size_t *cols,
		     void *arg)
{
	(void)arg;
	const struct exp_slot *e = &p->exps.v[x];
	const struct experiment *exp = e->exp;
	for (size_t i = 0; i < EXP_COUNT(exp, CLOCK); i++) {
		const struct exp_event *ev = &EXP_ROWS(exp, CLOCK)[i];
		if (!profile_event_selected(p, x, ev->thread, ev->cpu, ev->ts_ns))
			continue;
		sums[(size_t)ev->stack * stride + cols[0]] += ev->weight_ns;
		p->selected_events++;
	}
	return 0;
}

static const struct profile_metric_source clock_source = {
	.needs = "clock profiling (collect -p on)",
	.defs = clock_defs,
	.ndefs = sizeof clock_defs / sizeof clock_defs[0],
	.present = clock_present,
	.charge = clock_charge,
	.sum = clock_sum,
};

static const struct profile_module clock_module = {.source = &clock_source};

/* The metric modules, in the order their sources join the registry (profile_internal.h). */
static const struct profile_module *const profile_modules[] = {
	&clock_module,      &profile_cpusplit_module, &profile_heap_module, &profile_sync_module,
	&profile_io_module, &profile_hwc_module,      &profile_view_module,
};
#define NMODULES (sizeof profile_modules / sizeof profile_modules[0])

void *profile_module_state(const struct profile *p, const struct profile_module *m)
{
	for (size_t i = 0; i < NMODULES; i++)
		if (profile_modules[i] == m)
			return p->module_states ? p->module_states[i] : NULL;
	return NULL;
}

/* Give every module its state and register its source (profile_new). 0 or -ENOMEM. */
static int modules_start(struct profile *p)
{
	if (!(p->module_states = calloc(NMODULES, sizeof *p->module_states)))
		return -ENOMEM;
	for (size_t i = 0; i < NMODULES; i++) {
		const struct profile_module *m = profile_modules[i];
		if (m->state_bytes && !(p->module_states[i] = calloc(1, m->state_bytes)))
			return -ENOMEM;
		if (m->source && profile_metric_register(p, m->source) < 0)
			return -ENOMEM;
		if (m->reset)
			m->reset(p, p->module_states[i]);
	}
	return 0;
}

/* Experiment x was added: tell every module.  0 or a negative errno. */
static int modules_added(struct profile *p, size_t x)
{
	for (size_t i = 0; i < NMODULES; i++) {
		int r = profile_modules[i]->added ? profile_modules[i]->added(p, x, p->module_states[i]) : 0;
		if (r < 0)
			return r;
	}
	return 0;
}

/* Before a profile_compute: every module forgets its figures. */
static void modules_reset(struct profile *p)
{
	for (size_t i = 0; i < NMODULES; i++)
		if (profile_modules[i]->reset)
			profile_modules[i]->reset(p, p->module_states[i]);
}

static void modules_release(struct profile *p)
{
	for (size_t i = 0; p->module_states && i < NMODULES; i++) {
		if (profile_modules[i]->release && p->module_states[i])
			profile_modules[i]->release(p->module_states[i]);
		free(p->module_states[i]);
	}
	free(p->module_states);
}

/* Add source slot i's metrics to the registry (once). */
static int activate_source(struct profile *p, size_t i)
{
	struct source_slot *s = &p->sources.v[i];
	if (s->active)
		return 0;
	for (size_t k = 0; k < s->src.ndefs; k++) {
		s->cols[k] = p->mdefs.n;
		if (VEC_PUSH(&p->mdefs, s->src.defs[k]) < 0) {
			p->mdefs.n -= k; /* all or none */
			return -ENOMEM;
		}
	}
	s->active = 1;
	p->dirty = 1;
	return 0;
}

/* Activate every source whose data experiment x has, in registration order. */
static int activate_sources(struct profile *p, size_t x)
{
	for (size_t i = 0; i < p->sources.n; i++) {
		const struct source_slot *s = &p->sources.v[i];
		if (!s->active && s->src.present(p, x, s->src.arg) && activate_source(p, i) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* The source slot defining keyword, or NULL. */
static const struct source_slot *source_of(const struct profile *p, const char *keyword)
{
	for (size_t i = 0; i < p->sources.n; i++)
		for (size_t k = 0; k < p->sources.v[i].src.ndefs; k++)
			if (strcmp(p->sources.v[i].src.defs[k].keyword, keyword) == 0)
				return &p->sources.v[i];
	return NULL;
}

int profile_metric_register(struct profile *p, const struct profile_metric_source *src)
{
	if (!src->ndefs || !src->defs || !src->present || !src->charge)
		return -EINVAL;
	for (size_t k = 0; k < src->ndefs; k++) {
		if (!src->defs[k].keyword || !src->defs[k].keyword[0])
			return -EINVAL;
		for (size_t j = 0; j < k; j++)
			if (strcmp(src->defs[j].keyword, src->defs[k].keyword) == 0)
				return -EEXIST;
		if (source_of(p, src->defs[k].keyword))
			return -EEXIST;
	}
	struct source_slot s = {.src = *src, .cols = calloc(src->ndefs, sizeof *s.cols)};
	if (!s.cols || VEC_PUSH(&p->sources, s) < 0) {
		free(s.cols);
		return -ENOMEM;
	}
	for (size_t x = 0; x < p->exps.n; x++)
		if (src->present(p, x, src->arg))
			return activate_source(p, p->sources.n - 1);
	return 0;
}

const struct metric_def *profile_metric_defs(const struct profile *p, size_t *ret_count)
{
	*ret_count = p->mdefs.n;
	return p->mdefs.v;
}

long profile_metric_find(const struct profile *p, const char *keyword)
{
	for (size_t k = 0; k < p->mdefs.n; k++)
		if (strcmp(p->mdefs.v[k].keyword, keyword) == 0)
			return (long)k;
	return -1;
}

const char *profile_metric_needs(const struct profile *p, const char *keyword)
{
	const struct source_slot *s = source_of(p, keyword);
	return s && !s->active ? s->src.needs : NULL;
}

char *profile_own(struct profile *p, char *s)
{
	if (!s || VEC_PUSH(&p->strings, s) < 0) {
		free(s);
		return NULL;
	}
	return s;
}

int profile_add_func(struct profile *p, enum pfunc_kind kind, const char *name, const char *mangled,
		     uint32_t obj, uint64_t addr, uint64_t size, uint32_t *ret_id)
{
	struct pfunc f = {.id = (uint32_t)p->funcs.n,
			  .kind = kind,
			  .version = "",
			  .obj = obj,
			  .addr = addr,
			  .size = size};
	f.name = profile_own(p, strdup(name));
	f.mangled = profile_own(p, strdup(mangled ? mangled : ""));
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
	u64map_init(&p->pc_index);
	u64map_init(&p->line_index);
	u64map_init(&p->inline_index);
	p->inline_mode = 1;
	p->time_t1 = UINT64_MAX;
	uint32_t id;
	if (modules_start(p) < 0) {
		profile_free(p);
		return -ENOMEM;
	}
	/* the built-in pseudo-functions, ids PROFILE_FUNC_TOTAL to PROFILE_FUNC_EXIT in this order */
	static const char *const pseudo[] = {"<Total>",           "<Unknown>",
					     "<Truncated-stack>", "<Collector-overhead>",
					     "<Process-start>",   "<Process-exit>"};
	for (size_t i = 0; i < sizeof pseudo / sizeof pseudo[0]; i++)
		if (profile_add_func(p, PFUNC_PSEUDO, pseudo[i], "", PROFILE_NO_OBJECT, 0, 0, &id) < 0) {
			profile_free(p);
			return -ENOMEM;
		}
	if (!(p->selection_text = strdup("all")) || !(p->exp_selection_text = strdup("all"))) {
		profile_free(p);
		return -ENOMEM;
	}
	p->dirty = 1;
	*ret = p;
	return 0;
}

static void exp_slot_release(struct exp_slot *e)
{
	if (e->exp)
		profile_resolve_reset(e, e->exp->nstacks);
	free(e->stacks);
	free(e->res.v);
	free(e->chains.v);
	free(e->objmap);
	free(e->selected);
	free(e->sample_sel);
	free(e->cpu_sel);
	free(e->sums);
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
		lines_free(o->ln);
		free(o->name);
		free(o->path);
		free(o->read_path);
		free(o->debug_root);
		free(o->build_id);
		free(o->error);
	}
	free(p->objs.v);
	for (size_t i = 0; i < p->strings.n; i++)
		free(p->strings.v[i]);
	free(p->strings.v);
	modules_release(p);
	profile_descendants_release(p);
	free(p->funcs.v);
	free(p->pcs.v);
	free(p->lines.v);
	u64map_release(&p->func_index);
	u64map_release(&p->pc_index);
	u64map_release(&p->line_index);
	u64map_release(&p->inline_index);
	free(p->selection_text);
	free(p->exp_selection_text);
	profile_samples_release(p);
	profile_filter_release(p);
	for (size_t i = 0; i < p->sources.n; i++)
		free(p->sources.v[i].cols);
	free(p->sources.v);
	free(p->mdefs.v);
	metrics_free(p->fm);
	metrics_free(p->om);
	metrics_free(p->pm);
	metrics_free(p->lm);
	metrics_free(p->cm);
	free(p);
}

void profile_refresh_object_views(struct profile *p)
{
	for (size_t i = 0; i < p->objs.n; i++) {
		struct object_slot *o = &p->objs.v[i];
		o->pub.id = (uint32_t)i;
		o->pub.name = o->name;
		o->pub.path = o->path;
		o->pub.read_path = o->read_path;
		o->pub.error = o->error;
		o->pub.symbol_file = o->st ? symtab_symbol_file(o->st) : NULL;
	}
}

/*
 * The global object for an experiment's load object.  Where to read it is
 * decided here: the recorded file if it still has the recorded build-id,
 * else the copy in the experiment's archives/ (er_archive).
 */
static int object_id(struct profile *p, const char *exp_dir, const struct exp_loadobj *lo, uint32_t *ret)
{
	for (size_t i = 0; i < p->objs.n; i++) {
		struct object_slot *o = &p->objs.v[i];
		/* every process of a run has its own vdso.so: one object when the build-ids agree */
		int same_vdso = o->vdso && lo->kind == EXP_OBJ_VDSO && o->build_id && lo->build_id;
		if ((same_vdso || strcmp(o->path, lo->path) == 0) &&
		    (!o->build_id || !lo->build_id || strcmp(o->build_id, lo->build_id) == 0)) {
			*ret = (uint32_t)i;
			return 0;
		}
	}
	struct object_slot o = {0};
	char rp[PATH_MAX], dr[PATH_MAX];
	if (archive_resolve(exp_dir, lo->path, lo->build_id, rp, sizeof rp, NULL) < 0)
		snprintf(rp, sizeof rp, "%s", lo->path);
	o.name = strdup(lo->name);
	o.path = strdup(lo->path);
	o.read_path = strdup(rp);
	o.build_id = lo->build_id ? strdup(lo->build_id) : NULL;
	o.vdso = lo->kind == EXP_OBJ_VDSO;
	const char *slash = o.vdso ? strrchr(lo->path, '/') : NULL;
	if (slash && o.read_path) {
		/* the vDSO's image is a file of the experiment: not a FIFO, not a link out of it */
		char dir[PATH_MAX];
		snprintf(dir, sizeof dir, "%.*s", (int)(slash - lo->path), lo->path);
		int fd = regfile_open_in(dir, slash + 1, NULL);
		if (fd >= 0) {
			close(fd);
		} else if (fd <= -REGFILE_EFIFO) {
			struct strbuf m;
			strbuf_init(&m, 0);
			strbuf_addf(&m, "cannot read symbols of %s: %s", lo->path, regfile_strerror(fd));
			o.error = strbuf_detach(&m);
			o.tried = o.ln_tried = 1; /* nothing of it is read */
			o.read_path[0] = '\0';
		}
	}
	if (archive_debug_root(exp_dir, lo->build_id, dr, sizeof dr) == 1)
		o.debug_root = strdup(dr);
	if (!o.name || !o.path || !o.read_path || (lo->build_id && !o.build_id) ||
	    VEC_PUSH(&p->objs, o) < 0) {
		free(o.name);
		free(o.path);
		free(o.read_path);
		free(o.debug_root);
		free(o.build_id);
		return -ENOMEM;
	}
	profile_refresh_object_views(p);
	*ret = (uint32_t)(p->objs.n - 1);
	return 0;
}

/*
 * The experiment whose archives/ holds path's load objects: itself, or for
 * a descendant's subexperiment (FOUNDER.er/_f1.er), which has none of its
 * own, the founder that holds it.  ret has room PATH_MAX.
 */
static void archive_home(const char *path, char *ret)
{
	char buf[PATH_MAX + 32];
	snprintf(ret, PATH_MAX, "%s", path);
	const char *slash = strrchr(path, '/');
	snprintf(buf, sizeof buf, "%s/%s", path, ARCHIVE_DIR_NAME);
	if (!slash || !experiment_is_subexp_name(slash + 1) || access(buf, F_OK) == 0)
		return;
	snprintf(buf, sizeof buf, "%.*s/%s", (int)(slash - path), path, EXP_FILE_NAME_LOG);
	if (access(buf, F_OK) == 0)
		snprintf(ret, PATH_MAX, "%.*s", (int)(slash - path), path);
}

/* Read one experiment into a new slot. */
static int add_one(struct profile *p, const char *path, size_t founder, char **ret_err)
{
	struct exp_slot e = {.exp_selected = 1, .founder = founder, .parent = -1};
	int r = experiment_open(path, &e.exp, ret_err);
	if (r < 0)
		return r;
	u64map_init(&e.pcmemo);
	if (profile_view_copies(p, e.exp) < 0) /* before the per-stack arrays are sized */
		goto nomem;
	size_t no = e.exp->nobjs, ns = e.exp->nstacks, nt = e.exp->nthreads;
	e.objmap = calloc(no ? no : 1, sizeof *e.objmap);
	e.stacks = calloc(ns ? ns : 1, sizeof *e.stacks);
	e.selected = malloc(nt ? nt : 1);
	if (!e.objmap || !e.stacks || !e.selected)
		goto nomem;
	memset(e.selected, 1, nt ? nt : 1);
	char home[PATH_MAX];
	archive_home(e.exp->path, home);
	for (size_t i = 0; i < no; i++)
		if (object_id(p, home, &e.exp->objs[i], &e.objmap[i]) < 0)
			goto nomem;
	/* a descendant's start from its founder's wall-clock start and their common monotonic clock */
	const struct experiment *f = founder < p->exps.n ? p->exps.v[founder].exp : e.exp;
	e.wall_start_ns =
		(int64_t)f->log.realtime_ns + ((int64_t)e.exp->log.start_ns - (int64_t)f->log.start_ns);
	if (VEC_PUSH(&p->exps, e) < 0)
		goto nomem;
	if (p->exps.n == 1 || e.wall_start_ns < p->wall_min_ns)
		p->wall_min_ns = e.wall_start_ns;
	p->dirty = 1;
	if (modules_added(p, p->exps.n - 1) < 0)
		return -ENOMEM; /* the experiment is in the profile: profile_free releases it */
	return activate_sources(p, p->exps.n - 1);
nomem:
	exp_slot_release(&e);
	return -ENOMEM;
}

static int cmp_start(const void *a, const void *b)
{
	const struct exp_slot *x = a, *y = b;
	uint64_t s = x->exp->log.start_ns, t = y->exp->log.start_ns;
	return s < t ? -1 : s > t;
}

static const char *lineage_of(const struct experiment *x)
{
	return x->log.lineage ? x->log.lineage : "";
}

int profile_add_experiment(struct profile *p, const char *path, char **ret_err)
{
	size_t founder = p->exps.n;
	int r = add_one(p, path, founder, ret_err);
	if (r < 0)
		return r;
	char **subs = NULL;
	int n = experiment_descendants(path, &subs);
	for (int i = 0; i < n; i++) {
		char *err = NULL;
		if (!profile_descendant_wanted(p, p->exps.v[founder].exp, subs[i]))
			continue; /* en_desc: not this one */
		r = add_one(p, subs[i], founder, &err);
		if (r == -ENOMEM) {
			free(err);
			break;
		}
		if (r < 0) {
			struct experiment *f = p->exps.v[founder].exp;
			char **v = realloc(f->problems, (f->nproblems + 1) * sizeof *v);
			if (v) {
				f->problems = v;
				struct strbuf m;
				strbuf_init(&m, 0);
				strbuf_addf(&m, "descendant not read: %s", err ? err : strerror(-r));
				v[f->nproblems] = strbuf_detach(&m);
				if (v[f->nproblems])
					f->nproblems++;
			}
		}
		free(err);
	}
	for (int i = 0; i < n; i++)
		free(subs[i]);
	free(subs);
	if (r == -ENOMEM)
		return r;
	if (profile_process_ends(p, founder) < 0)
		return -ENOMEM;
	/* a descendant's lost data is the run's: say so in the founder's header too */
	for (size_t i = founder + 1; i < p->exps.n; i++) {
		struct experiment *x = p->exps.v[i].exp, *f = p->exps.v[founder].exp;
		char line[512];
		if (!experiment_loss_line(x, line, sizeof line))
			continue;
		char **v = realloc(f->problems, (f->nproblems + 1) * sizeof *v);
		if (!v)
			return -ENOMEM;
		f->problems = v;
		struct strbuf m;
		strbuf_init(&m, 0);
		strbuf_addf(&m, "%s: %s", x->name, line);
		v[f->nproblems] = strbuf_detach(&m);
		if (v[f->nproblems])
			f->nproblems++;
	}
	/* descendants in the order their processes started; then each one's parent */
	size_t nd = p->exps.n - founder - 1;
	if (nd > 1)
		qsort(p->exps.v + founder + 1, nd, sizeof *p->exps.v, cmp_start);
	for (size_t i = founder + 1; i < p->exps.n; i++) {
		char want[256];
		snprintf(want, sizeof want, "%s", lineage_of(p->exps.v[i].exp));
		while (p->exps.v[i].parent < 0) {
			experiment_parent_lineage(want, want, sizeof want);
			for (size_t j = founder; j < p->exps.n; j++)
				if (j != i && strcmp(lineage_of(p->exps.v[j].exp), want) == 0)
					p->exps.v[i].parent = (long)j;
			if (!want[0])
				break; /* the founder's own lineage is "" and was tried */
		}
	}
	return 0;
}

size_t profile_experiment_founder(const struct profile *p, size_t i)
{
	return i < p->exps.n ? p->exps.v[i].founder : 0;
}

long profile_experiment_parent(const struct profile *p, size_t i)
{
	return i < p->exps.n ? p->exps.v[i].parent : -1;
}

uint64_t profile_experiment_offset_ns(const struct profile *p, size_t i)
{
	return i < p->exps.n ? (uint64_t)(p->exps.v[i].wall_start_ns - p->wall_min_ns) : 0;
}

size_t profile_experiment_count(const struct profile *p)
{
	return p->exps.n;
}

const struct experiment *profile_experiment(const struct profile *p, size_t i)
{
	return i < p->exps.n ? p->exps.v[i].exp : NULL;
}

/* ------------------------------------------------------------ selection */

int profile_parse_ranges(const char *s, const char *end, uint8_t *set, size_t n, char **ret_err)
{
	return profile_parse_ranges_from(s, end, set, n, 1, ret_err);
}

int profile_parse_ranges_from(const char *s, const char *end, uint8_t *set, size_t n, unsigned long first,
			      char **ret_err)
{
	/* "all" or comma-separated N or N-M, counted from first, into set[0..n) */
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
		if (a < first || b < a)
			goto bad;
		for (unsigned long i = a; i <= b && i - first < n; i++)
			set[i - first] = 1;
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

int profile_split_exp_spec(const struct profile *p, const char *spec, const char *what, uint8_t **ret_expsel,
			   const char **ret_list, const char **ret_end, char **ret_text, char **ret_err)
{
	*ret_err = NULL;
	*ret_expsel = NULL;
	*ret_text = NULL;
	while (*spec == ' ')
		spec++;
	size_t len = strlen(spec), ne = p->exps.n;
	while (len && spec[len - 1] == ' ')
		len--;
	const char *end = spec + len, *colon = memchr(spec, ':', len), *list = colon ? colon + 1 : spec;
	if (list == end) {
		struct strbuf m;
		strbuf_init(&m, 0);
		strbuf_addf(&m, "empty %s selection", what);
		*ret_err = strbuf_detach(&m);
		return -EINVAL;
	}
	uint8_t *expsel = malloc(ne ? ne : 1);
	char *text = strndup(spec, len);
	int r = expsel && text ? 0 : -ENOMEM;
	if (r == 0 && colon)
		r = profile_parse_ranges(spec, colon, expsel, ne, ret_err);
	else if (r == 0)
		memset(expsel, 1, ne ? ne : 1);
	if (r < 0) {
		free(expsel);
		free(text);
		return r;
	}
	*ret_expsel = expsel;
	*ret_text = text;
	*ret_list = list;
	*ret_end = end;
	return 0;
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
		r = profile_parse_ranges(spec, colon, expsel, ne, ret_err);
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
		r = profile_parse_ranges(spec, end, tmp, nt, ret_err);
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
		r = profile_parse_ranges(spec, end, &dummy, 0, ret_err);
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
	return exp < p->exps.n && t < p->exps.v[exp].exp->nthreads && p->exps.v[exp].exp_selected &&
	       p->exps.v[exp].selected[t];
}

int profile_select_experiments(struct profile *p, const char *spec, char **ret_err)
{
	*ret_err = NULL;
	while (*spec == ' ')
		spec++;
	size_t len = strlen(spec);
	while (len && spec[len - 1] == ' ')
		len--;
	size_t n = p->exps.n;
	uint8_t *set = malloc(n ? n : 1);
	if (!set)
		return -ENOMEM;
	int r = len ? profile_parse_ranges(spec, spec + len, set, n, ret_err) : -EINVAL;
	if (r == -EINVAL && !*ret_err) {
		struct strbuf m;
		strbuf_init(&m, 0);
		strbuf_adds(&m, "empty experiment selection");
		*ret_err = strbuf_detach(&m);
	}
	for (size_t i = 0; r == 0 && i < len; i++) /* a number past the last experiment */
		if (spec[i] >= '0' && spec[i] <= '9') {
			char *end;
			unsigned long k = strtoul(spec + i, &end, 10);
			if (k > n) {
				struct strbuf m;
				strbuf_init(&m, 0);
				strbuf_addf(&m, "no experiment %lu (experiments are numbered 1 to %zu)", k,
					    n);
				*ret_err = strbuf_detach(&m);
				r = -EINVAL;
			}
			i = (size_t)(end - spec);
		}
	if (r == 0) {
		for (size_t i = 0; i < n; i++)
			p->exps.v[i].exp_selected = set[i];
		char *t = strndup(spec, len);
		if (t) {
			free(p->exp_selection_text);
			p->exp_selection_text = t;
		}
		p->dirty = 1;
	}
	free(set);
	return r;
}

int profile_experiment_selected(const struct profile *p, size_t i)
{
	return i < p->exps.n && p->exps.v[i].exp_selected;
}

const char *profile_experiment_selection(const struct profile *p)
{
	return p->exp_selection_text;
}

const char *profile_thread_selection(const struct profile *p)
{
	return p->selection_text;
}

int profile_select_time(struct profile *p, uint64_t t0_ns, uint64_t t1_ns)
{
	if (t0_ns >= t1_ns)
		return -EINVAL;
	if (p->time_t0 != t0_ns || p->time_t1 != t1_ns) {
		p->time_t0 = t0_ns;
		p->time_t1 = t1_ns;
		p->dirty = 1;
	}
	return 0;
}

void profile_set_time_shared(struct profile *p, int on)
{
	if (p->time_shared != !!on) {
		p->time_shared = !!on;
		p->dirty = 1;
	}
}

int profile_time_selection(const struct profile *p, uint64_t *t0_ns, uint64_t *t1_ns)
{
	*t0_ns = p->time_t0;
	*t1_ns = p->time_t1;
	return p->time_t0 != 0 || p->time_t1 != UINT64_MAX;
}

int profile_time_selected(const struct profile *p, size_t x, uint64_t ts_ns)
{
	if (p->sample_selection_text && !profile_sample_time_selected(p, x, ts_ns))
		return 0;
	if (p->time_t0 == 0 && p->time_t1 == UINT64_MAX)
		return 1;
	uint64_t start = x < p->exps.n ? p->exps.v[x].exp->log.start_ns : 0;
	uint64_t rel = ts_ns > start ? ts_ns - start : 0;
	if (p->time_shared)
		rel += profile_experiment_offset_ns(p, x);
	return rel >= p->time_t0 && rel < p->time_t1;
}

/* ------------------------------------------------------------ compute */

/* Room for n ids in *buf. */
static int grow_buf(uint32_t **buf, size_t *cap, size_t n)
{
	if (n <= *cap)
		return 0;
	uint32_t *b = realloc(*buf, n * 2 * sizeof *b);
	if (!b)
		return -ENOMEM;
	*buf = b;
	*cap = n * 2;
	return 0;
}

/* Feed ids + 1 (0 is the engine's <Total>) to an engine, dropping pseudo ids. */
static int add_shifted(struct metrics *m, const uint32_t *ids, size_t n, const uint64_t *v, uint32_t **buf,
		       size_t *cap)
{
	if (grow_buf(buf, cap, n) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		(*buf)[i] = ids[i] + 1;
	return metrics_add_stack(m, *buf, n, v);
}

/*
 * pfunc.show_version over the functions with data: a version is shown only
 * where two of them of one object share a name (memcpy@GLIBC_2.2.5,
 * memcpy@@GLIBC_2.14).
 */
static int mark_versions(struct profile *p)
{
	size_t nf = p->funcs.n, n = 0;
	struct symver_name *v = malloc((nf ? nf : 1) * sizeof *v);
	uint32_t *ids = malloc((nf ? nf : 1) * sizeof *ids);
	uint8_t *show = malloc(nf ? nf : 1);
	int r = -ENOMEM;
	if (!v || !ids || !show)
		goto out;
	for (uint32_t f = 0; f < nf; f++) {
		p->funcs.v[f].show_version = 0;
		if (f == PROFILE_FUNC_TOTAL || !metrics_seen(p->fm, f))
			continue;
		v[n] = (struct symver_name){.base = p->funcs.v[f].name,
					    .version = p->funcs.v[f].version,
					    .object = p->funcs.v[f].obj};
		ids[n++] = f;
	}
	r = symver_disambiguate(v, n, show);
	for (size_t i = 0; r == 0 && i < n; i++)
		p->funcs.v[ids[i]].show_version = show[i];
out:
	free(v);
	free(ids);
	free(show);
	return r;
}

struct sum_ctx {
	uint64_t *sums;
	size_t stride, nstacks;
	const size_t *cols;
	size_t ncols;
};

/* A charge summed per stack: what profile_compute does without a source's sum. */
static int sum_charge(void *arg, const struct profile_charge *c)
{
	const struct sum_ctx *s = arg;
	if (c->stack >= s->nstacks)
		return 0;
	for (size_t k = 0; k < s->ncols; k++)
		s->sums[(size_t)c->stack * s->stride + s->cols[k]] += c->values[k];
	return 0;
}

/* Experiment x's metric values per stack (e->sums), from every active source. */
static int sum_experiment(struct profile *p, size_t x, size_t nm)
{
	struct exp_slot *e = &p->exps.v[x];
	size_t ns = e->exp->nstacks;
	free(e->sums);
	e->sums = calloc((ns ? ns : 1) * nm, sizeof *e->sums);
	if (!e->sums)
		return -ENOMEM;
	if (!e->exp_selected)
		return 0;
	for (size_t i = 0; i < p->sources.n; i++) {
		const struct source_slot *sl = &p->sources.v[i];
		const struct profile_metric_source *src = &sl->src;
		if (!sl->active)
			continue;
		struct sum_ctx c = {
			.sums = e->sums, .stride = nm, .nstacks = ns, .cols = sl->cols, .ncols = src->ndefs};
		int r = src->sum ? src->sum(p, x, e->sums, nm, sl->cols, src->arg)
				 : src->charge(p, x, sum_charge, &c, src->arg);
		if (r != 0)
			return r < 0 ? r : -ECANCELED;
	}
	return 0;
}

/* Feed stack s of e, with its values v, to the four engines. */
static int feed_stack(struct profile *p, struct exp_slot *e, uint32_t s, const uint64_t *v, uint32_t **buf,
		      size_t *cap)
{
	if (profile_resolve_stack(p, e, s) < 0)
		return -ENOMEM;
	const struct stack_res *sr = &e->stacks[s];
	if (metrics_add_stack(p->fm, sr->funcs, sr->nfuncs, v) < 0 ||
	    add_shifted(p->pm, sr->pcs, sr->npcs, v, buf, cap) < 0 ||
	    add_shifted(p->lm, sr->lines, sr->nlines, v, buf, cap) < 0 || grow_buf(buf, cap, sr->nfuncs) < 0)
		return -ENOMEM;
	/* the same stack as load objects (id + 1), pseudo-functions dropped */
	size_t k = 0;
	for (size_t i = 0; i < sr->nfuncs; i++) {
		const struct pfunc *f = &p->funcs.v[sr->funcs[i]];
		if (f->obj != PROFILE_NO_OBJECT)
			(*buf)[k++] = f->obj + 1;
	}
	return metrics_add_stack(p->om, *buf, k, v);
}

/* Element k of every vector of m, for each ratio metric k of the registry (metrics_ratio). */
static void apply_ratios(const struct profile *p, struct metrics *m)
{
	for (size_t k = 0; k < p->nsums && k < p->mdefs.n; k++) {
		const struct metric_def *d = &p->mdefs.v[k];
		if (!d->ratio_num || !d->ratio_den)
			continue;
		long num = profile_metric_find(p, d->ratio_num), den = profile_metric_find(p, d->ratio_den);
		if (num >= 0 && den >= 0)
			metrics_ratio(m, k, (size_t)num, (size_t)den);
	}
}

int profile_compute(struct profile *p)
{
	if (!p->dirty)
		return 0;
	size_t nm = p->mdefs.n;
	metrics_free(p->fm);
	metrics_free(p->om);
	metrics_free(p->pm);
	metrics_free(p->lm);
	metrics_free(p->cm);
	p->cm = NULL;
	p->fm = metrics_new(nm, PROFILE_FUNC_TOTAL, METRICS_FLAT);
	p->om = metrics_new(nm, 0, METRICS_FLAT); /* object id + 1; 0 = <Total> */
	p->pm = metrics_new(nm, 0, METRICS_FLAT); /* pc id + 1: flat lists and annotation only */
	p->lm = metrics_new(nm, 0, METRICS_FLAT); /* line id + 1 */
	p->nsums = nm;
	p->selected_events = 0;
	modules_reset(p);
	if (!p->fm || !p->om || !p->pm || !p->lm)
		return -ENOMEM;
	uint32_t *buf = NULL;
	size_t cap = 0;
	int r = 0;
	for (size_t x = 0; r == 0 && x < p->exps.n; x++) {
		struct exp_slot *e = &p->exps.v[x];
		r = sum_experiment(p, x, nm);
		for (size_t s = 0; r == 0 && s < e->exp->nstacks; s++) {
			const uint64_t *v = e->sums + s * nm;
			size_t k = 0;
			while (k < nm && !v[k])
				k++;
			if (k < nm)
				r = feed_stack(p, e, (uint32_t)s, v, &buf, &cap);
		}
	}
	free(buf);
	if (r == 0) {
		apply_ratios(p, p->fm);
		apply_ratios(p, p->om);
		apply_ratios(p, p->pm);
		apply_ratios(p, p->lm);
		r = mark_versions(p);
	}
	if (r == 0)
		p->dirty = 0;
	return r;
}

void profile_set_inline(struct profile *p, int on)
{
	on = !!on;
	if (p->inline_mode == on)
		return;
	p->inline_mode = on;
	for (size_t x = 0; x < p->exps.n; x++)
		profile_resolve_reset(&p->exps.v[x], p->exps.v[x].exp->nstacks);
	p->dirty = 1;
}

void profile_set_object_shown(struct profile *p, uint32_t obj, int shown)
{
	if (obj >= p->objs.n || p->objs.v[obj].hidden == !shown)
		return;
	p->objs.v[obj].hidden = !shown;
	for (size_t x = 0; x < p->exps.n; x++)
		profile_resolve_reset(&p->exps.v[x], p->exps.v[x].exp->nstacks);
	p->dirty = 1;
}

int profile_object_shown(const struct profile *p, uint32_t obj)
{
	return obj < p->objs.n && !p->objs.v[obj].hidden;
}

int profile_inline(const struct profile *p)
{
	return p->inline_mode;
}

const struct metrics *profile_pc_metrics(const struct profile *p)
{
	return p->pm;
}

const struct metrics *profile_line_metrics(const struct profile *p)
{
	return p->lm;
}

size_t profile_pc_count(const struct profile *p)
{
	return p->pcs.n;
}

const struct ppc *profile_pc(const struct profile *p, uint32_t id)
{
	return id < p->pcs.n ? &p->pcs.v[id] : NULL;
}

size_t profile_line_count(const struct profile *p)
{
	return p->lines.n;
}

const struct pline *profile_line(const struct profile *p, uint32_t id)
{
	return id < p->lines.n ? &p->lines.v[id] : NULL;
}

int64_t profile_find_pc(const struct profile *p, uint32_t obj, uint64_t vaddr)
{
	return u64map_get(&p->pc_index, ((uint64_t)obj << 48) | (vaddr & 0xffffffffffffull));
}

struct symtab *profile_object_symtab(struct profile *p, uint32_t obj)
{
	return obj < p->objs.n ? profile_resolve_symtab(p, obj) : NULL;
}

struct lines *profile_object_lines(struct profile *p, uint32_t obj)
{
	return obj < p->objs.n ? profile_resolve_lines(p, obj) : NULL;
}

const struct metrics *profile_metrics(const struct profile *p)
{
	return p->fm;
}

/* p->cm from the stacks and sums profile_compute left (resolved stacks are cached). */
static int compute_calls(struct profile *p)
{
	size_t nm = p->nsums;
	struct metrics *m = metrics_new(nm, PROFILE_FUNC_TOTAL, METRICS_ALL);
	if (!m)
		return -ENOMEM;
	int r = 0;
	for (size_t x = 0; r == 0 && x < p->exps.n; x++) {
		struct exp_slot *e = &p->exps.v[x];
		for (size_t s = 0; r == 0 && s < e->exp->nstacks; s++) {
			const uint64_t *v = e->sums + s * nm;
			size_t k = 0;
			while (k < nm && !v[k])
				k++;
			if (k == nm)
				continue;
			r = profile_resolve_stack(p, e, (uint32_t)s);
			if (r == 0)
				r = metrics_add_stack(m, e->stacks[s].funcs, e->stacks[s].nfuncs, v);
		}
	}
	if (r < 0) {
		metrics_free(m);
		return r;
	}
	apply_ratios(p, m);
	p->cm = m;
	return 0;
}

const struct metrics *profile_call_metrics(struct profile *p, int *err)
{
	int r = profile_compute(p);
	if (r == 0 && !p->cm)
		r = compute_calls(p);
	*err = r;
	return r < 0 ? NULL : p->cm;
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

/* f's name, mangled name or name without parameters is name[0..len). */
static int name_matches(const struct pfunc *f, const char *name, size_t len)
{
	const char *paren = strchr(f->name, '(');
	return (strlen(f->name) == len && strncmp(f->name, name, len) == 0) ||
	       (f->mangled[0] && strlen(f->mangled) == len && strncmp(f->mangled, name, len) == 0) ||
	       (paren && paren != f->name && (size_t)(paren - f->name) == len &&
		strncmp(f->name, name, len) == 0);
}

size_t profile_find_funcs(const struct profile *p, const char *name, uint32_t *ret_ids, size_t max)
{
	size_t n = 0, len = strlen(name), base = symver_base_len(name);
	for (size_t i = 0; i < p->funcs.n; i++) {
		const struct pfunc *f = &p->funcs.v[i];
		/* "memcpy@@GLIBC_2.14": that version of memcpy */
		int match =
			name_matches(f, name, len) ||
			(base < len && strcmp(f->version, name + base) == 0 && name_matches(f, name, base));
		if (match) {
			if (n < max)
				ret_ids[n] = (uint32_t)i;
			n++;
		}
	}
	return n;
}

const struct pfunc *profile_func_at(struct profile *p, size_t exp, uint64_t pc, uint64_t ts_ns)
{
	uint32_t id;
	if (exp >= p->exps.n || profile_resolve_func(p, &p->exps.v[exp], pc, ts_ns, &id) < 0 ||
	    id == UINT32_MAX)
		return NULL;
	return &p->funcs.v[id];
}

uint64_t profile_selected_events(const struct profile *p)
{
	return p->selected_events;
}
