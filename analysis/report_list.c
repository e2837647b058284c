/*
 * report_list.c - metric-list values and list order (see report_list.h).
 */
#include "analysis/report_list.h"

#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "analysis/profile.h"

uint64_t report_item_value(const struct metrics *m, const struct mspec_item *it, uint32_t f)
{
	if (it->kind != MSPEC_METRIC)
		return 0;
	if (f == PROFILE_FUNC_TOTAL)
		return metrics_total(m)[it->metric];
	return it->flavor == MSPEC_EXCL ? metrics_exclusive(m, f)[it->metric]
					: metrics_inclusive(m, f)[it->metric];
}

struct sort_ctx {
	const uint64_t *key;
	char *const *names;
	int by_name;
};

static int cmp_ids(const void *a, const void *b, void *ctx)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct sort_ctx *s = ctx;
	if (!s->by_name && s->key[x] != s->key[y])
		return s->key[x] > s->key[y] ? -1 : 1;
	int c = strcmp(s->names[x], s->names[y]);
	return c ? c : (x > y) - (x < y);
}

void report_sort_ids(uint32_t *ids, size_t n, const uint64_t *key, char *const *names, int by_name)
{
	struct sort_ctx s = {.key = key, .names = names, .by_name = by_name};
	if (n > 1)
		qsort_r(ids, n, sizeof *ids, cmp_ids, &s);
}

uint32_t report_list_entity(enum report_what what, uint32_t engine_id)
{
	return what == REPORT_FUNCTIONS ? engine_id : engine_id - 1;
}

static const struct metrics *engine_of(const struct profile *p, enum report_what what, size_t *ret_count)
{
	switch (what) {
	case REPORT_FUNCTIONS: *ret_count = profile_func_count(p); return profile_metrics(p);
	case REPORT_OBJECTS: *ret_count = profile_object_count(p); return profile_object_metrics(p);
	case REPORT_LINES: *ret_count = profile_line_count(p); return profile_line_metrics(p);
	case REPORT_PCS: *ret_count = profile_pc_count(p); return profile_pc_metrics(p);
	}
	*ret_count = 0;
	return NULL;
}

/* Whether item it is a column of a list of `what`. */
static int shows(enum report_what what, const struct mspec_item *it)
{
	if (it->hidden || it->flavor == MSPEC_ATTR || it->kind == MSPEC_NAME)
		return 0;
	return what != REPORT_OBJECTS || it->kind == MSPEC_METRIC;
}

void report_list_free(struct report_list *l)
{
	if (!l)
		return;
	for (size_t i = 0; l->names && i < l->nrows; i++)
		free(l->names[i]);
	free(l->names);
	free(l->ids);
	free(l->cols);
	free(l->values);
	free(l->percent_base);
	free(l);
}

/* The entities with data, sorted, after row 0 (<Total>); names of every engine id in byid. */
static int sort_rows(struct report_list *l, size_t count, const struct mspec_item *sort, report_name_fn name,
		     void *arg, char **byid)
{
	uint64_t *key = calloc(count + 1, sizeof *key);
	if (!key)
		return -ENOMEM;
	size_t n = 1;
	for (uint32_t id = 1; id <= count; id++) {
		uint32_t eid = l->what == REPORT_FUNCTIONS ? id - 1 : id;
		if (eid == PROFILE_FUNC_TOTAL && l->what == REPORT_FUNCTIONS)
			continue;
		if (!metrics_seen(l->m, eid))
			continue;
		char buf[8192];
		byid[eid] = strdup(name(arg, l->what, report_list_entity(l->what, eid), buf, sizeof buf));
		if (!byid[eid]) {
			free(key);
			return -ENOMEM;
		}
		key[eid] = report_item_value(l->m, sort, eid);
		l->ids[n++] = eid;
	}
	report_sort_ids(l->ids + 1, n - 1, key, byid, sort->kind == MSPEC_NAME);
	l->nrows = n;
	free(key);
	return 0;
}

long report_columns_of(enum report_what what, const struct mspec *spec, const struct metrics *m,
		       struct mspec_item **ret_cols, uint64_t **ret_base)
{
	size_t nc = 0;
	for (size_t i = 0; spec && i < spec->n; i++)
		nc += shows(what, &spec->items[i]);
	*ret_cols = calloc(nc ? nc : 1, sizeof **ret_cols);
	*ret_base = calloc(nc ? nc : 1, sizeof **ret_base);
	if (!*ret_cols || !*ret_base) {
		free(*ret_cols);
		free(*ret_base);
		*ret_cols = NULL;
		*ret_base = NULL;
		return -ENOMEM;
	}
	const uint64_t *total = metrics_total(m);
	nc = 0;
	for (size_t i = 0; spec && i < spec->n; i++) {
		const struct mspec_item *it = &spec->items[i];
		if (!shows(what, it))
			continue;
		(*ret_base)[nc] = it->kind == MSPEC_METRIC ? total[it->metric] : 0;
		(*ret_cols)[nc++] = *it;
	}
	return (long)nc;
}

/* The columns of spec for l and their values. */
static int fill_columns(struct report_list *l, const struct mspec *spec)
{
	long nc = report_columns_of(l->what, spec, l->m, &l->cols, &l->percent_base);
	if (nc < 0)
		return (int)nc;
	l->ncols = (size_t)nc;
	l->values = calloc((nc ? (size_t)nc : 1) * l->nrows, sizeof *l->values);
	if (!l->values)
		return -ENOMEM;
	for (size_t c = 0; c < l->ncols; c++)
		for (size_t r = 0; r < l->nrows; r++)
			l->values[r * l->ncols + c] = report_item_value(l->m, &l->cols[c], l->ids[r]);
	return 0;
}

int report_list_new(struct profile *p, enum report_what what, const struct mspec *spec,
		    const struct mspec_item *sort, report_name_fn name, void *arg, struct report_list **ret)
{
	*ret = NULL;
	int r = profile_compute(p);
	if (r < 0)
		return r;
	struct report_list *l = calloc(1, sizeof *l);
	size_t count = 0;
	if (!l)
		return -ENOMEM;
	l->what = what;
	l->m = engine_of(p, what, &count);
	/* engine ids 0..count (functions: 0..count-1, <Total> being function 0) */
	char **byid = calloc(count + 1, sizeof *byid);
	l->ids = calloc(count + 1, sizeof *l->ids);
	r = byid && l->ids ? sort_rows(l, count, sort, name, arg, byid) : -ENOMEM;
	if (r == 0 && !(l->names = calloc(l->nrows, sizeof *l->names)))
		r = -ENOMEM;
	for (size_t i = 1; r == 0 && i < l->nrows; i++) { /* the names move to their rows */
		l->names[i] = byid[l->ids[i]];
		byid[l->ids[i]] = NULL;
	}
	if (r == 0 && !(l->names[0] = strdup("<Total>")))
		r = -ENOMEM;
	if (r == 0)
		r = fill_columns(l, spec);
	for (size_t i = 0; byid && i <= count; i++)
		free(byid[i]);
	free(byid);
	if (r < 0) {
		report_list_free(l);
		return r;
	}
	*ret = l;
	return 0;
}

const char *report_list_text(const struct profile *p, const struct report_list *l, size_t row, size_t c,
			     char *buf, size_t room)
{
	buf[0] = 0;
	if (l->what != REPORT_FUNCTIONS)
		return buf;
	const struct pfunc *f = profile_func(p, l->ids[row]);
	if (l->cols[c].kind == MSPEC_SIZE)
		snprintf(buf, room, "%llu", (unsigned long long)f->size);
	else if (l->cols[c].kind == MSPEC_ADDRESS)
		snprintf(buf, room, "%u:0x%08llx", f->obj == PROFILE_NO_OBJECT ? 1u : f->obj + 2,
			 (unsigned long long)f->addr);
	return buf;
}
