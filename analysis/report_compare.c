/*
 * report_compare.c - lists and callers-callees blocks compared across
 * groups of experiments (see report_compare.h).  Items are matched by a key
 * string (display name, a unit separator, the load object's basename) in a
 * hash of key strings.  Two items of one side with the same key add up when
 * they are of different load objects (one program rebuilt, in two
 * experiments of a group) but stay apart when they are of the same object
 * (static functions of one name): the n-th of a side meets the n-th of the
 * others.
 */
#include "analysis/report_compare.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/report_calls.h"
#include "common/u64map.h"
#include "experiment/expgroup.h"

/* ------------------------------------------------------------ keyed rows */

/* Rows found by key, each with `width` values (zeroed when created). */
struct keyed {
	struct u64map map; /* hash of a key -> the last row created with that hash */
	char **keys, **names;
	uint32_t *next;  /* the previous row of the same hash, UINT32_MAX: none */
	uint32_t *stamp; /* 1 + the last side that took the row */
	uint32_t *tag;   /* ... and the load object it took it for */
	uint64_t *vals;  /* n x width */
	size_t n, cap, width;
};

static void keyed_init(struct keyed *k, size_t width)
{
	memset(k, 0, sizeof *k);
	u64map_init(&k->map);
	k->width = width;
}

static void keyed_release(struct keyed *k)
{
	for (size_t i = 0; i < k->n; i++) {
		free(k->keys[i]);
		free(k->names[i]);
	}
	free(k->keys);
	free(k->names);
	free(k->next);
	free(k->stamp);
	free(k->tag);
	free(k->vals);
	u64map_release(&k->map);
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

static int keyed_grow(struct keyed *k)
{
	size_t cap = k->cap ? k->cap * 2 : 64;
	char **keys = realloc(k->keys, cap * sizeof *keys);
	if (keys)
		k->keys = keys;
	char **names = realloc(k->names, cap * sizeof *names);
	if (names)
		k->names = names;
	uint32_t *next = realloc(k->next, cap * sizeof *next);
	if (next)
		k->next = next;
	uint32_t *stamp = realloc(k->stamp, cap * sizeof *stamp);
	if (stamp)
		k->stamp = stamp;
	uint32_t *tag = realloc(k->tag, cap * sizeof *tag);
	if (tag)
		k->tag = tag;
	uint64_t *vals = realloc(k->vals, cap * (k->width ? k->width : 1) * sizeof *vals);
	if (vals)
		k->vals = vals;
	if (!keys || !names || !next || !stamp || !tag || !vals || cap > UINT32_MAX)
		return -ENOMEM;
	k->cap = cap;
	return 0;
}

/* The row of key, or -1. */
static long keyed_find(const struct keyed *k, const char *key)
{
	int64_t i = u64map_get(&k->map, hash_str(key));
	for (; i >= 0; i = k->next[i] == UINT32_MAX ? -1 : (int64_t)k->next[i])
		if (strcmp(k->keys[i], key) == 0)
			return (long)i;
	return -1;
}

/* A new row for key named name: its index, or -ENOMEM. */
static long keyed_add(struct keyed *k, const char *key, const char *name)
{
	if (k->n == k->cap && keyed_grow(k) < 0)
		return -ENOMEM;
	uint64_t h = hash_str(key);
	int64_t head = u64map_get(&k->map, h);
	size_t i = k->n;
	k->keys[i] = strdup(key);
	k->names[i] = strdup(name);
	k->next[i] = head < 0 ? UINT32_MAX : (uint32_t)head;
	k->stamp[i] = 0;
	k->tag[i] = 0;
	memset(k->vals + i * k->width, 0, k->width * sizeof *k->vals);
	if (!k->keys[i] || !k->names[i] || u64map_put(&k->map, h, (uint32_t)i) < 0) {
		free(k->keys[i]);
		free(k->names[i]);
		return -ENOMEM;
	}
	k->n++;
	return (long)i;
}

/*
 * The row of key for side s and an item of load object obj: the first row
 * of that key (key, then key + "\x1e2", "\x1e3" ...) that side s has not
 * taken yet for obj, created if needed.
 */
static long keyed_take(struct keyed *k, const char *key, const char *name, size_t s, uint32_t obj)
{
	char buf[8300];
	snprintf(buf, sizeof buf, "%s", key);
	for (unsigned n = 2;; n++) {
		long i = keyed_find(k, buf);
		if (i < 0)
			i = keyed_add(k, buf, name);
		if (i < 0 || k->stamp[i] != s + 1 || k->tag[i] != obj) {
			if (i >= 0) {
				k->stamp[i] = (uint32_t)(s + 1);
				k->tag[i] = obj;
			}
			return i;
		}
		snprintf(buf, sizeof buf, "%s\x1e%u", key, n);
	}
}

/* ------------------------------------------------------------ sides */

/*
 * Select the experiments of side sd that kept[] (the selection being
 * compared) keeps.  0; 1 when it keeps none (nothing selected); -errno.
 */
static int select_side(struct profile *p, const struct report_compare_side *sd, const unsigned char *kept)
{
	size_t room = sd->count * 24 + 1, len = 0;
	char *spec = malloc(room);
	if (!spec)
		return -ENOMEM;
	spec[0] = '\0';
	for (size_t i = sd->first; i < sd->first + sd->count; i++)
		if (kept[i])
			len += (size_t)snprintf(spec + len, room - len, "%s%zu", len ? "," : "", i + 1);
	int r = 1;
	if (len) {
		char *err = NULL;
		r = profile_select_experiments(p, spec, &err);
		free(err);
	}
	free(spec);
	return r;
}

typedef int (*side_fn)(struct profile *p, size_t s, void *arg);

/* fn(p, s, arg) for each side s whose experiments are selected, computed; the selection restored. */
static int for_each_side(struct profile *p, const struct report_compare_side *sides, size_t nsides,
			 side_fn fn, void *arg)
{
	size_t nx = profile_experiment_count(p);
	if (nsides < 2)
		return -EINVAL;
	for (size_t s = 0; s < nsides; s++)
		if (sides[s].count == 0 || sides[s].first >= nx || sides[s].count > nx - sides[s].first)
			return -EINVAL;
	char *saved = strdup(profile_experiment_selection(p));
	unsigned char *kept = malloc(nx);
	int r = saved && kept ? 0 : -ENOMEM;
	for (size_t i = 0; r == 0 && i < nx; i++)
		kept[i] = (unsigned char)profile_experiment_selected(p, i);
	for (size_t s = 0; r == 0 && s < nsides; s++) {
		int sel = select_side(p, &sides[s], kept);
		if (sel < 0)
			r = sel;
		else if (sel == 0 && (r = profile_compute(p)) == 0)
			r = fn(p, s, arg);
	}
	if (saved) {
		char *err = NULL;
		int r2 = profile_select_experiments(p, saved, &err);
		free(err);
		if (r == 0)
			r = r2;
	}
	free(saved);
	free(kept);
	return r;
}

/* The load object of entity id of `what`, PROFILE_NO_OBJECT for none. */
static uint32_t object_of(const struct profile *p, enum report_what what, uint32_t id)
{
	if (what == REPORT_LINES)
		id = profile_line(p, id)->func;
	else if (what == REPORT_PCS)
		return profile_pc(p, id)->obj;
	return profile_func(p, id)->obj;
}

/* The key of entity id (name: its display name) into buf. */
static const char *key_of(const struct profile *p, enum report_what what, uint32_t id, const char *name,
			  char *buf, size_t room)
{
	uint32_t obj = object_of(p, what, id);
	snprintf(buf, room, "%s\x1f%s", name, obj == PROFILE_NO_OBJECT ? "" : profile_object(p, obj)->name);
	return buf;
}

static const struct metrics *engine_of(const struct profile *p, enum report_what what, size_t *ret_limit)
{
	/* engine ids 1 .. *ret_limit - 1 are the entities, 0 <Total> */
	switch (what) {
	case REPORT_LINES: *ret_limit = profile_line_count(p) + 1; return profile_line_metrics(p);
	case REPORT_PCS: *ret_limit = profile_pc_count(p) + 1; return profile_pc_metrics(p);
	default: *ret_limit = profile_func_count(p); return profile_metrics(p);
	}
}

/* Order rows by key[width - 1] (unless by name), then name, then index. */
struct order_ctx {
	const struct keyed *k;
	int by_name;
};

static int cmp_rows(const void *a, const void *b, void *ctx)
{
	const struct order_ctx *o = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	size_t w = o->k->width;
	uint64_t kx = o->k->vals[x * w + w - 1], ky = o->k->vals[y * w + w - 1];
	if (!o->by_name && kx != ky)
		return kx > ky ? -1 : 1;
	int c = strcmp(o->k->names[x], o->k->names[y]);
	return c ? c : (x > y) - (x < y);
}

/* The rows in report order into a malloc'd array; pinned: row 0 (<Total>) stays first. */
static uint32_t *order_rows(const struct keyed *k, int by_name, int pinned)
{
	uint32_t *ids = malloc((k->n ? k->n : 1) * sizeof *ids);
	if (!ids)
		return NULL;
	for (size_t i = 0; i < k->n; i++)
		ids[i] = (uint32_t)i;
	struct order_ctx o = {k, by_name};
	size_t skip = pinned && k->n ? 1 : 0;
	if (k->n > skip + 1)
		qsort_r(ids + skip, k->n - skip, sizeof *ids, cmp_rows, &o);
	return ids;
}

/* ------------------------------------------------------------ lists */

struct list_ctx {
	enum report_what what;
	const struct mspec *spec;
	const struct mspec_item *sort;
	report_name_fn name;
	void *arg;
	struct report_compare *c;
	struct keyed rows; /* values: nsides x ncols, then the baseline's sort key */
};

static int list_side(struct profile *p, size_t s, void *arg)
{
	struct list_ctx *x = arg;
	struct report_compare *c = x->c;
	size_t limit;
	const struct metrics *m = engine_of(p, x->what, &limit);
	for (size_t col = 0; col < c->ncols; col++)
		c->totals[s * c->ncols + col] = report_item_value(m, &c->cols[col], 0);
	for (uint32_t eid = 0; eid < limit; eid++) {
		long row = 0;
		if (eid != 0) {
			if (!metrics_seen(m, eid))
				continue;
			char name[8192], key[8300];
			uint32_t id = report_list_entity(x->what, eid);
			x->name(x->arg, x->what, id, name, sizeof name);
			row = keyed_take(&x->rows, key_of(p, x->what, id, name, key, sizeof key), name, s,
					 object_of(p, x->what, id));
			if (row < 0)
				return (int)row;
		}
		uint64_t *v = x->rows.vals + (size_t)row * x->rows.width;
		for (size_t col = 0; col < c->ncols; col++)
			v[s * c->ncols + col] += report_item_value(m, &c->cols[col], eid);
		if (s == 0)
			v[x->rows.width - 1] += report_item_value(m, x->sort, eid);
	}
	return 0;
}

void report_compare_free(struct report_compare *c)
{
	if (!c)
		return;
	for (size_t i = 0; c->rows && i < c->nrows; i++) {
		free(c->rows[i].name);
		free(c->rows[i].values);
	}
	free(c->rows);
	free(c->cols);
	free(c->totals);
	free(c);
}

/* Move the keyed rows, ordered, into c->rows. */
static int list_rows(struct list_ctx *x)
{
	struct report_compare *c = x->c;
	uint32_t *ids = order_rows(&x->rows, x->sort->kind == MSPEC_NAME, 1);
	c->rows = calloc(x->rows.n ? x->rows.n : 1, sizeof *c->rows);
	if (!ids || !c->rows) {
		free(ids);
		return -ENOMEM;
	}
	size_t nv = c->nsides * c->ncols;
	for (size_t i = 0; i < x->rows.n; i++) {
		struct report_compare_row *r = &c->rows[i];
		r->values = malloc((nv ? nv : 1) * sizeof *r->values);
		r->name = x->rows.names[ids[i]];
		x->rows.names[ids[i]] = NULL;
		c->nrows++;
		if (!r->values) {
			free(ids);
			return -ENOMEM;
		}
		memcpy(r->values, x->rows.vals + (size_t)ids[i] * x->rows.width, nv * sizeof *r->values);
	}
	free(ids);
	return 0;
}

int report_compare_list(struct profile *p, enum report_what what, const struct report_compare_side *sides,
			size_t nsides, const struct mspec *spec, const struct mspec_item *sort,
			report_name_fn name, void *arg, struct report_compare **ret)
{
	*ret = NULL;
	if (what == REPORT_OBJECTS || nsides < 2)
		return -EINVAL;
	int r = profile_compute(p);
	if (r < 0)
		return r;
	struct report_compare *c = calloc(1, sizeof *c);
	if (!c)
		return -ENOMEM;
	c->what = what;
	c->nsides = nsides;
	size_t limit;
	uint64_t *base = NULL;
	long nc = report_columns_of(what, spec, engine_of(p, what, &limit), &c->cols, &base);
	free(base);
	if (nc < 0) {
		free(c);
		return (int)nc;
	}
	c->ncols = (size_t)nc;
	c->totals = calloc(nsides * c->ncols + 1, sizeof *c->totals);
	struct list_ctx x = {.what = what, .spec = spec, .sort = sort, .name = name, .arg = arg, .c = c};
	keyed_init(&x.rows, nsides * c->ncols + 1);
	r = c->totals ? (int)keyed_add(&x.rows, "\x1f<Total>", "<Total>") : -ENOMEM;
	if (r >= 0)
		r = for_each_side(p, sides, nsides, list_side, &x);
	if (r >= 0)
		r = list_rows(&x);
	keyed_release(&x.rows);
	if (r < 0) {
		report_compare_free(c);
		return r;
	}
	*ret = c;
	return 0;
}

/* ------------------------------------------------------------ callers-callees */

/* A block's values: exclusive, base (nsides x nm each), then the baseline's sort key. */
struct calls_ctx {
	const struct mspec_item *sort;
	size_t sort_metric;
	report_name_fn name;
	void *arg;
	size_t nsides, nm;
	struct keyed blocks;
	struct keyed *callers, *callees; /* per block (blocks.cap of them) */
	size_t nedges_cap;
	long *row_of; /* per function id of the current side: its block */
};

/* Room for the edge lists of every block. */
static int calls_edges_room(struct calls_ctx *x)
{
	if (x->nedges_cap >= x->blocks.n)
		return 0;
	size_t cap = x->blocks.cap;
	struct keyed *a = realloc(x->callers, cap * sizeof *a);
	if (a)
		x->callers = a;
	struct keyed *b = realloc(x->callees, cap * sizeof *b);
	if (b)
		x->callees = b;
	if (!a || !b)
		return -ENOMEM;
	for (size_t i = x->nedges_cap; i < cap; i++) {
		keyed_init(&x->callers[i], x->nsides * x->nm + 1);
		keyed_init(&x->callees[i], x->nsides * x->nm + 1);
	}
	x->nedges_cap = cap;
	return 0;
}

/* Add side s's edges ed[0..n) to the edge rows e. */
static int calls_add_edges(struct calls_ctx *x, struct keyed *e, const struct metrics_edge *ed, size_t n,
			   size_t s)
{
	for (size_t i = 0; i < n; i++) {
		long b = x->row_of[ed[i].func];
		if (b < 0)
			continue;
		long row = keyed_find(e, x->blocks.keys[b]);
		if (row < 0)
			row = keyed_add(e, x->blocks.keys[b], x->blocks.names[b]);
		if (row < 0)
			return (int)row;
		uint64_t *v = e->vals + (size_t)row * e->width;
		for (size_t k = 0; k < x->nm; k++)
			v[s * x->nm + k] += ed[i].values[k];
		if (s == 0)
			v[e->width - 1] += ed[i].values[x->sort_metric];
	}
	return 0;
}

/* Side s's blocks: the functions matched first (edges need every block), then values and edges. */
static int calls_side(struct profile *p, size_t s, void *arg)
{
	struct calls_ctx *x = arg;
	int r;
	const struct metrics *m = profile_call_metrics(p, &r);
	if (!m)
		return r;
	size_t nf = profile_func_count(p); /* grows as sides resolve their PCs */
	long *row_of = realloc(x->row_of, (nf + 1) * sizeof *row_of);
	if (!row_of)
		return -ENOMEM;
	x->row_of = row_of;
	for (uint32_t f = 0; f < nf; f++) {
		x->row_of[f] = f == PROFILE_FUNC_TOTAL ? 0 : -1;
		if (f == PROFILE_FUNC_TOTAL || !metrics_seen(m, f))
			continue;
		char name[8192], key[8300];
		x->name(x->arg, REPORT_FUNCTIONS, f, name, sizeof name);
		x->row_of[f] = keyed_take(&x->blocks, key_of(p, REPORT_FUNCTIONS, f, name, key, sizeof key),
					  name, s, profile_func(p, f)->obj);
		if (x->row_of[f] < 0)
			return (int)x->row_of[f];
	}
	if ((r = calls_edges_room(x)) < 0)
		return r;
	size_t nm = x->nm, nv = x->nsides * nm;
	for (uint32_t f = 0; f < nf; f++) {
		long b = x->row_of[f];
		if (b < 0)
			continue;
		uint64_t *v = x->blocks.vals + (size_t)b * x->blocks.width;
		const uint64_t *ex = metrics_exclusive(m, f);
		const uint64_t *in = f == PROFILE_FUNC_TOTAL ? metrics_total(m) : metrics_inclusive(m, f);
		for (size_t k = 0; k < nm; k++) {
			v[s * nm + k] += ex[k];
			v[nv + s * nm + k] += in[k];
		}
		if (s == 0 && x->sort->kind == MSPEC_METRIC)
			v[2 * nv] += x->sort->flavor == MSPEC_EXCL && f != PROFILE_FUNC_TOTAL
					     ? ex[x->sort->metric]
					     : in[x->sort->metric];
		const struct metrics_edge *ed;
		size_t n = metrics_callers(m, f, &ed);
		if ((r = calls_add_edges(x, &x->callers[b], ed, n, s)) < 0)
			return r;
		n = metrics_callees(m, f, &ed);
		if ((r = calls_add_edges(x, &x->callees[b], ed, n, s)) < 0)
			return r;
	}
	return 0;
}

/* Move edge rows e, ordered, into *ret. */
static int calls_edges_out(struct keyed *e, size_t nv, struct report_compare_edge **ret, size_t *ret_n)
{
	*ret_n = 0;
	*ret = calloc(e->n ? e->n : 1, sizeof **ret);
	uint32_t *ids = order_rows(e, 0, 0);
	if (!*ret || !ids) {
		free(ids);
		return -ENOMEM;
	}
	for (size_t i = 0; i < e->n; i++) {
		struct report_compare_edge *d = &(*ret)[i];
		d->name = e->names[ids[i]];
		e->names[ids[i]] = NULL;
		d->values = malloc(nv * sizeof *d->values);
		(*ret_n)++;
		if (!d->values) {
			free(ids);
			return -ENOMEM;
		}
		memcpy(d->values, e->vals + (size_t)ids[i] * e->width, nv * sizeof *d->values);
	}
	free(ids);
	return 0;
}

static void edges_free(struct report_compare_edge *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++) {
		free(v[i].name);
		free(v[i].values);
	}
	free(v);
}

void report_compare_calls_free(struct report_compare_calls *c)
{
	if (!c)
		return;
	for (size_t i = 0; c->blocks && i < c->nblocks; i++) {
		struct report_compare_block *b = &c->blocks[i];
		free(b->name);
		free(b->exclusive);
		free(b->base);
		edges_free(b->callers, b->ncallers);
		edges_free(b->callees, b->ncallees);
	}
	free(c->blocks);
	free(c);
}

/* Move the blocks, ordered, into c. */
static int calls_out(struct calls_ctx *x, struct report_compare_calls *c)
{
	uint32_t *ids = order_rows(&x->blocks, x->sort->kind == MSPEC_NAME, 1);
	c->blocks = calloc(x->blocks.n ? x->blocks.n : 1, sizeof *c->blocks);
	if (!ids || !c->blocks) {
		free(ids);
		return -ENOMEM;
	}
	size_t nv = x->nsides * x->nm;
	int r = 0;
	for (size_t i = 0; r == 0 && i < x->blocks.n; i++) {
		struct report_compare_block *b = &c->blocks[i];
		uint32_t k = ids[i];
		c->nblocks++;
		b->name = x->blocks.names[k];
		x->blocks.names[k] = NULL;
		b->exclusive = malloc((nv ? nv : 1) * sizeof *b->exclusive);
		b->base = malloc((nv ? nv : 1) * sizeof *b->base);
		if (!b->exclusive || !b->base) {
			r = -ENOMEM;
			break;
		}
		memcpy(b->exclusive, x->blocks.vals + (size_t)k * x->blocks.width, nv * sizeof *b->exclusive);
		memcpy(b->base, x->blocks.vals + (size_t)k * x->blocks.width + nv, nv * sizeof *b->base);
		if (k < x->nedges_cap) {
			r = calls_edges_out(&x->callers[k], nv, &b->callers, &b->ncallers);
			if (r == 0)
				r = calls_edges_out(&x->callees[k], nv, &b->callees, &b->ncallees);
		}
	}
	free(ids);
	return r;
}

int report_compare_calls(struct profile *p, const struct report_compare_side *sides, size_t nsides,
			 const struct mspec_item *sort, report_name_fn name, void *arg,
			 struct report_compare_calls **ret)
{
	*ret = NULL;
	if (nsides < 2)
		return -EINVAL;
	int r = profile_compute(p);
	if (r < 0)
		return r;
	struct report_compare_calls *c = calloc(1, sizeof *c);
	if (!c)
		return -ENOMEM;
	size_t nm;
	profile_metric_defs(p, &nm);
	c->nsides = nsides;
	c->nmetrics = nm;
	struct calls_ctx x = {.sort = sort,
			      .sort_metric = report_sort_metric(sort),
			      .name = name,
			      .arg = arg,
			      .nsides = nsides,
			      .nm = nm};
	keyed_init(&x.blocks, 2 * nsides * nm + 1);
	r = (int)keyed_add(&x.blocks, "\x1f<Total>", "<Total>");
	if (r >= 0)
		r = for_each_side(p, sides, nsides, calls_side, &x);
	if (r >= 0)
		r = calls_out(&x, c);
	for (size_t i = 0; i < x.nedges_cap; i++) {
		keyed_release(&x.callers[i]);
		keyed_release(&x.callees[i]);
	}
	free(x.callers);
	free(x.callees);
	free(x.row_of);
	keyed_release(&x.blocks);
	if (r < 0) {
		report_compare_calls_free(c);
		return r;
	}
	*ret = c;
	return 0;
}

int report_compare_sides(const char *const *args, size_t nargs, const size_t *first_of,
			 struct report_compare_side **ret, size_t *ret_n)
{
	struct report_compare_side *v = calloc(nargs ? nargs : 1, sizeof *v);
	if (!v)
		return -ENOMEM;
	size_t path = 0, n = 0;
	char err[256];
	for (size_t i = 0; i < nargs; i++) {
		char **paths;
		size_t np;
		int r = expgroup_expand(args + i, 1, &paths, &np, err, sizeof err);
		if (r < 0) {
			report_compare_sides_free(v, n);
			return r;
		}
		expgroup_free_paths(paths, np);
		struct report_compare_side *s = &v[n];
		s->first = first_of[path];
		s->count = first_of[path + np] - s->first;
		path += np;
		if (s->count == 0)
			continue; /* a group of no experiment */
		size_t len = strlen(args[i]);
		while (len > 1 && args[i][len - 1] == '/')
			len--;
		const char *base = args[i] + len;
		while (base > args[i] && base[-1] != '/')
			base--;
		if (base == args[i] + len) /* "/" */
			base = args[i];
		char *name = strndup(base, (size_t)(args[i] + len - base));
		if (!name) {
			report_compare_sides_free(v, n);
			return -ENOMEM;
		}
		s->name = name;
		n++;
	}
	*ret = v;
	*ret_n = n;
	return 0;
}

void report_compare_sides_free(struct report_compare_side *sides, size_t n)
{
	for (size_t i = 0; sides && i < n; i++)
		free((char *)sides[i].name);
	free(sides);
}
