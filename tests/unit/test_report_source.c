/*
 * test_report_source - the annotated source and disassembly models
 * (analysis/report_source.h) on the synthetic experiment of
 * tests/unit/report_fixture.h with the leaves main+4 and slow+4 (no return
 * address of another stack).  Which line and which instruction a PC belongs
 * to is the compiler's choice, so the expected figures are the sample times
 * added up through the profile's own PC -> line map and the disassembly's
 * instruction starts; all else is exact.
 */
#include "analysis/report_source.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/check.h"
#include "tests/unit/report_fixture.h"

static struct profile *prof;

static const struct pfunc *func(const char *name)
{
	uint32_t id = 0;
	CHECK_EQ_U64(profile_find_funcs(prof, name, &id, 1), 1);
	return profile_func(prof, id);
}

/* The source line of the leaf PC fn+off. */
static uint32_t line_of(const char *fn, uint64_t off)
{
	const struct pfunc *f = func(fn);
	int64_t pc = profile_find_pc(prof, f->obj, f->addr + off);
	CHECK(pc >= 0);
	if (pc < 0)
		return 0;
	const struct pline *l = profile_line(prof, profile_pc(prof, (uint32_t)pc)->line);
	return l && l->file ? l->line : 0;
}

static struct mspec parse(const char *text, int sort)
{
	struct mspec m = {0};
	char err[256];
	CHECK(mspec_parse(prof, text, sort, &m, err, sizeof err) == 0);
	return m;
}

static void test_source(const char *file)
{
	/* exclusive ms per line, from the leaves */
	uint64_t want[64] = {0};
	const struct {
		const char *fn;
		uint64_t off, ms;
	} leaves[] = {{"work", 10, 150}, {"work", 12, 30}, {"fast", 9, 50}, {"main", 4, 20}, {"slow", 4, 40}};
	uint32_t hottest = 0;
	for (size_t i = 0; i < sizeof leaves / sizeof leaves[0]; i++) {
		uint32_t ln = line_of(leaves[i].fn, leaves[i].off);
		CHECK(ln > 0 && ln < 64);
		if (ln > 0 && ln < 64)
			want[ln] += leaves[i].ms;
	}
	for (uint32_t ln = 0; ln < 64; ln++)
		hottest = want[ln] > want[hottest] ? ln : hottest;
	struct mspec m = parse("e.%totalcpu:size:name", 0), s = parse("e.totalcpu", 1);
	struct report_source *rs;
	CHECK_EQ_U64(report_source_new(prof, file, &m, &s.items[0], 75, 40, &rs), 0);
	if (!rs)
		return;
	CHECK_EQ_U64(rs->nlines, 41); /* text_lines 40 is more than the last line with code */
	CHECK_EQ_U64(rs->ncols, 2);
	CHECK_EQ_U64(rs->percent_base[0], 290 * MS);
	uint64_t sum = 0;
	for (size_t ln = 1; ln < rs->nlines && ln < 64; ln++) {
		CHECK_EQ_U64(rs->values[ln * 2], want[ln] * MS);
		CHECK_EQ_U64(rs->values[ln * 2 + 1], 0); /* size: a static column */
		sum += rs->values[ln * 2];
		CHECK_EQ_U64(rs->lines[ln].hot, ln == hottest); /* 75% of the hottest: that line alone */
		if (want[ln])
			CHECK(rs->lines[ln].has);
	}
	CHECK_EQ_U64(sum, 290 * MS);
	/* each function with data is marked at its entry line, right after its declaration */
	const char *names[] = {"work", "fast", "slow", "both", "main"};
	const uint32_t decl[] = {9, 16, 20, 24,
				 28}; /* cc_prog.c's "double work(long n)" ... "int main(void)" */
	for (size_t i = 0; i < 5; i++) {
		struct line_loc pos;
		CHECK(report_func_position(prof, func(names[i]), &pos));
		CHECK(pos.line == decl[i] || pos.line == decl[i] + 1);
		CHECK(pos.line < rs->nlines && rs->lines[pos.line].func == func(names[i])->id);
	}
	size_t marks = 0;
	for (size_t ln = 0; ln < rs->nlines; ln++)
		marks += rs->lines[ln].func != UINT32_MAX;
	CHECK_EQ_U64(marks, 5);
	report_source_free(rs);

	/* the hot mark follows the sort metric and the threshold: 0% marks every line with time */
	CHECK_EQ_U64(report_source_new(prof, file, &m, &s.items[0], 0, 0, &rs), 0);
	if (rs) {
		size_t hot = 0, with = 0;
		for (size_t ln = 0; ln < rs->nlines; ln++) {
			hot += rs->lines[ln].hot;
			with += ln < 64 && want[ln] != 0;
		}
		CHECK_EQ_U64(hot, with);
		CHECK(rs->nlines <= 36); /* up to cc_prog.c's last line with code */
	}
	report_source_free(rs);
}

static void test_disasm(void)
{
	struct mspec m = parse("e.totalcpu:i.totalcpu:name", 0);
	const struct pfunc *work = func("work");
	struct report_disasm *d;
	CHECK_EQ_U64(report_disasm_new(prof, work->id, &m, 75, &d), 0);
	if (!d)
		return;
	CHECK(d->entry_file && strstr(d->entry_file, "cc_prog.c"));
	CHECK_EQ_U64(d->disasm_error, 0);
	CHECK_EQ_U64(d->ncols, 2);
	/* work's leaves: +10 150 ms, +12 30 ms; the hottest is 150 ms whether or not +10 starts an instruction */
	uint64_t sum = 0, want_sum = 0, prev = 0;
	size_t insns = 0, sources = 0, with = 0;
	for (size_t i = 0; i < d->nrows; i++) {
		const struct report_disasm_row *r = &d->rows[i];
		if (r->kind == REPORT_DISASM_SOURCE) {
			sources++;
			CHECK(r->line > 0 && r->file);
			CHECK_EQ_U64(d->values[i * 2], 0);
			continue;
		}
		insns++;
		CHECK(r->text && r->text[0]);
		CHECK(r->addr >= prev && r->addr >= work->addr && r->addr < work->addr + work->size);
		prev = r->addr;
		uint64_t want = r->addr == work->addr + 10   ? 150 * MS
				: r->addr == work->addr + 12 ? 30 * MS
							     : 0;
		CHECK_EQ_U64(d->values[i * 2], want);
		CHECK_EQ_U64(d->values[i * 2 + 1], want); /* inclusive: leaves */
		CHECK_EQ_U64(r->hot, want && want * 100 >= 150 * MS * 75);
		sum += d->values[i * 2];
		want_sum += want;
		with += want != 0;
	}
	CHECK_EQ_U64(sum, want_sum);
	CHECK(with >= 1 && insns > 3 && sources >= 2);
	report_disasm_free(d);

	/* no code of its own; functions by file */
	CHECK(report_disasm_new(prof, PROFILE_FUNC_TOTAL, &m, 75, &d) == -EINVAL && d == NULL);
	uint32_t *ids;
	long n = report_funcs_in_file(prof, "cc_prog.c", &ids);
	CHECK_EQ_U64(n, 5);
	for (long i = 1; i < n; i++)
		CHECK(profile_func(prof, ids[i])->addr > profile_func(prof, ids[i - 1])->addr);
	free(ids);
	CHECK_EQ_U64(report_funcs_in_file(prof, "nosuch.c", &ids), 0);
}

int main(void)
{
	char dir[] = "/tmp/pa-unit-report-source.XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	prof = report_fixture_open(dir, REPORT_FIXTURE_LEAVES("main+4", "slow+4"));
	CHECK(prof != NULL);
	const char *file = prof ? report_find_source_file(prof, "cc_prog.c") : NULL;
	CHECK(file && strstr(file, "tests/fixtures/cc_prog.c"));
	if (file) {
		CHECK(report_find_source_file(prof, "nosuch.c") == NULL);
		CHECK(report_find_source_file(prof, file) == file);
		test_source(file);
		test_disasm();
	}
	profile_free(prof);
	CHECK(sh("rm -rf '%s'", dir) == 0);
	return check_done();
}
