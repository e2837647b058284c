/*
 * test_mspec - the metric-list parser (analysis/mspec.h): flavors,
 * visibility, static columns, sort specs, "default", canonical text, and
 * every error (with *ret left alone).
 */
#include "analysis/mspec.h"

#include <errno.h>
#include <string.h>

#include "analysis/profile.h"
#include "tests/unit/check.h"

static const char *fmt(const struct mspec *m)
{
	static char buf[512];
	mspec_format(m, buf, sizeof buf);
	return buf;
}

static void test_lists(void)
{
	struct mspec m;
	char err[256];
	CHECK(mspec_parse("default", 0, &m, err, sizeof err) == 0);
	CHECK_EQ_STR(fmt(&m), MSPEC_DEFAULT_METRICS);
	CHECK(mspec_parse(MSPEC_DEFAULT_HEAP_METRICS, 0, &m, err, sizeof err) == 0);
	CHECK_EQ_STR(fmt(&m), MSPEC_DEFAULT_HEAP_METRICS);
	/* several flavors make one column each; no flavor is exclusive, no visibility a value */
	CHECK(mspec_parse("ei.%totalcpu: heapallocbytes :name", 0, &m, err, sizeof err) == 0);
	CHECK_EQ_U64(m.n, 4);
	CHECK_EQ_U64(m.items[0].flavor, MSPEC_EXCL);
	CHECK_EQ_U64(m.items[1].flavor, MSPEC_INCL);
	CHECK(m.items[0].show_value && m.items[0].show_percent && !m.items[0].hidden);
	CHECK_EQ_U64(m.items[2].metric, PROFILE_METRIC_HEAPALLOCBYTES);
	CHECK_EQ_U64(m.items[2].flavor, MSPEC_EXCL);
	CHECK(m.items[2].show_value && !m.items[2].show_percent);
	CHECK_EQ_U64(m.items[3].kind, MSPEC_NAME);
	CHECK_EQ_STR(fmt(&m), "e.%totalcpu:i.%totalcpu:e.heapallocbytes:name");
	/* "+" is a value, "!" hidden, a.=attributed; size and address are static */
	CHECK(mspec_parse("a+heapleakcnt:i!totalcpu:size:address", 0, &m, err, sizeof err) == 0);
	CHECK_EQ_U64(m.items[0].flavor, MSPEC_ATTR);
	CHECK(m.items[0].show_value);
	CHECK(m.items[1].hidden && !m.items[1].show_value);
	CHECK_EQ_U64(m.items[2].kind, MSPEC_SIZE);
	CHECK_EQ_U64(m.items[3].kind, MSPEC_ADDRESS);
	CHECK_EQ_STR(fmt(&m), "a.heapleakcnt:i!totalcpu:size:address");
}

static void test_sort(void)
{
	struct mspec m;
	char err[256];
	CHECK(mspec_parse("default", 1, &m, err, sizeof err) == 0);
	CHECK_EQ_STR(fmt(&m), MSPEC_DEFAULT_SORT);
	CHECK(mspec_parse("i.heapleakbytes", 1, &m, err, sizeof err) == 0);
	CHECK_EQ_U64(m.n, 1);
	CHECK_EQ_U64(m.items[0].flavor, MSPEC_INCL);
	CHECK(mspec_parse("name", 1, &m, err, sizeof err) == 0);
	CHECK_EQ_U64(m.items[0].kind, MSPEC_NAME);
	CHECK(mspec_parse("size", 1, &m, err, sizeof err) == -EINVAL);
	CHECK(strstr(err, "cannot sort by 'size'") != NULL);
	CHECK(mspec_parse("e.totalcpu:name", 1, &m, err, sizeof err) == -EINVAL);
	CHECK(strstr(err, "sort takes one metric") != NULL);
	CHECK(mspec_parse("ei.totalcpu", 1, &m, err, sizeof err) == -EINVAL);
}

static void test_errors(void)
{
	struct mspec m = {.n = 7}; /* left alone on every error */
	char err[256];
	CHECK(mspec_parse("e.foo", 0, &m, err, sizeof err) == -EINVAL);
	CHECK_EQ_STR(err,
		     "unknown metric 'foo' (available: totalcpu, heapalloccnt, heapallocbytes, heapleakcnt, "
		     "heapleakbytes, name, size, address)");
	CHECK(mspec_parse("index", 0, &m, err, sizeof err) == -EINVAL); /* not the flavor "i" */
	CHECK(strstr(err, "'index'") != NULL);
	CHECK(mspec_parse("", 0, &m, err, sizeof err) == -EINVAL);
	CHECK_EQ_STR(err, "empty metric list");
	CHECK(mspec_parse("e.totalcpu::name", 0, &m, err, sizeof err) == -EINVAL);
	CHECK(strstr(err, "empty item") != NULL);
	CHECK(mspec_parse("e.", 0, &m, err, sizeof err) == -EINVAL);
	CHECK(strstr(err, "missing metric name") != NULL);
	CHECK(mspec_parse("e.name", 0, &m, err, sizeof err) == -EINVAL);
	CHECK_EQ_STR(err, "'name' takes no flavor");
	char many[2048] = "";
	for (int i = 0; i <= MSPEC_MAX; i++)
		strcat(many, i ? ":e.totalcpu" : "e.totalcpu");
	CHECK(mspec_parse(many, 0, &m, err, sizeof err) == -EINVAL);
	CHECK(strstr(err, "too many metrics") != NULL);
	CHECK_EQ_U64(m.n, 7);
	/* a short error buffer is cut, never overrun */
	char tiny[8];
	CHECK(mspec_parse("e.foo", 0, &m, tiny, sizeof tiny) == -EINVAL);
	CHECK_EQ_U64(strlen(tiny), sizeof tiny - 1);
}

int main(void)
{
	test_lists();
	test_sort();
	test_errors();
	return check_done();
}
