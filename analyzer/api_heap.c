/*
 * api_heap.c - the analyzer's /api/heap: heap tracing's leaks, allocations
 * and the stacks live at the peak (report_heap.h, er_print's leaks, allocs
 * and heapstat), and heapstat's summary: totals, size classes and the
 * process with the highest peak; with width=N, the live heap over time of
 * each process and of the whole selection in at most N + 1 points each
 * (report_heaplive.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/experiment.h"
#include "analysis/profile_heap.h"
#include "analysis/report_heap.h"
#include "analysis/report_heaplive.h"
#include "analyzer/api_internal.h"

/* Lists longer than this are cut unless the request asks for more (limit=N, 0: all). */
#define API_HEAP_LIMIT 200u
/* The most points per live heap line a request may ask for (width=N). */
#define API_HEAP_WIDTH_MAX 100000u

static void summary(struct api_req *r, const struct heap_summary *h)
{
	jsonw_key(&r->w, "summary");
	jsonw_object_begin(&r->w);
	json_heap_summary_fields(&r->w, h);
	jsonw_object_end(&r->w);
	json_heap_peak(&r->w, h);
}

/* "key": {"distinct_stacks": N, "stacks": [{experiment_id, count, bytes, frames}, ... at most limit]}. */
static int stack_list(struct api_req *r, const char *key, enum report_heap_key what, size_t limit)
{
	struct report_heap_item *v;
	ssize_t got = report_heap_items(r->p, what, 0, &v);
	if (got < 0)
		return api_fail(r, 500, "out of memory");
	size_t n = (size_t)got, shown = limit && limit < n ? limit : n;
	int e = 0;
	jsonw_key(&r->w, key);
	jsonw_object_begin(&r->w);
	jsonw_key_uint(&r->w, "distinct_stacks", n);
	jsonw_key(&r->w, "stacks");
	jsonw_array_begin(&r->w);
	for (size_t i = 0; i < shown && e == 0; i++) {
		jsonw_object_begin(&r->w);
		jsonw_key_uint(&r->w, "experiment_id", v[i].exp + 1);
		e = json_heap_stack(&r->w, r->p, &v[i], NULL, 1);
		jsonw_object_end(&r->w);
	}
	jsonw_array_end(&r->w);
	jsonw_object_end(&r->w);
	free(v);
	return e < 0 ? api_fail(r, 500, "cannot resolve a heap stack: %s", strerror(-e)) : 0;
}

/* "key": {"t": [...], "bytes": [...], "peak": {"t", "bytes"} or null, and the line's figures}. */
static void live_series(struct api_req *r, const char *key, const struct heaplive_series *l)
{
	struct jsonw *w = &r->w;
	if (key)
		jsonw_key(w, key);
	jsonw_object_begin(w);
	if (l->exp != SIZE_MAX) {
		jsonw_key_uint(w, "experiment_id", l->exp + 1);
		jsonw_key_uint(w, "pid", experiment_log(profile_experiment(r->p, l->exp))->pid);
	}
	jsonw_key_uint(w, "start_offset_ns", l->start_offset_ns);
	jsonw_key_uint(w, "span_ns", l->span_ns);
	jsonw_key_uint(w, "calls", l->calls);
	jsonw_key_uint(w, "end_bytes", l->end_bytes);
	jsonw_key(w, "series");
	jsonw_object_begin(w);
	jsonw_key(w, "t");
	jsonw_array_begin(w);
	for (size_t i = 0; i < l->npoints; i++)
		jsonw_uint(w, l->points[i].t_ns);
	jsonw_array_end(w);
	jsonw_key(w, "bytes");
	jsonw_array_begin(w);
	for (size_t i = 0; i < l->npoints; i++)
		jsonw_uint(w, l->points[i].bytes);
	jsonw_array_end(w);
	jsonw_object_end(w);
	jsonw_key(w, "peak");
	if (l->peak_bytes) {
		jsonw_object_begin(w);
		jsonw_key_uint(w, "t", l->peak_ns);
		jsonw_key_uint(w, "bytes", l->peak_bytes);
		jsonw_object_end(w);
	} else {
		jsonw_null(w);
	}
	jsonw_object_end(w);
}

/* "live": {"width", "experiments": [series...], "total": series} at `width` points a line. */
static int live(struct api_req *r, size_t width)
{
	struct report_heaplive *h;
	int e = report_heaplive_compute(r->p, width, &h);
	if (e < 0)
		return api_fail(r, 500, "cannot replay the heap calls: %s", strerror(-e));
	jsonw_key(&r->w, "live");
	jsonw_object_begin(&r->w);
	jsonw_key_uint(&r->w, "width", width);
	jsonw_key(&r->w, "experiments");
	jsonw_array_begin(&r->w);
	for (size_t i = 0; i < h->nexps; i++)
		live_series(r, NULL, &h->exps[i]);
	jsonw_array_end(&r->w);
	live_series(r, "total", &h->total);
	jsonw_object_end(&r->w);
	report_heaplive_free(h);
	return 0;
}

int api_heap(struct api_req *r)
{
	if (profile_compute(r->p) < 0)
		return api_fail(r, 500, "out of memory");
	if (!profile_has_heap(r->p))
		return api_fail(r, 400,
				"no heap tracing data in the experiments (record with collect -H on)");
	size_t limit, width;
	if (api_count_arg(r, "limit", API_HEAP_LIMIT, SIZE_MAX, &limit) < 0 ||
	    api_count_arg(r, "width", 0, API_HEAP_WIDTH_MAX, &width) < 0)
		return -1;
	summary(r, profile_heap_summary(r->p));
	if (stack_list(r, "leaks", REPORT_HEAP_LEAK, limit) < 0 ||
	    stack_list(r, "allocations", REPORT_HEAP_ALLOC, limit) < 0 ||
	    stack_list(r, "at_peak", REPORT_HEAP_PEAK, limit) < 0)
		return -1;
	return width ? live(r, width) : 0;
}
