/*
 * report_calls.c - callers-callees (one block per function, in function-list
 * order), csingle (one function's callers and callees) and calltree.
 * Attributed values follow the manual's rules (analysis/metrics.h); the
 * percentages of a callers-callees block are of the focus function's
 * inclusive value, those of the call tree of <Total>.
 */
#include <stdlib.h>
#include <string.h>

#include "er_print/erp.h"
#include "er_print/report.h"
#include "er_print/table.h"

/* The metrics shown as attributed columns: each base metric of the list once. */
static size_t attr_items(struct erp *e, struct mspec_item *items)
{
	size_t n = 0;
	for (size_t i = 0; i < e->metrics.n; i++) {
		const struct mspec_item *it = &e->metrics.items[i];
		if (it->hidden || it->kind != MSPEC_METRIC)
			continue;
		int dup = 0;
		for (size_t j = 0; j < n; j++)
			dup |= items[j].metric == it->metric;
		if (dup)
			continue;
		items[n] = *it;
		items[n].flavor = MSPEC_ATTR;
		items[n].show_value = 1;
		items[n].show_percent = 1;
		n++;
	}
	return n;
}

static void attr_sort_title(struct erp *e, const struct mspec_item *items, size_t n, char *buf, size_t room)
{
	size_t nd;
	const struct metric_def *d = profile_metric_defs(&nd);
	const struct mspec_item *s = &e->sort.items[0];
	int metric = s->kind == MSPEC_METRIC ? s->metric : (n ? items[0].metric : 0);
	snprintf(buf, room, "Attributed %s", d[metric].username);
}

/*
 * Attributed columns, one per base metric of the list; base[k] is metric
 * k's 100%.  Returns the count; items/cols/titles are filled.
 */
static size_t attr_columns(struct erp *e, const uint64_t *base, struct mspec_item *items,
			   struct table_col *cols, char titles[][64])
{
	size_t nd;
	const struct metric_def *d = profile_metric_defs(&nd);
	size_t ni = attr_items(e, items);
	for (size_t c = 0; c < ni; c++) {
		snprintf(titles[c], 64, "Attr. %s", d[items[c].metric].abbrev);
		cols[c] = (struct table_col){.kind = TABLE_METRIC,
					     .title = titles[c],
					     .unit = d[items[c].metric].unit,
					     .show_value = 1,
					     .show_percent = 1,
					     .percent_base = base[items[c].metric],
					     .flavor = 'a',
					     .keyword = d[items[c].metric].keyword,
					     .username = d[items[c].metric].username,
					     .sort = c == 0};
	}
	return ni;
}

struct edge_sort {
	uint32_t func;
	const uint64_t *values;
	const char *name;
};

static int sort_metric;

static int cmp_edges(const void *a, const void *b)
{
	const struct edge_sort *x = a, *y = b;
	if (x->values[sort_metric] != y->values[sort_metric])
		return x->values[sort_metric] > y->values[sort_metric] ? -1 : 1;
	return strcmp(x->name, y->name);
}

static struct edge_sort *sorted_edges(struct erp *e, const struct metrics_edge *ed, size_t n, char **names)
{
	struct edge_sort *v = malloc((n ? n : 1) * sizeof *v);
	if (!v)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		v[i].func = ed[i].func;
		v[i].values = ed[i].values;
		v[i].name = names[ed[i].func];
	}
	const struct mspec_item *s = &e->sort.items[0];
	sort_metric = s->kind == MSPEC_METRIC ? s->metric : 0;
	qsort(v, n, sizeof *v, cmp_edges);
	return v;
}

/* One block: callers, the focus function with its exclusive value, callees. */
static int print_block(struct erp *e, uint32_t f, char **names, int fragment)
{
	const struct metrics *m = profile_metrics(e->prof);
	struct mspec_item items[MSPEC_MAX];
	struct table_col cols[MSPEC_MAX];
	char titles[MSPEC_MAX][64];
	/* percentages of the focus function's inclusive value */
	size_t ni = attr_columns(e, f == PROFILE_FUNC_TOTAL ? metrics_total(m) : metrics_inclusive(m, f),
				 items, cols, titles);
	struct table *t = table_new(cols, ni);
	const struct metrics_edge *ed;
	size_t ncallers = metrics_callers(m, f, &ed);
	struct edge_sort *callers = sorted_edges(e, ed, ncallers, names);
	size_t ncallees = metrics_callees(m, f, &ed);
	struct edge_sort *callees = sorted_edges(e, ed, ncallees, names);
	if (!t || !callers || !callees) {
		table_free(t);
		free(callers);
		free(callees);
		erp_error(e, "out of memory");
		return -1;
	}
	uint64_t vals[MSPEC_MAX];
	if (fragment)
		table_add_line(t, "============== Callers");
	for (size_t i = 0; i < ncallers; i++) {
		for (size_t c = 0; c < ni; c++)
			vals[c] = callers[i].values[items[c].metric];
		table_add_row(t, vals, NULL, callers[i].name, 0);
	}
	if (fragment) {
		table_add_line(t, "");
		table_add_line(t, "============== Stack Fragment");
	}
	for (size_t c = 0; c < ni; c++)
		vals[c] = metrics_exclusive(m, f)[items[c].metric];
	table_add_row(t, vals, NULL, names[f], fragment ? 0 : '*');
	if (fragment) {
		table_add_line(t, "");
		table_add_line(t, "============== Callees");
	}
	for (size_t i = 0; i < ncallees; i++) {
		for (size_t c = 0; c < ni; c++)
			vals[c] = callees[i].values[items[c].metric];
		table_add_row(t, vals, NULL, callees[i].name, 0);
	}
	erp_table_print(e, t);
	fputc('\n', e->out);
	table_free(t);
	free(callers);
	free(callees);
	return 0;
}

int report_callers_callees(struct erp *e, const char *arg)
{
	(void)arg;
	if (report_prepare(e) < 0)
		return -1;
	char title[256];
	struct mspec_item items[MSPEC_MAX];
	size_t ni = attr_items(e, items);
	report_sort_title(e, title, sizeof title);
	fprintf(e->out, "Functions sorted by metric: %s\n", title);
	attr_sort_title(e, items, ni, title, sizeof title);
	fprintf(e->out, "Callers and callees sorted by metric: %s\n\n", title);
	uint32_t *ids;
	char **names;
	size_t n = report_sorted_funcs(e, &ids, &names);
	if (!ids) {
		erp_error(e, "out of memory");
		return -1;
	}
	size_t rows = report_rows(e, n);
	int r = 0;
	for (size_t i = 0; i < rows && r == 0; i++)
		r = print_block(e, ids[i], names, 0);
	free(ids);
	report_free_names(e, names);
	return r;
}

int report_csingle(struct erp *e, const char *arg)
{
	if (report_prepare(e) < 0)
		return -1;
	uint32_t f;
	if (report_resolve_function(e, arg, &f) < 0)
		return -1;
	char title[256];
	struct mspec_item items[MSPEC_MAX];
	size_t ni = attr_items(e, items);
	attr_sort_title(e, items, ni, title, sizeof title);
	fprintf(e->out, "Callers and callees sorted by metric: %s\n\n", title);
	uint32_t *ids;
	char **names;
	report_sorted_funcs(e, &ids, &names);
	if (!ids) {
		erp_error(e, "out of memory");
		return -1;
	}
	int r = print_block(e, f, names, 1);
	free(ids);
	report_free_names(e, names);
	return r;
}

/* ------------------------------------------------------------ call tree */

struct tree_ctx {
	struct erp *e;
	const struct metrics *m;
	char **names;
	struct table *t;
	struct mspec_item *items;
	size_t ni;
	char prefix[3 * 6200];      /* 3 chars per level: deeper than the collector's 6000-frame limit */
	char line[3 * 6200 + 4096]; /* scratch: recursion depth must not multiply stack use */
	size_t rows, max_rows;
};

static int cmp_nodes(const void *a, const void *b)
{
	const struct metrics_node *x = *(const struct metrics_node *const *)a,
				  *y = *(const struct metrics_node *const *)b;
	if (x->values[sort_metric] != y->values[sort_metric])
		return x->values[sort_metric] > y->values[sort_metric] ? -1 : 1;
	return x->func < y->func ? -1 : x->func > y->func;
}

/*
 * Print node n, then its children.  A line's prefix holds one piece per
 * ancestor below the root: "|  " if that ancestor has a later sibling, else
 * two spaces (gprofng's layout).
 */
static void tree_walk(struct tree_ctx *c, const struct metrics_node *n, size_t plen, int has_next)
{
	if (c->max_rows && c->rows >= c->max_rows)
		return;
	uint64_t vals[MSPEC_MAX];
	for (size_t i = 0; i < c->ni; i++)
		vals[i] = n->values[c->items[i].metric];
	snprintf(c->line, sizeof c->line, "%.*s+-%s", (int)plen, c->prefix, c->names[n->func]);
	table_add_row(c->t, vals, NULL, c->line, 0);
	c->rows++;
	size_t nk = 0;
	for (uint32_t k = n->first_child; k != UINT32_MAX; k = metrics_tree_node(c->m, k)->next_sibling)
		nk++;
	const char *piece = has_next ? "|  " : "  ";
	size_t l = strlen(piece);
	if (!nk || plen + l + 2 >= sizeof c->prefix)
		return;
	const struct metrics_node **kids = malloc(nk * sizeof *kids);
	if (!kids)
		return;
	size_t i = 0;
	for (uint32_t k = n->first_child; k != UINT32_MAX; k = metrics_tree_node(c->m, k)->next_sibling)
		kids[i++] = metrics_tree_node(c->m, k);
	qsort(kids, nk, sizeof *kids, cmp_nodes);
	for (i = 0; i < nk; i++) {
		memcpy(c->prefix + plen, piece, l);
		tree_walk(c, kids[i], plen + l, i + 1 < nk);
	}
	free(kids);
}

int report_calltree(struct erp *e, const char *arg)
{
	(void)arg;
	if (report_prepare(e) < 0)
		return -1;
	const struct metrics *m = profile_metrics(e->prof);
	struct mspec_item items[MSPEC_MAX];
	struct table_col cols[MSPEC_MAX];
	char titles[MSPEC_MAX][64];
	size_t ni = attr_columns(e, metrics_total(m), items, cols, titles);
	char title[256];
	attr_sort_title(e, items, ni, title, sizeof title);
	fprintf(e->out, "Functions Call Tree. Metric: %s\n\n", title);
	uint32_t *ids;
	char **names;
	report_sorted_funcs(e, &ids, &names);
	struct tree_ctx *c = calloc(1, sizeof *c);
	struct table *t = table_new(cols, ni);
	if (!ids || !c || !t) {
		free(ids);
		free(c);
		table_free(t);
		report_free_names(e, names);
		erp_error(e, "out of memory");
		return -1;
	}
	c->e = e;
	c->m = m;
	c->names = names;
	c->t = t;
	c->items = items;
	c->ni = ni;
	c->max_rows = e->limit > 0 ? (size_t)e->limit : 0;
	const struct mspec_item *s = &e->sort.items[0];
	sort_metric = s->kind == MSPEC_METRIC ? s->metric : 0;
	tree_walk(c, metrics_tree_node(m, 0), 0, 0);
	erp_table_print(e, t);
	fputc('\n', e->out);
	table_free(t);
	free(c);
	free(ids);
	report_free_names(e, names);
	return 0;
}
