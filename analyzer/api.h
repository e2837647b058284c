/*
 * api.h - the analyzer's JSON API: one GET of /api/NAME with its query
 * arguments answered from the library's report models as one JSON object
 * (times in ns, counts, bytes as integers).  No report logic of its own.
 */
#ifndef ANALYZER_API_H
#define ANALYZER_API_H

#include "analysis/profile.h"
#include "analysis/report_compare.h"
#include "common/strbuf.h"

/* The query arguments of a request: get(ctx, "func") is the value, or NULL. */
struct api_query {
	const char *(*get)(void *ctx, const char *key);
	void *ctx;
};

/* What the API answers over: the profile, and compare's sides (report_compare_sides). */
struct api_data {
	struct profile *p;
	const struct report_compare_side *sides;
	size_t nsides;
};

/*
 * Answer `name` ("overview", "functions", ...: the path after /api/) into
 * out.  Arguments t0 and t1 select the events of [t0, t1) for every
 * endpoint (profile_select_time); without them every event counts.  Times
 * are on the shared time base of the experiments (profile_set_time_shared:
 * ns from the earliest experiment's start, so a child process that started
 * 1 s after its parent has its events from 1 s on).  Arguments filter
 * (an expression of analysis/filter.h, profile_set_filter), threads and
 * cpus (the Oracle list syntax of thread_select and cpu_select) select
 * likewise for this request only: a request without them has none.
 * Returns the HTTP status: 200; 400 (a bad argument) or 404 (no such
 * endpoint or function) with {"error": "..."} in out; 500 out of memory.
 */
int api_answer(const struct api_data *d, const char *name, const struct api_query *q, struct strbuf *out);

#endif
