/*
 * show_lines.c - metrics by source line and by PC: `lines`, `pcs`,
 * `lsummary`, `psummary`, in gprofng's layouts (shared/reference §4.4):
 *   work, line 10 in "prog.c"
 *   <Function: name, instructions without line numbers>
 *   work + 0x00000036, line 10 in "prog.c"
 * The rows and their order are analysis/report_list.h's model.
 */
#include <stdlib.h>
#include <string.h>

#include "er_print/erp.h"
#include "er_print/show.h"
#include "er_print/table.h"
#include "er_print/textout.h"

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

const char *show_line_name(struct erp *e, uint32_t id, char *buf, size_t room)
{
	const struct pline *l = profile_line(e->prof, id);
	char fn[4096];
	erp_func_name(e, profile_func(e->prof, l->func), fn, sizeof fn);
	if (l->file)
		snprintf(buf, room, "%s, line %u in \"%s\"", fn, l->line, base_name(l->file));
	else
		snprintf(buf, room, "<Function: %s, instructions without line numbers>", fn);
	return buf;
}

const char *show_pc_name(struct erp *e, uint32_t id, char *buf, size_t room)
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
	return buf;
}

static const char *what_title(enum report_what what)
{
	return what == REPORT_LINES ? "Lines" : "PCs";
}

static int show_list(struct erp *e, enum report_what what)
{
	if (show_prepare(e) < 0)
		return -1;
	char title[256];
	show_sort_title(e, title, sizeof title);
	textout_printf(e->out, "%s sorted by metric: %s\n\n", what_title(what), title);
	if (show_compare_active(e))
		return show_compare_print_list(e, what);
	struct report_list *l = show_list_get(e, what);
	if (!l)
		return -1;
	int r = show_print_list(e, l, 0);
	report_list_free(l);
	return r;
}

/* The summary form (lsummary, psummary): every metric of every row. */
static int show_list_summary(struct erp *e, enum report_what what)
{
	if (show_prepare(e) < 0)
		return -1;
	size_t nd;
	const struct metric_def *d = profile_metric_defs(e->prof, &nd);
	char title[256];
	show_sort_title(e, title, sizeof title);
	textout_printf(e->out, "%s sorted by metric: %s\n\n", what_title(what), title);
	struct report_list *l = show_list_get(e, what);
	if (!l)
		return -1;
	const uint64_t *total = metrics_total(l->m);
	size_t show = show_rows(e, l->nrows);
	for (size_t i = 0; i < show; i++) {
		textout_printf(e->out, "%s\n", l->names[i]);
		for (size_t k = 0; k < nd; k++) {
			for (int fl = 0; fl < 2; fl++) {
				uint64_t val = l->ids[i] == 0 ? total[k]
					       : fl == 0      ? metrics_exclusive(l->m, l->ids[i])[k]
							      : metrics_inclusive(l->m, l->ids[i])[k];
				char label[128];
				snprintf(label, sizeof label, "%s %s", fl ? "Inclusive" : "Exclusive",
					 d[k].username);
				table_summary_line(e->out, label, d[k].unit, val, total[k]);
			}
		}
		fputc('\n', e->out);
	}
	report_list_free(l);
	return 0;
}

int show_lines(struct erp *e, const char *arg)
{
	(void)arg;
	return show_list(e, REPORT_LINES);
}

int show_pcs(struct erp *e, const char *arg)
{
	(void)arg;
	return show_list(e, REPORT_PCS);
}

int show_lsummary(struct erp *e, const char *arg)
{
	(void)arg;
	return show_list_summary(e, REPORT_LINES);
}

int show_psummary(struct erp *e, const char *arg)
{
	(void)arg;
	return show_list_summary(e, REPORT_PCS);
}
