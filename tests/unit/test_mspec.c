/*
 * test_mspec - the metric-list parser (analysis/mspec.h) over a profile's
 * metrics registry: flavors, visibility, static columns, sort specs,
 * "default", canonical text, every error (with *ret left alone), and the
 * registry's say: heap metrics only with heap data, named by their index.
 */
#include "analysis/mspec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/profile.h"
#include "tests/unit/check.h"
#include "tests/unit/fixture.h"

static struct profile *heap_prof, *clock_prof;

static const char *fmt(const struct profile *p, const struct mspec *m)
{
	static char buf[512];
	mspec_format(p, m, buf, sizeof buf);
	return buf;
}

static void test_lists(void)
{
	struct profile *p = heap_prof;
	struct mspec m;
	char err[256];
	/* "default" is the list for the data: with heap data, the heap metrics first */
	CHECK(mspec_parse(p, "default", 0, &m, err, sizeof err) == 0);
	CHECK_EQ_STR(fmt(p, &m), MSPEC_DEFAULT_HEAP_METRICS);
	CHECK_EQ_STR(mspec_default_metrics(p), MSPEC_DEFAULT_HEAP_METRICS);
	CHECK_EQ_STR(mspec_default_metrics(clock_prof), MSPEC_DEFAULT_METRICS);
	CHECK(mspec_parse(p, MSPEC_DEFAULT_HEAP_METRICS, 0, &m, err, sizeof err) == 0);
	CHECK_EQ_STR(fmt(p, &m), MSPEC_DEFAULT_HEAP_METRICS);
	/* several flavors make one column each; no flavor is exclusive, no visibility a value */
	CHECK(mspec_parse(p, "ei.%totalcpu: heapallocbytes :name", 0, &m, err, sizeof err) == 0);
	CHECK_EQ_U64(m.n, 4);
	CHECK_EQ_U64(m.items[0].flavor, MSPEC_EXCL);
	CHECK_EQ_U64(m.items[1].flavor, MSPEC_INCL);
	CHECK_EQ_U64(m.items[0].metric, PROFILE_METRIC_TOTALCPU);
	CHECK(m.items[0].show_value && m.items[0].show_percent && !m.items[0].hidden);
	CHECK_EQ_U64(m.items[2].metric, profile_metric_find(p, "heapallocbytes"));
	CHECK_EQ_U64(m.items[2].flavor, MSPEC_EXCL);
	CHECK(m.items[2].show_value && !m.items[2].show_percent);
	CHECK_EQ_U64(m.items[3].kind, MSPEC_NAME);
	CHECK_EQ_STR(fmt(p, &m), "e.%totalcpu:i.%totalcpu:e.heapallocbytes:name");
	/* "+" is a value, "!" hidden, a.=attributed; size and address are static */
	CHECK(mspec_parse(p, "a+heapleakcnt:i!totalcpu:size:address", 0, &m, err, sizeof err) == 0);
	CHECK_EQ_U64(m.items[0].flavor, MSPEC_ATTR);
	CHECK(m.items[0].show_value);
	CHECK(m.items[1].hidden && !m.items[1].show_value);
	CHECK_EQ_U64(m.items[2].kind, MSPEC_SIZE);
	CHECK_EQ_U64(m.items[3].kind, MSPEC_ADDRESS);
	CHECK_EQ_STR(fmt(p, &m), "a.heapleakcnt:i!totalcpu:size:address");
}

static void test_sort(void)
{
	struct profile *p = heap_prof;
	struct mspec m;
	char err[256];
	CHECK(mspec_parse(p, "default", 1, &m, err, sizeof err) == 0);
	CHECK_EQ_STR(fmt(p, &m), MSPEC_DEFAULT_SORT);
	CHECK(mspec_parse(p, "i.heapleakbytes", 1, &m, err, sizeof err) == 0);
	CHECK_EQ_U64(m.n, 1);
	CHECK_EQ_U64(m.items[0].flavor, MSPEC_INCL);
	CHECK(mspec_parse(p, "name", 1, &m, err, sizeof err) == 0);
	CHECK_EQ_U64(m.items[0].kind, MSPEC_NAME);
	CHECK(mspec_parse(p, "size", 1, &m, err, sizeof err) == -EINVAL);
	CHECK(strstr(err, "cannot sort by 'size'") != NULL);
	CHECK(mspec_parse(p, "e.totalcpu:name", 1, &m, err, sizeof err) == -EINVAL);
	CHECK(strstr(err, "sort takes one metric") != NULL);
	CHECK(mspec_parse(p, "ei.totalcpu", 1, &m, err, sizeof err) == -EINVAL);
}

static void test_errors(void)
{
	struct profile *p = heap_prof;
	struct mspec m = {.n = 7}; /* left alone on every error */
	char err[256];
	CHECK(mspec_parse(p, "e.foo", 0, &m, err, sizeof err) == -EINVAL);
	CHECK_EQ_STR(err,
		     "unknown metric 'foo' (available: totalcpu, heapalloccnt, heapallocbytes, heapleakcnt, "
		     "heapleakbytes, name, size, address)");
	CHECK(mspec_parse(p, "index", 0, &m, err, sizeof err) == -EINVAL); /* not the flavor "i" */
	CHECK(strstr(err, "'index'") != NULL);
	CHECK(mspec_parse(p, "", 0, &m, err, sizeof err) == -EINVAL);
	CHECK_EQ_STR(err, "empty metric list");
	CHECK(mspec_parse(p, "e.totalcpu::name", 0, &m, err, sizeof err) == -EINVAL);
	CHECK(strstr(err, "empty item") != NULL);
	CHECK(mspec_parse(p, "e.", 0, &m, err, sizeof err) == -EINVAL);
	CHECK(strstr(err, "missing metric name") != NULL);
	CHECK(mspec_parse(p, "e.name", 0, &m, err, sizeof err) == -EINVAL);
	CHECK_EQ_STR(err, "'name' takes no flavor");
	char many[2048] = "";
	for (int i = 0; i <= MSPEC_MAX; i++)
		strcat(many, i ? ":e.totalcpu" : "e.totalcpu");
	CHECK(mspec_parse(p, many, 0, &m, err, sizeof err) == -EINVAL);
	CHECK(strstr(err, "too many metrics") != NULL);
	CHECK_EQ_U64(m.n, 7);
	/* a short error buffer is cut, never overrun */
	char tiny[8];
	CHECK(mspec_parse(p, "e.foo", 0, &m, tiny, sizeof tiny) == -EINVAL);
	CHECK_EQ_U64(strlen(tiny), sizeof tiny - 1);
}

/* Without heap data the registry has totalcpu only: heap keywords say what they need. */
static void test_registry(void)
{
	struct profile *p = clock_prof;
	struct mspec m = {.n = 7};
	char err[256];
	size_t n;
	const struct metric_def *d = profile_metric_defs(p, &n);
	CHECK_EQ_U64(n, 1);
	CHECK_EQ_STR(d[0].keyword, "totalcpu");
	CHECK(mspec_parse(p, "default", 0, &m, err, sizeof err) == 0);
	CHECK_EQ_STR(fmt(p, &m), MSPEC_DEFAULT_METRICS);
	m.n = 7;
	CHECK(mspec_parse(p, "e.heapalloccnt:name", 0, &m, err, sizeof err) == -EINVAL);
	CHECK_EQ_STR(err, "metric 'heapalloccnt' needs heap data (collect -H on)");
	CHECK(mspec_parse(p, "i.heapleakbytes", 1, &m, err, sizeof err) == -EINVAL);
	CHECK_EQ_STR(err, "metric 'heapleakbytes' needs heap data (collect -H on)");
	CHECK(mspec_parse(p, "e.foo", 0, &m, err, sizeof err) == -EINVAL);
	CHECK_EQ_STR(err, "unknown metric 'foo' (available: totalcpu, name, size, address)");
	CHECK_EQ_U64(m.n, 7);
	/* with heap data: the clock metric first, then the heap ones in their order */
	d = profile_metric_defs(heap_prof, &n);
	CHECK_EQ_U64(n, 5);
	const char *order[] = {"totalcpu", "heapalloccnt", "heapallocbytes", "heapleakcnt", "heapleakbytes"};
	for (size_t i = 0; i < 5 && i < n; i++) {
		CHECK_EQ_STR(d[i].keyword, order[i]);
		CHECK_EQ_U64(d[i].flavors, METRIC_FLAVORS_ALL);
	}
	CHECK_EQ_STR(d[0].data_file, "profile");
	CHECK_EQ_STR(d[4].data_file, "heaptrace");
	CHECK(!d[0].at_end && !d[1].at_end && !d[2].at_end && d[3].at_end &&
	      d[4].at_end);                                             /* leaks: the end state */
	CHECK(profile_metric_needs(heap_prof, "heapalloccnt") == NULL); /* present */
	CHECK(profile_metric_needs(heap_prof, "foo") == NULL);          /* unknown */
}

static struct profile *open_one(const char *dir, const char *name, const char *script)
{
	struct profile *p = NULL;
	char path[4200], *err = NULL;
	snprintf(path, sizeof path, "%s/%s.er", dir, name);
	if (make_exp(dir, name, script) < 0 || profile_new(&p) < 0 ||
	    profile_add_experiment(p, path, &err) < 0) {
		fprintf(stderr, "cannot make %s: %s\n", path, err ? err : "");
		free(err);
		profile_free(p);
		return NULL;
	}
	return p;
}

int main(void)
{
	char dir[] = "/tmp/pa-unit-mspec.XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	heap_prof = open_one(
		dir, "h",
		"thread 1\nsample 1 2 10000000 0xa000\nheap 1 malloc 100 0x1000 0xa000\nend 1 20000000\n");
	clock_prof = open_one(dir, "c", "thread 1\nsample 1 2 10000000 0xa000\nend 1 20000000\n");
	CHECK(heap_prof && clock_prof);
	if (heap_prof && clock_prof) {
		test_lists();
		test_sort();
		test_errors();
		test_registry();
	}
	profile_free(heap_prof);
	profile_free(clock_prof);
	CHECK(sh("rm -rf '%s'", dir) == 0);
	return check_done();
}
