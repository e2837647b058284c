/*
 * api_io.c - the analyzer's /api/io: I/O tracing's calls grouped by file
 * name, by descriptor life or by call stack (by=file|descriptor|stack,
 * report_io.h, er_print's ioactivity, iodetail and iocallstack) with their
 * ten figures, and iostat's size statistics, over the selection.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/report_io.h"
#include "analyzer/api_internal.h"

/* Rows longer than this are cut unless the request asks for more (limit=N, 0: all). */
#define API_IO_LIMIT 200u

static void stat(struct api_req *r)
{
	struct report_io_stat s;
	report_io_stat(r->p, &s);
	jsonw_key(&r->w, "stat");
	jsonw_object_begin(&r->w);
	report_io_stat_json(&r->w, &s);
	jsonw_object_end(&r->w);
}

/* One row: its figures and what names it (file, descriptor or stack). */
static int row(struct api_req *r, enum report_io_by by, const struct report_io_row *x)
{
	struct jsonw *w = &r->w;
	jsonw_object_begin(w);
	if (by != REPORT_IO_BY_STACK)
		jsonw_key_string(w, "name", x->name);
	if (by != REPORT_IO_BY_FILE)
		jsonw_key_uint(w, "experiment_id", x->exp + 1);
	if (by == REPORT_IO_BY_VFD) {
		jsonw_key_uint(w, "vfd", x->vfd);
		jsonw_key_int(w, "fd", x->fd);
	}
	report_io_row_json(w, x);
	int e = by == REPORT_IO_BY_STACK ? api_frames(r, x->exp, x->stack) : 0;
	jsonw_object_end(w);
	return e;
}

int api_io(struct api_req *r)
{
	if (!report_io_present(r->p))
		return api_fail(r, 400, "no I/O tracing data in the experiments (record with collect -i on)");
	const char *b = api_arg(r, "by");
	enum report_io_by by = !b || !*b || strcmp(b, "file") == 0 ? REPORT_IO_BY_FILE
			       : strcmp(b, "descriptor") == 0      ? REPORT_IO_BY_VFD
			       : strcmp(b, "stack") == 0           ? REPORT_IO_BY_STACK
								   : (enum report_io_by) - 1;
	if (by == (enum report_io_by) - 1)
		return api_fail(r, 400, "by '%s' is not file, descriptor or stack", b);
	size_t limit;
	if (api_count_arg(r, "limit", API_IO_LIMIT, SIZE_MAX, &limit) < 0)
		return -1;
	if (profile_compute(r->p) < 0)
		return api_fail(r, 500, "out of memory");
	struct report_io_row *v;
	ssize_t got = report_io_rows(r->p, by, REPORT_IO_SORT_TIME, &v);
	if (got < 0)
		return api_fail(r, 500, "out of memory");
	size_t n = (size_t)got - 1, shown = limit && limit < n ? limit : n;
	struct jsonw *w = &r->w;
	jsonw_key_string(w, "by",
			 by == REPORT_IO_BY_FILE  ? "file"
			 : by == REPORT_IO_BY_VFD ? "descriptor"
						  : "stack");
	jsonw_key(w, "total");
	jsonw_object_begin(w);
	report_io_row_json(w, &v[0]);
	jsonw_object_end(w);
	jsonw_key_uint(w, "distinct", n);
	jsonw_key(w, "rows");
	jsonw_array_begin(w);
	int e = 0;
	for (size_t i = 1; i <= shown && e == 0; i++)
		e = row(r, by, &v[i]);
	jsonw_array_end(w);
	free(v);
	if (e < 0)
		return api_fail(r, 500, "cannot resolve an I/O stack");
	stat(r);
	return 0;
}
