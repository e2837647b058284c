/*
 * export_stacks.h - what the JSON exports (speedscope, Firefox Profiler,
 * Chrome trace) share: the selection's stacks copied out of
 * profile_foreach_stack (which lends them only during its callback), the
 * metrics an export carries, dense frame indexes for function ids, and the
 * names of threads and processes.  Internal to er_print.
 */
#ifndef ER_PRINT_EXPORT_STACKS_H
#define ER_PRINT_EXPORT_STACKS_H

#include <stddef.h>
#include <stdint.h>

#include "common/jsonw.h"
#include "common/vec.h"
#include "er_print/erp.h"

/*
 * One stack of the selection; its frames are xstacks.frames.v[off .. off + n),
 * root first; m its metric vector (one value per registered metric, in
 * xstacks.vals).
 */
struct xstack {
	size_t exp;      /* SIZE_MAX in the aggregate mode */
	uint32_t thread; /* index into exp's threads; UINT32_MAX in the aggregate mode */
	uint64_t ts_ns;  /* PROFILE_STACKS_BY_EVENT only */
	size_t off, n;
	size_t moff; /* m = vals.v + moff */
	const uint64_t *m;
};

struct xstacks {
	VEC(struct xstack) v;
	VEC(uint32_t) frames;
	size_t nm; /* metrics per vector: the registry's */
	VEC(uint64_t) vals;
};

/*
 * The registry indices of the metrics whose meaning an export knows (the
 * CPU time, the heap's allocations and leaks), SIZE_MAX for one the
 * experiments do not have.
 */
struct xmetric_ids {
	size_t cpu, alloccnt, allocbytes, leakcnt, leakbytes;
};
void export_metric_ids(struct erp *e, struct xmetric_ids *ret);

/* Metric k of s, 0 for SIZE_MAX (a metric the experiments do not have). */
static inline uint64_t xstack_value(const struct xstack *s, size_t k)
{
	return k == SIZE_MAX ? 0 : s->m[k];
}

/*
 * Copy the selection's stacks in mode `flags` (0 or one PROFILE_STACKS_*)
 * into *ret (zeroed first), in profile_foreach_stack's order; with
 * `sort_by_thread`, sorted by experiment, thread and time, stably.
 * 0, or -1 after an error message.
 */
int xstacks_collect(struct erp *e, unsigned flags, int sort_by_thread, struct xstacks *ret);
void xstacks_release(struct xstacks *s);

/*
 * The metrics an export carries, malloc'd into *ret: `metric` alone, or for
 * EXPORT_METRIC_ALL every metric of the registry (the CPU time and, when an
 * experiment traced the heap, every heap metric) but the ratios (IPC, CPI).  Returns their count, or
 * 0 after an error message (out of memory).
 */
size_t export_metrics(struct erp *e, size_t metric, size_t **ret);

/* 1 if m is one of ret[0..n) of export_metrics (never for SIZE_MAX). */
int export_metric_in(const size_t *metrics, size_t n, size_t m);

/* 1 for a metric of the state at the end (the leaks), whose values are no events. */
int export_metric_is_leak(struct erp *e, size_t m);

/*
 * End a JSON export: finish w unless err (the writer's first error, or the
 * exporter's own, 0 if none) is set; 0, or -1 after an error message.  A
 * write error on the FILE (-EIO) gives 0: export.c sees the stream's error
 * and names the file.
 */
int export_json_finish(struct erp *e, struct jsonw *w, int err);

/* Function id -> dense frame index, in order of first use. */
struct xframes {
	uint32_t *index; /* by function id: frame index + 1, 0 = not yet */
	VEC(uint32_t) funcs;
};

/* 0 or -ENOMEM. */
int xframes_init(struct xframes *x, struct erp *e);
/* The frame index of function id `func` (added when new), or -ENOMEM. */
long xframes_get(struct xframes *x, uint32_t func);
void xframes_release(struct xframes *x);

/*
 * Names: a thread "Thread 2 (tid 4242)" (with_tid) or "Thread 2", prefixed
 * with the experiment's name when more than one experiment is open; a
 * process (its program's base name, or the experiment's name).
 */
void export_thread_name(struct erp *e, size_t exp, uint32_t thread, int with_tid, char *buf, size_t room);
const char *export_process_name(struct erp *e, size_t exp);

/* The earliest start (CLOCK_MONOTONIC ns) of the open experiments: time 0 of the timelines. */
uint64_t export_time_origin_ns(struct erp *e);

#endif
