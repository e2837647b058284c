/*
 * show_io.c - er_print's I/O reports (collect -i on), in gprofng's
 * layouts: ioactivity (a table by file name) and iodetail (by descriptor,
 * "name (IOVFD=12, FD=3)"), whose columns are the I/O metrics of the
 * metric list (all shown as exclusive: a file has no callees) or, when it
 * has none, gprofng's four times; iocallstack (a block of figures and
 * frames per call stack); iostat (size histograms and extremes).  The
 * figures come from analysis/report_io.h.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/experiment.h"
#include "analysis/report_io.h"
#include "common/strbuf.h"
#include "er_print/erp.h"
#include "er_print/show.h"
#include "er_print/table.h"
#include "er_print/textout.h"

/* The I/O metrics' keywords, in enum profile_io_fig's order. */
static const char *const fig_keyword[PROFILE_IO_FIGS] = {
	"ioreadbytes", "ioreadcnt",  "ioreadtime",  "iowritebytes", "iowritecnt",
	"iowritetime", "ioothercnt", "ioothertime", "ioerrorcnt",   "ioerrortime",
};

static const int default_figs[] = {PROFILE_IO_READ_TIME, PROFILE_IO_WRITE_TIME, PROFILE_IO_OTHER_TIME,
				   PROFILE_IO_ERROR_TIME};

/* The I/O figure metric m of the registry is, or -1. */
static int metric_fig(struct erp *e, size_t m)
{
	size_t n;
	const struct metric_def *d = profile_metric_defs(e->prof, &n);
	for (int k = 0; m < n && k < PROFILE_IO_FIGS; k++)
		if (strcmp(d[m].keyword, fig_keyword[k]) == 0)
			return k;
	return -1;
}

int show_io_prepare(struct erp *e)
{
	if (show_prepare(e) < 0)
		return -1;
	if (!report_io_present(e->prof)) {
		erp_error(e, "no I/O tracing data in the experiments (record with collect -i on)");
		return -1;
	}
	return 0;
}

/* The sort: the sort metric if it is an I/O one, else the four times' sum. */
static int io_sort(struct erp *e)
{
	const struct mspec_item *s = &e->sort.items[0];
	int k = e->sort.n && s->kind == MSPEC_METRIC ? metric_fig(e, s->metric) : -1;
	return k >= 0 ? k : REPORT_IO_SORT_TIME;
}

/* The figures to show, each once: the metric list's I/O metrics, else gprofng's four times. */
static size_t io_columns(struct erp *e, int *figs)
{
	size_t n = 0;
	int seen[PROFILE_IO_FIGS] = {0};
	for (size_t i = 0; i < e->metrics.n; i++) {
		const struct mspec_item *it = &e->metrics.items[i];
		int k = it->kind == MSPEC_METRIC && !it->hidden ? metric_fig(e, it->metric) : -1;
		if (k >= 0 && !seen[k]) {
			seen[k] = 1;
			figs[n++] = k;
		}
	}
	if (n == 0)
		for (; n < sizeof default_figs / sizeof default_figs[0]; n++)
			figs[n] = default_figs[n];
	return n;
}

/* The table's columns for figures figs[0..nf): titles into titles[]. */
static void io_table_columns(struct erp *e, const int *figs, size_t nf, struct table_col *cols,
			     char titles[][64])
{
	size_t nd;
	const struct metric_def *d = profile_metric_defs(e->prof, &nd);
	int sort = io_sort(e);
	for (size_t c = 0; c < nf; c++) {
		const struct metric_def *m = NULL;
		for (size_t i = 0; i < nd && !m; i++)
			if (strcmp(d[i].keyword, fig_keyword[figs[c]]) == 0)
				m = &d[i];
		snprintf(titles[c], 64, "Excl. %s", m ? m->abbrev : fig_keyword[figs[c]]);
		cols[c] = (struct table_col){.kind = TABLE_METRIC,
					     .title = titles[c],
					     .flavor = 'e',
					     .keyword = fig_keyword[figs[c]],
					     .username = m ? m->username : fig_keyword[figs[c]],
					     .sort = figs[c] == sort,
					     .unit = m ? m->unit : METRIC_UNIT_COUNT,
					     .show_value = 1};
	}
}

/* iodetail's row name: "name (IOVFD=12, FD=3)", with "Exp k, " when several are loaded. */
static void vfd_name(const struct report_io_row *r, int multi, char *buf, size_t room)
{
	struct strbuf sb;
	strbuf_init(&sb, 0);
	strbuf_addf(&sb, "%s", r->name);
	if (r->vfd || r->fd >= 0) {
		strbuf_addf(&sb, " (");
		if (multi)
			strbuf_addf(&sb, "Exp %zu, ", r->exp + 1);
		if (r->vfd)
			strbuf_addf(&sb, "IOVFD=%" PRIu32 "%s", r->vfd, r->fd >= 0 ? ", " : "");
		if (r->fd >= 0)
			strbuf_addf(&sb, "FD=%" PRId32, r->fd);
		strbuf_addf(&sb, ")");
	}
	snprintf(buf, room, "%s", sb.failed ? r->name : strbuf_str(&sb));
	strbuf_release(&sb);
}

/* The table of rows (row 0 <Total>). */
static int print_rows(struct erp *e, const struct report_io_row *v, size_t n, int by)
{
	int figs[PROFILE_IO_FIGS];
	size_t nf = io_columns(e, figs);
	struct table_col cols[PROFILE_IO_FIGS];
	char titles[PROFILE_IO_FIGS][64];
	io_table_columns(e, figs, nf, cols, titles);
	struct table *t = table_new(cols, nf);
	if (!t)
		goto nomem;
	size_t rows = show_rows(e, n);
	int multi = profile_experiment_count(e->prof) > 1;
	for (size_t i = 0; i < rows; i++) {
		uint64_t vals[PROFILE_IO_FIGS];
		for (size_t c = 0; c < nf; c++)
			vals[c] = v[i].v[figs[c]];
		char name[4096];
		if (by == REPORT_IO_BY_VFD && i > 0)
			vfd_name(&v[i], multi, name, sizeof name);
		else
			snprintf(name, sizeof name, "%s", v[i].name);
		if (table_add_row(t, vals, NULL, name, 0) < 0) {
			table_free(t);
			goto nomem;
		}
	}
	erp_table_print(e, t);
	fputc('\n', e->out);
	table_free(t);
	return 0;
nomem:
	erp_error(e, "out of memory");
	return -1;
}

static int io_table(struct erp *e, enum report_io_by by)
{
	if (show_io_prepare(e) < 0)
		return -1;
	struct report_io_row *v;
	ssize_t got = report_io_rows(e->prof, by, io_sort(e), &v);
	if (got < 0) {
		erp_error(e, "out of memory");
		return -1;
	}
	int r = print_rows(e, v, (size_t)got, by);
	free(v);
	return r;
}

int show_ioactivity(struct erp *e, const char *arg)
{
	(void)arg;
	return io_table(e, REPORT_IO_BY_FILE);
}

int show_iodetail(struct erp *e, const char *arg)
{
	(void)arg;
	return io_table(e, REPORT_IO_BY_VFD);
}

/* A group's figures, gprofng's lines: "Write Time=0.000823 (secs.)  Write Bytes=819200  Write Count=200". */
static void print_figures(struct erp *e, const uint64_t *v)
{
	FILE *o = e->out;
	if (v[PROFILE_IO_WRITE_CNT])
		textout_printf(o,
			       "Write Time=%.6f (secs.)  Write Bytes=%" PRIu64 "  Write Count=%" PRIu64 "\n",
			       (double)v[PROFILE_IO_WRITE_TIME] / 1e9, v[PROFILE_IO_WRITE_BYTES],
			       v[PROFILE_IO_WRITE_CNT]);
	if (v[PROFILE_IO_READ_CNT])
		textout_printf(o, "Read Time=%.6f (secs.)  Read Bytes=%" PRIu64 "  Read Count=%" PRIu64 "\n",
			       (double)v[PROFILE_IO_READ_TIME] / 1e9, v[PROFILE_IO_READ_BYTES],
			       v[PROFILE_IO_READ_CNT]);
	if (v[PROFILE_IO_OTHER_CNT])
		textout_printf(o, "Other I/O Time=%.6f (secs.)  Other I/O Count=%" PRIu64 "\n",
			       (double)v[PROFILE_IO_OTHER_TIME] / 1e9, v[PROFILE_IO_OTHER_CNT]);
	if (v[PROFILE_IO_ERROR_CNT])
		textout_printf(o, "I/O Error Time=%.6f (secs.)  I/O Error Count=%" PRIu64 "\n",
			       (double)v[PROFILE_IO_ERROR_TIME] / 1e9, v[PROFILE_IO_ERROR_CNT]);
}

ssize_t show_io_stacks(struct erp *e, struct report_io_row **ret)
{
	*ret = NULL;
	if (show_io_prepare(e) < 0)
		return -1;
	ssize_t got = report_io_rows(e->prof, REPORT_IO_BY_STACK, io_sort(e), ret);
	if (got < 0)
		erp_error(e, "out of memory");
	return got < 0 ? -1 : got;
}

int show_iocallstack(struct erp *e, const char *arg)
{
	(void)arg;
	struct report_io_row *v;
	ssize_t got = show_io_stacks(e, &v);
	if (got < 0)
		return -1;
	size_t rows = show_rows(e, (size_t)got);
	for (size_t i = 0; i < rows; i++) {
		if (i == 0) {
			textout_printf(e->out, "<Total>\n");
		} else {
			const struct experiment *exp = profile_experiment(e->prof, v[i].exp);
			uint64_t id = v[i].stack < experiment_stack_count(exp)
					      ? experiment_stack(exp, v[i].stack)->id
					      : 0;
			textout_printf(e->out, "\nStack 0x%016" PRIx64 "\n", id);
		}
		print_figures(e, v[i].v);
		if (i > 0)
			erp_print_frames(e, v[i].exp, v[i].stack);
	}
	fputc('\n', e->out);
	free(v);
	return 0;
}

/* One direction's statistics, gprofng's layout (which words its two blocks slightly differently). */
static void print_sizes(struct erp *e, const struct report_io_sizes *s, int write)
{
	FILE *o = e->out;
	if (write) {
		textout_printf(o, "\nWrite Statistics\n");
		textout_printf(o, "I/O Size Range                    Write Calls          \n");
		textout_printf(o, "-------------------------------------------------------\n");
	} else {
		textout_printf(o, "\nRead Statistics\n");
		textout_printf(o, "I/O Size Range                    Read Calls         \n");
		textout_printf(o, "------------------------------------------------------\n");
	}
	for (size_t c = 0; c < HEAP_SIZE_CLASSES; c++)
		if (s->classes[c]) {
			char label[64];
			snprintf(label, sizeof label, "  %s", heap_size_class_label(c));
			textout_printf(o, "%-34s%" PRIu64 "\n", label, s->classes[c]);
		}
	textout_printf(o, "\n%-34s%.6f (secs.)\n", write ? "Longest write" : "Longest time",
		       (double)s->longest_ns / 1e9);
	textout_printf(o, "%-34s%" PRIu64 "\n", write ? "Smallest write bytes" : "Smallest read bytes",
		       s->min_bytes);
	textout_printf(o, "%-34s%" PRIu64 "\n", write ? "Largest write bytes" : "Largest read bytes",
		       s->max_bytes);
	textout_printf(o, "Total time                        %.6f (secs.)\n", (double)s->time_ns / 1e9);
	textout_printf(o, "Total calls                       %" PRIu64 "\n", s->calls);
	textout_printf(o, "Total bytes                       %" PRIu64 "\n", s->bytes);
}

int show_iostat(struct erp *e, const char *arg)
{
	(void)arg;
	if (show_io_prepare(e) < 0)
		return -1;
	struct report_io_stat s;
	report_io_stat(e->prof, &s);
	FILE *o = e->out;
	if (s.write.calls)
		print_sizes(e, &s.write, 1);
	if (s.read.calls)
		print_sizes(e, &s.read, 0);
	if (s.other_calls) {
		textout_printf(o, "\nOther I/O Statistics\n");
		textout_printf(o, "-----------------------------------------------------\n");
		textout_printf(o, "Total time                        %.6f (secs.)\n",
			       (double)s.other_ns / 1e9);
		textout_printf(o, "Total calls                       %" PRIu64 " \n", s.other_calls);
	}
	if (s.error_calls) {
		textout_printf(o, "\nI/O Error Statistics\n");
		textout_printf(o, "-----------------------------------------------------\n");
		textout_printf(o, "Total time                        %.6f (secs.)\n",
			       (double)s.error_ns / 1e9);
		textout_printf(o, "Total calls                       %" PRIu64 " \n", s.error_calls);
	}
	fputc('\n', o);
	return 0;
}
