/*
 * test_report_heaplive - analysis/report_heaplive.h on synthetic experiments
 * (tests/tools/mkexp, a heap call every 1 ms from 1 ms): A's live bytes
 * after each call are 100, 300, 200, 8392 (its peak, at 4 ms), 4296, 4096,
 * 4096 (a failed malloc), 5096; B starts 0.5 ms after A and holds 1000, 0,
 * 3000, 5000 (its peak, at 4 ms of its own), 2000; C has no heap data.
 * Every point follows from the downsampling rule in the header; the peaks
 * are those profile_heap reports, and the selections of threads and time do
 * not change the line.
 */
#include "analysis/report_heaplive.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "analysis/profile.h"
#include "analysis/profile_heap.h"
#include "tests/unit/check.h"
#include "tests/unit/fixture.h"

#define MS 1000000ull
#define US 1000ull

static const char script_a[] = "thread 1\n"
			       "heap 1 malloc 100 0x1000 0xa000 0x1\n"  /* 1 ms: 100 */
			       "heap 1 malloc 200 0x2000 0xb000 0x1\n"  /* 2: 300 */
			       "heap 1 free 0 0x1000\n"                 /* 3: 200 */
			       "heap 1 mmap 8192 0x100000 0xc000 0x1\n" /* 4: 8392, the peak */
			       "heap 1 munmap 4096 0x100000\n"          /* 5: 4296 */
			       "heap 1 free 0 0x2000\n"                 /* 6: 4096 */
			       "heap 1 malloc 50 0x0 0xa000 0x1\n"      /* 7: failed, 4096 */
			       "heap 1 malloc 1000 0x3000 0xd000 0x1\n" /* 8: 5096 */
			       "end 1 1000000\n";
static const char script_b[] = "start 1000500000\n" /* 0.5 ms after A */
			       "thread 7\n"
			       "heap 7 malloc 1000 0x1000 0xa000 0x1\n" /* 1 ms (1.5 on A's clock): 1000 */
			       "heap 7 free 0 0x1000\n"                 /* 2: 0 */
			       "heap 7 malloc 3000 0x2000 0xa000 0x1\n" /* 3: 3000 */
			       "heap 7 malloc 2000 0x3000 0xb000 0x1\n" /* 4: 5000, its peak */
			       "heap 7 free 0 0x2000\n"                 /* 5: 2000 */
			       "end 7 1000000\n";
static const char script_c[] = "thread 9\n"
			       "sample 9 1 10000000 0x401000\n"
			       "end 9 10000000\n";

/* 1 if series s has exactly the n points of want ({t_ns, bytes} pairs); prints them if not. */
static int points_are(const struct heaplive_series *s, const uint64_t (*want)[2], size_t n)
{
	int ok = s->npoints == n;
	for (size_t i = 0; ok && i < n; i++)
		ok = s->points[i].t_ns == want[i][0] && s->points[i].bytes == want[i][1];
	if (!ok)
		for (size_t i = 0; i < s->npoints; i++)
			fprintf(stderr, "  point %zu: %llu ns, %llu bytes\n", i,
				(unsigned long long)s->points[i].t_ns,
				(unsigned long long)s->points[i].bytes);
	return ok;
}

#define POINTS_ARE(s, want) points_are((s), (want), sizeof(want) / sizeof((want)[0]))

/* Select experiments or threads (fn: profile_select_experiments or _threads) by spec; 0, or -1 after a message. */
static int select_by(int (*fn)(struct profile *, const char *, char **), struct profile *p, const char *spec)
{
	char *err = NULL;
	int e = fn(p, spec, &err);
	if (e < 0)
		fprintf(stderr, "select %s: %s\n", spec, err ? err : "");
	free(err);
	return e < 0 ? -1 : 0;
}
#define select_exps(p, spec) select_by(profile_select_experiments, (p), (spec))
#define select_threads(p, spec) select_by(profile_select_threads, (p), (spec))

/* The largest bytes of the series' points (the peak must be one of them). */
static uint64_t points_max(const struct heaplive_series *s)
{
	uint64_t m = 0;
	for (size_t i = 0; i < s->npoints; i++)
		m = s->points[i].bytes > m ? s->points[i].bytes : m;
	return m;
}

static struct report_heaplive *live(struct profile *p, size_t width)
{
	struct report_heaplive *r = NULL;
	int e = report_heaplive_compute(p, width, &r);
	CHECK(e == 0 && r);
	return e == 0 ? r : NULL;
}

/* A alone: a point per call that changed the live bytes (a drop at the next bucket), 4 and 1 buckets. */
static void check_one(struct profile *p)
{
	CHECK(select_exps(p, "1") == 0 && profile_compute(p) == 0);
	const struct heap_summary *h = profile_heap_summary(p);
	struct report_heaplive *r = live(p, 2001);
	if (!r)
		return;
	CHECK_EQ_U64(r->nexps, 1);
	const struct heaplive_series *a = &r->exps[0];
	CHECK_EQ_U64(a->exp, 0);
	CHECK_EQ_U64(a->start_offset_ns, 0);
	CHECK_EQ_U64(a->span_ns, 8 * MS + 4 * US); /* mkexp's end: 4 us after the last call */
	CHECK_EQ_U64(a->calls, 8);
	CHECK_EQ_U64(a->end_bytes, 5096);
	/* the peak is profile_heap's, and a point of the line */
	CHECK_EQ_U64(h->peak_exp, 0);
	CHECK_EQ_U64(a->peak_bytes, h->peak_bytes);
	CHECK_EQ_U64(a->peak_ns, h->peak_ns);
	CHECK_EQ_U64(a->peak_bytes, 8392);
	CHECK_EQ_U64(a->peak_ns, 4 * MS);
	CHECK_EQ_U64(points_max(a), a->peak_bytes);
	/* 2001 buckets of 4 us: bucket k starts at 4k us; 7 ms (failed malloc) changes nothing */
	static const uint64_t fine[][2] = {{1 * MS, 100},  {2 * MS, 300},           {3 * MS + 4 * US, 200},
					   {4 * MS, 8392}, {5 * MS + 4 * US, 4296}, {6 * MS + 4 * US, 4096},
					   {8 * MS, 5096}};
	CHECK(POINTS_ARE(a, fine));
	/* one process: the whole selection is its line */
	CHECK_EQ_U64(r->total.exp, SIZE_MAX);
	CHECK_EQ_U64(r->total.span_ns, 8 * MS + 4 * US);
	CHECK_EQ_U64(r->total.peak_bytes, 8392);
	CHECK_EQ_U64(r->total.peak_ns, 4 * MS);
	CHECK(POINTS_ARE(&r->total, fine));
	report_heaplive_free(r);

	/*
	 * 4 buckets of 2.001 ms: 100 is under the 300 of its bucket, the 200 carried
	 * into the second bucket under its 8392, the third's 4296 and 4096 under the
	 * 8392 carried in (no point), the last's 4096 under 5096
	 */
	if ((r = live(p, 4))) {
		static const uint64_t four[][2] = {{2 * MS, 300}, {4 * MS, 8392}, {8 * MS, 5096}};
		CHECK(POINTS_ARE(&r->exps[0], four));
		CHECK_EQ_U64(r->exps[0].peak_bytes, 8392);
		report_heaplive_free(r);
	}
	/* one bucket: the peak, then the bytes live at the end (a drop in the last bucket) */
	if ((r = live(p, 1))) {
		static const uint64_t one[][2] = {{4 * MS, 8392}, {8 * MS + 4 * US, 5096}};
		CHECK(POINTS_ARE(&r->exps[0], one));
		report_heaplive_free(r);
	}
}

/* A and B: their own lines, and the sum on A's clock (B's times + 0.5 ms). */
static void check_two(struct profile *p)
{
	CHECK(select_exps(p, "all") == 0 && profile_compute(p) == 0);
	const struct heap_summary *h = profile_heap_summary(p);
	struct report_heaplive *r = live(p, 2001);
	if (!r)
		return;
	CHECK_EQ_U64(r->nexps, 2); /* C has no heap data */
	const struct heaplive_series *a = &r->exps[0], *b = &r->exps[1];
	CHECK_EQ_U64(a->exp, 0);
	CHECK_EQ_U64(b->exp, 1);
	CHECK_EQ_U64(b->start_offset_ns, 500 * US);
	CHECK_EQ_U64(b->span_ns, 5 * MS + 4 * US);
	CHECK_EQ_U64(b->peak_bytes, 5000);
	CHECK_EQ_U64(b->peak_ns, 4 * MS);
	CHECK_EQ_U64(b->end_bytes, 2000);
	/* the summary keeps the highest process's peak: A's */
	CHECK_EQ_U64(h->peak_exp, 0);
	CHECK_EQ_U64(a->peak_bytes, h->peak_bytes);
	CHECK_EQ_U64(a->peak_ns, h->peak_ns);
	/* the sum over A's 8.004 ms in 4 us buckets; its peak, 8392 + 5000 at 4.5 ms, is no process's */
	const struct heaplive_series *t = &r->total;
	CHECK_EQ_U64(t->span_ns, 8 * MS + 4 * US);
	CHECK_EQ_U64(t->calls, 13);
	CHECK_EQ_U64(t->end_bytes, 5096 + 2000);
	CHECK_EQ_U64(t->peak_bytes, 8392 + 5000);
	CHECK_EQ_U64(t->peak_ns, 4 * MS + 500 * US);
	static const uint64_t sum[][2] = {{1 * MS, 100},           {1 * MS + 500 * US, 1100},
					  {2 * MS, 1300},          {2 * MS + 504 * US, 300},
					  {3 * MS + 4 * US, 200},  {3 * MS + 500 * US, 3200},
					  {4 * MS, 11392},         {4 * MS + 500 * US, 13392},
					  {5 * MS + 4 * US, 9296}, {5 * MS + 504 * US, 6296},
					  {6 * MS + 4 * US, 6096}, {8 * MS, 7096}};
	CHECK(POINTS_ARE(t, sum));
	report_heaplive_free(r);

	/*
	 * B in 1251 buckets of 4 us over its 5.004 ms: its drop to 2000 at 5 ms is
	 * in the last bucket, so the line ends with the bytes live at the end
	 */
	if ((r = live(p, 1251))) {
		static const uint64_t bpts[][2] = {{1 * MS, 1000},
						   {2 * MS + 4 * US, 0},
						   {3 * MS, 3000},
						   {4 * MS, 5000},
						   {5 * MS + 4 * US, 2000}};
		CHECK(POINTS_ARE(&r->exps[1], bpts));
		report_heaplive_free(r);
	}
}

/* The thread and time selections leave the line alone; selecting B alone makes it the origin. */
static void check_selections(struct profile *p)
{
	CHECK(select_exps(p, "all") == 0);
	struct report_heaplive *all = live(p, 1000);
	/* B's thread alone (its 3 allocations), then from 2 to 3 ms only (B's 3000 bytes at 3 ms) */
	CHECK(select_threads(p, "2:1") == 0 && profile_compute(p) == 0);
	CHECK_EQ_U64(profile_heap_summary(p)->alloc_count, 3);
	CHECK(profile_select_time(p, 2 * MS, 3 * MS + 1) == 0 && profile_compute(p) == 0);
	CHECK_EQ_U64(profile_heap_summary(p)->alloc_bytes, 3000);
	struct report_heaplive *sel = live(p, 1000);
	if (all && sel) {
		CHECK_EQ_U64(sel->nexps, all->nexps);
		CHECK_EQ_U64(sel->total.npoints, all->total.npoints);
		CHECK(sel->total.npoints == all->total.npoints &&
		      memcmp(sel->total.points, all->total.points,
			     all->total.npoints * sizeof *all->total.points) == 0);
		CHECK_EQ_U64(sel->total.peak_bytes, all->total.peak_bytes);
	}
	report_heaplive_free(all);
	report_heaplive_free(sel);
	CHECK(profile_select_time(p, 0, UINT64_MAX) == 0 && select_threads(p, "all") == 0);

	CHECK(select_exps(p, "2") == 0);
	struct report_heaplive *r = live(p, 1000);
	if (r) {
		CHECK_EQ_U64(r->nexps, 1);
		CHECK_EQ_U64(r->exps[0].exp, 1);
		CHECK_EQ_U64(r->exps[0].start_offset_ns, 0); /* the earliest selected start is B's own */
		CHECK_EQ_U64(r->total.peak_bytes, 5000);
		CHECK_EQ_U64(r->total.peak_ns, 4 * MS);
		CHECK(r->total.npoints == r->exps[0].npoints && r->total.npoints &&
		      memcmp(r->total.points, r->exps[0].points,
			     r->total.npoints * sizeof *r->total.points) == 0);
	}
	report_heaplive_free(r);
	CHECK(select_exps(p, "3") == 0);
	if ((r = live(p, 10))) {
		CHECK_EQ_U64(r->nexps, 0);
		CHECK_EQ_U64(r->total.npoints, 0);
		CHECK_EQ_U64(r->total.peak_bytes, 0);
	}
	report_heaplive_free(r);
	r = (struct report_heaplive *)1;
	CHECK(report_heaplive_compute(p, 0, &r) == -EINVAL && r == NULL);
	report_heaplive_free(NULL);
}

int main(void)
{
	char dir[] = "/tmp/pa-unit-heaplive.XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	CHECK(make_exp(dir, "a", script_a) == 0 && make_exp(dir, "b", script_b) == 0 &&
	      make_exp(dir, "c", script_c) == 0);
	struct profile *p = NULL;
	CHECK(profile_new(&p) == 0);
	for (const char *n = "abc"; p && *n; n++) {
		char path[4200], *err = NULL;
		snprintf(path, sizeof path, "%s/%c.er", dir, *n);
		int e = profile_add_experiment(p, path, &err);
		if (e < 0)
			fprintf(stderr, "%s: %s\n", path, err ? err : "");
		CHECK(e == 0);
		free(err);
	}
	if (p && profile_experiment_count(p) == 3) {
		check_one(p);
		check_two(p);
		check_selections(p);
	}
	profile_free(p);
	CHECK(sh("rm -rf '%s'", dir) == 0);
	return check_done();
}
