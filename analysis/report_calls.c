/*
 * report_calls.c - callers-callees blocks and the call tree walk (see
 * report_calls.h).  Edges are ordered with qsort_r's context, the tree
 * walked with an explicit stack (a call path may be thousands deep).
 */
#include "analysis/report_calls.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

size_t report_attr_items(const struct mspec *spec, struct mspec_item *ret)
{
	size_t n = 0;
	for (size_t i = 0; i < spec->n; i++) {
		const struct mspec_item *it = &spec->items[i];
		if (it->hidden || it->kind != MSPEC_METRIC)
			continue;
		int dup = 0;
		for (size_t j = 0; j < n; j++)
			dup |= ret[j].metric == it->metric;
		if (dup)
			continue;
		ret[n] = *it;
		ret[n].flavor = MSPEC_ATTR;
		ret[n].show_value = 1;
		ret[n].show_percent = 1;
		n++;
	}
	return n;
}

size_t report_sort_metric(const struct mspec_item *sort)
{
	return sort->kind == MSPEC_METRIC ? (size_t)sort->metric : 0;
}

struct edge_key {
	struct report_edge edge;
	char *name;
	size_t pos; /* in the engine's list */
};

static int cmp_edges(const void *a, const void *b, void *ctx)
{
	const struct edge_key *x = a, *y = b;
	size_t k = *(const size_t *)ctx;
	if (x->edge.values[k] != y->edge.values[k])
		return x->edge.values[k] > y->edge.values[k] ? -1 : 1;
	int c = strcmp(x->name, y->name);
	return c ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

/* The engine's edges ed[0..n) sorted into *ret (malloc'd). */
static int sort_edges(const struct metrics_edge *ed, size_t n, size_t k, report_name_fn name, void *arg,
		      struct report_edge **ret)
{
	struct edge_key *v = calloc(n ? n : 1, sizeof *v);
	*ret = malloc((n ? n : 1) * sizeof **ret);
	int r = v && *ret ? 0 : -ENOMEM;
	for (size_t i = 0; r == 0 && i < n; i++) {
		char buf[8192];
		v[i] = (struct edge_key){{ed[i].func, ed[i].values},
					 strdup(name(arg, REPORT_FUNCTIONS, ed[i].func, buf, sizeof buf)),
					 i};
		if (!v[i].name)
			r = -ENOMEM;
	}
	if (r == 0 && n > 1)
		qsort_r(v, n, sizeof *v, cmp_edges, &k);
	for (size_t i = 0; v && i < n; i++) {
		if (r == 0)
			(*ret)[i] = v[i].edge;
		free(v[i].name);
	}
	free(v);
	if (r < 0) {
		free(*ret);
		*ret = NULL;
	}
	return r;
}

int report_calls_of(struct profile *p, uint32_t f, size_t sort_metric, report_name_fn name, void *arg,
		    struct report_calls *ret)
{
	memset(ret, 0, sizeof *ret);
	int r;
	const struct metrics *m = profile_call_metrics(p, &r);
	if (!m)
		return r;
	size_t nm;
	profile_metric_defs(p, &nm);
	if (f >= profile_func_count(p) || (sort_metric >= nm && nm))
		return -EINVAL;
	const struct metrics_edge *ed;
	ret->func = f;
	ret->exclusive = metrics_exclusive(m, f);
	ret->base = f == PROFILE_FUNC_TOTAL ? metrics_total(m) : metrics_inclusive(m, f);
	ret->ncallers = metrics_callers(m, f, &ed);
	r = sort_edges(ed, ret->ncallers, sort_metric, name, arg, &ret->callers);
	ret->ncallees = metrics_callees(m, f, &ed);
	if (r == 0)
		r = sort_edges(ed, ret->ncallees, sort_metric, name, arg, &ret->callees);
	if (r < 0)
		report_calls_release(ret);
	return r;
}

void report_calls_release(struct report_calls *c)
{
	free(c->callers);
	free(c->callees);
	memset(c, 0, sizeof *c);
}

/* ------------------------------------------------------------ call tree */

static int cmp_nodes(const void *a, const void *b, void *ctx)
{
	const struct metrics_node *x = *(const struct metrics_node *const *)a,
				  *y = *(const struct metrics_node *const *)b;
	size_t k = *(const size_t *)ctx;
	if (x->values[k] != y->values[k])
		return x->values[k] > y->values[k] ? -1 : 1;
	return x->func < y->func ? -1 : x->func > y->func;
}

/* One level of the walk: a node's children in report order, and the next to visit. */
struct level {
	const struct metrics_node **kids;
	size_t n, next;
};

/* Push n's children, sorted, as a new level; 0 (nothing pushed for a leaf) or -ENOMEM. */
static int push_children(const struct metrics *m, const struct metrics_node *n, size_t k, struct level **lv,
			 size_t *depth, size_t *cap)
{
	size_t nk = 0;
	for (uint32_t c = n->first_child; c != UINT32_MAX; c = metrics_tree_node(m, c)->next_sibling)
		nk++;
	if (!nk)
		return 0;
	if (*depth == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;
		struct level *v = realloc(*lv, ncap * sizeof *v);
		if (!v)
			return -ENOMEM;
		*lv = v;
		*cap = ncap;
	}
	const struct metrics_node **kids = malloc(nk * sizeof *kids);
	if (!kids)
		return -ENOMEM;
	size_t i = 0;
	for (uint32_t c = n->first_child; c != UINT32_MAX; c = metrics_tree_node(m, c)->next_sibling)
		kids[i++] = metrics_tree_node(m, c);
	if (nk > 1)
		qsort_r(kids, nk, sizeof *kids, cmp_nodes, &k);
	(*lv)[(*depth)++] = (struct level){kids, nk, 0};
	return 0;
}

int report_tree_walk(struct profile *p, size_t sort_metric, report_tree_fn fn, void *arg)
{
	int r;
	const struct metrics *m = profile_call_metrics(p, &r);
	if (!m)
		return r;
	size_t nm;
	profile_metric_defs(p, &nm);
	if (sort_metric >= nm && nm)
		return -EINVAL;
	struct level *lv = NULL;
	size_t depth = 0, cap = 0;
	const struct metrics_node *root = metrics_tree_node(m, 0);
	int v = fn(arg, root, 0, 0);
	if (v == 0)
		r = push_children(m, root, sort_metric, &lv, &depth, &cap);
	while (r == 0 && v != REPORT_TREE_STOP && depth) {
		struct level *l = &lv[depth - 1];
		if (l->next == l->n) {
			free(l->kids);
			depth--;
			continue;
		}
		const struct metrics_node *n = l->kids[l->next++];
		v = fn(arg, n, depth, l->next < l->n);
		if (v == 0)
			r = push_children(m, n, sort_metric, &lv, &depth, &cap);
	}
	while (depth)
		free(lv[--depth].kids);
	free(lv);
	return r;
}
