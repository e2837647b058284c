/*
 * test_profile_time - profile_select_time (analysis/profile.h) on a
 * synthetic experiment (tests/tools/mkexp): clock samples of A at about 10,
 * 20 and 30 ms and of B at about 40 and 50 ms; heap calls at 1 ms (C
 * allocates 100 bytes), 2 ms (frees C's block: a temporary), 3 ms (D, 200)
 * and 4 ms (E, 300), so that D and E leak.  Each window's figures follow
 * from the header's rules: samples and allocations by their time, leaks and
 * temporaries by the time of their allocation.  Then the shared time base:
 * the same experiment and a copy whose wall-clock start is 1 s later.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "analysis/experiment_internal.h"
#include "analysis/profile.h"
#include "analysis/profile_heap.h"
#include "tests/unit/check.h"
#include "tests/unit/fixture.h"

#define MS 1000000ull

static const char script[] = "thread 1\n"
			     "sample 1 3 10000000 0xa000 0x1\n"
			     "sample 1 2 10000000 0xb000 0x1\n"
			     "heap 1 malloc 100 0x1000 0xc000 0x1\n"
			     "heap 1 free 0 0x1000\n"
			     "heap 1 malloc 200 0x2000 0xd000 0x1\n"
			     "heap 1 malloc 300 0x3000 0xe000 0x1\n"
			     "end 1 50000000\n";

/* The sum of metric m over the events profile_foreach_stack gives, and whether all are in [t0, t1). */
struct ev_sum {
	const struct profile *p;
	long m;
	uint64_t t0, t1, sum, outside;
};

static int add_event(const struct profile_stack *s, void *arg)
{
	struct ev_sum *e = arg;
	uint64_t start = profile_experiment(e->p, s->exp)->log.start_ns;
	uint64_t rel = s->ts_ns - start;
	e->sum += s->metrics[e->m];
	e->outside += s->metrics[e->m] && (rel < e->t0 || rel >= e->t1);
	return 0;
}

static uint64_t total(struct profile *p, const char *keyword)
{
	CHECK(profile_compute(p) == 0);
	long m = profile_metric_find(p, keyword);
	CHECK(m >= 0);
	return m >= 0 ? metrics_total(profile_metrics(p))[m] : 0;
}

/* The window's figures: CPU, allocated bytes and count, leaked bytes, temporaries; events in it. */
static void expect(struct profile *p, uint64_t t0, uint64_t t1, uint64_t cpu, uint64_t bytes, uint64_t allocs,
		   uint64_t leaked, uint64_t temps)
{
	CHECK(profile_select_time(p, t0, t1) == 0);
	CHECK_EQ_U64(total(p, "totalcpu"), cpu);
	CHECK_EQ_U64(total(p, "heapallocbytes"), bytes);
	CHECK_EQ_U64(total(p, "heapalloccnt"), allocs);
	CHECK_EQ_U64(total(p, "heapleakbytes"), leaked);
	const struct heap_summary *h = profile_heap_summary(p);
	CHECK(h != NULL);
	if (h) {
		CHECK_EQ_U64(h->alloc_bytes, bytes);
		CHECK_EQ_U64(h->leak_bytes, leaked);
		CHECK_EQ_U64(h->temp_count, temps);
		CHECK_EQ_U64(h->peak_bytes, 500); /* the whole run's, whatever the window */
	}
	struct profile_stacks_options o = {.flags = PROFILE_STACKS_BY_EVENT};
	struct ev_sum e = {.p = p, .m = profile_metric_find(p, "totalcpu"), .t0 = t0, .t1 = t1};
	CHECK(profile_foreach_stack(p, &o, add_event, &e) == 0);
	CHECK_EQ_U64(e.sum, cpu);
	CHECK_EQ_U64(e.outside, 0);
	e = (struct ev_sum){.p = p, .m = profile_metric_find(p, "heapallocbytes"), .t0 = t0, .t1 = t1};
	CHECK(profile_foreach_stack(p, &o, add_event, &e) == 0);
	CHECK_EQ_U64(e.sum, bytes);
	CHECK_EQ_U64(e.outside, 0);
}

/*
 * Two founders, u.er started 1 s after t.er (log.xml realtime_ns): offsets 0
 * and 1 s; a shared-time range picks each one's samples on that base.
 */
static void shared_base(const char *dir)
{
	CHECK(sh("cp -r '%s/t.er' '%s/u.er' && sed -i 's/realtime_ns=\"1795313775/realtime_ns=\"1795313776/' "
		 "'%s/u.er/log.xml'",
		 dir, dir, dir) == 0);
	struct profile *p;
	char path[4200], *err = NULL;
	CHECK(profile_new(&p) == 0);
	snprintf(path, sizeof path, "%s/u.er", dir); /* the later one first: the base is the earliest */
	CHECK(profile_add_experiment(p, path, &err) == 0);
	snprintf(path, sizeof path, "%s/t.er", dir);
	CHECK(profile_add_experiment(p, path, &err) == 0);
	free(err);
	CHECK_EQ_U64(profile_experiment_offset_ns(p, 0), 1000 * MS);
	CHECK_EQ_U64(profile_experiment_offset_ns(p, 1), 0);
	CHECK_EQ_U64(profile_experiment_offset_ns(p, 2), 0);
	CHECK_EQ_U64(total(p, "totalcpu"), 100 * MS);
	/* each experiment's own start: 0..35 ms is 30 ms of each */
	CHECK(profile_select_time(p, 0, 35 * MS) == 0);
	CHECK_EQ_U64(total(p, "totalcpu"), 60 * MS);
	/* the shared base: 0..35 ms is t.er's only, 1 s + 35 ms on is u.er's last 20 ms */
	profile_set_time_shared(p, 1);
	CHECK_EQ_U64(total(p, "totalcpu"), 30 * MS);
	CHECK(profile_select_time(p, 1000 * MS + 35 * MS, UINT64_MAX) == 0);
	CHECK_EQ_U64(total(p, "totalcpu"), 20 * MS);
	CHECK(profile_time_selected(p, 0, profile_experiment(p, 0)->log.start_ns + 40 * MS) == 1);
	CHECK(profile_time_selected(p, 1, profile_experiment(p, 1)->log.start_ns + 40 * MS) == 0);
	profile_set_time_shared(p, 0);
	CHECK_EQ_U64(total(p, "totalcpu"), 0);
	profile_free(p);
}

int main(void)
{
	const char *build = getenv("PA_BUILD");
	char dir[] = "/tmp/pa-unit-time.XXXXXX";
	CHECK(build && mkdtemp(dir));
	if (!build)
		return check_done();
	CHECK(make_exp(dir, "t", script) == 0);
	char epath[4200];
	snprintf(epath, sizeof epath, "%s/t.er", dir);
	struct profile *p;
	char *err = NULL;
	CHECK(profile_new(&p) == 0);
	CHECK(profile_add_experiment(p, epath, &err) == 0);
	free(err);

	uint64_t t0, t1;
	CHECK(profile_time_selection(p, &t0, &t1) == 0); /* every event by default */
	CHECK_EQ_U64(t0, 0);
	CHECK_EQ_U64(t1, UINT64_MAX);
	expect(p, 0, UINT64_MAX, 50 * MS, 600, 3, 500, 1);
	expect(p, 0, 35 * MS, 30 * MS, 600, 3, 500, 1);
	/* from 2.5 ms: D's and E's allocations and leaks */
	expect(p, 2500000, 35 * MS, 30 * MS, 500, 2, 500, 0);
	/* 3.5 to 4.5 ms: E alone, which leaks */
	expect(p, 3500000, 4500000, 0, 300, 1, 300, 0);
	/* 0.5 to 1.5 ms: C, a temporary (freed at 2 ms, outside: its allocation's time counts) */
	expect(p, 500000, 1500000, 0, 100, 1, 0, 1);
	expect(p, 35 * MS, UINT64_MAX, 20 * MS, 0, 0, 0, 0);
	CHECK(profile_time_selection(p, &t0, &t1) == 1);
	CHECK_EQ_U64(t0, 35 * MS);

	/* an empty or reversed window is refused and changes nothing */
	CHECK(profile_select_time(p, 10 * MS, 10 * MS) == -EINVAL);
	CHECK(profile_select_time(p, 20 * MS, 10 * MS) == -EINVAL);
	CHECK(profile_time_selection(p, &t0, &t1) == 1);
	CHECK_EQ_U64(t0, 35 * MS);
	CHECK_EQ_U64(total(p, "totalcpu"), 20 * MS);

	expect(p, 0, UINT64_MAX, 50 * MS, 600, 3, 500, 1); /* back to every event */
	CHECK(profile_time_selection(p, &t0, &t1) == 0);
	profile_free(p);
	shared_base(dir);
	CHECK(sh("rm -rf '%s'", dir) == 0);
	return check_done();
}
