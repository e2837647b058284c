/*
 * api_stacks.c - the analyzer's flame graph and timeline endpoints, from
 * profile_foreach_stack: /api/flame aggregates the call stacks of one metric
 * into a tree (root first; inverted: leaf first), /api/timeline lists the
 * events of one metric with their time, thread and leaf function.  Both as
 * compact parallel arrays, with a table of the functions they name.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/experiment.h"
#include "analysis/report_calls.h"
#include "analysis/report_info.h"
#include "analyzer/api_internal.h"
#include "common/u64map.h"
#include "common/vec.h"

/* The functions a reply names: global id -> local index, and the ids in local order. */
struct fnames {
	struct u64map map;
	VEC(uint32_t) ids;
};

static long fnames_get(struct fnames *t, uint32_t id)
{
	int64_t k = u64map_get(&t->map, id);
	if (k >= 0)
		return (long)k;
	if (u64map_put(&t->map, id, (uint32_t)t->ids.n) < 0 || VEC_PUSH(&t->ids, id) < 0)
		return -ENOMEM;
	return (long)t->ids.n - 1;
}

static void fnames_write(struct api_req *r, struct fnames *t)
{
	char name[4096];
	jsonw_key(&r->w, "functions");
	jsonw_object_begin(&r->w);
	jsonw_key(&r->w, "id");
	jsonw_array_begin(&r->w);
	for (size_t i = 0; i < t->ids.n; i++)
		jsonw_uint(&r->w, t->ids.v[i]);
	jsonw_array_end(&r->w);
	jsonw_key(&r->w, "name");
	jsonw_array_begin(&r->w);
	for (size_t i = 0; i < t->ids.n; i++)
		jsonw_string(&r->w, api_func_name(r->p, t->ids.v[i], name, sizeof name));
	jsonw_array_end(&r->w);
	jsonw_object_end(&r->w);
}

static void fnames_release(struct fnames *t)
{
	u64map_release(&t->map);
	free(t->ids.v);
}

/* A growable array of uint64_t. */
struct u64v {
	uint64_t *v;
	size_t n, cap;
};

static int u64v_push(struct u64v *a, uint64_t x)
{
	return VEC_PUSH(a, x);
}

/* Four parallel arrays (one element per tree node or per event), named by keys. */
struct columns4 {
	struct u64v a[4];
};

static int columns4_push(struct columns4 *c, uint64_t a, uint64_t b, uint64_t d, uint64_t e)
{
	return u64v_push(&c->a[0], a) < 0 || u64v_push(&c->a[1], b) < 0 || u64v_push(&c->a[2], d) < 0 ||
			       u64v_push(&c->a[3], e) < 0
		       ? -ENOMEM
		       : 0;
}

/* "key": {"keys[0]": [...], ...}. */
static void columns4_write(struct api_req *r, const char *key, const char *const keys[4],
			   const struct columns4 *c)
{
	jsonw_key(&r->w, key);
	jsonw_object_begin(&r->w);
	for (size_t k = 0; k < 4; k++) {
		jsonw_key(&r->w, keys[k]);
		jsonw_array_begin(&r->w);
		for (size_t i = 0; i < c->a[k].n; i++)
			jsonw_uint(&r->w, c->a[k].v[i]);
		jsonw_array_end(&r->w);
	}
	jsonw_object_end(&r->w);
}

static void columns4_free(struct columns4 *c)
{
	for (size_t k = 0; k < 4; k++)
		free(c->a[k].v);
}

/* Argument key as a count in [1, max] into *ret (0 when absent): 0, or -1 after api_fail. */
static int count_arg(struct api_req *r, const char *key, uint64_t max, uint64_t *ret)
{
	const char *s = api_arg(r, key);
	*ret = 0;
	if (!s || !*s)
		return 0;
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (*end || s[0] == '-' || v == 0 || v > max)
		return api_fail(r, 400, "%s '%s' is not a count from 1 to %llu", key, s,
				(unsigned long long)max);
	*ret = v;
	return 0;
}

/* ------------------------------------------------------------ flame */

struct flame {
	size_t metric;
	int inverted;
	struct u64map children; /* (parent node << 32 | local function) -> node */
	struct fnames names;
	struct columns4 nodes; /* parent, func, value, self */
};

static long flame_child(struct flame *fl, uint64_t parent, uint32_t func)
{
	long lf = fnames_get(&fl->names, func);
	if (lf < 0)
		return lf;
	uint64_t key = parent << 32 | (uint64_t)lf;
	int64_t k = u64map_get(&fl->children, key);
	if (k >= 0)
		return (long)k;
	long node = (long)fl->nodes.a[0].n;
	if (node >= (long)UINT32_MAX || u64map_put(&fl->children, key, (uint32_t)node) < 0 ||
	    columns4_push(&fl->nodes, parent, (uint64_t)lf, 0, 0) < 0)
		return -ENOMEM;
	return node;
}

static int flame_add(const struct profile_stack *s, void *arg)
{
	struct flame *fl = arg;
	uint64_t v = s->metrics[fl->metric];
	if (!v)
		return 0;
	uint64_t node = 0;
	fl->nodes.a[2].v[0] += v;
	for (size_t i = 0; i < s->nframes; i++) {
		uint32_t f = s->frames[fl->inverted ? s->nframes - 1 - i : i];
		long c = flame_child(fl, node, f);
		if (c < 0)
			return (int)c;
		node = (uint64_t)c;
		fl->nodes.a[2].v[node] += v;
	}
	fl->nodes.a[3].v[node] += v;
	return 0;
}

/* Argument "root", a call path of function ids ("12,40,7": <Total>'s child first): its node (0 without one), or -1 after api_fail. */
static long flame_root(struct api_req *r, struct flame *fl)
{
	const char *s = api_arg(r, "root");
	long node = 0;
	for (const char *q = s; q && *q;) {
		char *end;
		errno = 0;
		unsigned long long id = strtoull(q, &end, 10);
		if (end == q || errno || *q == '-' || (*end && *end != ',') || id > UINT32_MAX)
			return api_fail(r, 400, "root '%s' is not a call path of function ids", s);
		int64_t lf = u64map_get(&fl->names.map, id);
		int64_t k = lf < 0 ? -1 : u64map_get(&fl->children, (uint64_t)node << 32 | (uint64_t)lf);
		if (k < 0)
			return api_fail(r, 404, "no call path %s in the flame graph", s);
		node = (long)k;
		q = *end ? end + 1 : end;
	}
	return node;
}

/*
 * The reply's nodes into out: root's ancestors (<Total> first), then root's
 * subtree but the nodes whose value is below root's / width (width 0: none)
 * and their descendants, counted in *ret_pruned; a node's value stays its
 * inclusive value.  Every node comes after its parent, as in fl->nodes.
 */
static int flame_prune(struct flame *fl, uint64_t root, uint64_t width, struct columns4 *out,
		       uint64_t *ret_pruned)
{
	size_t n = fl->nodes.a[0].n;
	const uint64_t *par = fl->nodes.a[0].v, *fn = fl->nodes.a[1].v, *val = fl->nodes.a[2].v,
		       *self = fl->nodes.a[3].v;
	uint32_t *map = malloc(n * sizeof *map); /* reply index of a kept node of the subtree */
	uint8_t *sub = calloc(n, 1);             /* 1: in root's subtree, kept; 2: pruned */
	int e = map && sub ? 0 : -ENOMEM;
	size_t depth = 0;
	for (uint64_t i = root; i != 0; i = par[i])
		depth++;
	for (size_t d = 0; e == 0 && d <= depth; d++) { /* the chain, <Total> first */
		uint64_t i = root;
		for (size_t k = d; k < depth; k++)
			i = par[i];
		e = columns4_push(out, d ? d - 1 : UINT32_MAX, fn[i], val[i], self[i]);
	}
	*ret_pruned = 0;
	if (e == 0) {
		map[root] = (uint32_t)depth;
		sub[root] = 1;
	}
	double limit = width ? (double)val[root] / (double)width : 0;
	for (size_t i = root + 1; e == 0 && i < n; i++) {
		uint8_t ps = sub[par[i]];
		if (!ps)
			continue;
		if (ps == 2 || (double)val[i] < limit) {
			sub[i] = 2;
			++*ret_pruned;
			continue;
		}
		sub[i] = 1;
		map[i] = (uint32_t)out->a[0].n;
		e = columns4_push(out, map[par[i]], fn[i], val[i], self[i]);
	}
	free(map);
	free(sub);
	return e;
}

/* The metric= of a view that adds values along stacks or in time: a ratio (IPC) is refused. */
static long summable_metric_arg(struct api_req *r)
{
	long m = api_metric_arg(r, "metric", "totalcpu");
	if (m < 0)
		return m;
	size_t nd;
	const struct metric_def *d = &profile_metric_defs(r->p, &nd)[m];
	if (d->unit == METRIC_UNIT_RATIO)
		return api_fail(r, 400,
				"metric '%s' is a ratio (%s / %s), not a quantity to add up along stacks",
				d->keyword, d->ratio_num, d->ratio_den);
	return m;
}

int api_flame(struct api_req *r)
{
	long m = summable_metric_arg(r);
	uint64_t width;
	if (m < 0 || count_arg(r, "width", 1000000, &width) < 0)
		return -1;
	const char *inv = api_arg(r, "inverted");
	struct flame fl = {.metric = (size_t)m, .inverted = inv && strcmp(inv, "1") == 0};
	struct columns4 out;
	memset(&out, 0, sizeof out);
	u64map_init(&fl.children);
	u64map_init(&fl.names.map);
	int e = fnames_get(&fl.names, PROFILE_FUNC_TOTAL) < 0 ||
				columns4_push(&fl.nodes, UINT32_MAX, 0, 0, 0) < 0
			? -ENOMEM
			: profile_foreach_stack(r->p, NULL, flame_add, &fl);
	long root = e == 0 ? flame_root(r, &fl) : 0;
	uint64_t pruned = 0;
	if (e == 0 && root >= 0)
		e = flame_prune(&fl, (uint64_t)root, width, &out, &pruned);
	if (e == 0 && root >= 0) {
		size_t nd;
		jsonw_key_string(&r->w, "metric", profile_metric_defs(r->p, &nd)[m].keyword);
		jsonw_key_bool(&r->w, "inverted", fl.inverted);
		uint64_t depth = 0; /* root's index in the reply: after its ancestors */
		for (uint64_t i = (uint64_t)root; i != 0; i = fl.nodes.a[0].v[i])
			depth++;
		jsonw_key_uint(&r->w, "root", depth);
		jsonw_key_uint(&r->w, "pruned", pruned);
		fnames_write(r, &fl.names);
		static const char *const keys[4] = {"parent", "func", "value", "self"};
		columns4_write(r, "nodes", keys, &out);
	}
	u64map_release(&fl.children);
	fnames_release(&fl.names);
	columns4_free(&fl.nodes);
	columns4_free(&out);
	return e < 0 ? api_fail(r, 500, "cannot walk the stacks: %s", strerror(-e)) : 0;
}

/* ------------------------------------------------------------ timeline */

struct timeline {
	struct profile *p;
	size_t metric;
	size_t *lane0; /* per experiment: the lane of its first thread */
	struct fnames names;
	struct columns4 events; /* t (shared time base), lane, leaf, value */
	uint64_t v0, v1;        /* the view: only the events of [v0, v1) */
	/* downsampling (width > 0): at most per_px events per lane and time bucket of span / width */
	uint64_t span, width, per_px, total;
	struct u64map kept; /* lane * width + bucket -> events kept there */
};

/* 1 if the event of lane at time t is kept, 0 if its bucket is full, -ENOMEM. */
static int timeline_keep(struct timeline *tl, uint64_t lane, uint64_t t)
{
	if (!tl->width)
		return 1;
	uint64_t b = tl->span ? (uint64_t)((double)(t - tl->v0) / (double)tl->span * (double)tl->width) : 0;
	uint64_t key = lane * tl->width + (b < tl->width ? b : tl->width - 1);
	int64_t n = u64map_get(&tl->kept, key);
	if (n >= (int64_t)tl->per_px)
		return 0;
	return u64map_put(&tl->kept, key, n < 0 ? 1 : (uint32_t)n + 1) < 0 ? -ENOMEM : 1;
}

static int timeline_add(const struct profile_stack *s, void *arg)
{
	struct timeline *tl = arg;
	uint64_t v = s->metrics[tl->metric];
	if (!v)
		return 0;
	const struct experiment *x = profile_experiment(tl->p, s->exp);
	uint64_t t = profile_experiment_offset_ns(tl->p, s->exp) + report_rel_ns(x, s->ts_ns);
	if (t < tl->v0 || t >= tl->v1)
		return 0;
	tl->total++;
	uint64_t lane = tl->lane0[s->exp] + s->thread;
	int k = timeline_keep(tl, lane, t);
	if (k <= 0)
		return k;
	long lf = fnames_get(&tl->names, s->frames[s->nframes - 1]);
	if (lf < 0)
		return (int)lf;
	return columns4_push(&tl->events, t, lane, (uint64_t)lf, v);
}

static void lanes(struct api_req *r)
{
	jsonw_key(&r->w, "lanes");
	jsonw_array_begin(&r->w);
	for (size_t i = 0; i < profile_experiment_count(r->p); i++) {
		const struct experiment *x = profile_experiment(r->p, i);
		for (size_t k = 0; k < experiment_thread_count(x); k++) {
			jsonw_object_begin(&r->w);
			jsonw_key_uint(&r->w, "experiment_id", i + 1);
			jsonw_key_uint(&r->w, "pid", experiment_log(x)->pid);
			jsonw_key_uint(&r->w, "start_ns", profile_experiment_offset_ns(r->p, i));
			jsonw_key_uint(&r->w, "thread", experiment_thread(x, k)->number);
			jsonw_key_uint(&r->w, "tid", experiment_thread(x, k)->tid);
			jsonw_object_end(&r->w);
		}
	}
	jsonw_array_end(&r->w);
}

int api_timeline(struct api_req *r)
{
	long m = summable_metric_arg(r);
	if (m < 0)
		return -1;
	size_t nd;
	const struct metric_def *d = &profile_metric_defs(r->p, &nd)[m];
	if (d->at_end)
		return api_fail(r, 400, "metric '%s' is a state at the end of the run, not events in time",
				d->keyword);
	uint64_t width, per_px, duration = 0, v0, v1;
	size_t nx = profile_experiment_count(r->p);
	for (size_t i = 0; i < nx; i++) {
		uint64_t end = profile_experiment_offset_ns(r->p, i) +
			       experiment_duration_ns(profile_experiment(r->p, i));
		duration = end > duration ? end : duration;
	}
	if (count_arg(r, "width", 100000, &width) < 0 || count_arg(r, "per_px", 1000, &per_px) < 0 ||
	    api_ns_arg(r, "v0", 0, &v0) < 0 || api_ns_arg(r, "v1", UINT64_MAX, &v1) < 0)
		return -1;
	if (v0 >= v1)
		return api_fail(r, 400, "the view v0 %llu to v1 %llu is empty", (unsigned long long)v0,
				(unsigned long long)v1);
	struct timeline tl = {.p = r->p,
			      .metric = (size_t)m,
			      .lane0 = calloc(nx + 1, sizeof(size_t)),
			      .v0 = v0,
			      .v1 = v1,
			      .span = (v1 == UINT64_MAX ? duration > v0 ? duration : v0 : v1) - v0,
			      .width = width,
			      .per_px = per_px ? per_px : 1};
	u64map_init(&tl.names.map);
	u64map_init(&tl.kept);
	int e = -ENOMEM;
	if (tl.lane0) {
		for (size_t i = 0; i < nx; i++)
			tl.lane0[i + 1] = tl.lane0[i] + experiment_thread_count(profile_experiment(r->p, i));
		struct profile_stacks_options o = {.flags = PROFILE_STACKS_BY_EVENT};
		e = profile_foreach_stack(r->p, &o, timeline_add, &tl);
	}
	if (e == 0) {
		jsonw_key_string(&r->w, "metric", d->keyword);
		jsonw_key_uint(&r->w, "duration_ns", duration);
		jsonw_key(&r->w, "view");
		jsonw_object_begin(&r->w);
		jsonw_key_uint(&r->w, "v0", v0);
		jsonw_key_uint(&r->w, "v1", v0 + tl.span);
		jsonw_object_end(&r->w);
		jsonw_key_uint(&r->w, "events_total", tl.total);
		if (width) {
			jsonw_key(&r->w, "downsampled");
			jsonw_object_begin(&r->w);
			jsonw_key_uint(&r->w, "width", width);
			jsonw_key_uint(&r->w, "per_px", tl.per_px);
			jsonw_object_end(&r->w);
		}
		lanes(r);
		fnames_write(r, &tl.names);
		static const char *const keys[4] = {"t", "lane", "leaf", "value"};
		columns4_write(r, "events", keys, &tl.events);
	}
	free(tl.lane0);
	u64map_release(&tl.kept);
	fnames_release(&tl.names);
	columns4_free(&tl.events);
	return e < 0 ? api_fail(r, 500, "cannot walk the events: %s", strerror(-e)) : 0;
}

/* ------------------------------------------------------------ call tree */

struct calltree {
	struct fnames names;
	struct u64v parent, func;
	VEC(const uint64_t *) values; /* per node: its inclusive vector (the profile's) */
	struct u64v path;             /* per depth: the reply index of the node walked last */
	size_t metric;                /* the sort metric */
	uint64_t width;               /* pruning: a node below the root's value / width is left out */
	double limit;
	uint64_t pruned; /* nodes left out (with their descendants, not counted) */
	int nomem;
};

static int calltree_node(void *arg, const struct metrics_node *n, size_t depth, int has_next)
{
	(void)has_next;
	struct calltree *ct = arg;
	if (depth == 0 && ct->width)
		ct->limit = (double)n->values[ct->metric] / (double)ct->width;
	else if ((double)n->values[ct->metric] < ct->limit) {
		ct->pruned++;
		return REPORT_TREE_SKIP;
	}
	long lf = fnames_get(&ct->names, n->func);
	uint64_t me = ct->func.n;
	if (lf < 0 || u64v_push(&ct->parent, depth ? ct->path.v[depth - 1] : UINT32_MAX) < 0 ||
	    u64v_push(&ct->func, (uint64_t)lf) < 0 || VEC_PUSH(&ct->values, n->values) < 0)
		goto nomem;
	ct->path.n = depth;
	if (u64v_push(&ct->path, me) < 0)
		goto nomem;
	return 0;
nomem:
	ct->nomem = 1;
	return REPORT_TREE_STOP;
}

static void key_u64v(struct api_req *r, const char *key, const struct u64v *a)
{
	jsonw_key(&r->w, key);
	jsonw_array_begin(&r->w);
	for (size_t i = 0; i < a->n; i++)
		jsonw_uint(&r->w, a->v[i]);
	jsonw_array_end(&r->w);
}

int api_calltree(struct api_req *r)
{
	struct mspec sort;
	struct calltree ct;
	memset(&ct, 0, sizeof ct);
	if (api_sort_arg(r, &sort) < 0 || count_arg(r, "width", 1000000, &ct.width) < 0)
		return -1;
	u64map_init(&ct.names.map);
	size_t sm = report_sort_metric(&sort.items[0]);
	ct.metric = sm;
	int e = report_tree_walk(r->p, sm, calltree_node, &ct);
	if (e == 0 && ct.nomem)
		e = -ENOMEM;
	if (e == 0) {
		size_t nd;
		const struct metric_def *d = profile_metric_defs(r->p, &nd);
		jsonw_key_string(&r->w, "sort_metric", d[sm].keyword);
		jsonw_key_uint(&r->w, "pruned", ct.pruned);
		fnames_write(r, &ct.names);
		jsonw_key(&r->w, "nodes");
		jsonw_object_begin(&r->w);
		key_u64v(r, "parent", &ct.parent);
		key_u64v(r, "func", &ct.func);
		jsonw_key(&r->w, "values"); /* per metric of the registry: each node's inclusive value */
		jsonw_array_begin(&r->w);
		for (size_t m = 0; m < nd; m++) {
			jsonw_array_begin(&r->w);
			for (size_t i = 0; i < ct.values.n; i++)
				jsonw_uint(&r->w, ct.values.v[i][m]);
			jsonw_array_end(&r->w);
		}
		jsonw_array_end(&r->w);
		jsonw_object_end(&r->w);
	}
	fnames_release(&ct.names);
	free(ct.parent.v);
	free(ct.func.v);
	free(ct.values.v);
	free(ct.path.v);
	return e < 0 ? api_fail(r, 500, "cannot walk the call tree: %s", strerror(-e)) : 0;
}
