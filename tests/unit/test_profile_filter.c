/*
 * test_profile_filter - the filter expression, cpu_select and their
 * composition with the thread, sample, experiment and time selections
 * (analysis/profile.h) on synthetic experiments (tests/tools/mkexp).
 * Clock samples of 10 ms each, at about 10, 20, ..., 60 ms:
 *   e1 e2  thread 1 (TID 101) on CPU 0, sample 1 (points at 25 and 45 ms)
 *   e3 e4  thread 2 (TID 102) on CPU 1, sample 2
 *   e5     thread 2 on CPU 1, sample 3
 *   e6     thread 1 on CPU 3, sample 3
 * and a 100-byte allocation of thread 1 at 1 ms (no CPU recorded); the
 * threads end having used exactly the CPU time sampled (no tail) and waited
 * 7 and 5 ms for a CPU over their lives.  The
 * same experiment is loaded twice (EXPID 1 and 2) where the test says so.
 * Every expected figure is the sum of the events the rule keeps.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/profile.h"
#include "analysis/report_stats.h"
#include "tests/unit/check.h"
#include "tests/unit/fixture.h"

#define MS 1000000ull

static const char script[] = "thread 101\n"
			     "thread 102 101\n"
			     "csample 101 0 2 10000000 0xa000 0x1\n"
			     "csample 102 1 3 10000000 0xb000 0x1\n"
			     "csample 101 3 1 10000000 0xc000 0x1\n"
			     "heap 101 malloc 100 0x1000 0xd000 0x1\n"
			     "point 25000000\n"
			     "point 45000000\n"
			     "end 101 30000000 7000000\n"
			     "end 102 30000000 5000000\n";

static uint64_t total(struct profile *p, const char *keyword)
{
	CHECK(profile_compute(p) == 0);
	long m = profile_metric_find(p, keyword);
	CHECK(m >= 0);
	return m >= 0 ? metrics_total(profile_metrics(p))[m] : 0;
}

/* CPU time and allocated bytes under filter expr. */
static void expect_filter(struct profile *p, const char *expr, uint64_t cpu, uint64_t heap_bytes)
{
	char *err = NULL;
	int r = profile_set_filter(p, expr, &err);
	CHECK_EQ_U64(r, 0);
	if (r < 0) {
		fprintf(stderr, "'%s': %s\n", expr, err ? err : "");
		free(err);
		return;
	}
	uint64_t c = total(p, "totalcpu"), h = total(p, "heapallocbytes");
	if (c != cpu || h != heap_bytes)
		fprintf(stderr, "filter '%s': cpu %llu (want %llu), heap %llu (want %llu)\n", expr,
			(unsigned long long)c, (unsigned long long)cpu, (unsigned long long)h,
			(unsigned long long)heap_bytes);
	CHECK_EQ_U64(c, cpu);
	CHECK_EQ_U64(h, heap_bytes);
}

static int select_ok(int (*fn)(struct profile *, const char *, char **), struct profile *p, const char *spec)
{
	char *err = NULL;
	int r = fn(p, spec, &err);
	if (r < 0)
		fprintf(stderr, "'%s': %s\n", spec, err ? err : "");
	free(err);
	return r;
}

static void test_properties(struct profile *p)
{
	expect_filter(p, "1", 60 * MS, 100);
	CHECK(profile_filter(p) == NULL);
	expect_filter(p, "0", 0, 0);
	CHECK_EQ_STR(profile_filter(p), "0");
	expect_filter(p, "THRID==1", 30 * MS, 100);
	expect_filter(p, "THRID==2", 30 * MS, 0);
	expect_filter(p, "LWPID==102", 30 * MS, 0);
	expect_filter(p, "LWPID==101 && THRID==1", 30 * MS, 100);
	/* CPU: the allocation has none, so it fails every filter naming CPU */
	expect_filter(p, "CPU==1", 30 * MS, 0);
	expect_filter(p, "CPU IN (0,3)", 30 * MS, 0);
	expect_filter(p, "CPUID>0", 40 * MS, 0);
	expect_filter(p, "!(CPU==7)", 60 * MS, 0);
	expect_filter(p, "SAMPLE==2", 20 * MS, 0);
	expect_filter(p, "SAMPLE IN (1,3)", 40 * MS, 100); /* the allocation at 1 ms is in sample 1 */
	expect_filter(p, "TSTAMP < 35ms", 30 * MS, 100);
	expect_filter(p, "TSTAMP IN (15ms:45ms)", 30 * MS, 0);
	expect_filter(p, "TSTAMP >= 2ms && TSTAMP <= 20000999", 10 * MS, 0);
	expect_filter(p, "EXPID==1", 60 * MS, 100);
	expect_filter(p, "EXPID!=1", 0, 0);
	expect_filter(p, "THRID==1 && CPU==0 || THRID==2 && SAMPLE==3", 30 * MS, 0);
	expect_filter(p, "!(THRID==1) && CPU!=1", 0, 0);
	expect_filter(p, "all", 60 * MS, 100);
	CHECK(profile_filter(p) == NULL);

	/* a bad expression leaves the filter as it was */
	expect_filter(p, "THRID==2", 30 * MS, 0);
	char *err = NULL;
	CHECK_EQ_U64(profile_set_filter(p, "THRID=2", &err), (uint64_t)-EINVAL);
	CHECK_EQ_STR(err, "column 6: '=' is not an operator (use == to compare)");
	free(err);
	CHECK_EQ_STR(profile_filter(p), "THRID==2");
	CHECK_EQ_U64(total(p, "totalcpu"), 30 * MS);
	expect_filter(p, NULL, 60 * MS, 100);
}

static void test_cpu_select(struct profile *p)
{
	uint32_t *cpus;
	uint64_t *counts;
	ssize_t n = profile_cpus_seen(p, 0, &cpus, &counts);
	CHECK_EQ_U64(n, 3);
	if (n == 3) {
		CHECK(cpus[0] == 0 && cpus[1] == 1 && cpus[2] == 3);
		CHECK(counts[0] == 2 && counts[1] == 3 && counts[2] == 1);
	}
	free(cpus);
	free(counts);
	CHECK_EQ_STR(profile_cpu_selection(p), "all");
	CHECK(select_ok(profile_select_cpus, p, "0,3") == 0);
	CHECK_EQ_STR(profile_cpu_selection(p), "0,3");
	CHECK(profile_cpu_selected(p, 0, 3) && !profile_cpu_selected(p, 0, 1) &&
	      !profile_cpu_selected(p, 0, 9));
	CHECK_EQ_U64(total(p, "totalcpu"), 30 * MS);
	CHECK_EQ_U64(total(p, "heapallocbytes"), 0); /* no CPU recorded: not selected */
	CHECK(select_ok(profile_select_cpus, p, "1-2") == 0);
	CHECK_EQ_U64(total(p, "totalcpu"), 30 * MS);
	/* errors leave the selection as it was */
	char *err = NULL;
	CHECK_EQ_U64(profile_select_cpus(p, "x", &err), (uint64_t)-EINVAL);
	CHECK(err && strstr(err, "invalid selection 'x'"));
	free(err);
	err = NULL;
	CHECK_EQ_U64(profile_select_cpus(p, "2:", &err), (uint64_t)-EINVAL);
	CHECK_EQ_STR(err, "empty CPU selection");
	free(err);
	CHECK_EQ_STR(profile_cpu_selection(p), "1-2");
	CHECK_EQ_U64(total(p, "totalcpu"), 30 * MS);
	CHECK(select_ok(profile_select_cpus, p, "all") == 0);
	CHECK_EQ_STR(profile_cpu_selection(p), "all");
	CHECK_EQ_U64(total(p, "totalcpu"), 60 * MS);
	CHECK_EQ_U64(total(p, "heapallocbytes"), 100);
}

/* Everything composes: the AND of every selection and the filter. */
static void test_composition(struct profile *p)
{
	CHECK(select_ok(profile_select_threads, p, "2") == 0);
	expect_filter(p, "CPU==1", 30 * MS, 0);
	CHECK(select_ok(profile_select_samples, p, "3") == 0);
	CHECK_EQ_U64(total(p, "totalcpu"), 10 * MS); /* e5 */
	CHECK(profile_select_time(p, 0, 45 * MS) == 0);
	CHECK_EQ_U64(total(p, "totalcpu"), 0);
	CHECK(profile_select_time(p, 0, UINT64_MAX) == 0);
	CHECK(select_ok(profile_select_cpus, p, "0") == 0);
	CHECK_EQ_U64(total(p, "totalcpu"), 0);
	CHECK(select_ok(profile_select_cpus, p, "all") == 0);
	CHECK(select_ok(profile_select_threads, p, "all") == 0);
	CHECK(select_ok(profile_select_samples, p, "all") == 0);
	expect_filter(p, "SAMPLE==3", 20 * MS, 0);
	CHECK(select_ok(profile_select_threads, p, "1") == 0);
	CHECK_EQ_U64(total(p, "totalcpu"), 10 * MS); /* e6 */
	CHECK(select_ok(profile_select_threads, p, "all") == 0);
	expect_filter(p, "1", 60 * MS, 100);
}

/* Wait CPU is a figure of a thread's whole life: shown only while nothing cuts the events. */
static void test_stats(struct profile *p)
{
	struct report_stats s;
	char *err = NULL;
	CHECK(profile_compute(p) == 0);
	report_stats_of(p, 0, &s);
	CHECK(s.has_wait);
	CHECK_EQ_U64(s.wait_ns, 12 * MS);
	CHECK_EQ_U64(s.cpu_recorded_ns, 60 * MS);
	CHECK(profile_set_filter(p, "THRID==1", &err) == 0);
	CHECK(profile_compute(p) == 0);
	report_stats_of(p, 0, &s);
	CHECK(!s.has_wait);
	CHECK_EQ_U64(s.cpu_recorded_ns, 30 * MS);
	CHECK(profile_set_filter(p, "1", &err) == 0);
	CHECK(select_ok(profile_select_cpus, p, "3") == 0);
	CHECK(profile_compute(p) == 0);
	report_stats_of(p, 0, &s);
	CHECK(!s.has_wait);
	CHECK_EQ_U64(s.cpu_recorded_ns, 10 * MS);
	CHECK(select_ok(profile_select_cpus, p, "all") == 0);
	CHECK(select_ok(profile_select_threads, p, "2") == 0);
	CHECK(profile_compute(p) == 0);
	report_stats_of(p, 0, &s);
	CHECK(s.has_wait);
	CHECK_EQ_U64(s.wait_ns, 5 * MS);
	CHECK(select_ok(profile_select_threads, p, "all") == 0);
}

/* Two experiments: EXPID, experiment_select and exp:spec in cpu_select. */
static void test_two(const char *dir)
{
	struct profile *p = NULL;
	char path[4200], *err = NULL;
	CHECK(sh("cp -r '%s/f.er' '%s/g.er'", dir, dir) == 0);
	CHECK(profile_new(&p) == 0);
	snprintf(path, sizeof path, "%s/f.er", dir);
	CHECK(profile_add_experiment(p, path, &err) == 0);
	snprintf(path, sizeof path, "%s/g.er", dir);
	CHECK(profile_add_experiment(p, path, &err) == 0);
	free(err);
	expect_filter(p, "1", 120 * MS, 200);
	expect_filter(p, "EXPID==2", 60 * MS, 100);
	expect_filter(p, "EXPID==2 && THRID==2", 30 * MS, 0);
	CHECK(select_ok(profile_select_experiments, p, "1") == 0);
	CHECK_EQ_U64(total(p, "totalcpu"), 0);
	CHECK(select_ok(profile_select_experiments, p, "all") == 0);
	expect_filter(p, "1", 120 * MS, 200);
	/* exp:spec: experiment 2 on CPU 3 only, experiment 1 keeps every CPU */
	CHECK(select_ok(profile_select_cpus, p, "2:3") == 0);
	CHECK_EQ_U64(total(p, "totalcpu"), 70 * MS);
	CHECK_EQ_U64(total(p, "heapallocbytes"), 100);
	CHECK(profile_cpu_selected(p, 0, 1) && !profile_cpu_selected(p, 1, 1));
	expect_filter(p, "THRID==1", 40 * MS, 100);
	profile_free(p);
}

/* The user/system split (usample) follows the same predicate: CPUs 0, 1, 0, 1 by sample order. */
static void test_cpu_split(const char *dir)
{
	struct profile *p = NULL;
	char path[4200], *err = NULL;
	snprintf(path, sizeof path, "%s/u.er", dir);
	CHECK(make_exp(dir, "u", "thread 101\nusample 101 4 10000000 6000000 0xa000 0x1\n") == 0);
	CHECK(profile_new(&p) == 0);
	CHECK(profile_add_experiment(p, path, &err) == 0);
	free(err);
	CHECK(profile_set_filter(p, "1", &err) == 0);
	CHECK_EQ_U64(total(p, "totalcpu"), 40 * MS);
	CHECK_EQ_U64(total(p, "user"), 24 * MS);
	CHECK_EQ_U64(total(p, "system"), 16 * MS);
	CHECK(profile_set_filter(p, "CPU==1", &err) == 0);
	CHECK_EQ_U64(total(p, "totalcpu"), 20 * MS);
	CHECK_EQ_U64(total(p, "user"), 12 * MS);
	CHECK_EQ_U64(total(p, "system"), 8 * MS);
	CHECK(profile_set_filter(p, "1", &err) == 0);
	CHECK_EQ_U64(total(p, "totalcpu"), 40 * MS);
	CHECK(select_ok(profile_select_cpus, p, "0") == 0);
	CHECK_EQ_U64(total(p, "user"), 12 * MS);
	profile_free(p);
}

int main(void)
{
	char dir[] = "/tmp/pa-unit-filter.XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	struct profile *p = NULL;
	char path[4200], *err = NULL;
	snprintf(path, sizeof path, "%s/f.er", dir);
	CHECK(make_exp(dir, "f", script) == 0);
	CHECK(profile_new(&p) == 0);
	CHECK(profile_add_experiment(p, path, &err) == 0);
	free(err);
	CHECK_EQ_U64(profile_sample_count(p, 0), 3);
	test_properties(p);
	test_cpu_select(p);
	test_composition(p);
	test_stats(p);
	profile_free(p);
	test_two(dir);
	test_cpu_split(dir);
	CHECK(sh("rm -rf '%s'", dir) == 0);
	return check_done();
}
