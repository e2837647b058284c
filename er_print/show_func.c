/*
 * show_func.c - the function list (functions), function summaries
 * (fsummary, fsingle) and the load-object list (objects).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/json_schema.h"
#include "analysis/report_source.h"
#include "er_print/erp.h"
#include "er_print/show.h"
#include "er_print/table.h"
#include "er_print/textout.h"

static const char *flavor_word(enum mspec_flavor f)
{
	return f == MSPEC_EXCL ? "Exclusive" : f == MSPEC_INCL ? "Inclusive" : "Attributed";
}

size_t show_rows(const struct erp *e, size_t n)
{
	return e->limit > 0 && (size_t)e->limit + 1 < n ? (size_t)e->limit + 1 : n;
}

void show_sort_title(struct erp *e, char *buf, size_t room)
{
	size_t n;
	const struct metric_def *d = profile_metric_defs(e->prof, &n);
	const struct mspec_item *s = &e->sort.items[0];
	if (s->kind == MSPEC_NAME)
		snprintf(buf, room, "Name");
	else
		snprintf(buf, room, "%s %s", flavor_word(s->flavor), d[s->metric].username);
}

const char *show_entity_name(void *arg, enum report_what what, uint32_t id, char *buf, size_t room)
{
	struct erp *e = arg;
	switch (what) {
	case REPORT_FUNCTIONS: return erp_func_name(e, profile_func(e->prof, id), buf, room);
	case REPORT_OBJECTS: snprintf(buf, room, "<%s>", profile_object(e->prof, id)->name); return buf;
	case REPORT_LINES: return show_line_name(e, id, buf, room);
	case REPORT_PCS: return show_pc_name(e, id, buf, room);
	}
	return "?";
}

struct report_list *show_list_get(struct erp *e, enum report_what what)
{
	struct report_list *l;
	int r = report_list_new(e->prof, what, &e->metrics, &e->sort.items[0], show_entity_name, e, &l);
	if (r < 0) {
		erp_error(e, "%s", r == -ENOMEM ? "out of memory" : strerror(-r));
		return NULL;
	}
	return l;
}

size_t show_columns(struct erp *e, const struct mspec_item *items, size_t n, const uint64_t *percent_base,
		    struct table_col *cols, char titles[][64])
{
	size_t nd;
	const struct metric_def *d = profile_metric_defs(e->prof, &nd);
	const struct mspec_item *sort = e->sort.n ? &e->sort.items[0] : NULL;
	for (size_t i = 0; i < n; i++) {
		struct json_col j;
		json_list_col(e->prof, &items[i], percent_base[i], sort, &j, titles[i], 64);
		cols[i] = (struct table_col){.kind = j.keyword ? TABLE_METRIC : TABLE_TEXT,
					     .title = j.title,
					     .flavor = j.flavor,
					     .keyword = j.keyword,
					     .username = j.keyword ? d[items[i].metric].username : NULL,
					     .sort = j.sort,
					     .unit = j.unit,
					     .show_value = j.keyword ? items[i].show_value : 0,
					     .show_percent = j.show_percent,
					     .percent_base = j.keyword ? j.total : 0};
	}
	return n;
}

int show_print_list(struct erp *e, const struct report_list *l, int func_texts)
{
	struct table_col cols[MSPEC_MAX];
	char titles[MSPEC_MAX][64];
	size_t nc = show_columns(e, l->cols, l->ncols, l->percent_base, cols, titles);
	struct table *t = table_new(cols, nc);
	if (!t) {
		erp_error(e, "out of memory");
		return -1;
	}
	size_t rows = show_rows(e, l->nrows);
	for (size_t i = 0; i < rows; i++) {
		char texts[MSPEC_MAX][32];
		const char *tp[MSPEC_MAX];
		for (size_t c = 0; func_texts && c < nc; c++)
			tp[c] = report_list_text(e->prof, l, i, c, texts[c], sizeof texts[c]);
		table_add_row(t, l->values + i * l->ncols, func_texts ? tp : NULL, l->names[i], 0);
	}
	erp_table_print(e, t);
	fputc('\n', e->out);
	table_free(t);
	return 0;
}

/* "Warning:" for each load object whose code or symbols could not be read. */
static void object_warnings(struct erp *e)
{
	for (uint32_t o = 0; o < profile_object_count(e->prof); o++) {
		const struct pobject *po = profile_object(e->prof, o);
		if (po->error)
			textout_printf(e->out, "Warning: %s\n", po->error);
	}
}

int show_functions(struct erp *e, const char *arg)
{
	(void)arg;
	if (show_prepare(e) < 0)
		return -1;
	char title[256];
	show_sort_title(e, title, sizeof title);
	textout_printf(e->out, "Functions sorted by metric: %s\n\n", title);
	if (show_compare_active(e))
		return show_compare_print_list(e, REPORT_FUNCTIONS);
	struct report_list *l = show_list_get(e, REPORT_FUNCTIONS);
	if (!l)
		return -1;
	int r = show_print_list(e, l, 1);
	if (r == 0)
		object_warnings(e);
	report_list_free(l);
	return r;
}

static void print_summary(struct erp *e, uint32_t f, const char *name)
{
	const struct metrics *m = profile_metrics(e->prof);
	const struct pfunc *pf = profile_func(e->prof, f);
	size_t nd;
	const struct metric_def *d = profile_metric_defs(e->prof, &nd);
	const uint64_t *total = metrics_total(m);
	textout_printf(e->out, "%s\n", name);
	for (size_t k = 0; k < nd; k++) {
		for (int fl = 0; fl < 2; fl++) {
			uint64_t v = f == PROFILE_FUNC_TOTAL ? total[k]
				     : fl == 0               ? metrics_exclusive(m, f)[k]
							     : metrics_inclusive(m, f)[k];
			char label[128];
			snprintf(label, sizeof label, "%s %s", fl ? "Inclusive" : "Exclusive", d[k].username);
			table_summary_line(e->out, label, d[k].unit, v, total[k]);
		}
	}
	const struct pobject *o = pf->obj == PROFILE_NO_OBJECT ? NULL : profile_object(e->prof, pf->obj);
	textout_printf(e->out, "\t%24s: %5llu\n", "Size", (unsigned long long)pf->size);
	textout_printf(e->out, "\t%24s: %u:0x%08llx\n", "PC Address", o ? pf->obj + 2 : 1u,
		       (unsigned long long)pf->addr);
	struct line_loc loc;
	textout_printf(e->out, "\t%24s: %s\n", "Source File",
		       report_func_position(e->prof, pf, &loc) && loc.file ? loc.file : "(unknown)");
	textout_printf(e->out, "\t%24s: %s\n", "Object File",
		       o ? (o->symbol_file ? o->symbol_file : o->path) : "(unknown)");
	textout_printf(e->out, "\t%24s: %s\n", "Load Object", o ? o->path : "<Total>");
	/* like gprofng: a mangled name only when it differs from the name */
	const char *mangled = strcmp(pf->mangled, pf->name) == 0 ? "" : pf->mangled;
	textout_printf(e->out, "\t%24s:%s%s\n", "Mangled Name", mangled[0] ? " " : "", mangled);
	textout_printf(e->out, "\t%24s:\n", "Aliases");
	fputc('\n', e->out);
}

int show_fsummary(struct erp *e, const char *arg)
{
	(void)arg;
	if (show_prepare(e) < 0)
		return -1;
	char title[256];
	show_sort_title(e, title, sizeof title);
	textout_printf(e->out, "Functions sorted by metric: %s\n\n", title);
	struct report_list *l = show_list_get(e, REPORT_FUNCTIONS);
	if (!l)
		return -1;
	size_t rows = show_rows(e, l->nrows);
	for (size_t i = 0; i < rows; i++)
		print_summary(e, l->ids[i], l->names[i]);
	report_list_free(l);
	return 0;
}

int show_resolve_function(struct erp *e, const char *arg, uint32_t *ret)
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
			textout_printf(stderr, "  %zu) %s%s in %s\n", i + 1, f->name, f->version,
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

int show_fsingle(struct erp *e, const char *arg)
{
	if (show_prepare(e) < 0)
		return -1;
	uint32_t f;
	if (show_resolve_function(e, arg, &f) < 0)
		return -1;
	char buf[4096];
	print_summary(e, f, erp_func_name(e, profile_func(e->prof, f), buf, sizeof buf));
	return 0;
}

int show_objects(struct erp *e, const char *arg)
{
	(void)arg;
	if (show_prepare(e) < 0)
		return -1;
	char title[256];
	show_sort_title(e, title, sizeof title);
	textout_printf(e->out, "Load Objects sorted by metric: %s\n\n", title);
	struct report_list *l = show_list_get(e, REPORT_OBJECTS);
	if (!l)
		return -1;
	int r = show_print_list(e, l, 0);
	if (r == 0)
		object_warnings(e); /* objects whose symbols could not be read */
	report_list_free(l);
	return r;
}
