/*
 * report_heaplive.c - the live heap over time (see report_heaplive.h): the
 * selected experiments' heap replays (profile_heap_live_*) merged in time
 * order on one clock, each call's live bytes fed to its experiment's line
 * and their sum to the whole selection's.  A line keeps only its open
 * bucket's maximum, so memory is O(width) per line besides the replays'
 * live blocks; cost O(heap calls x experiments).
 */
#include "analysis/report_heaplive.h"
#include "analysis/experiment_internal.h"
#include "analysis/heap_pack.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/profile_heap.h"
#include "analysis/report_info.h"
#include "common/vec.h"

/* One step line being downsampled. */
struct line {
	struct heaplive_series *out;
	uint64_t width;
	VEC(struct heaplive_point) pts;
	int open;            /* a bucket is open */
	uint64_t k;          /* the open bucket */
	uint64_t max, max_t; /* its largest live bytes, first reached at max_t */
	uint64_t live, t;    /* after the last call, and that call's (clamped) time */
};

static uint64_t bucket_of(const struct line *l, uint64_t t)
{
	if (!l->out->span_ns)
		return 0;
	unsigned __int128 k = (unsigned __int128)t * l->width / l->out->span_ns;
	return k < l->width ? (uint64_t)k : l->width - 1;
}

/* The first time in bucket k: ceil(k * span / width). */
static uint64_t bucket_start(const struct line *l, uint64_t k)
{
	unsigned __int128 n = (unsigned __int128)k * l->out->span_ns;
	return (uint64_t)((n + l->width - 1) / l->width);
}

/* Append point (t, bytes) unless it repeats the previous bytes; one at the same time replaces it. */
static int line_emit(struct line *l, uint64_t t, uint64_t bytes)
{
	size_t n = l->pts.n;
	if (n && l->pts.v[n - 1].t_ns == t)
		n--;
	l->pts.n = n;
	if (bytes == (n ? l->pts.v[n - 1].bytes : 0))
		return 0;
	struct heaplive_point pt = {.t_ns = t, .bytes = bytes};
	return VEC_PUSH(&l->pts, pt) < 0 ? -ENOMEM : 0;
}

/*
 * Close the open bucket: its maximum, and when the next call is not in the
 * bucket after it (next: that call's bucket, or width at the end), the live
 * bytes carried into that empty bucket.
 */
static int line_close(struct line *l, uint64_t next)
{
	int r = line_emit(l, l->max_t, l->max);
	if (r == 0 && l->k + 1 < next && l->k + 1 < l->width)
		r = line_emit(l, bucket_start(l, l->k + 1), l->live);
	l->open = 0;
	return r;
}

/* The live bytes after a call at time t; peak_t: the time the peak is reported at. */
static int line_add(struct line *l, uint64_t t, uint64_t bytes, uint64_t peak_t)
{
	if (t < l->t)
		t = l->t;
	uint64_t k = bucket_of(l, t);
	if (l->open && k != l->k && line_close(l, k) < 0)
		return -ENOMEM;
	if (!l->open) {
		l->open = 1;
		l->k = k;
		l->max = l->live;
		l->max_t = bucket_start(l, k);
	}
	if (bytes > l->max) {
		l->max = bytes;
		l->max_t = t;
	}
	if (bytes > l->out->peak_bytes) {
		l->out->peak_bytes = bytes;
		l->out->peak_ns = peak_t;
	}
	l->live = bytes;
	l->t = t;
	l->out->calls++;
	return 0;
}

/* Close the line and hand its points to its series. */
static int line_finish(struct line *l)
{
	if (l->open && line_close(l, l->width) < 0)
		return -ENOMEM;
	/* a drop in the last bucket: the bytes live at the end */
	size_t n = l->pts.n;
	if (n && l->live != l->pts.v[n - 1].bytes && l->out->span_ns > l->pts.v[n - 1].t_ns &&
	    line_emit(l, l->out->span_ns, l->live) < 0)
		return -ENOMEM;
	l->out->end_bytes = l->live;
	l->out->npoints = l->pts.n;
	l->out->points = l->pts.v;
	l->pts.v = NULL;
	return 0;
}

/* A selected experiment's replay, one call ahead. */
struct source {
	const struct experiment *x;
	struct heap_live *it;
	struct line line;
	int has;           /* a call is ahead */
	uint64_t t, bytes; /* its time (since the experiment's start) and live bytes after it */
	uint64_t raw_t;    /* its own time (t is never before the previous call's) */
};

static int source_pull(struct source *s)
{
	uint64_t ts;
	int r = profile_heap_live_next(s->it, &ts, &s->bytes);
	s->has = r > 0;
	if (r > 0) {
		s->raw_t = report_rel_ns(s->x, ts);
		s->t = s->raw_t > s->t ? s->raw_t : s->t;
	}
	return r < 0 ? r : 0;
}

/* Its span: its duration, or its last call's time if later. */
static uint64_t experiment_span(const struct experiment *x)
{
	uint64_t span = x->duration_ns;
	struct exp_heap_iter it;
	struct exp_heap_event ev;
	exp_heap_iter_begin(&it, EXP_ROWS(x, HEAP));
	while (exp_heap_iter_next(&it, &ev) > 0) {
		uint64_t t = report_rel_ns(x, ev.ts_ns);
		if (t > span)
			span = t;
	}
	return span;
}

static int open_sources(const struct profile *p, struct report_heaplive *r, struct source *src)
{
	uint64_t base = UINT64_MAX;
	for (size_t i = 0, n = 0; i < profile_experiment_count(p); i++) {
		const struct experiment *x = profile_experiment(p, i);
		if (!EXP_PRESENT(x, HEAP) || !profile_experiment_selected(p, i))
			continue;
		r->exps[n].exp = i;
		r->exps[n].span_ns = experiment_span(x);
		src[n].x = x;
		src[n].line = (struct line){.out = &r->exps[n], .width = r->width};
		if (x->log.start_ns < base)
			base = x->log.start_ns;
		int e = profile_heap_live_open(p, i, &src[n].it);
		if (e < 0)
			return e;
		n++;
	}
	for (size_t n = 0; n < r->nexps; n++) {
		r->exps[n].start_offset_ns = src[n].x->log.start_ns - base;
		if (r->exps[n].start_offset_ns + r->exps[n].span_ns > r->total.span_ns)
			r->total.span_ns = r->exps[n].start_offset_ns + r->exps[n].span_ns;
	}
	return 0;
}

/* The source whose next call comes first on the common clock (the lowest index on a tie), or -1. */
static long next_source(const struct report_heaplive *r, const struct source *src)
{
	long best = -1;
	uint64_t bt = 0;
	for (size_t n = 0; n < r->nexps; n++) {
		uint64_t t = r->exps[n].start_offset_ns + src[n].t;
		if (src[n].has && (best < 0 || t < bt)) {
			best = (long)n;
			bt = t;
		}
	}
	return best;
}

/* Merge the replays: each call into its experiment's line and the sum into the total's. */
static int merge(struct report_heaplive *r, struct source *src, struct line *total)
{
	int e = 0;
	uint64_t sum = 0;
	for (size_t n = 0; n < r->nexps && e == 0; n++)
		e = source_pull(&src[n]);
	long n;
	while (e == 0 && (n = next_source(r, src)) >= 0) {
		struct source *s = &src[n];
		uint64_t off = r->exps[n].start_offset_ns;
		sum = sum - s->line.live + s->bytes;
		e = line_add(&s->line, s->t, s->bytes, s->raw_t);
		if (e == 0)
			e = line_add(total, off + s->t, sum, off + s->t);
		if (e == 0)
			e = source_pull(s);
	}
	for (size_t k = 0; k < r->nexps && e == 0; k++)
		e = line_finish(&src[k].line);
	return e == 0 ? line_finish(total) : e;
}

int report_heaplive_compute(const struct profile *p, size_t width, struct report_heaplive **ret)
{
	*ret = NULL;
	if (!width)
		return -EINVAL;
	struct report_heaplive *r = calloc(1, sizeof *r);
	if (!r)
		return -ENOMEM;
	r->width = width;
	r->total.exp = SIZE_MAX;
	for (size_t i = 0; i < profile_experiment_count(p); i++)
		r->nexps += EXP_PRESENT(profile_experiment(p, i), HEAP) && profile_experiment_selected(p, i);
	size_t n = r->nexps ? r->nexps : 1;
	r->exps = calloc(n, sizeof *r->exps);
	struct source *src = calloc(n, sizeof *src);
	struct line total = {.out = &r->total, .width = width};
	int e = r->exps && src ? open_sources(p, r, src) : -ENOMEM;
	if (e == 0)
		e = merge(r, src, &total);
	for (size_t k = 0; src && k < r->nexps; k++) {
		profile_heap_live_close(src[k].it);
		free(src[k].line.pts.v);
	}
	free(src);
	free(total.pts.v);
	if (e < 0) {
		report_heaplive_free(r);
		return e;
	}
	*ret = r;
	return 0;
}

void report_heaplive_free(struct report_heaplive *r)
{
	if (!r)
		return;
	for (size_t k = 0; r->exps && k < r->nexps; k++)
		free(r->exps[k].points);
	free(r->exps);
	free(r->total.points);
	free(r);
}
