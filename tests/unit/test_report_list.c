/*
 * test_report_list - the list reports' model (analysis/report_list.h) on
 * the synthetic experiment of tests/unit/report_fixture.h, every figure
 * known.
 */
#include "analysis/report_list.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/check.h"
#include "tests/unit/report_fixture.h"

/* Names as a front end would make them: functions by name, PCs as "func+0xOFF". */
static const char *name_of(void *arg, enum report_what what, uint32_t id, char *buf, size_t room)
{
	struct profile *p = arg;
	if (what == REPORT_FUNCTIONS)
		snprintf(buf, room, "%s", profile_func(p, id)->name);
	else if (what == REPORT_OBJECTS)
		snprintf(buf, room, "<%s>", profile_object(p, id)->name);
	else if (what == REPORT_PCS) {
		const struct ppc *pc = profile_pc(p, id);
		const struct pfunc *f = profile_func(p, pc->func);
		snprintf(buf, room, "%s+0x%llx", f->name, (unsigned long long)(pc->vaddr - f->addr));
	} else {
		const struct pline *l = profile_line(p, id);
		snprintf(buf, room, "%s:%u", profile_func(p, l->func)->name, l->line);
	}
	return buf;
}

static struct report_list *list(struct profile *p, enum report_what what, const char *spec, const char *sort)
{
	struct mspec m, s;
	char err[256];
	struct report_list *l = NULL;
	CHECK(mspec_parse(p, spec, 0, &m, err, sizeof err) == 0);
	CHECK(mspec_parse(p, sort, 1, &s, err, sizeof err) == 0);
	CHECK_EQ_U64(report_list_new(p, what, &m, &s.items[0], name_of, p, &l), 0);
	return l;
}

/* The rows' names joined by spaces. */
static const char *order(const struct report_list *l)
{
	static char buf[1024];
	buf[0] = '\0';
	for (size_t i = 0; l && i < l->nrows; i++) {
		size_t n = strlen(buf);
		snprintf(buf + n, sizeof buf - n, "%s%s", i ? " " : "", l->names[i]);
	}
	return buf;
}

static void test_functions(struct profile *p)
{
	struct report_list *l = list(p, REPORT_FUNCTIONS, "e.%totalcpu:i.totalcpu:size:name", "e.totalcpu");
	if (!l)
		return;
	CHECK_EQ_STR(order(l), "<Total> work fast slow main both");
	CHECK_EQ_U64(l->ids[0], PROFILE_FUNC_TOTAL);
	CHECK_EQ_U64(l->ncols, 3); /* the name column is the row's name */
	CHECK_EQ_U64(l->cols[2].kind, MSPEC_SIZE);
	CHECK_EQ_U64(l->percent_base[0], 290 * MS);
	CHECK_EQ_U64(l->percent_base[2], 0);
	static const uint64_t excl[] = {290, 180, 50, 40, 20, 0}, incl[] = {290, 180, 50, 170, 290, 100};
	for (size_t r = 0; r < 6 && r < l->nrows; r++) {
		CHECK_EQ_U64(l->values[r * 3 + 0], excl[r] * MS);
		CHECK_EQ_U64(l->values[r * 3 + 1], incl[r] * MS);
		CHECK_EQ_U64(l->values[r * 3 + 2], 0);
	}
	report_list_free(l);

	l = list(p, REPORT_FUNCTIONS, "i.totalcpu:name", "i.totalcpu");
	CHECK_EQ_STR(order(l), "<Total> main work slow both fast");
	report_list_free(l);
	l = list(p, REPORT_FUNCTIONS, "i.totalcpu:name", "name");
	CHECK_EQ_STR(order(l), "<Total> both fast main slow work");
	report_list_free(l);
	/* hidden and attributed items are no columns of a function list */
	l = list(p, REPORT_FUNCTIONS, "e!totalcpu:a.totalcpu:i.totalcpu:address", "e.totalcpu");
	CHECK(l && l->ncols == 2 && l->cols[0].flavor == MSPEC_INCL && l->cols[1].kind == MSPEC_ADDRESS);
	report_list_free(l);
}

static void test_objects_pcs_lines(struct profile *p)
{
	/* objects: metric columns only, one object */
	struct report_list *l = list(p, REPORT_OBJECTS, "e.%totalcpu:size:i.totalcpu:name", "e.totalcpu");
	CHECK_EQ_STR(order(l), "<Total> <prog>");
	CHECK(l && l->ncols == 2 && l->cols[1].flavor == MSPEC_INCL);
	CHECK(l && l->nrows == 2 && l->values[2] == 290 * MS && l->values[3] == 290 * MS);
	CHECK(l && report_list_entity(REPORT_OBJECTS, l->ids[1]) == 0);
	report_list_free(l);

	/* PCs: the leaves by exclusive time, then the return addresses (0) by name */
	l = list(p, REPORT_PCS, "e.totalcpu:i.totalcpu:name", "e.totalcpu");
	if (l) {
		CHECK(l->nrows >= 6);
		const char *want[] = {"<Total>", "work+0xa", "fast+0x9", "slow+0x9", "work+0xc", "main+0x2a"};
		const uint64_t ms[] = {290, 150, 50, 40, 30, 20};
		for (size_t r = 0; r < 6 && r < l->nrows; r++) {
			CHECK_EQ_STR(l->names[r], want[r]);
			CHECK_EQ_U64(l->values[r * 2], ms[r] * MS);
		}
		uint64_t sum = 0;
		for (size_t r = 1; r < l->nrows; r++) {
			sum += l->values[r * 2];
			if (r > 1 && l->values[r * 2] == l->values[(r - 1) * 2])
				CHECK(strcmp(l->names[r - 1], l->names[r]) < 0);
			CHECK(r == 1 || l->values[r * 2] <= l->values[(r - 1) * 2]);
		}
		CHECK_EQ_U64(sum, 290 * MS);
	}
	report_list_free(l);

	/* lines: exclusive sums to the total, largest first, each line's function one of cc_prog's */
	l = list(p, REPORT_LINES, "e.totalcpu:name", "e.totalcpu");
	if (l) {
		uint64_t sum = 0;
		for (size_t r = 1; r < l->nrows; r++) {
			sum += l->values[r];
			CHECK(l->values[r] <= l->values[r - 1]);
			const struct pline *pl = profile_line(p, report_list_entity(REPORT_LINES, l->ids[r]));
			CHECK(pl && pl->file && strstr(pl->file, "cc_prog.c"));
		}
		CHECK_EQ_U64(sum, 290 * MS);
		CHECK_EQ_U64(l->values[0], 290 * MS);
	}
	report_list_free(l);
}

int main(void)
{
	char dir[] = "/tmp/pa-unit-report-list.XXXXXX", *err = NULL;
	CHECK(mkdtemp(dir) != NULL);
	struct profile *p = report_fixture_open(dir, REPORT_FIXTURE_SCRIPT);
	CHECK(p != NULL);
	if (p) {
		test_functions(p);
		test_objects_pcs_lines(p);
		/* the thread selection applies: no thread, <Total> alone at 0 */
		CHECK(profile_select_threads(p, "2", &err) == 0);
		struct report_list *l = list(p, REPORT_FUNCTIONS, "e.totalcpu:name", "e.totalcpu");
		CHECK(l && l->nrows == 1 && l->values[0] == 0);
		report_list_free(l);
	}
	profile_free(p);
	CHECK(sh("rm -rf '%s'", dir) == 0);
	return check_done();
}
