/*
 * test_report_io - analysis/report_io.h on a synthetic experiment
 * (tests/tools/mkexp) whose every figure follows from the header: calls
 * grouped by file name (a descriptor number reused under the same name, a
 * duplicate named as its original), by descriptor life, by stack; a failed
 * open, a call on no known descriptor, an inherited descriptor without a
 * name, a copy in the kernel (read and write); iostat's histograms and
 * extremes; a thread selection.
 */
#include "analysis/report_io.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/experiment_internal.h"
#include "analysis/profile.h"
#include "tests/unit/check.h"
#include "tests/unit/report_fixture.h"

static const char script[] = "thread 1\n"
			     "thread 2 1\n"
			     "iofile 1 3 open 0 data.txt\n"
			     "io 1 open 1 3 0 0 1000 0xa000 0x1\n"
			     "io 1 write 1 3 100 0 2000 0xb000 0x1\n"
			     "io 1 write 1 3 5000 0 3000 0xb000 0x1\n"
			     "io 2 read 1 3 0 0 500 0xc000 0x1\n" /* end of file: 0 bytes */
			     "iofile 2 4 dup 1 -\n"
			     "io 1 dup 2 4 0 0 100 0xd000 0x1\n"
			     "io 2 read 2 4 8192 0 700 0xc000 0x1\n"
			     "io 1 close 1 3 0 0 50 0xd000 0x1\n"
			     "iofile 3 3 open 0 data.txt\n" /* fd 3 again, same name */
			     "io 1 read 3 3 1024 0 400 0xc000 0x1\n"
			     "io 1 copy_file_range 3 3 2048 0 900 0xe000 0x1\n"
			     "iofile 4 -1 failed 0 /missing\n"
			     "io 1 open 4 -1 0 2 300 0xa000 0x1\n" /* ENOENT */
			     "io 1 write 0 70000 10 0 60 0xb000 0x1\n"
			     "iofile 5 0 inherited 0 -\n"
			     "io 1 read 5 0 5 0 20 0xc000 0x1\n"
			     "end 1 50000000\n"
			     "end 2 1000000\n";

static void check_figs(const struct report_io_row *r, uint64_t rb, uint64_t rc, uint64_t rt, uint64_t wb,
		       uint64_t wc, uint64_t wt, uint64_t oc, uint64_t ot, uint64_t ec, uint64_t et)
{
	const uint64_t want[PROFILE_IO_FIGS] = {rb, rc, rt, wb, wc, wt, oc, ot, ec, et};
	for (int k = 0; k < PROFILE_IO_FIGS; k++)
		CHECK_EQ_U64(r->v[k], want[k]);
}

static void check_by_file(const struct profile *p)
{
	struct report_io_row *v;
	ssize_t n = report_io_rows(p, REPORT_IO_BY_FILE, REPORT_IO_SORT_TIME, &v);
	CHECK(n == 5);
	if (n != 5) {
		free(v);
		return;
	}
	CHECK(strcmp(v[0].name, "<Total>") == 0);
	CHECK_EQ_U64(v[0].calls, 12);
	check_figs(&v[0], 11269, 5, 1620, 7158, 4, 5960, 3, 1150, 1, 300);
	/* three descriptor lives of data.txt: 1, its duplicate 2, and 3 on the reused number */
	CHECK(strcmp(v[1].name, "data.txt") == 0);
	CHECK_EQ_U64(v[1].calls, 9);
	check_figs(&v[1], 11264, 4, 1600, 7148, 3, 5900, 3, 1150, 0, 0);
	CHECK(strcmp(v[2].name, "/missing") == 0);
	check_figs(&v[2], 0, 0, 0, 0, 0, 0, 0, 0, 1, 300);
	CHECK(strcmp(v[3].name, REPORT_IO_UNKNOWN_FILE) == 0);
	CHECK_EQ_U64(v[3].v[PROFILE_IO_WRITE_BYTES], 10);
	CHECK(strcmp(v[4].name, "<descriptor 0>") == 0);
	CHECK_EQ_U64(v[4].v[PROFILE_IO_READ_BYTES], 5);
	free(v);

	/* by bytes written: data.txt, then the unknown descriptor, then the two without */
	n = report_io_rows(p, REPORT_IO_BY_FILE, PROFILE_IO_WRITE_BYTES, &v);
	CHECK(n == 5);
	if (n == 5) {
		CHECK(strcmp(v[1].name, "data.txt") == 0);
		CHECK(strcmp(v[2].name, REPORT_IO_UNKNOWN_FILE) == 0);
		CHECK(strcmp(v[3].name, "/missing") == 0); /* ties by name */
		CHECK(strcmp(v[4].name, "<descriptor 0>") == 0);
	}
	free(v);
	CHECK(report_io_rows(p, REPORT_IO_BY_FILE, PROFILE_IO_FIGS, &v) == -EINVAL);
}

static void check_by_vfd(const struct profile *p)
{
	struct report_io_row *v;
	ssize_t n = report_io_rows(p, REPORT_IO_BY_VFD, REPORT_IO_SORT_TIME, &v);
	CHECK(n == 7);
	if (n != 7) {
		free(v);
		return;
	}
	const uint32_t vfd[7] = {0, 1, 3, 2, 4, 0, 5};
	const int32_t fd[7] = {-1, 3, 3, 4, -1, -1, 0};
	for (int i = 1; i < 7; i++) {
		CHECK_EQ_U64(v[i].vfd, vfd[i]);
		CHECK_EQ_U64((uint64_t)(int64_t)v[i].fd, (uint64_t)(int64_t)fd[i]);
	}
	check_figs(&v[1], 0, 1, 500, 5100, 2, 5000, 2, 1050, 0, 0);
	check_figs(&v[2], 3072, 2, 400, 2048, 1, 900, 0, 0, 0, 0);
	CHECK(strcmp(v[3].name, "data.txt") == 0); /* the duplicate */
	check_figs(&v[3], 8192, 1, 700, 0, 0, 0, 1, 100, 0, 0);
	free(v);
}

/* The row of the stack whose leaf is `leaf`; NULL if none. */
static const struct report_io_row *stack_row(const struct profile *p, const struct report_io_row *v,
					     ssize_t n, uint64_t leaf)
{
	const struct experiment *x = profile_experiment(p, 0);
	for (ssize_t i = 1; i < n; i++)
		if (v[i].stack < x->nstacks && x->stacks[v[i].stack].nframes &&
		    x->stacks[v[i].stack].pcs[0] == leaf)
			return &v[i];
	return NULL;
}

static void check_by_stack(const struct profile *p)
{
	struct report_io_row *v;
	ssize_t n = report_io_rows(p, REPORT_IO_BY_STACK, REPORT_IO_SORT_TIME, &v);
	CHECK(n == 6);
	if (n != 6) {
		free(v);
		return;
	}
	const struct report_io_row *w = stack_row(p, v, n, 0xb000), *o = stack_row(p, v, n, 0xa000);
	CHECK(w && o);
	if (w)
		check_figs(w, 0, 0, 0, 5110, 3, 5060, 0, 0, 0, 0);
	if (o)
		check_figs(o, 0, 0, 0, 0, 0, 0, 1, 1000, 1, 300);
	CHECK(v[1].v[PROFILE_IO_WRITE_TIME] == 5060); /* the most time first */
	free(v);
}

static void check_stat(const struct profile *p)
{
	struct report_io_stat s;
	report_io_stat(p, &s);
	CHECK_EQ_U64(s.write.calls, 4); /* 100, 5000, 10 and the copy's 2048 */
	CHECK_EQ_U64(s.write.bytes, 7158);
	CHECK_EQ_U64(s.write.classes[0], 2);
	CHECK_EQ_U64(s.write.classes[1], 2);
	CHECK_EQ_U64(s.write.longest_ns, 3000);
	CHECK_EQ_U64(s.write.min_bytes, 10);
	CHECK_EQ_U64(s.write.max_bytes, 5000);
	CHECK_EQ_U64(s.read.calls, 5); /* 0, 8192, 1024, the copy's 2048, 5 */
	CHECK_EQ_U64(s.read.classes[0], 3);
	CHECK_EQ_U64(s.read.classes[1], 2);
	CHECK_EQ_U64(s.read.min_bytes, 5); /* the 0-byte read is left out */
	CHECK_EQ_U64(s.read.max_bytes, 8192);
	CHECK_EQ_U64(s.read.time_ns, 1620);
	CHECK_EQ_U64(s.read.longest_ns, 700);
	CHECK_EQ_U64(s.other_calls, 3);
	CHECK_EQ_U64(s.other_ns, 1150);
	CHECK_EQ_U64(s.error_calls, 1);
	CHECK_EQ_U64(s.error_ns, 300);
}

int main(void)
{
	char dir[] = "/tmp/pa-unit-io.XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	struct profile *p = report_fixture_open(dir, script);
	CHECK(p != NULL);
	if (!p)
		return check_done();
	CHECK(report_io_present(p));
	check_by_file(p);
	check_by_vfd(p);
	check_by_stack(p);
	check_stat(p);

	/* thread 2 alone: its two reads */
	char *err = NULL;
	CHECK(profile_select_threads(p, "2", &err) == 0);
	free(err);
	struct report_io_row *v;
	ssize_t n = report_io_rows(p, REPORT_IO_BY_FILE, REPORT_IO_SORT_TIME, &v);
	CHECK(n == 2);
	if (n == 2)
		check_figs(&v[0], 8192, 2, 1200, 0, 0, 0, 0, 0, 0, 0);
	free(v);
	profile_free(p);
	CHECK(sh("rm -rf '%s'", dir) == 0);
	return check_done();
}
