/*
 * test_report_calls - the callers-callees and call tree models
 * (analysis/report_calls.h) on the synthetic experiment of
 * tests/unit/report_fixture.h (both->fast and both->work tie at 50 ms:
 * ordered by name).
 */
#include "analysis/report_calls.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/check.h"
#include "tests/unit/report_fixture.h"

static struct profile *prof;

static const char *name_of(void *arg, enum report_what what, uint32_t id, char *buf, size_t room)
{
	(void)what;
	snprintf(buf, room, "%s", profile_func(arg, id)->name);
	return buf;
}

static uint32_t func(const char *name)
{
	uint32_t id = 0;
	CHECK_EQ_U64(profile_find_funcs(prof, name, &id, 1), 1);
	return id;
}

/* "name=ms" of each edge, joined by spaces. */
static const char *edges(const struct report_edge *v, size_t n)
{
	static char buf[512];
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(buf);
		snprintf(buf + l, sizeof buf - l, "%s%s=%llu", i ? " " : "",
			 profile_func(prof, v[i].func)->name, (unsigned long long)(v[i].values[0] / MS));
	}
	return buf;
}

static void test_blocks(void)
{
	struct report_calls c;
	CHECK_EQ_U64(report_calls_of(prof, func("main"), 0, name_of, prof, &c), 0);
	CHECK_EQ_STR(edges(c.callers, c.ncallers), "<Total>=290");
	CHECK_EQ_STR(edges(c.callees, c.ncallees), "slow=170 both=100");
	CHECK_EQ_U64(c.exclusive[0], 20 * MS);
	CHECK_EQ_U64(c.base[0], 290 * MS);
	report_calls_release(&c);

	CHECK_EQ_U64(report_calls_of(prof, func("work"), 0, name_of, prof, &c), 0);
	CHECK_EQ_STR(edges(c.callers, c.ncallers), "slow=130 both=50");
	CHECK_EQ_U64(c.ncallees, 0);
	CHECK_EQ_U64(c.exclusive[0], 180 * MS);
	CHECK_EQ_U64(c.base[0], 180 * MS);
	report_calls_release(&c);

	/* equal attributed values: by name */
	CHECK_EQ_U64(report_calls_of(prof, func("both"), 0, name_of, prof, &c), 0);
	CHECK_EQ_STR(edges(c.callees, c.ncallees), "fast=50 work=50");
	CHECK_EQ_U64(c.exclusive[0], 0);
	CHECK_EQ_U64(c.base[0], 100 * MS);
	report_calls_release(&c);

	CHECK_EQ_U64(report_calls_of(prof, func("slow"), 0, name_of, prof, &c), 0);
	CHECK_EQ_STR(edges(c.callers, c.ncallers), "main=170");
	CHECK_EQ_STR(edges(c.callees, c.ncallees), "work=130");
	CHECK_EQ_U64(c.exclusive[0], 40 * MS);
	report_calls_release(&c);

	/* the root: its callee main, its 100% the total */
	CHECK_EQ_U64(report_calls_of(prof, PROFILE_FUNC_TOTAL, 0, name_of, prof, &c), 0);
	CHECK_EQ_U64(c.ncallers, 0);
	CHECK_EQ_STR(edges(c.callees, c.ncallees), "main=290");
	CHECK_EQ_U64(c.base[0], 290 * MS);
	report_calls_release(&c);

	CHECK(report_calls_of(prof, 100000, 0, name_of, prof, &c) == -EINVAL);
	CHECK(report_calls_of(prof, func("main"), 7, name_of, prof, &c) == -EINVAL);
}

static void test_attr_items(void)
{
	struct mspec m;
	struct mspec_item it[MSPEC_MAX];
	char err[256];
	CHECK(mspec_parse(prof, "e.%totalcpu:i!totalcpu:name:size", 0, &m, err, sizeof err) == 0);
	size_t n = report_attr_items(&m, it);
	CHECK_EQ_U64(n, 1); /* totalcpu once */
	CHECK(it[0].flavor == MSPEC_ATTR && it[0].show_value && it[0].show_percent && it[0].metric == 0);
	CHECK(mspec_parse(prof, "e!totalcpu:name", 0, &m, err, sizeof err) == 0);
	CHECK_EQ_U64(report_attr_items(&m, it), 0);
	CHECK(mspec_parse(prof, "name", 1, &m, err, sizeof err) == 0);
	CHECK_EQ_U64(report_sort_metric(&m.items[0]), 0);
}

struct walk {
	char rows[32][64];
	size_t n, skip_at, stop_at;
};

static int on_node(void *arg, const struct metrics_node *n, size_t depth, int has_next)
{
	struct walk *w = arg;
	if (w->stop_at && w->n == w->stop_at)
		return REPORT_TREE_STOP;
	if (w->n < 32)
		snprintf(w->rows[w->n], sizeof w->rows[0], "%zu%s%s=%llu", depth, has_next ? "+" : " ",
			 profile_func(prof, n->func)->name, (unsigned long long)(n->values[0] / MS));
	w->n++;
	return w->skip_at && w->n == w->skip_at ? REPORT_TREE_SKIP : 0;
}

static const char *rows(const struct walk *w)
{
	static char buf[1024];
	buf[0] = '\0';
	for (size_t i = 0; i < w->n && i < 32; i++) {
		size_t l = strlen(buf);
		snprintf(buf + l, sizeof buf - l, "%s%s", i ? "|" : "", w->rows[i]);
	}
	return buf;
}

static void test_tree(void)
{
	/* both's two children tie at 50: by function id */
	int fast_first = func("fast") < func("work");
	struct walk w = {0};
	CHECK_EQ_U64(report_tree_walk(prof, 0, on_node, &w), 0);
	CHECK_EQ_STR(
		rows(&w),
		fast_first ? "0 <Total>=290|1 main=290|2+slow=170|3 work=130|2 both=100|3+fast=50|3 work=50"
			   : "0 <Total>=290|1 main=290|2+slow=170|3 work=130|2 both=100|3+work=50|3 fast=50");
	/* skip slow's children; stop after four rows */
	memset(&w, 0, sizeof w);
	w.skip_at = 3;
	CHECK_EQ_U64(report_tree_walk(prof, 0, on_node, &w), 0);
	CHECK_EQ_U64(w.n, 6);
	CHECK(strstr(rows(&w), "2+slow=170|2 both=100") != NULL);
	memset(&w, 0, sizeof w);
	w.stop_at = 4;
	CHECK_EQ_U64(report_tree_walk(prof, 0, on_node, &w), 0);
	CHECK_EQ_U64(w.n, 4);
	CHECK(report_tree_walk(prof, 9, on_node, &w) == -EINVAL);
}

int main(void)
{
	char dir[] = "/tmp/pa-unit-report-calls.XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	prof = report_fixture_open(dir, REPORT_FIXTURE_SCRIPT);
	CHECK(prof != NULL);
	if (prof) {
		test_blocks();
		test_attr_items();
		test_tree();
	}
	profile_free(prof);
	CHECK(sh("rm -rf '%s'", dir) == 0);
	return check_done();
}
