/*
 * test_report_compare - compare mode's model (analysis/report_compare.h):
 * the experiment of tests/unit/report_fixture.h (s.er, side 1) against t.er
 * (side 2): work 200 ms (slow <- main), both 70 ms (<- main); no fast.
 * In ms, exclusive: s work 180, fast 50, slow 40, main 20; t work 200,
 * both 70; totals 290 and 270.
 */
#include "analysis/report_compare.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment/expgroup.h"
#include "tests/unit/check.h"
#include "tests/unit/report_fixture.h"

static struct profile *prof;

static const char *name_of(void *arg, enum report_what what, uint32_t id, char *buf, size_t room)
{
	(void)what;
	snprintf(buf, room, "%s", profile_func(arg, id)->name);
	return buf;
}

/* "name=ms/ms" of each row (column 0 of both sides), joined by spaces. */
static const char *list_rows(const struct report_compare *c)
{
	static char buf[1024];
	buf[0] = '\0';
	for (size_t i = 0; i < c->nrows; i++) {
		size_t l = strlen(buf);
		snprintf(buf + l, sizeof buf - l, "%s%s=%llu/%llu", i ? " " : "", c->rows[i].name,
			 (unsigned long long)(c->rows[i].values[0] / MS),
			 (unsigned long long)(c->rows[i].values[c->ncols] / MS));
	}
	return buf;
}

static const char *edge_rows(const struct report_compare_edge *v, size_t n, size_t nm)
{
	static char buf[512];
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(buf);
		snprintf(buf + l, sizeof buf - l, "%s%s=%llu/%llu", i ? " " : "", v[i].name,
			 (unsigned long long)(v[i].values[0] / MS),
			 (unsigned long long)(v[i].values[nm] / MS));
	}
	return buf;
}

static const struct report_compare_side sides[] = {{"s.er", 0, 1}, {"t.er", 1, 1}};

static void test_list(void)
{
	struct mspec spec, sort;
	char err[256];
	CHECK(mspec_parse(prof, "e.totalcpu:i.totalcpu:name", 0, &spec, err, sizeof err) == 0);
	CHECK(mspec_parse(prof, "e.totalcpu", 1, &sort, err, sizeof err) == 0);
	struct report_compare *c;
	CHECK_EQ_U64(report_compare_list(prof, REPORT_FUNCTIONS, sides, 2, &spec, &sort.items[0], name_of,
					 prof, &c),
		     0);
	CHECK_EQ_U64(c->ncols, 2);
	CHECK_EQ_U64(c->nsides, 2);
	/* by the baseline's exclusive value, then by name; both only in t, fast only in s */
	CHECK_EQ_STR(list_rows(c), "<Total>=290/270 work=180/200 fast=50/0 slow=40/0 main=20/0 both=0/70");
	CHECK_EQ_U64(c->totals[0], 290 * MS);
	CHECK_EQ_U64(c->totals[2], 270 * MS);
	CHECK_EQ_U64(c->rows[1].values[1], 180 * MS); /* work inclusive, s */
	CHECK_EQ_U64(c->rows[4].values[3], 270 * MS); /* main inclusive, t */
	report_compare_free(c);

	/* sorted by the baseline: t first */
	const struct report_compare_side rev[] = {sides[1], sides[0]};
	CHECK_EQ_U64(
		report_compare_list(prof, REPORT_FUNCTIONS, rev, 2, &spec, &sort.items[0], name_of, prof, &c),
		0);
	CHECK_EQ_STR(list_rows(c), "<Total>=270/290 work=200/180 both=70/0 fast=0/50 main=0/20 slow=0/40");
	report_compare_free(c);

	/* the selection is restored; a side it leaves out is all zeros */
	char *msg = NULL;
	CHECK(profile_select_experiments(prof, "2", &msg) == 0);
	free(msg);
	CHECK_EQ_U64(report_compare_list(prof, REPORT_FUNCTIONS, sides, 2, &spec, &sort.items[0], name_of,
					 prof, &c),
		     0);
	CHECK_EQ_STR(list_rows(c), "<Total>=0/270 both=0/70 main=0/0 slow=0/0 work=0/200"); /* by name */
	report_compare_free(c);
	CHECK_EQ_STR(profile_experiment_selection(prof), "2");
	CHECK(profile_select_experiments(prof, "all", &msg) == 0);
	free(msg);

	/* errors */
	CHECK(report_compare_list(prof, REPORT_FUNCTIONS, sides, 1, &spec, &sort.items[0], name_of, prof,
				  &c) == -EINVAL);
	const struct report_compare_side bad[] = {{"s.er", 0, 1}, {"x.er", 1, 5}};
	CHECK(report_compare_list(prof, REPORT_FUNCTIONS, bad, 2, &spec, &sort.items[0], name_of, prof, &c) ==
	      -EINVAL);
	CHECK(report_compare_list(prof, REPORT_OBJECTS, sides, 2, &spec, &sort.items[0], name_of, prof, &c) ==
	      -EINVAL);
}

static void test_calls(void)
{
	struct mspec sort;
	char err[256];
	CHECK(mspec_parse(prof, "e.totalcpu", 1, &sort, err, sizeof err) == 0);
	struct report_compare_calls *cc;
	CHECK_EQ_U64(report_compare_calls(prof, sides, 2, &sort.items[0], name_of, prof, &cc), 0);
	size_t nm = cc->nmetrics;
	CHECK_EQ_U64(cc->nblocks, 6);
	const struct report_compare_block *main_b = NULL, *work_b = NULL;
	for (size_t i = 0; i < cc->nblocks; i++) {
		if (strcmp(cc->blocks[i].name, "main") == 0)
			main_b = &cc->blocks[i];
		if (strcmp(cc->blocks[i].name, "work") == 0)
			work_b = &cc->blocks[i];
	}
	CHECK_EQ_STR(cc->blocks[0].name, "<Total>");
	CHECK_EQ_STR(cc->blocks[1].name, "work");
	CHECK(main_b && work_b);
	if (main_b && work_b) {
		CHECK_EQ_STR(edge_rows(main_b->callers, main_b->ncallers, nm), "<Total>=290/270");
		CHECK_EQ_STR(edge_rows(main_b->callees, main_b->ncallees, nm), "slow=170/200 both=100/70");
		CHECK_EQ_U64(main_b->exclusive[0], 20 * MS);
		CHECK_EQ_U64(main_b->exclusive[nm], 0);
		CHECK_EQ_U64(main_b->base[nm], 270 * MS);
		CHECK_EQ_STR(edge_rows(work_b->callers, work_b->ncallers, nm), "slow=130/200 both=50/0");
		CHECK_EQ_U64(work_b->ncallees, 0);
	}
	report_compare_calls_free(cc);
	CHECK_EQ_STR(profile_experiment_selection(prof), "all");
}

/* The sides of command-line arguments: an experiment (with a descendant), a group, a group of none. */
static void test_sides(const char *dir)
{
	char g[4200], none[4200];
	snprintf(g, sizeof g, "%s/g.erg", dir);
	snprintf(none, sizeof none, "%s/none.erg", dir);
	const char *members[] = {"m1.er", "m2.er"};
	CHECK(expgroup_write(g, members, 2) == 0);
	CHECK(expgroup_write(none, NULL, 0) == 0);
	const char *args[] = {"x/a.er/", g, "b.er", none, "/"};
	/* paths: a.er (2 experiments: it and a descendant), m1.er, m2.er, b.er, / */
	const size_t first_of[] = {0, 2, 3, 4, 5, 6};
	struct report_compare_side *v;
	size_t n = 0;
	CHECK(report_compare_sides(args, 5, first_of, &v, &n) == 0);
	CHECK(n == 4);
	if (n == 4) {
		CHECK(strcmp(v[0].name, "a.er") == 0 && v[0].first == 0 && v[0].count == 2);
		CHECK(strcmp(v[1].name, "g.erg") == 0 && v[1].first == 2 && v[1].count == 2);
		CHECK(strcmp(v[2].name, "b.er") == 0 && v[2].first == 4 && v[2].count == 1);
		CHECK(strcmp(v[3].name, "/") == 0 && v[3].first == 5 && v[3].count == 1);
		report_compare_sides_free(v, n);
	}
	const char *missing[] = {"a.er", "gone.erg"}; /* not a group: a path as any other */
	const size_t first2[] = {0, 1, 2};
	CHECK(report_compare_sides(missing, 2, first2, &v, &n) == 0 && n == 2);
	if (n == 2)
		CHECK(strcmp(v[1].name, "gone.erg") == 0 && v[1].first == 1 && v[1].count == 1);
	report_compare_sides_free(v, n);
}

int main(void)
{
	char dir[] = "/tmp/pa-unit-report-compare.XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	prof = report_fixture_open(dir, REPORT_FIXTURE_SCRIPT);
	char path[4200], *err = NULL;
	snprintf(path, sizeof path, "%s/t.er", dir);
	CHECK(prof != NULL);
	CHECK(make_prog_exp(dir, "t",
			    "thread 100\n"
			    "sample 100 20 10000000 work+10 slow+9 main+42\n"
			    "sample 100 7 10000000 both+8 main+16\n"
			    "end 100 270000000\n") == 0);
	CHECK(prof && profile_add_experiment(prof, path, &err) == 0);
	free(err);
	if (prof && profile_experiment_count(prof) == 2) {
		test_list();
		test_calls();
	}
	test_sides(dir);
	profile_free(prof);
	CHECK(sh("rm -rf '%s'", dir) == 0);
	return check_done();
}
