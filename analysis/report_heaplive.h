/*
 * report_heaplive.h - the live heap over time (the analyzer's Heap view
 * chart; any front end): for each selected experiment with heap data, and
 * for the whole selection, the bytes live after each heap call as a step
 * line of at most `width` points that never loses a maximum, and the peak.
 *
 * Live bytes: analysis/profile_heap.h's semantics (profile_heap_live_*).
 * Time base: an experiment's series is in ns since its start (report_rel_ns:
 * the base of /api/timeline's t and of heap_summary.peak_ns).  The whole
 * selection is the sum of the selected processes' live bytes at each moment
 * of one clock (the experiments' start_ns are CLOCK_MONOTONIC), in ns since
 * the start of the earliest of them; an experiment's series shifted by its
 * start_offset_ns is on that base.
 * Selections: the experiment selection applies (only selected experiments
 * count); the thread and time selections do not, as for heap_summary's
 * peak: a block is live in its process whichever thread allocated it, and
 * the memory live during a time range includes blocks allocated before it.
 * A front end shows the time selection over the whole run's line.
 *
 * Downsampling: [0, span_ns] is cut into `width` buckets, time t in bucket
 * floor(t * width / span_ns) (the last one also holds span_ns).  The line
 * is a step function: bytes[i] from t[i] until t[i + 1] (or span_ns), 0
 * before t[0].  Each bucket gives at most one point: the largest live bytes
 * in it (those carried in from before it included) at the time they were
 * first reached in it (the bucket's first time when carried in), unless
 * that equals the previous point's bytes.  So the line is an upper envelope
 * that keeps every maximum (the peak is the point (peak_ns, peak_bytes)).
 * A drop shows at the start of the next bucket when no call falls in it,
 * else in that bucket's maximum; a drop in the last bucket as one more
 * point (span_ns, end_bytes), so a line has at most width + 1 points.  With
 * no two calls in one bucket, each rise is a point at its call's time and
 * each drop one at the start of the bucket after its call's.  Times of the
 * points increase strictly; a call recorded before the call replayed before
 * it (threads' clocks) counts at that call's time, except in peak_ns,
 * which is the call's own time as in heap_summary.
 * Not thread-safe.
 */
#ifndef ANALYSIS_REPORT_HEAPLIVE_H
#define ANALYSIS_REPORT_HEAPLIVE_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/profile.h"

struct heaplive_point {
	uint64_t t_ns;
	uint64_t bytes;
};

struct heaplive_series {
	size_t exp; /* experiment index; SIZE_MAX for the whole selection */
	uint64_t
		start_offset_ns; /* its start after the earliest selected one's (0 for the whole selection) */
	uint64_t span_ns; /* its times are in [0, span_ns]: its duration, or its last call's time if later */
	uint64_t calls;   /* heap calls replayed */
	/*
	 * The largest live bytes, first reached at peak_ns (0 and 0 when nothing
	 * was ever live).  For an experiment: its heap_summary peak (the summary
	 * keeps the highest experiment's); for the whole selection, that of the sum.
	 */
	uint64_t peak_ns, peak_bytes;
	uint64_t end_bytes; /* live after the last call */
	size_t npoints;     /* at most width + 1 */
	struct heaplive_point *points;
};

struct report_heaplive {
	size_t width;
	size_t nexps;
	struct heaplive_series *exps; /* one per selected experiment with heap data, in index order */
	struct heaplive_series total; /* the whole selection (no points without heap data) */
};

/*
 * The live heap of p's selected experiments in at most `width` points per
 * series.  0 and *ret (free with report_heaplive_free, NULL-safe);
 * -EINVAL for width 0, -ENOMEM.  Without heap data: 0, nexps 0.
 */
int report_heaplive_compute(const struct profile *p, size_t width, struct report_heaplive **ret);
void report_heaplive_free(struct report_heaplive *r);

#endif
