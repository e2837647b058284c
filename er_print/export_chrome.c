/*
 * export_chrome.c - Chrome's trace-event JSON ("JSON Object Format": an
 * object with a "traceEvents" array), as Perfetto, chrome://tracing and
 * speedscope read it.  Perfetto ignores the format's sample events ("P",
 * "stackFrames", "samples"), so CPU time is written as what every reader
 * shows: complete ("X") events nested along each thread's timeline, a flame
 * chart in time.
 *
 *  - pid/tid are the recorded process and thread ids; "M" events name
 *    them (process_name: the program; thread_name: "Thread N").
 *  - Times are whole microseconds (the format's unit) since the earliest
 *    experiment's start.  Each clock sample of a thread becomes a span of
 *    its CPU time ending at the sample's time; consecutive samples share
 *    the slices of their common callers.  A span never overlaps the one
 *    before it: it is moved later when it would, or earlier (by at most
 *    half a sampling interval) to join the one before across a small gap.
 *    So every slice's "dur" is CPU time, and the root slices of all
 *    threads sum to <Total> CPU time, to within a microsecond per root
 *    slice: slice boundaries are computed in nanoseconds and rounded down
 *    to microseconds, which keeps children inside their parents for every
 *    reader (fractional microseconds would be read through binary floating
 *    point, and Perfetto truncates them: a child could end 1 ns after its
 *    parent and no longer nest).
 *  - Heap allocations: an instant ("i") event per allocation on its
 *    thread, named after the allocating function, args {bytes, stack}, and
 *    a per-process counter ("C") "Heap allocated" with the running totals
 *    {bytes, allocations}; its last values are <Total>.
 *  - Leaks: an instant event per leaking stack and thread at the end of the
 *    data, "Leak: <function>", args {bytes, blocks, stack}.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonw.h"
#include "common/strbuf.h"
#include "analysis/experiment.h"
#include "er_print/export.h"
#include "er_print/export_stacks.h"

/* A finished slice, written once a thread's slices are all known and sorted. */
struct slice {
	uint64_t start_ns, dur_ns;
	uint32_t func, depth;
};

struct chrome {
	struct erp *e;
	struct jsonw w;
	const struct xstacks *x;
	uint64_t origin_ns;
	struct xmetric_ids ids;
	char name[4096];
	VEC(struct slice) slices;
	VEC(struct slice) open; /* the current stack of a thread; dur_ns unused */
};

static uint64_t rel(const struct chrome *c, uint64_t ts_ns)
{
	return ts_ns > c->origin_ns ? ts_ns - c->origin_ns : 0;
}

static const char *func_name(struct chrome *c, uint32_t func)
{
	return erp_func_name(c->e, profile_func(c->e->prof, func), c->name, sizeof c->name);
}

static uint32_t pid_of(const struct chrome *c, size_t exp)
{
	return experiment_log(profile_experiment(c->e->prof, exp))->pid;
}

static uint32_t tid_of(const struct chrome *c, size_t exp, uint32_t thread)
{
	return experiment_thread(profile_experiment(c->e->prof, exp), thread)->tid;
}

/* The fields every event of thread (exp, thread) has. */
static void event_head(struct chrome *c, const char *ph, size_t exp, uint32_t thread)
{
	struct jsonw *w = &c->w;
	jsonw_object_begin(w);
	jsonw_key_string(w, "ph", ph);
	jsonw_key_uint(w, "pid", pid_of(c, exp));
	jsonw_key_uint(w, "tid", tid_of(c, exp, thread));
}

static void write_names(struct chrome *c)
{
	struct jsonw *w = &c->w;
	char name[128];
	for (size_t x = 0; x < profile_experiment_count(c->e->prof); x++) {
		const struct experiment *exp = profile_experiment(c->e->prof, x);
		if (!profile_experiment_selected(c->e->prof, x) || !experiment_thread_count(exp))
			continue;
		event_head(c, "M", x, 0);
		jsonw_key_string(w, "name", "process_name");
		jsonw_key(w, "args");
		jsonw_object_begin(w);
		jsonw_key_string(w, "name", export_process_name(c->e, x));
		jsonw_object_end(w);
		jsonw_object_end(w);
		for (uint32_t t = 0; t < experiment_thread_count(exp); t++) {
			if (!profile_thread_selected(c->e->prof, x, t))
				continue;
			export_thread_name(c->e, x, t, 0, name, sizeof name);
			event_head(c, "M", x, t);
			jsonw_key_string(w, "name", "thread_name");
			jsonw_key(w, "args");
			jsonw_object_begin(w);
			jsonw_key_string(w, "name", name);
			jsonw_object_end(w);
			jsonw_object_end(w);
		}
	}
}

/* Close the open slices from depth `keep` on, at end_ns. */
static int close_slices(struct chrome *c, size_t keep, uint64_t end_ns)
{
	while (c->open.n > keep) {
		struct slice s = c->open.v[--c->open.n];
		s.dur_ns = end_ns - s.start_ns;
		if (VEC_PUSH(&c->slices, s) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int cmp_slice(const void *pa, const void *pb)
{
	const struct slice *a = pa, *b = pb;
	if (a->start_ns != b->start_ns)
		return a->start_ns < b->start_ns ? -1 : 1;
	return a->depth < b->depth ? -1 : a->depth > b->depth;
}

/* Half the sampling interval of experiment exp: how far a span may move earlier. */
static uint64_t join_slack_ns(const struct chrome *c, size_t exp)
{
	const struct exp_log *l = experiment_log(profile_experiment(c->e->prof, exp));
	uint64_t us = l->effective_interval_us ? l->effective_interval_us : l->clock_interval_us;
	return (us ? us : 10000) * 1000 / 2;
}

/* Lay the clock samples v[0..n) of one thread (in time order) out as slices. */
static int thread_slices(struct chrome *c, const struct xstack *v, size_t n)
{
	const struct xstacks *x = c->x;
	uint64_t slack = join_slack_ns(c, v[0].exp), end = 0;
	c->slices.n = c->open.n = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t w = xstack_value(&v[i], c->ids.cpu);
		if (!w)
			continue;
		uint64_t ts = rel(c, v[i].ts_ns), cand = ts > w ? ts - w : 0, start = cand;
		if (c->open.n && (cand <= end || end + w + slack >= ts))
			start = end; /* joins the span before */
		size_t common = 0;
		if (start == end)
			while (common < c->open.n && common < v[i].n &&
			       c->open.v[common].func == x->frames.v[v[i].off + common])
				common++;
		if (close_slices(c, common, end) < 0)
			return -ENOMEM;
		for (size_t k = common; k < v[i].n; k++) {
			struct slice s = {
				.start_ns = start, .func = x->frames.v[v[i].off + k], .depth = (uint32_t)k};
			if (VEC_PUSH(&c->open, s) < 0)
				return -ENOMEM;
		}
		end = start + w;
	}
	return close_slices(c, 0, end);
}

static int write_cpu(struct chrome *c)
{
	const struct xstacks *x = c->x;
	struct jsonw *w = &c->w;
	for (size_t i = 0; i < x->v.n;) {
		size_t j = i;
		while (j < x->v.n && x->v.v[j].exp == x->v.v[i].exp && x->v.v[j].thread == x->v.v[i].thread)
			j++;
		if (thread_slices(c, &x->v.v[i], j - i) < 0)
			return -ENOMEM;
		qsort(c->slices.v, c->slices.n, sizeof *c->slices.v, cmp_slice);
		for (size_t k = 0; k < c->slices.n; k++) {
			const struct slice *s = &c->slices.v[k];
			event_head(c, "X", x->v.v[i].exp, x->v.v[i].thread);
			jsonw_key_string(w, "cat", "cpu");
			jsonw_key_string(w, "name", func_name(c, s->func));
			jsonw_key_uint(w, "ts", s->start_ns / 1000);
			jsonw_key_uint(w, "dur", (s->start_ns + s->dur_ns) / 1000 - s->start_ns / 1000);
			jsonw_object_end(w);
		}
		i = j;
	}
	return jsonw_error(w);
}

/* args.stack: the frames joined by ';', root first (folded stacks' form). */
static int key_stack(struct chrome *c, const struct xstack *s)
{
	struct strbuf b;
	strbuf_init(&b, 0);
	for (size_t k = 0; k < s->n; k++) {
		if (k)
			strbuf_add(&b, ";", 1);
		strbuf_adds(&b, func_name(c, c->x->frames.v[s->off + k]));
	}
	int r = b.failed ? -ENOMEM : jsonw_key_string(&c->w, "stack", strbuf_str(&b));
	strbuf_release(&b);
	return r;
}

/* By experiment (process), then time; ties in the order made. */
static int cmp_process_time(const void *pa, const void *pb)
{
	const struct xstack *a = pa, *b = pb;
	if (a->exp != b->exp)
		return a->exp < b->exp ? -1 : 1;
	if (a->ts_ns != b->ts_ns)
		return a->ts_ns < b->ts_ns ? -1 : 1;
	return a->off < b->off ? -1 : a->off > b->off;
}

/* Allocations (events in time order by thread): instants, and running totals per process. */
static int write_allocations(struct chrome *c)
{
	const struct xstacks *x = c->x;
	struct jsonw *w = &c->w;
	for (size_t i = 0; i < x->v.n; i++) {
		const struct xstack *s = &x->v.v[i];
		if (!xstack_value(s, c->ids.alloccnt))
			continue;
		event_head(c, "i", s->exp, s->thread);
		jsonw_key_string(w, "s", "t");
		jsonw_key_string(w, "cat", "heap");
		jsonw_key_string(w, "name", func_name(c, x->frames.v[s->off + s->n - 1]));
		jsonw_key_uint(w, "ts", rel(c, s->ts_ns) / 1000);
		jsonw_key(w, "args");
		jsonw_object_begin(w);
		jsonw_key_uint(w, "bytes", xstack_value(s, c->ids.allocbytes));
		if (key_stack(c, s) < 0)
			return -ENOMEM;
		jsonw_object_end(w);
		jsonw_object_end(w);
	}
	/* counters need time order per process: a copy of the allocations sorted by (exp, time) */
	size_t n = 0;
	struct xstack *v = malloc((x->v.n ? x->v.n : 1) * sizeof *v);
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < x->v.n; i++)
		if (xstack_value(&x->v.v[i], c->ids.alloccnt))
			v[n++] = x->v.v[i];
	qsort(v, n, sizeof *v, cmp_process_time);
	uint64_t bytes = 0, count = 0;
	for (size_t i = 0; i < n; i++) {
		if (i && v[i].exp != v[i - 1].exp)
			bytes = count = 0;
		bytes += xstack_value(&v[i], c->ids.allocbytes);
		count += xstack_value(&v[i], c->ids.alloccnt);
		event_head(c, "C", v[i].exp, v[i].thread);
		jsonw_key_string(w, "name", "Heap allocated");
		jsonw_key_uint(w, "ts", rel(c, v[i].ts_ns) / 1000);
		jsonw_key(w, "args");
		jsonw_object_begin(w);
		jsonw_key_uint(w, "bytes", bytes);
		jsonw_key_uint(w, "allocations", count);
		jsonw_object_end(w);
		jsonw_object_end(w);
	}
	free(v);
	return jsonw_error(w);
}

/* Leaks (aggregate by thread): one instant per stack at the end of its experiment's data. */
static int write_leaks(struct chrome *c, const struct xstacks *leaks)
{
	struct jsonw *w = &c->w;
	char leaf[4200];
	c->x = leaks;
	for (size_t i = 0; i < leaks->v.n; i++) {
		const struct xstack *s = &leaks->v.v[i];
		if (!xstack_value(s, c->ids.leakcnt))
			continue;
		const struct experiment *exp = profile_experiment(c->e->prof, s->exp);
		snprintf(leaf, sizeof leaf, "Leak: %s", func_name(c, leaks->frames.v[s->off + s->n - 1]));
		event_head(c, "i", s->exp, s->thread);
		jsonw_key_string(w, "s", "t");
		jsonw_key_string(w, "cat", "heap");
		jsonw_key_string(w, "name", leaf);
		jsonw_key_uint(w, "ts",
			       rel(c, experiment_log(exp)->start_ns + experiment_duration_ns(exp)) / 1000);
		jsonw_key(w, "args");
		jsonw_object_begin(w);
		jsonw_key_uint(w, "bytes", xstack_value(s, c->ids.leakbytes));
		jsonw_key_uint(w, "blocks", xstack_value(s, c->ids.leakcnt));
		if (key_stack(c, s) < 0)
			return -ENOMEM;
		jsonw_object_end(w);
		jsonw_object_end(w);
	}
	return jsonw_error(w);
}

int export_chrome(struct erp *e, FILE *f, size_t metric)
{
	size_t *metrics;
	size_t nm = export_metrics(e, metric, &metrics);
	if (!nm)
		return -1;
	struct chrome c = {.e = e, .origin_ns = export_time_origin_ns(e)};
	export_metric_ids(e, &c.ids);
	int cpu = export_metric_in(metrics, nm, c.ids.cpu);
	int allocs = export_metric_in(metrics, nm, c.ids.alloccnt) ||
		     export_metric_in(metrics, nm, c.ids.allocbytes);
	int leaks = export_metric_in(metrics, nm, c.ids.leakcnt) ||
		    export_metric_in(metrics, nm, c.ids.leakbytes);
	free(metrics);
	struct xstacks events = {0}, threads = {0};
	int r = -1;
	if (((cpu || allocs) && xstacks_collect(e, PROFILE_STACKS_BY_EVENT, 1, &events) < 0) ||
	    (leaks && xstacks_collect(e, PROFILE_STACKS_BY_THREAD, 1, &threads) < 0))
		goto out;
	struct jsonw *w = &c.w;
	jsonw_init(w, f, NULL, 0);
	jsonw_object_begin(w);
	jsonw_key(w, "traceEvents");
	jsonw_array_begin(w);
	write_names(&c);
	c.x = &events;
	int err = cpu ? write_cpu(&c) : 0;
	if (!err && allocs)
		err = write_allocations(&c);
	if (!err && leaks)
		err = write_leaks(&c, &threads);
	jsonw_array_end(w);
	jsonw_key(w, "otherData");
	jsonw_object_begin(w);
	jsonw_key_string(w, "exporter", "er_print " PA_VERSION);
	jsonw_key_string(w, "experiment", experiment_path(profile_experiment(e->prof, 0)));
	jsonw_object_end(w);
	jsonw_object_end(w);
	r = export_json_finish(e, w, err);
out:
	free(c.slices.v);
	free(c.open.v);
	xstacks_release(&events);
	xstacks_release(&threads);
	return r;
}
