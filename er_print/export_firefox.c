/*
 * export_firefox.c - the Firefox Profiler's Gecko profile format (what the
 * Gecko profiler and `perf script report gecko` write; the profiler
 * converts it to its processed format when it loads it), format version
 * 24, which profiler.firefox.com upgrades.  Types in the profiler's
 * src/types/gecko-profile.ts.
 *
 *  - One thread per recorded thread with data, with its pid, tid, name
 *    ("Thread N", or "<experiment> Thread N") and process name; each has
 *    its own string, frame and stack tables.  A frame is a function:
 *    "name (in object)", which the profiler reads as a native function of
 *    that library; pseudo-functions (<Unknown>, <Truncated-stack>) are
 *    plain labels.
 *  - CPU time: a sample per clock sample, "time" in milliseconds since
 *    meta.startTime (the earliest experiment's start; wall clock, ms since
 *    the epoch), and threadCPUDelta its CPU time in nanoseconds
 *    (meta.sampleUnits.threadCPUDelta "ns"): their sum is <Total> CPU time.
 *  - Heap allocations: a "Native allocation" marker per allocation, with
 *    its size in bytes and its stack, at its time; the profiler turns them
 *    into the thread's native allocations table ("Native Allocations" in
 *    the call tree: bytes and counts).
 *  - Leaks are not carried: the format has no end-state weights, and an
 *    allocation is not known here to have leaked.  Use speedscope, folded
 *    or chrome for heapleakbytes / heapleakcnt.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonw.h"
#include "common/u64map.h"
#include "analysis/experiment.h"
#include "er_print/export.h"
#include "er_print/export_stacks.h"

#define MS 6 /* decimals of nanoseconds written as milliseconds */

/* The tables of one thread. */
struct gthread {
	struct xframes frames;   /* function -> frame index (= its location string's index) */
	struct u64map stack_ids; /* (prefix + 1) << 32 | frame -> stack index */
	VEC(int64_t) stack_prefix;
	VEC(uint32_t) stack_frame;
};

struct firefox {
	struct erp *e;
	struct jsonw w;
	const struct xstacks *x;
	uint64_t origin_ns;
	int cpu, allocs;
	struct xmetric_ids ids;
};

static uint64_t rel(const struct firefox *ff, uint64_t ts_ns)
{
	return ts_ns > ff->origin_ns ? ts_ns - ff->origin_ns : 0;
}

/* The stack index of frames fr[0..n) (root first), added when new; or -ENOMEM. */
static long stack_index(struct gthread *g, const uint32_t *fr, size_t n)
{
	int64_t prefix = -1;
	for (size_t i = 0; i < n; i++) {
		long f = xframes_get(&g->frames, fr[i]);
		if (f < 0)
			return -ENOMEM;
		uint64_t key = (uint64_t)(prefix + 1) << 32 | (uint64_t)f;
		int64_t s = u64map_get(&g->stack_ids, key);
		if (s < 0) {
			s = (int64_t)g->stack_frame.n;
			if (VEC_PUSH(&g->stack_prefix, prefix) < 0 ||
			    VEC_PUSH(&g->stack_frame, (uint32_t)f) < 0 ||
			    u64map_put(&g->stack_ids, key, (uint32_t)s) < 0)
				return -ENOMEM;
		}
		prefix = s;
	}
	return (long)prefix;
}

static void key_schema(struct jsonw *w, const char *const *names, size_t n)
{
	jsonw_key(w, "schema");
	jsonw_object_begin(w);
	for (size_t i = 0; i < n; i++)
		jsonw_key_uint(w, names[i], i);
	jsonw_object_end(w);
}

/* Open key: {"schema": {names[0]: 0, ...}, "data": [ ... (table_end closes it). */
static void table_begin(struct jsonw *w, const char *key, const char *const *names, size_t n)
{
	jsonw_key(w, key);
	jsonw_object_begin(w);
	key_schema(w, names, n);
	jsonw_key(w, "data");
	jsonw_array_begin(w);
}

static int table_end(struct jsonw *w)
{
	jsonw_array_end(w);
	return jsonw_object_end(w);
}

static const char *const sample_schema[] = {"stack", "time", "eventDelay", "threadCPUDelta"};
static const char *const marker_schema[] = {"name", "startTime", "endTime", "phase", "category", "data"};

/* An empty marker table (the SyncProfile of an allocation's stack has one). */
static void empty_markers(struct jsonw *w)
{
	table_begin(w, "markers", marker_schema, 6);
	table_end(w);
}

static int write_samples(struct firefox *ff, struct gthread *g, const struct xstack *v, size_t n)
{
	struct jsonw *w = &ff->w;
	table_begin(w, "samples", sample_schema, 4);
	for (size_t i = 0; ff->cpu && i < n; i++) {
		uint64_t cpu = xstack_value(&v[i], ff->ids.cpu);
		if (!cpu)
			continue;
		long s = stack_index(g, &ff->x->frames.v[v[i].off], v[i].n);
		if (s < 0)
			return -ENOMEM;
		jsonw_array_begin(w);
		jsonw_uint(w, (uint64_t)s);
		jsonw_udecimal(w, rel(ff, v[i].ts_ns), MS);
		jsonw_uint(w, 0);
		jsonw_uint(w, cpu);
		jsonw_array_end(w);
	}
	return table_end(w);
}

/* A "Native allocation" marker's payload: size and the stack as a one-sample SyncProfile. */
static void allocation_payload(struct firefox *ff, const struct xstack *s, long stack, uint64_t t)
{
	struct jsonw *w = &ff->w;
	const struct experiment *x = profile_experiment(ff->e->prof, s->exp);
	jsonw_object_begin(w);
	jsonw_key_string(w, "type", "Native allocation");
	jsonw_key_uint(w, "size", xstack_value(s, ff->ids.allocbytes));
	jsonw_key(w, "stack");
	jsonw_object_begin(w);
	jsonw_key_string(w, "name", "SyncProfile");
	jsonw_key(w, "registerTime");
	jsonw_null(w);
	jsonw_key(w, "unregisterTime");
	jsonw_null(w);
	jsonw_key_string(w, "processType", "default");
	jsonw_key_uint(w, "tid", experiment_thread(x, s->thread)->tid);
	jsonw_key_uint(w, "pid", experiment_log(x)->pid);
	empty_markers(w);
	table_begin(w, "samples", sample_schema, 3);
	jsonw_array_begin(w);
	jsonw_uint(w, (uint64_t)stack);
	jsonw_udecimal(w, t, MS);
	jsonw_uint(w, 0);
	jsonw_array_end(w);
	table_end(w);
	jsonw_object_end(w);
	jsonw_object_end(w);
}

/* Markers: a "Native allocation" per allocation.  The marker name is string 0. */
static int write_markers(struct firefox *ff, struct gthread *g, const struct xstack *v, size_t n)
{
	struct jsonw *w = &ff->w;
	table_begin(w, "markers", marker_schema, 6);
	for (size_t i = 0; ff->allocs && i < n; i++) {
		if (!xstack_value(&v[i], ff->ids.alloccnt))
			continue;
		long s = stack_index(g, &ff->x->frames.v[v[i].off], v[i].n);
		if (s < 0)
			return -ENOMEM;
		uint64_t t = rel(ff, v[i].ts_ns);
		jsonw_array_begin(w);
		jsonw_uint(w, 0);
		jsonw_udecimal(w, t, MS);
		jsonw_null(w);
		jsonw_uint(w, 0);
		jsonw_uint(w, 0);
		allocation_payload(ff, &v[i], s, t);
		jsonw_array_end(w);
	}
	return table_end(w);
}

/* frameTable, stackTable and stringTable: string 0 is the marker name, string i + 1 frame i's location. */
static void write_tables(struct firefox *ff, struct gthread *g)
{
	static const char *const frame_schema[] = {"location",       "relevantForJS", "innerWindowID",
						   "implementation", "optimizations", "line",
						   "column",         "category",      "subcategory"};
	static const char *const stack_schema[] = {"prefix", "frame"};
	struct jsonw *w = &ff->w;
	table_begin(w, "frameTable", frame_schema, 9);
	for (size_t i = 0; i < g->frames.funcs.n; i++) {
		jsonw_array_begin(w);
		jsonw_uint(w, i + 1);
		jsonw_bool(w, 0);
		jsonw_uint(w, 0);
		for (int k = 0; k < 4; k++)
			jsonw_null(w);
		jsonw_uint(w, 0);
		jsonw_uint(w, 0);
		jsonw_array_end(w);
	}
	table_end(w);
	table_begin(w, "stackTable", stack_schema, 2);
	for (size_t i = 0; i < g->stack_frame.n; i++) {
		jsonw_array_begin(w);
		if (g->stack_prefix.v[i] < 0)
			jsonw_null(w);
		else
			jsonw_uint(w, (uint64_t)g->stack_prefix.v[i]);
		jsonw_uint(w, g->stack_frame.v[i]);
		jsonw_array_end(w);
	}
	table_end(w);
	jsonw_key(w, "stringTable");
	jsonw_array_begin(w);
	jsonw_string(w, "Native allocation");
	char name[4096], loc[4400];
	for (size_t i = 0; i < g->frames.funcs.n; i++) {
		const struct pfunc *f = profile_func(ff->e->prof, g->frames.funcs.v[i]);
		const char *n = erp_func_name(ff->e, f, name, sizeof name);
		if (f->obj != PROFILE_NO_OBJECT)
			snprintf(loc, sizeof loc, "%s (in %s)", n, profile_object(ff->e->prof, f->obj)->name);
		else
			snprintf(loc, sizeof loc, "%s", n);
		jsonw_string(w, loc);
	}
	jsonw_array_end(w);
}

/* One thread: the events v[0..n) of (exp, thread), in time order. */
static int write_thread(struct firefox *ff, const struct xstack *v, size_t n)
{
	struct jsonw *w = &ff->w;
	struct gthread g = {0};
	u64map_init(&g.stack_ids);
	int r = xframes_init(&g.frames, ff->e);
	const struct experiment *x = profile_experiment(ff->e->prof, v[0].exp);
	const struct exp_thread *t = experiment_thread(x, v[0].thread);
	char name[128];
	export_thread_name(ff->e, v[0].exp, v[0].thread, 0, name, sizeof name);
	jsonw_object_begin(w);
	jsonw_key_string(w, "name", name);
	jsonw_key_string(w, "processType", "default");
	jsonw_key_string(w, "processName", export_process_name(ff->e, v[0].exp));
	jsonw_key_uint(w, "pid", experiment_log(x)->pid);
	jsonw_key_uint(w, "tid", t->tid);
	jsonw_key_udecimal(w, "registerTime", t->has_start ? rel(ff, t->start_ns) : 0, MS);
	jsonw_key(w, "unregisterTime");
	if (t->has_end)
		jsonw_udecimal(w, rel(ff, t->end_ns), MS);
	else
		jsonw_null(w);
	if (!r)
		r = write_samples(ff, &g, v, n);
	if (!r)
		r = write_markers(ff, &g, v, n);
	if (!r)
		write_tables(ff, &g);
	jsonw_object_end(w);
	xframes_release(&g.frames);
	u64map_release(&g.stack_ids);
	free(g.stack_prefix.v);
	free(g.stack_frame.v);
	return r ? r : jsonw_error(w);
}

static void write_meta(struct firefox *ff)
{
	struct jsonw *w = &ff->w;
	const struct experiment *x0 = profile_experiment(ff->e->prof, 0);
	uint64_t realtime = 0, interval_us = 0;
	for (size_t i = 0; i < profile_experiment_count(ff->e->prof); i++) {
		const struct exp_log *l = experiment_log(profile_experiment(ff->e->prof, i));
		if (l->start_ns == ff->origin_ns && !realtime)
			realtime = l->realtime_ns;
		if (!interval_us)
			interval_us =
				l->effective_interval_us ? l->effective_interval_us : l->clock_interval_us;
	}
	char product[256];
	snprintf(product, sizeof product, "%s (er_print %s)", export_process_name(ff->e, 0), PA_VERSION);
	jsonw_key(w, "meta");
	jsonw_object_begin(w);
	jsonw_key_uint(w, "version", 24);
	jsonw_key_udecimal(w, "startTime", realtime, MS);
	jsonw_key(w, "shutdownTime");
	jsonw_null(w);
	jsonw_key_udecimal(w, "interval", interval_us ? interval_us : 10000, 3);
	jsonw_key_uint(w, "stackwalk", 1);
	jsonw_key_uint(w, "debug", 0);
	jsonw_key_uint(w, "gcpoison", 0);
	jsonw_key_uint(w, "asyncstack", 0);
	jsonw_key_uint(w, "processType", 0);
	jsonw_key_string(w, "product", product);
	jsonw_key_string(w, "oscpu", experiment_log(x0)->os);
	jsonw_key_string(w, "abi", experiment_log(x0)->arch);
	jsonw_key_bool(w, "presymbolicated", 1);
	jsonw_key(w, "categories");
	jsonw_array_begin(w);
	jsonw_object_begin(w);
	jsonw_key_string(w, "name", "User");
	jsonw_key_string(w, "color", "yellow");
	jsonw_key(w, "subcategories");
	jsonw_array_begin(w);
	jsonw_string(w, "Other");
	jsonw_array_end(w);
	jsonw_object_end(w);
	jsonw_array_end(w);
	jsonw_key(w, "markerSchema");
	jsonw_array_begin(w);
	jsonw_array_end(w);
	jsonw_key(w, "sampleUnits");
	jsonw_object_begin(w);
	jsonw_key_string(w, "time", "ms");
	jsonw_key_string(w, "eventDelay", "ms");
	jsonw_key_string(w, "threadCPUDelta", "ns");
	jsonw_object_end(w);
	jsonw_object_end(w);
}

int export_firefox(struct erp *e, FILE *f, size_t metric)
{
	size_t *metrics;
	size_t nm = export_metrics(e, metric, &metrics);
	if (!nm)
		return -1;
	struct firefox ff = {.e = e, .origin_ns = export_time_origin_ns(e)};
	export_metric_ids(e, &ff.ids);
	ff.cpu = export_metric_in(metrics, nm, ff.ids.cpu);
	ff.allocs = export_metric_in(metrics, nm, ff.ids.alloccnt) ||
		    export_metric_in(metrics, nm, ff.ids.allocbytes);
	free(metrics);
	if (!ff.cpu && !ff.allocs) {
		erp_error(e, "export: firefox carries CPU time and heap allocations, not leaks "
			     "(use speedscope, chrome or folded)");
		return -1;
	}
	struct xstacks events;
	if (xstacks_collect(e, PROFILE_STACKS_BY_EVENT, 1, &events) < 0)
		return -1;
	ff.x = &events;
	struct jsonw *w = &ff.w;
	jsonw_init(w, f, NULL, 0);
	jsonw_object_begin(w);
	write_meta(&ff);
	jsonw_key(w, "libs");
	jsonw_array_begin(w);
	jsonw_array_end(w);
	jsonw_key(w, "pausedRanges");
	jsonw_array_begin(w);
	jsonw_array_end(w);
	jsonw_key(w, "processes");
	jsonw_array_begin(w);
	jsonw_array_end(w);
	jsonw_key(w, "threads");
	jsonw_array_begin(w);
	int err = 0;
	for (size_t i = 0; i < events.v.n && !err;) {
		size_t j = i;
		int any = 0;
		for (; j < events.v.n && events.v.v[j].exp == events.v.v[i].exp &&
		       events.v.v[j].thread == events.v.v[i].thread;
		     j++)
			any |= (ff.cpu && xstack_value(&events.v.v[j], ff.ids.cpu)) ||
			       (ff.allocs && xstack_value(&events.v.v[j], ff.ids.alloccnt));
		if (any)
			err = write_thread(&ff, &events.v.v[i], j - i);
		i = j;
	}
	jsonw_array_end(w);
	jsonw_object_end(w);
	int r = export_json_finish(e, w, err);
	xstacks_release(&events);
	return r;
}
