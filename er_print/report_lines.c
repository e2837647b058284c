/*
 * report_lines.c - metrics by source line and by PC: `lines`, `pcs`,
 * `lsummary`, `psummary`, in gprofng's layouts (shared/reference §4.4):
 *   work, line 10 in "prog.c"
 *   <Function: name, instructions without line numbers>
 *   work + 0x00000036, line 10 in "prog.c"
 */
#include <stdlib.h>
#include <string.h>

#include "er_print/erp.h"
#include "er_print/report.h"
#include "er_print/table.h"

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* Display name of line id. */
static void line_name(struct erp *e, uint32_t id, char *buf, size_t room)
{
	const struct pline *l = profile_line(e->prof, id);
	char fn[4096];
	erp_func_name(e, profile_func(e->prof, l->func), fn, sizeof fn);
	if (l->file)
		snprintf(buf, room, "%s, line %u in \"%s\"", fn, l->line, base_name(l->file));
	else
		snprintf(buf, room, "<Function: %s, instructions without line numbers>", fn);
}

/* Display name of PC id. */
static void pc_name(struct erp *e, uint32_t id, char *buf, size_t room)
{
	const struct ppc *pc = profile_pc(e->prof, id);
	const struct pfunc *f = profile_func(e->prof, pc->func);
	const struct pline *l = profile_line(e->prof, pc->line);
	char fn[4096];
	erp_func_name(e, f, fn, sizeof fn);
	uint64_t off = f->kind == PFUNC_SYMBOL || f->kind == PFUNC_SYNTH ? pc->vaddr - f->addr : pc->vaddr;
	int n = snprintf(buf, room, "%s + 0x%08llx", fn, (unsigned long long)off);
	if (l && l->file && n > 0 && (size_t)n < room)
		snprintf(buf + n, room - (size_t)n, ", line %u in \"%s\"", l->line, base_name(l->file));
}

struct list_view {
	const char *what; /* "Lines", "PCs" */
	const struct metrics *m;
	size_t count;
	void (*name)(struct erp *e, uint32_t id, char *buf, size_t room);
};

struct row_key {
	uint32_t id;
	uint64_t key;
	char *name;
};

static int cmp_rows(const void *a, const void *b)
{
	const struct row_key *x = a, *y = b;
	if (x->key != y->key)
		return x->key > y->key ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The rows with data, <Total> first, sorted; names malloc'd. Returns the count. */
static size_t sorted_rows(struct erp *e, const struct list_view *v, struct row_key **ret)
{
	struct row_key *r = calloc(v->count + 1, sizeof *r);
	size_t n = 0;
	if (!r)
		return 0;
	int by_name = e->sort.items[0].kind == MSPEC_NAME;
	for (uint32_t id = 0; id < v->count; id++) {
		if (!metrics_seen(v->m, id + 1))
			continue;
		char buf[8192];
		v->name(e, id, buf, sizeof buf);
		r[n].id = id + 1;
		r[n].key = by_name ? 0 : report_item_value(v->m, &e->sort.items[0], id + 1);
		r[n].name = strdup(buf);
		if (!r[n].name)
			break;
		n++;
	}
	qsort(r, n, sizeof *r, cmp_rows);
	memmove(r + 1, r, n * sizeof *r);
	r[0] = (struct row_key){.id = 0, .name = strdup("<Total>")};
	*ret = r;
	return n + 1;
}

static void free_rows(struct row_key *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(r[i].name);
	free(r);
}

static int report_list(struct erp *e, const struct list_view *v)
{
	char title[256];
	report_sort_title(e, title, sizeof title);
	fprintf(e->out, "%s sorted by metric: %s\n\n", v->what, title);
	struct table_col cols[MSPEC_MAX];
	struct mspec_item items[MSPEC_MAX];
	char titles[MSPEC_MAX][64];
	size_t nc = report_columns(e, cols, items, titles);
	struct table *t = table_new(cols, nc);
	struct row_key *rows = NULL;
	size_t n = sorted_rows(e, v, &rows);
	if (!t || !rows) {
		table_free(t);
		free_rows(rows, n);
		erp_error(e, "out of memory");
		return -1;
	}
	size_t show = report_rows(e, n);
	for (size_t i = 0; i < show; i++) {
		uint64_t vals[MSPEC_MAX];
		for (size_t c = 0; c < nc; c++)
			vals[c] = items[c].kind == MSPEC_METRIC
					  ? report_item_value(v->m, &items[c], rows[i].id)
					  : 0;
		table_add_row(t, vals, NULL, rows[i].name ? rows[i].name : "?", 0);
	}
	erp_table_print(e, t);
	fputc('\n', e->out);
	table_free(t);
	free_rows(rows, n);
	return 0;
}

/* The summary form (lsummary, psummary): every metric of every row. */
static int report_list_summary(struct erp *e, const struct list_view *v)
{
	size_t nd;
	const struct metric_def *d = profile_metric_defs(&nd);
	char title[256];
	report_sort_title(e, title, sizeof title);
	fprintf(e->out, "%s sorted by metric: %s\n\n", v->what, title);
	struct row_key *rows = NULL;
	size_t n = sorted_rows(e, v, &rows);
	if (!rows) {
		erp_error(e, "out of memory");
		return -1;
	}
	const uint64_t *total = metrics_total(v->m);
	size_t show = report_rows(e, n);
	for (size_t i = 0; i < show; i++) {
		fprintf(e->out, "%s\n", rows[i].name ? rows[i].name : "?");
		for (size_t k = 0; k < nd; k++) {
			for (int fl = 0; fl < 2; fl++) {
				uint64_t val = rows[i].id == 0 ? total[k]
					       : fl == 0       ? metrics_exclusive(v->m, rows[i].id)[k]
							       : metrics_inclusive(v->m, rows[i].id)[k];
				char vb[64], label[128], pct[32];
				table_format_value(d[k].unit, val, vb, sizeof vb);
				if (val && total[k])
					snprintf(pct, sizeof pct, "%5.1f%%",
						 100.0 * (double)val / (double)total[k]);
				else
					snprintf(pct, sizeof pct, "  0. %%");
				snprintf(label, sizeof label, "%s %s", fl ? "Inclusive" : "Exclusive",
					 d[k].username);
				fprintf(e->out, "\t%24s: %s (%s)\n", label, vb, pct);
			}
		}
		fputc('\n', e->out);
	}
	free_rows(rows, n);
	return 0;
}

static void view_lines(struct erp *e, struct list_view *v)
{
	*v = (struct list_view){"Lines", profile_line_metrics(e->prof), profile_line_count(e->prof),
				line_name};
}

static void view_pcs(struct erp *e, struct list_view *v)
{
	*v = (struct list_view){"PCs", profile_pc_metrics(e->prof), profile_pc_count(e->prof), pc_name};
}

int report_lines(struct erp *e, const char *arg)
{
	(void)arg;
	struct list_view v;
	if (report_prepare(e) < 0)
		return -1;
	view_lines(e, &v);
	return report_list(e, &v);
}

int report_pcs(struct erp *e, const char *arg)
{
	(void)arg;
	struct list_view v;
	if (report_prepare(e) < 0)
		return -1;
	view_pcs(e, &v);
	return report_list(e, &v);
}

int report_lsummary(struct erp *e, const char *arg)
{
	(void)arg;
	struct list_view v;
	if (report_prepare(e) < 0)
		return -1;
	view_lines(e, &v);
	return report_list_summary(e, &v);
}

int report_psummary(struct erp *e, const char *arg)
{
	(void)arg;
	struct list_view v;
	if (report_prepare(e) < 0)
		return -1;
	view_pcs(e, &v);
	return report_list_summary(e, &v);
}
