/*
 * api_compare.c - /api/compare: compare mode's list (report_compare.h) of
 * functions, lines or PCs over the sides given on the command line (one
 * per argument, as er_print's `compare`), each side's raw values side by
 * side; the page formats them per mode as er_print does (delta +0.030,
 * ratio x 1.600).
 */
#include <errno.h>
#include <string.h>

#include "analysis/report_compare.h"
#include "analyzer/api_internal.h"

static int what_arg(struct api_req *r, enum report_what *ret)
{
	const char *s = api_arg(r, "what");
	if (!s || !*s || strcmp(s, "functions") == 0)
		*ret = REPORT_FUNCTIONS;
	else if (strcmp(s, "lines") == 0)
		*ret = REPORT_LINES;
	else if (strcmp(s, "pcs") == 0)
		*ret = REPORT_PCS;
	else
		return api_fail(r, 400, "what '%s' is not functions, lines or pcs", s);
	return 0;
}

static int mode_arg(struct api_req *r, const char **ret)
{
	const char *s = api_arg(r, "mode");
	if (!s || !*s)
		s = "on";
	if (strcmp(s, "on") != 0 && strcmp(s, "delta") != 0 && strcmp(s, "ratio") != 0)
		return api_fail(r, 400, "mode '%s' is not on, delta or ratio", s);
	*ret = s;
	return 0;
}

/* The metric list of argument "metrics" (the default list when absent), its metric columns only. */
static int metrics_arg(struct api_req *r, struct mspec *ret)
{
	const char *s = api_arg(r, "metrics");
	if (!s || !*s)
		s = mspec_default_metrics(r->p);
	char err[256];
	struct mspec all;
	if (mspec_parse(r->p, s, 0, &all, err, sizeof err) < 0)
		return api_fail(r, 400, "metrics: %s", err);
	ret->n = 0; /* a size or an address is no figure to compare */
	for (size_t i = 0; i < all.n; i++)
		if (all.items[i].kind == MSPEC_METRIC)
			ret->items[ret->n++] = all.items[i];
	return 0;
}

static void sides(struct api_req *r, const struct report_compare *c)
{
	jsonw_key(&r->w, "sides");
	jsonw_array_begin(&r->w);
	for (size_t s = 0; s < c->nsides; s++) {
		jsonw_object_begin(&r->w);
		jsonw_key_string(&r->w, "name", r->d->sides[s].name);
		jsonw_key_uint(&r->w, "first", r->d->sides[s].first + 1);
		jsonw_key_uint(&r->w, "count", r->d->sides[s].count);
		jsonw_key(&r->w, "totals");
		jsonw_array_begin(&r->w);
		for (size_t k = 0; k < c->ncols; k++)
			jsonw_uint(&r->w, c->totals[s * c->ncols + k]);
		jsonw_array_end(&r->w);
		jsonw_object_end(&r->w);
	}
	jsonw_array_end(&r->w);
}

/* "rows": name and "values": one array per side of its column values. */
static void rows(struct api_req *r, const struct report_compare *c)
{
	jsonw_key(&r->w, "rows");
	jsonw_array_begin(&r->w);
	for (size_t i = 0; i < c->nrows; i++) {
		jsonw_object_begin(&r->w);
		jsonw_key_string(&r->w, "name", c->rows[i].name);
		jsonw_key(&r->w, "values");
		jsonw_array_begin(&r->w);
		for (size_t s = 0; s < c->nsides; s++) {
			jsonw_array_begin(&r->w);
			for (size_t k = 0; k < c->ncols; k++)
				jsonw_uint(&r->w, c->rows[i].values[s * c->ncols + k]);
			jsonw_array_end(&r->w);
		}
		jsonw_array_end(&r->w);
		jsonw_object_end(&r->w);
	}
	jsonw_array_end(&r->w);
}

int api_compare(struct api_req *r)
{
	if (r->d->nsides < 2)
		return api_fail(r, 400,
				"compare needs two or more experiments (or groups); one is loaded: start "
				"the analyzer with more, e.g. analyzer base.er new.er");
	enum report_what what = REPORT_FUNCTIONS;
	const char *mode = "on";
	struct mspec spec, sort;
	if (what_arg(r, &what) < 0 || mode_arg(r, &mode) < 0 || metrics_arg(r, &spec) < 0 ||
	    api_sort_arg(r, &sort) < 0)
		return -1;
	struct report_compare *c;
	int e = report_compare_list(r->p, what, r->d->sides, r->d->nsides, &spec, &sort.items[0],
				    api_entity_name, r->p, &c);
	if (e < 0)
		return api_fail(r, e == -ENOMEM ? 500 : 400, "compare: %s",
				e == -ENOMEM ? "out of memory" : strerror(-e));
	char text[1024];
	mspec_format(r->p, &spec, text, sizeof text);
	jsonw_key_string(&r->w, "metrics", text);
	mspec_format(r->p, &sort, text, sizeof text);
	jsonw_key_string(&r->w, "sort", text);
	jsonw_key_string(&r->w, "mode", mode);
	struct api_cols cols;
	api_columns(r, c->cols, c->ncols, c->totals, &sort.items[0], &cols);
	sides(r, c);
	rows(r, c);
	report_compare_free(c);
	return 0;
}
