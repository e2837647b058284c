/*
 * export_speedscope.c - speedscope's JSON file format
 * (https://www.speedscope.app/file-format-schema.json, spec in speedscope's
 * src/lib/file-format-spec.ts): one shared frame table (one frame per
 * function, named as er_print names it) and one "sampled" profile per
 * metric and thread, named "<metric> - <thread>", e.g. "Total CPU Time -
 * Thread 1 (tid 4242)".
 *
 *  - Weights are the metric in its integer unit: "nanoseconds" of CPU
 *    time, "bytes", or "none" for counts; a profile's weights sum to the
 *    thread's share of <Total>, all threads' to <Total> exactly.
 *  - CPU time and allocations are in time order (one sample per clock
 *    sample or allocation, PROFILE_STACKS_BY_EVENT), so speedscope's "Time
 *    Order" view is a timeline; leaks (the state at the end) are one sample
 *    per distinct stack.
 *  - Profiles of a metric come together (all threads' CPU time, then all
 *    threads' allocations ...); a thread without a value for a metric has
 *    no profile for it.  The first profile is the one shown on opening.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonw.h"
#include "analysis/experiment.h"
#include "er_print/export.h"
#include "er_print/export_stacks.h"

struct speedscope {
	struct erp *e;
	struct jsonw w;
	struct xframes frames;
};

static const char *unit_name(enum metric_unit u)
{
	switch (u) {
	case METRIC_UNIT_TIME: return "nanoseconds";
	case METRIC_UNIT_BYTES: return "bytes";
	case METRIC_UNIT_COUNT: return "none";
	case METRIC_UNIT_RATIO: return "none"; /* never exported (export.c refuses ratios) */
	}
	return "none";
}

/* One profile: metric m of the stacks v[0..n) (one thread), those with a value. */
static int write_profile(struct speedscope *sp, const struct xstacks *x, const struct xstack *v, size_t n,
			 size_t m)
{
	struct jsonw *w = &sp->w;
	size_t ndefs;
	const struct metric_def *d = &profile_metric_defs(sp->e->prof, &ndefs)[m];
	uint64_t sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += v[i].m[m];
	char thread[128], name[256];
	export_thread_name(sp->e, v[0].exp, v[0].thread, 1, thread, sizeof thread);
	snprintf(name, sizeof name, "%s - %s", d->username, thread);
	jsonw_object_begin(w);
	jsonw_key_string(w, "type", "sampled");
	jsonw_key_string(w, "name", name);
	jsonw_key_string(w, "unit", unit_name(d->unit));
	jsonw_key_uint(w, "startValue", 0);
	jsonw_key_uint(w, "endValue", sum);
	jsonw_key(w, "samples");
	jsonw_array_begin(w);
	for (size_t i = 0; i < n; i++) {
		if (!v[i].m[m])
			continue;
		jsonw_array_begin(w);
		for (size_t k = 0; k < v[i].n; k++) {
			long f = xframes_get(&sp->frames, x->frames.v[v[i].off + k]);
			if (f < 0)
				return -ENOMEM;
			jsonw_uint(w, (uint64_t)f);
		}
		jsonw_array_end(w);
	}
	jsonw_array_end(w);
	jsonw_key(w, "weights");
	jsonw_array_begin(w);
	for (size_t i = 0; i < n; i++)
		if (v[i].m[m])
			jsonw_uint(w, v[i].m[m]);
	jsonw_array_end(w);
	return jsonw_object_end(w);
}

/* The profiles of metric m, one per thread of x (sorted by thread) with a value. */
static int write_metric(struct speedscope *sp, const struct xstacks *x, size_t m)
{
	for (size_t i = 0; i < x->v.n;) {
		size_t j = i;
		int any = 0;
		while (j < x->v.n && x->v.v[j].exp == x->v.v[i].exp && x->v.v[j].thread == x->v.v[i].thread)
			any |= x->v.v[j++].m[m] != 0;
		if (any) {
			int r = write_profile(sp, x, &x->v.v[i], j - i, m);
			if (r < 0)
				return r;
		}
		i = j;
	}
	return 0;
}

static void write_frames(struct speedscope *sp)
{
	struct jsonw *w = &sp->w;
	char name[4096];
	jsonw_key(w, "shared");
	jsonw_object_begin(w);
	jsonw_key(w, "frames");
	jsonw_array_begin(w);
	for (size_t i = 0; i < sp->frames.funcs.n; i++) {
		const struct pfunc *f = profile_func(sp->e->prof, sp->frames.funcs.v[i]);
		jsonw_object_begin(w);
		jsonw_key_string(w, "name", erp_func_name(sp->e, f, name, sizeof name));
		if (f->obj != PROFILE_NO_OBJECT)
			jsonw_key_string(w, "file", profile_object(sp->e->prof, f->obj)->path);
		jsonw_object_end(w);
	}
	jsonw_array_end(w);
	jsonw_object_end(w);
}

int export_speedscope(struct erp *e, FILE *f, size_t metric)
{
	size_t *metrics;
	size_t nm = export_metrics(e, metric, &metrics);
	if (!nm)
		return -1;
	int need_events = 0, need_threads = 0;
	for (size_t i = 0; i < nm; i++) {
		int leak = export_metric_is_leak(e, metrics[i]);
		need_threads |= leak;
		need_events |= !leak;
	}
	struct speedscope sp = {.e = e};
	struct xstacks events = {0}, threads = {0};
	int r = -1;
	if (xframes_init(&sp.frames, e) < 0) {
		erp_error(e, "export: %s", strerror(ENOMEM));
		free(metrics);
		return -1;
	}
	if ((need_events && xstacks_collect(e, PROFILE_STACKS_BY_EVENT, 1, &events) < 0) ||
	    (need_threads && xstacks_collect(e, PROFILE_STACKS_BY_THREAD, 1, &threads) < 0))
		goto out;
	struct jsonw *w = &sp.w;
	jsonw_init(w, f, NULL, 0);
	jsonw_object_begin(w);
	jsonw_key_string(w, "$schema", "https://www.speedscope.app/file-format-schema.json");
	jsonw_key_string(w, "exporter", "er_print@" PA_VERSION);
	jsonw_key_string(w, "name", experiment_name(profile_experiment(e->prof, 0)));
	jsonw_key_uint(w, "activeProfileIndex", 0);
	jsonw_key(w, "profiles");
	jsonw_array_begin(w);
	int err = 0;
	for (size_t i = 0; i < nm && !err; i++) {
		err = write_metric(&sp, export_metric_is_leak(e, metrics[i]) ? &threads : &events,
				   metrics[i]);
	}
	jsonw_array_end(w);
	write_frames(&sp);
	jsonw_object_end(w);
	r = export_json_finish(e, w, err);
out:
	xstacks_release(&events);
	xstacks_release(&threads);
	xframes_release(&sp.frames);
	free(metrics);
	return r;
}
