/*
 * show_compare.c - compare mode (`compare on|off|delta|ratio`, Oracle
 * 12.5+ and gprofng): functions, lines, PCs and callers-callees with each
 * metric column once per experiment (or group) as given, side by side in
 * gprofng's layout: the experiment's name above each column, the first
 * (baseline) as values, the others as values, signed differences or ratios
 * against it, every percentage of its own experiment's total.  The model
 * is analysis/report_compare.h's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analysis/report_calls.h"
#include "er_print/erp.h"
#include "er_print/show.h"
#include "er_print/table.h"
#include "er_print/textout.h"

static const char *mode_word(char c)
{
	return c == 'o' ? "on" : c == 'd' ? "delta" : c == 'r' ? "ratio" : "off";
}

int cmd_compare(struct erp *e, const char *arg)
{
	if (arg) {
		static const char modes[] = {0, 'o', 'd', 'r'};
		size_t i = 0;
		while (i < 4 && strcasecmp(arg, mode_word(modes[i])) != 0)
			i++;
		if (i == 4) {
			erp_error(e, "compare: '%s' is not on, off, delta or ratio", arg);
			return -1;
		}
		if (modes[i] && e->nsides < 2) {
			erp_error(
				e,
				"compare %s: only one experiment (or group) is loaded; compare needs two or "
				"more, e.g. er_print -compare %s base.er new.er",
				arg, arg);
			return -1;
		}
		e->compare = modes[i];
	}
	textout_printf(e->out, "Compare mode set to %s\n", mode_word(e->compare));
	return 0;
}

int show_compare_active(const struct erp *e)
{
	return e->compare && e->nsides > 1;
}

static void error_r(struct erp *e, int r)
{
	erp_error(e, "compare: %s", r == -ENOMEM ? "out of memory" : strerror(-r));
}

/*
 * Table columns: each of the n base columns (show_columns) once per side,
 * side by side, with side s's 100% of base column c at totals[s * n + c].
 * Returns the count, or 0 after an error message when they do not fit.
 */
static size_t side_columns(struct erp *e, const struct table_col *base, size_t n, const uint64_t *totals,
			   struct table_col *cols)
{
	size_t ns = e->nsides;
	if (n * ns > 40) {
		erp_error(e, "compare: %zu metric columns for %zu experiments are too many (40 at most)", n,
			  ns);
		return 0;
	}
	for (size_t c = 0; c < n; c++)
		for (size_t s = 0; s < ns; s++) {
			struct table_col *t = &cols[c * ns + s];
			*t = base[c];
			t->group = e->sides[s].name;
			t->side = (int)s + 1;
			t->percent_base = totals[s * n + c];
			t->sort = base[c].sort && s == 0;
			if (s > 0 && e->compare != 'o') {
				t->compare = e->compare;
				t->compare_base = c * ns;
			}
		}
	return n * ns;
}

/* Values of a row: side s's value of column c (at v[s * n + c]) to column c * nsides + s. */
static void side_values(size_t ns, size_t n, const uint64_t *v, uint64_t *out)
{
	for (size_t c = 0; c < n; c++)
		for (size_t s = 0; s < ns; s++)
			out[c * ns + s] = v[s * n + c];
}

int show_compare_print_list(struct erp *e, enum report_what what)
{
	struct report_compare *m;
	/* the metric columns only: a size or an address is no figure to compare */
	struct mspec spec = {.n = 0};
	for (size_t i = 0; i < e->metrics.n; i++)
		if (e->metrics.items[i].kind == MSPEC_METRIC)
			spec.items[spec.n++] = e->metrics.items[i];
	int r = report_compare_list(e->prof, what, e->sides, e->nsides, &spec, &e->sort.items[0],
				    show_entity_name, e, &m);
	if (r < 0) {
		error_r(e, r);
		return -1;
	}
	struct table_col base[MSPEC_MAX], cols[40];
	char titles[MSPEC_MAX][64];
	uint64_t zero[MSPEC_MAX] = {0};
	show_columns(e, m->cols, m->ncols, zero, base, titles);
	size_t nc = side_columns(e, base, m->ncols, m->totals, cols);
	struct table *t = nc || !m->ncols ? table_new(cols, nc) : NULL;
	if (!t) {
		if (nc || !m->ncols)
			erp_error(e, "out of memory");
		report_compare_free(m);
		return -1;
	}
	size_t rows = show_rows(e, m->nrows);
	for (size_t i = 0; i < rows; i++) {
		uint64_t vals[40];
		side_values(e->nsides, m->ncols, m->rows[i].values, vals);
		table_add_row(t, vals, NULL, m->rows[i].name, 0);
	}
	erp_table_print(e, t);
	fputc('\n', e->out);
	table_free(t);
	report_compare_free(m);
	return 0;
}

/* The rows of edges v[0..n) (attributed vectors per side) in table t. */
static void add_edges(struct erp *e, struct table *t, const struct report_compare_edge *v, size_t n,
		      const struct mspec_item *items, size_t ni, size_t nm)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t vals[40];
		for (size_t c = 0; c < ni; c++)
			for (size_t s = 0; s < e->nsides; s++)
				vals[c * e->nsides + s] = v[i].values[s * nm + (size_t)items[c].metric];
		table_add_row(t, vals, NULL, v[i].name, 0);
	}
}

/* One block: callers, the function (marked '*') with its exclusive values, callees. */
static int print_block(struct erp *e, const struct report_compare_calls *cc,
		       const struct report_compare_block *b)
{
	size_t ns = e->nsides, nm = cc->nmetrics;
	struct mspec_item items[MSPEC_MAX];
	struct table_col base[MSPEC_MAX] = {{0}}, cols[40];
	char titles[MSPEC_MAX][64];
	uint64_t totals[40] = {0};
	/* the side's 100% is set per column below: b->base for metric k of side s */
	size_t ni = show_attr_columns(e, b->base, items, base, titles);
	if (ni * ns > 40)
		return side_columns(e, base, ni, totals, cols) ? 0 : -1; /* its message */
	for (size_t c = 0; c < ni; c++)
		for (size_t s = 0; s < ns; s++)
			totals[s * ni + c] = b->base[s * nm + (size_t)items[c].metric];
	size_t nc = side_columns(e, base, ni, totals, cols);
	struct table *t = nc || !ni ? table_new(cols, nc) : NULL;
	if (!t) {
		if (nc || !ni)
			erp_error(e, "out of memory");
		return -1;
	}
	add_edges(e, t, b->callers, b->ncallers, items, ni, nm);
	uint64_t vals[40];
	for (size_t c = 0; c < ni; c++)
		for (size_t s = 0; s < ns; s++)
			vals[c * ns + s] = b->exclusive[s * nm + (size_t)items[c].metric];
	table_add_row(t, vals, NULL, b->name, '*');
	add_edges(e, t, b->callees, b->ncallees, items, ni, nm);
	erp_table_print(e, t);
	fputc('\n', e->out);
	table_free(t);
	return 0;
}

int show_compare_print_calls(struct erp *e)
{
	struct report_compare_calls *cc;
	int r = report_compare_calls(e->prof, e->sides, e->nsides, &e->sort.items[0], show_entity_name, e,
				     &cc);
	if (r < 0) {
		error_r(e, r);
		return -1;
	}
	size_t rows = show_rows(e, cc->nblocks);
	r = 0;
	for (size_t i = 0; i < rows && r == 0; i++)
		r = print_block(e, cc, &cc->blocks[i]);
	report_compare_calls_free(cc);
	return r;
}
