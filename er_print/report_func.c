/*
 * report_func.c - the function list (functions), function summaries
 * (fsummary, fsingle) and the load-object list (objects).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "er_print/erp.h"
#include "er_print/report.h"
#include "er_print/table.h"

static const char *flavor_word(enum mspec_flavor f)
{
	return f == MSPEC_EXCL ? "Exclusive" : f == MSPEC_INCL ? "Inclusive" : "Attributed";
}

static const char *flavor_abbrev(enum mspec_flavor f)
{
	return f == MSPEC_EXCL ? "Excl." : f == MSPEC_INCL ? "Incl." : "Attr.";
}

size_t report_rows(const struct erp *e, size_t n)
{
	return e->limit > 0 && (size_t)e->limit + 1 < n ? (size_t)e->limit + 1 : n;
}

void report_sort_title(struct erp *e, char *buf, size_t room)
{
	size_t n;
	const struct metric_def *d = profile_metric_defs(&n);
	const struct mspec_item *s = &e->sort.items[0];
	if (s->kind == MSPEC_NAME)
		snprintf(buf, room, "Name");
	else
		snprintf(buf, room, "%s %s", flavor_word(s->flavor), d[s->metric].username);
}

/*
 * The functions to list, <Total> first then by the sort metric; returns the
 * count and a malloc'd id array, names[] the display names (malloc'd).
 */
size_t report_sorted_funcs(struct erp *e, uint32_t **ret_ids, char ***ret_names)
{
	const struct metrics *m = profile_metrics(e->prof);
	size_t nf = profile_func_count(e->prof);
	uint32_t *ids = malloc((nf ? nf : 1) * sizeof *ids);
	uint64_t *key = calloc(nf ? nf : 1, sizeof *key);
	char **names = calloc(nf ? nf : 1, sizeof *names);
	size_t n = 0;
	if (!ids || !key || !names)
		goto fail;
	for (uint32_t f = 0; f < nf; f++) {
		char buf[4096];
		names[f] = strdup(erp_func_name(e, profile_func(e->prof, f), buf, sizeof buf));
		if (!names[f])
			goto fail;
		if (f == PROFILE_FUNC_TOTAL || !metrics_seen(m, f))
			continue;
		key[f] = report_item_value(m, &e->sort.items[0], f);
		ids[n++] = f;
	}
	report_sort_ids(ids, n, key, names, e->sort.items[0].kind == MSPEC_NAME);
	memmove(ids + 1, ids, n * sizeof *ids);
	ids[0] = PROFILE_FUNC_TOTAL;
	n++;
	free(key);
	*ret_ids = ids;
	*ret_names = names;
	return n;
fail:
	free(ids);
	free(key);
	if (names)
		for (size_t i = 0; i < nf; i++)
			free(names[i]);
	free(names);
	*ret_ids = NULL;
	*ret_names = NULL;
	return 0;
}

void report_free_names(struct erp *e, char **names)
{
	size_t nf = profile_func_count(e->prof);
	if (names)
		for (size_t i = 0; i < nf; i++)
			free(names[i]);
	free(names);
}

/* Table columns for the function-level metric list (flavors e and i). */
size_t report_columns(struct erp *e, struct table_col *cols, struct mspec_item *items, char titles[][64])
{
	size_t n = 0, nd;
	const struct metric_def *d = profile_metric_defs(&nd);
	const uint64_t *total = metrics_total(profile_metrics(e->prof));
	for (size_t i = 0; i < e->metrics.n; i++) {
		const struct mspec_item *it = &e->metrics.items[i];
		if (it->hidden || it->kind == MSPEC_NAME || it->flavor == MSPEC_ATTR)
			continue;
		struct table_col c = {0};
		if (it->kind == MSPEC_METRIC) {
			snprintf(titles[n], 64, "%s %s", flavor_abbrev(it->flavor), d[it->metric].abbrev);
			c.kind = TABLE_METRIC;
			c.unit = d[it->metric].unit;
			c.show_value = it->show_value;
			c.show_percent = it->show_percent;
			c.percent_base = total[it->metric];
			c.flavor = it->flavor == MSPEC_EXCL ? 'e' : it->flavor == MSPEC_INCL ? 'i' : 'a';
			c.keyword = d[it->metric].keyword;
			c.username = d[it->metric].username;
			c.sort = e->sort.n && e->sort.items[0].kind == MSPEC_METRIC &&
				 e->sort.items[0].metric == it->metric &&
				 e->sort.items[0].flavor == it->flavor;
		} else {
			snprintf(titles[n], 64, "%s", it->kind == MSPEC_SIZE ? "Size" : "PC Addr.");
			c.kind = TABLE_TEXT;
		}
		c.title = titles[n];
		items[n] = *it;
		cols[n++] = c;
	}
	return n;
}

/* Values and texts of one function's row. */
void report_row(struct erp *e, const struct mspec_item *items, size_t ncols, uint32_t f, uint64_t *vals,
		char texts[][32])
{
	const struct metrics *m = profile_metrics(e->prof);
	const struct pfunc *pf = profile_func(e->prof, f);
	for (size_t c = 0; c < ncols; c++) {
		const struct mspec_item *it = &items[c];
		vals[c] = report_item_value(m, it, f);
		if (it->kind == MSPEC_SIZE)
			snprintf(texts[c], 32, "%llu", (unsigned long long)pf->size);
		else if (it->kind == MSPEC_ADDRESS)
			snprintf(texts[c], 32, "%u:0x%08llx", pf->obj == PROFILE_NO_OBJECT ? 1u : pf->obj + 2,
				 (unsigned long long)pf->addr);
	}
}

/* "Warning:" for each load object whose code or symbols could not be read. */
static void object_warnings(struct erp *e)
{
	for (uint32_t o = 0; o < profile_object_count(e->prof); o++) {
		const struct pobject *po = profile_object(e->prof, o);
		if (po->error)
			fprintf(e->out, "Warning: %s\n", po->error);
	}
}

int report_functions(struct erp *e, const char *arg)
{
	(void)arg;
	if (report_prepare(e) < 0)
		return -1;
	char title[256];
	report_sort_title(e, title, sizeof title);
	fprintf(e->out, "Functions sorted by metric: %s\n\n", title);
	uint32_t *ids;
	char **names;
	size_t n = report_sorted_funcs(e, &ids, &names);
	struct table_col cols[MSPEC_MAX];
	struct mspec_item items[MSPEC_MAX];
	char titles[MSPEC_MAX][64];
	size_t nc = report_columns(e, cols, items, titles);
	struct table *t = table_new(cols, nc);
	if (!ids || !t) {
		free(ids);
		report_free_names(e, names);
		table_free(t);
		erp_error(e, "out of memory");
		return -1;
	}
	size_t rows = report_rows(e, n);
	for (size_t i = 0; i < rows; i++) {
		uint64_t vals[MSPEC_MAX];
		char texts[MSPEC_MAX][32];
		const char *tp[MSPEC_MAX];
		report_row(e, items, nc, ids[i], vals, texts);
		for (size_t c = 0; c < nc; c++)
			tp[c] = texts[c];
		table_add_row(t, vals, tp, names[ids[i]], 0);
	}
	erp_table_print(e, t);
	fputc('\n', e->out);
	object_warnings(e);
	table_free(t);
	free(ids);
	report_free_names(e, names);
	return 0;
}

static void print_summary(struct erp *e, uint32_t f, const char *name)
{
	const struct metrics *m = profile_metrics(e->prof);
	const struct pfunc *pf = profile_func(e->prof, f);
	size_t nd;
	const struct metric_def *d = profile_metric_defs(&nd);
	const uint64_t *total = metrics_total(m);
	fprintf(e->out, "%s\n", name);
	for (size_t k = 0; k < nd; k++) {
		if (profile_metric_is_heap(k) && !profile_has_heap(e->prof))
			continue;
		for (int fl = 0; fl < 2; fl++) {
			uint64_t v = f == PROFILE_FUNC_TOTAL ? total[k]
				     : fl == 0               ? metrics_exclusive(m, f)[k]
							     : metrics_inclusive(m, f)[k];
			char val[64], pct[64], label[128];
			table_format_value(d[k].unit, v, val, sizeof val);
			if (v && total[k])
				snprintf(pct, sizeof pct, "%5.1f%%", 100.0 * (double)v / (double)total[k]);
			else
				snprintf(pct, sizeof pct, "  0. %%");
			snprintf(label, sizeof label, "%s %s", fl ? "Inclusive" : "Exclusive", d[k].username);
			fprintf(e->out, "\t%24s: %s (%s)\n", label, val, pct);
		}
	}
	const struct pobject *o = pf->obj == PROFILE_NO_OBJECT ? NULL : profile_object(e->prof, pf->obj);
	fprintf(e->out, "\t%24s: %5llu\n", "Size", (unsigned long long)pf->size);
	fprintf(e->out, "\t%24s: %u:0x%08llx\n", "PC Address", o ? pf->obj + 2 : 1u,
		(unsigned long long)pf->addr);
	fprintf(e->out, "\t%24s: %s\n", "Source File", "(unknown)");
	fprintf(e->out, "\t%24s: %s\n", "Object File",
		o ? (o->symbol_file ? o->symbol_file : o->path) : "(unknown)");
	fprintf(e->out, "\t%24s: %s\n", "Load Object", o ? o->path : "<Total>");
	/* like gprofng: a mangled name only when it differs from the name */
	const char *mangled = strcmp(pf->mangled, pf->name) == 0 ? "" : pf->mangled;
	fprintf(e->out, "\t%24s:%s%s\n", "Mangled Name", mangled[0] ? " " : "", mangled);
	fprintf(e->out, "\t%24s:\n", "Aliases");
	fputc('\n', e->out);
}

int report_fsummary(struct erp *e, const char *arg)
{
	(void)arg;
	if (report_prepare(e) < 0)
		return -1;
	char title[256];
	report_sort_title(e, title, sizeof title);
	fprintf(e->out, "Functions sorted by metric: %s\n\n", title);
	uint32_t *ids;
	char **names;
	size_t n = report_sorted_funcs(e, &ids, &names);
	if (!ids) {
		erp_error(e, "out of memory");
		return -1;
	}
	size_t rows = report_rows(e, n);
	for (size_t i = 0; i < rows; i++)
		print_summary(e, ids[i], names[ids[i]]);
	free(ids);
	report_free_names(e, names);
	return 0;
}

int report_resolve_function(struct erp *e, const char *arg, uint32_t *ret)
{
	char name[4096];
	long which = 0;
	if (!arg || !*arg) {
		erp_error(e, "a function name is required");
		return -1;
	}
	snprintf(name, sizeof name, "%s", arg);
	/* "name N": the N-th function of that name */
	char *sp = strrchr(name, ' ');
	if (sp && sp[1] && strspn(sp + 1, "0123456789") == strlen(sp + 1)) {
		which = strtol(sp + 1, NULL, 10);
		*sp = '\0';
	}
	uint32_t ids[64];
	size_t n = profile_find_funcs(e->prof, name, ids, 64);
	if (n == 0) {
		erp_error(e, "no function named '%s' in the experiment", name);
		return -1;
	}
	if (n > 1 && which == 0) {
		erp_error(e, "'%s' names %zu functions; add a number to choose:", name, n);
		for (size_t i = 0; i < n && i < 64; i++) {
			const struct pfunc *f = profile_func(e->prof, ids[i]);
			const struct pobject *o =
				f->obj == PROFILE_NO_OBJECT ? NULL : profile_object(e->prof, f->obj);
			fprintf(stderr, "  %zu) %s%s in %s\n", i + 1, f->name, f->version,
				o ? o->name : "<none>");
		}
		return -1;
	}
	if (which > (long)n || which < 0 || (which == 0 && n != 1)) {
		erp_error(e, "'%s' names %zu functions; %ld is out of range", name, n, which);
		return -1;
	}
	*ret = ids[which ? which - 1 : 0];
	return 0;
}

int report_fsingle(struct erp *e, const char *arg)
{
	if (report_prepare(e) < 0)
		return -1;
	uint32_t f;
	if (report_resolve_function(e, arg, &f) < 0)
		return -1;
	char buf[4096];
	print_summary(e, f, erp_func_name(e, profile_func(e->prof, f), buf, sizeof buf));
	return 0;
}

int report_objects(struct erp *e, const char *arg)
{
	(void)arg;
	if (report_prepare(e) < 0)
		return -1;
	const struct metrics *om = profile_object_metrics(e->prof);
	size_t no = profile_object_count(e->prof), nd;
	const struct metric_def *d = profile_metric_defs(&nd);
	char title[256];
	report_sort_title(e, title, sizeof title);
	fprintf(e->out, "Load Objects sorted by metric: %s\n\n", title);
	struct table_col cols[MSPEC_MAX];
	struct mspec_item items[MSPEC_MAX];
	char titles[MSPEC_MAX][64];
	size_t nc = 0;
	for (size_t i = 0; i < e->metrics.n; i++) {
		const struct mspec_item *it = &e->metrics.items[i];
		if (it->hidden || it->kind != MSPEC_METRIC || it->flavor == MSPEC_ATTR)
			continue;
		snprintf(titles[nc], 64, "%s %s", flavor_abbrev(it->flavor), d[it->metric].abbrev);
		struct table_col c = {.kind = TABLE_METRIC,
				      .title = titles[nc],
				      .unit = d[it->metric].unit,
				      .show_value = it->show_value,
				      .show_percent = it->show_percent,
				      .percent_base = metrics_total(om)[it->metric]};
		items[nc] = *it;
		cols[nc++] = c;
	}
	struct table *t = table_new(cols, nc);
	uint32_t *ids = malloc((no + 1) * sizeof *ids);
	uint64_t *key = calloc(no + 2, sizeof *key);
	char **names = calloc(no + 2, sizeof *names);
	if (!t || !ids || !key || !names) {
		table_free(t);
		free(ids);
		free(key);
		free(names);
		erp_error(e, "out of memory");
		return -1;
	}
	names[0] = strdup("<Total>");
	size_t n = 0;
	for (uint32_t o = 0; o < no; o++) {
		char buf[512];
		snprintf(buf, sizeof buf, "<%s>", profile_object(e->prof, o)->name);
		names[o + 1] = strdup(buf);
		if (!metrics_seen(om, o + 1) || !names[o + 1])
			continue;
		key[o + 1] = report_item_value(om, &e->sort.items[0], o + 1);
		ids[n++] = o + 1;
	}
	report_sort_ids(ids, n, key, names, e->sort.items[0].kind == MSPEC_NAME);
	for (size_t i = 0; i <= n; i++) {
		uint32_t o = i == 0 ? 0 : ids[i - 1];
		uint64_t vals[MSPEC_MAX];
		for (size_t c = 0; c < nc; c++)
			vals[c] = report_item_value(om, &items[c], o);
		table_add_row(t, vals, NULL, names[o] ? names[o] : "?", 0);
	}
	erp_table_print(e, t);
	fputc('\n', e->out);
	object_warnings(e); /* objects whose symbols could not be read */
	table_free(t);
	free(ids);
	free(key);
	for (size_t i = 0; i < no + 1; i++)
		free(names[i]);
	free(names);
	return 0;
}
