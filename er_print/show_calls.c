/*
 * show_calls.c - callers-callees (one block per function, in function-list
 * order), csingle (one function's callers and callees) and calltree, as
 * text tables.  The blocks, their order and the tree walk are
 * analysis/report_calls.h's model; the percentages of a callers-callees
 * block are of the focus function's inclusive value, those of the call
 * tree of <Total>.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/json_schema.h"
#include "analysis/report_calls.h"
#include "er_print/erp.h"
#include "er_print/show.h"
#include "er_print/table.h"
#include "er_print/textout.h"

static void attr_sort_title(struct erp *e, const struct mspec_item *items, size_t n, char *buf, size_t room)
{
	size_t nd;
	const struct metric_def *d = profile_metric_defs(e->prof, &nd);
	const struct mspec_item *s = &e->sort.items[0];
	int metric = s->kind == MSPEC_METRIC ? s->metric : (n ? items[0].metric : 0);
	snprintf(buf, room, "Attributed %s", d[metric].username);
}

size_t show_attr_columns(struct erp *e, const uint64_t *base, struct mspec_item *items,
			 struct table_col *cols, char titles[][64])
{
	size_t nd;
	const struct metric_def *d = profile_metric_defs(e->prof, &nd);
	size_t ni = report_attr_items(&e->metrics, items);
	for (size_t c = 0; c < ni; c++) {
		int m = items[c].metric;
		struct json_col j;
		json_attr_col(e->prof, m, base[m], c == 0, &j, titles[c], 64);
		cols[c] = (struct table_col){.kind = TABLE_METRIC,
					     .title = j.title,
					     .unit = j.unit,
					     .show_value = 1,
					     .show_percent = j.show_percent,
					     .percent_base = j.total,
					     .flavor = j.flavor,
					     .keyword = j.keyword,
					     .username = d[m].username,
					     .sort = j.sort};
	}
	return ni;
}

static void erp_error_r(struct erp *e, int r)
{
	erp_error(e, "%s", r == -ENOMEM ? "out of memory" : strerror(-r));
}

static void add_edges(struct erp *e, struct table *t, const struct report_edge *v, size_t n,
		      const struct mspec_item *items, size_t ni)
{
	uint64_t vals[MSPEC_MAX];
	char name[4096];
	for (size_t i = 0; i < n; i++) {
		for (size_t c = 0; c < ni; c++)
			vals[c] = v[i].values[items[c].metric];
		table_add_row(t, vals, NULL,
			      erp_func_name(e, profile_func(e->prof, v[i].func), name, sizeof name), 0);
	}
}

/* One block: callers, the focus function with its exclusive value, callees. */
static int print_block(struct erp *e, uint32_t f, int fragment)
{
	struct report_calls rc;
	int r = report_calls_of(e->prof, f, report_sort_metric(&e->sort.items[0]), show_entity_name, e, &rc);
	if (r < 0) {
		erp_error_r(e, r);
		return -1;
	}
	struct mspec_item items[MSPEC_MAX];
	struct table_col cols[MSPEC_MAX];
	char titles[MSPEC_MAX][64], name[4096];
	size_t ni = show_attr_columns(e, rc.base, items, cols, titles);
	struct table *t = table_new(cols, ni);
	if (!t) {
		report_calls_release(&rc);
		erp_error(e, "out of memory");
		return -1;
	}
	if (fragment)
		table_add_line(t, "============== Callers");
	add_edges(e, t, rc.callers, rc.ncallers, items, ni);
	if (fragment) {
		table_add_line(t, "");
		table_add_line(t, "============== Stack Fragment");
	}
	uint64_t vals[MSPEC_MAX];
	for (size_t c = 0; c < ni; c++)
		vals[c] = rc.exclusive[items[c].metric];
	table_add_row(t, vals, NULL, erp_func_name(e, profile_func(e->prof, f), name, sizeof name),
		      fragment ? 0 : '*');
	if (fragment) {
		table_add_line(t, "");
		table_add_line(t, "============== Callees");
	}
	add_edges(e, t, rc.callees, rc.ncallees, items, ni);
	erp_table_print(e, t);
	fputc('\n', e->out);
	table_free(t);
	report_calls_release(&rc);
	return 0;
}

int show_callers_callees(struct erp *e, const char *arg)
{
	(void)arg;
	if (show_prepare(e) < 0)
		return -1;
	char title[256];
	struct mspec_item items[MSPEC_MAX];
	size_t ni = report_attr_items(&e->metrics, items);
	show_sort_title(e, title, sizeof title);
	textout_printf(e->out, "Functions sorted by metric: %s\n", title);
	attr_sort_title(e, items, ni, title, sizeof title);
	textout_printf(e->out, "Callers and callees sorted by metric: %s\n\n", title);
	if (show_compare_active(e))
		return show_compare_print_calls(e);
	struct report_list *l = show_list_get(e, REPORT_FUNCTIONS);
	if (!l)
		return -1;
	size_t rows = show_rows(e, l->nrows);
	int r = 0;
	for (size_t i = 0; i < rows && r == 0; i++)
		r = print_block(e, l->ids[i], 0);
	report_list_free(l);
	return r;
}

int show_csingle(struct erp *e, const char *arg)
{
	if (show_prepare(e) < 0)
		return -1;
	uint32_t f;
	if (show_resolve_function(e, arg, &f) < 0)
		return -1;
	char title[256];
	struct mspec_item items[MSPEC_MAX];
	size_t ni = report_attr_items(&e->metrics, items);
	attr_sort_title(e, items, ni, title, sizeof title);
	textout_printf(e->out, "Callers and callees sorted by metric: %s\n\n", title);
	return print_block(e, f, 1);
}

/* ------------------------------------------------------------ call tree */

#define PREFIX_MAX (3 * 6200) /* 3 chars per level: deeper than the collector's 6000-frame limit */

struct tree_ctx {
	struct erp *e;
	struct table *t;
	struct mspec_item *items;
	size_t ni;
	char prefix[PREFIX_MAX];
	size_t *plen; /* per depth, the length of its rows' prefix */
	size_t depth_cap;
	char line[PREFIX_MAX + 4096];
	size_t rows, max_rows;
	int nomem;
};

/*
 * One row per node.  A line's prefix holds one piece per ancestor below the
 * root: "|  " if that ancestor has a later sibling, else two spaces
 * (gprofng's layout); a node whose children's prefix would not fit is not
 * entered.
 */
static int tree_row(void *arg, const struct metrics_node *n, size_t depth, int has_next)
{
	struct tree_ctx *c = arg;
	if (c->max_rows && c->rows >= c->max_rows)
		return REPORT_TREE_STOP;
	if (depth + 1 >= c->depth_cap) {
		size_t cap = (depth + 1) * 2;
		size_t *v = realloc(c->plen, cap * sizeof *v);
		if (!v) {
			c->nomem = 1;
			return REPORT_TREE_STOP;
		}
		c->plen = v;
		c->depth_cap = cap;
	}
	size_t plen = depth ? c->plen[depth] : 0;
	uint64_t vals[MSPEC_MAX];
	for (size_t i = 0; i < c->ni; i++)
		vals[i] = n->values[c->items[i].metric];
	char name[4096];
	snprintf(c->line, sizeof c->line, "%.*s+-%s", (int)plen, c->prefix,
		 erp_func_name(c->e, profile_func(c->e->prof, n->func), name, sizeof name));
	table_add_row(c->t, vals, NULL, c->line, 0);
	c->rows++;
	const char *piece = has_next ? "|  " : "  ";
	size_t l = strlen(piece);
	if (plen + l + 2 >= sizeof c->prefix)
		return REPORT_TREE_SKIP;
	memcpy(c->prefix + plen, piece, l);
	c->plen[depth + 1] = plen + l;
	return 0;
}

int show_calltree(struct erp *e, const char *arg)
{
	(void)arg;
	if (show_prepare(e) < 0)
		return -1;
	const struct metrics *m = profile_metrics(e->prof);
	struct mspec_item items[MSPEC_MAX];
	struct table_col cols[MSPEC_MAX];
	char titles[MSPEC_MAX][64];
	size_t ni = show_attr_columns(e, metrics_total(m), items, cols, titles);
	char title[256];
	attr_sort_title(e, items, ni, title, sizeof title);
	textout_printf(e->out, "Functions Call Tree. Metric: %s\n\n", title);
	struct tree_ctx *c = calloc(1, sizeof *c);
	struct table *t = table_new(cols, ni);
	if (!c || !t) {
		free(c);
		table_free(t);
		erp_error(e, "out of memory");
		return -1;
	}
	c->e = e;
	c->t = t;
	c->items = items;
	c->ni = ni;
	c->max_rows = e->limit > 0 ? (size_t)e->limit : 0;
	int r = report_tree_walk(e->prof, report_sort_metric(&e->sort.items[0]), tree_row, c);
	if (r == 0 && c->nomem)
		r = -ENOMEM;
	if (r < 0) {
		erp_error_r(e, r);
	} else {
		erp_table_print(e, t);
		fputc('\n', e->out);
	}
	table_free(t);
	free(c->plen);
	free(c);
	return r < 0 ? -1 : 0;
}
