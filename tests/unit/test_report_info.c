/*
 * test_report_info - the information reports' model (analysis/report_info.h)
 * on synthetic experiments:
 *  - tests/tools/info_mkexp's finished and unfinished experiments (threads
 *    1 main +0.001..+2.000 s, CPU 0.040028 s, 3 samples of 10.007 ms, and
 *    2 tid 4243 +0.010..+1.000 s, CPU 0.020014 s, 2 samples; exit 3; the
 *    unfinished one has no thread end, exit or end);
 *  - a founder (mkexp, exit 3) with threads 100, 200 (ended) and 300 (not
 *    ended), whose processes.xml lists _f1 (fork, recorded in _f1.er, killed
 *    by signal 9), _f1_x1 (exec, unprofiled: statically linked) and _f2
 *    (fork, followed but its subexperiment missing), started in that order
 *    but _f2 before _f1_x1.
 */
#include "analysis/report_info.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/check.h"
#include "tests/unit/fixture.h"

#define MS 1000000ull

static struct profile *open_exp(const char *path)
{
	struct profile *p = NULL;
	char *err = NULL;
	if (profile_new(&p) < 0 || profile_add_experiment(p, path, &err) < 0) {
		fprintf(stderr, "cannot read %s: %s\n", path, err ? err : "");
		profile_free(p);
		p = NULL;
	}
	free(err);
	return p;
}

static void test_threads(const char *dir)
{
	const char *build = getenv("PA_BUILD");
	char path[4200];
	snprintf(path, sizeof path, "%s/fin.er", dir);
	CHECK(sh("'%s/tests/tools/info_mkexp' '%s' finished", build, path) == 0);
	struct profile *p = open_exp(path);
	if (!p)
		return;
	const struct experiment *x = profile_experiment(p, 0);
	struct report_thread *v;
	CHECK_EQ_U64(report_threads(p, 0, &v), 2);
	if (v) {
		CHECK(v[0].selected && v[0].routine == REPORT_ROUTINE_MAIN && !v[0].cpu_sampled);
		CHECK_EQ_U64(v[0].start_ns, 1 * MS);
		CHECK_EQ_U64(v[0].end_ns, 2000 * MS);
		CHECK_EQ_U64(v[0].cpu_ns, 40028000);
		CHECK_EQ_U64(v[1].t->tid, 4243);
		CHECK_EQ_U64(v[1].start_ns, 10 * MS);
		CHECK_EQ_U64(v[1].end_ns, 1000 * MS);
		CHECK_EQ_U64(v[1].cpu_ns, 20014000);
		CHECK_EQ_U64(v[1].routine,
			     REPORT_ROUTINE_ADDRESS); /* 0x401136: in no object of the experiment */
	}
	free(v);
	/* 5 samples, and thread 1's 10.007 ms after its last sample (its measured CPU is 40.028 ms) */
	CHECK_EQ_U64(report_recorded_ns(x), 6 * 10007000ull);
	struct report_ending end;
	report_ending_of(x, &end);
	CHECK(end.kind == REPORT_END_EXIT && end.code == 3);
	struct report_header_warnings w;
	report_header_warnings(x, &w);
	CHECK(!w.none && !w.exec_lost && w.unprofiled == 0); /* the collector's warning */
	CHECK_EQ_U64(report_experiments_are_tree(p), 0);
	/* the selection as text */
	char *err = NULL, *s;
	CHECK_EQ_STR((s = report_thread_selection(p, 0)), "all");
	free(s);
	CHECK(profile_select_threads(p, "2", &err) == 0);
	CHECK_EQ_STR((s = report_thread_selection(p, 0)), "2");
	free(s);
	CHECK(profile_select_threads(p, "7", &err) == 0);
	CHECK_EQ_STR((s = report_thread_selection(p, 0)), "none");
	free(s);
	CHECK_EQ_U64(report_threads(p, 0, &v), 2);
	CHECK(v && !v[0].selected && !v[1].selected);
	free(v);
	profile_free(p);

	/* not finished: CPU times are the samples', the ending unknown */
	snprintf(path, sizeof path, "%s/unf.er", dir);
	CHECK(sh("'%s/tests/tools/info_mkexp' '%s' unfinished", build, path) == 0);
	if (!(p = open_exp(path)))
		return;
	CHECK_EQ_U64(report_threads(p, 0, &v), 2);
	if (v) {
		CHECK(v[0].cpu_sampled && v[1].cpu_sampled);
		CHECK_EQ_U64(v[0].cpu_ns, 3 * 10007000ull);
		CHECK_EQ_U64(v[1].cpu_ns, 2 * 10007000ull);
	}
	free(v);
	report_ending_of(profile_experiment(p, 0), &end);
	CHECK_EQ_U64(end.kind, REPORT_END_UNFINISHED);
	profile_free(p);
}

static const char procs[] =
	"<process pid=\"5001\" ppid=\"4242\" lineage=\"_f1\" origin=\"fork\" followed=\"1\" "
	"tstamp_ns=\"1000000500\" path=\"/synthetic/prog\"><arg>prog</arg><arg>child</arg></process>\n"
	"<process pid=\"5002\" ppid=\"5001\" lineage=\"_f1_x1\" origin=\"exec\" followed=\"0\" "
	"tstamp_ns=\"1000000700\" path=\"/bin/static\" reason=\"statically linked\"><arg>static</arg></process>\n"
	"<process pid=\"5003\" ppid=\"4242\" lineage=\"_f2\" origin=\"fork\" followed=\"1\" "
	"tstamp_ns=\"1000000600\" path=\"/synthetic/prog\"><arg>prog</arg></process>\n";

static void test_tree(const char *dir)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/f.er", dir);
	CHECK(make_exp(dir, "f",
		       "thread 100\nthread 200\nthread 300\nsample 100 3 10000000 0xa000\n"
		       "sample 200 2 10000000 0xa000\nsample 300 1 10000000 0xa000\n"
		       "end 100 50000000\nend 200 25000000\nexit 3\n") == 0);
	CHECK(make_exp(path, "_f1", "thread 1\nsample 1 4 10000000 0xa000\nend 1 40000000\nsignal 9\n") == 0);
	CHECK(sh("sed -i 's/<process /<process lineage=\"_f1\" origin=\"fork\" /' '%s/_f1.er/log.xml'",
		 path) == 0);
	char pp[4300];
	snprintf(pp, sizeof pp, "%s/processes.xml", path);
	FILE *f = fopen(pp, "w");
	CHECK(f && fputs(procs, f) >= 0);
	if (f)
		fclose(f);
	struct profile *p = open_exp(path);
	if (!p)
		return;
	CHECK_EQ_U64(profile_experiment_count(p), 2);
	CHECK_EQ_U64(report_experiments_are_tree(p), 1);
	struct report_process *v;
	CHECK_EQ_U64(report_process_tree(p, 0, &v), 3);
	if (v) {
		CHECK_EQ_STR(v[0].proc->lineage, "_f1");
		CHECK(v[0].depth == 1 && v[0].exp == 1);
		CHECK_EQ_STR(v[1].proc->lineage, "_f1_x1"); /* under its parent, before _f2 */
		CHECK(v[1].depth == 2 && v[1].exp == -1 && !v[1].proc->followed);
		CHECK_EQ_STR(v[2].proc->lineage, "_f2");
		CHECK(v[2].depth == 1 && v[2].exp == -1 && v[2].proc->followed);
	}
	free(v);
	struct report_ending end;
	report_ending_of(profile_experiment(p, 1), &end);
	CHECK(end.kind == REPORT_END_SIGNAL && end.code == 9 && end.name && strcmp(end.name, "SIG9") == 0);
	CHECK_EQ_U64(report_recorded_ns(profile_experiment(p, 1)), 40 * MS);
	/* 6 samples, and the measured CPU after the last sample: 100's 20 ms, 200's 5 ms */
	CHECK_EQ_U64(report_recorded_ns(profile_experiment(p, 0)), 85 * MS);
	struct report_header_warnings w;
	report_header_warnings(profile_experiment(p, 0), &w);
	CHECK(!w.none && !w.exec_lost && w.unprofiled == 1);
	CHECK_EQ_U64(report_process_tree(p, 1, &v), 0); /* a subexperiment has no tree of its own */
	/* threads of the founder: 300 had not ended */
	struct report_thread *t;
	CHECK_EQ_U64(report_threads(p, 0, &t), 3);
	if (t) {
		CHECK(!t[0].cpu_sampled && t[0].cpu_ns == 50 * MS);
		CHECK(!t[1].cpu_sampled && t[1].cpu_ns == 25 * MS);
		CHECK(t[2].cpu_sampled && t[2].cpu_ns == 10 * MS);
	}
	free(t);
	char *err = NULL, *s;
	CHECK(profile_select_threads(p, "1:1,3", &err) == 0);
	CHECK_EQ_STR((s = report_thread_selection(p, 0)), "1,3");
	free(s);
	CHECK_EQ_STR((s = report_thread_selection(p, 1)), "none"); /* experiment 2 not in the selection */
	free(s);
	CHECK(profile_select_threads(p, "1-2", &err) == 0);
	CHECK_EQ_STR((s = report_thread_selection(p, 0)), "1-2");
	free(s);
	profile_free(p);
}

int main(void)
{
	char dir[] = "/tmp/pa-unit-report-info.XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	if (!getenv("PA_BUILD")) {
		fprintf(stderr, "skip: PA_BUILD is not set (run through tests/run.sh)\n");
		return 77;
	}
	test_threads(dir);
	test_tree(dir);
	CHECK(sh("rm -rf '%s'", dir) == 0);
	return check_done();
}
