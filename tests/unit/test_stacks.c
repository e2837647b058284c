/*
 * test_stacks.c - profile_foreach_stack on a synthetic experiment (written
 * by tests/tools/mkexp over tests/fixtures/cc_prog.c's symbols, so every
 * number is known): frames root first, recorded stacks that resolve to the
 * same functions merged, per-metric sums equal to the metrics engine's
 * <Total> in every mode and under a thread selection, the per-thread split
 * of CPU and heap figures, per-event calls, and the callback's stop.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "analysis/profile.h"
#include "tests/unit/check.h"
#include "tests/unit/fixture.h"

/* The experiment's metrics: totalcpu and the four heap ones (their indices found by name). */
#define K 5
static size_t m_alloccnt, m_allocbytes, m_leakcnt, m_leakbytes;

/*
 * Thread 100 (index 0): main<-slow<-work 10 + 3 samples (two recorded
 * stacks, work+10 and work+12), 10 ms each.  Thread 200 (index 1):
 * main<-both<-fast 5 samples.  Heap (as tests/component/heap_reports.sh):
 * 8 allocations of 12740 bytes, 4 leaks of 7644 bytes; thread 200 made 3
 * allocations of 9492 bytes of which 2 leak 5096 bytes.
 */
static const char script[] = "thread 100\n"
			     "thread 200\n"
			     "sample 100 10 10000000 work+10 slow+9 main+42\n"
			     "sample 100 3 10000000 work+12 slow+9 main+42\n"
			     "sample 200 5 10000000 fast+9 both+8 main+16\n"
			     "heap 100 malloc 100 0x1000 work+10 slow+9 main+42\n"
			     "heap 100 malloc 200 0x2000 fast+9 both+8 main+16\n"
			     "heap 100 free 0 0x2000\n"
			     "heap 200 malloc 300 0x3000 work+10 slow+9 main+42\n"
			     "heap 100 realloc 400 0x4000/0x1000 both+8 main+16\n"
			     "heap 100 realloc 500 0x5000/0x4000 both+8 main+16\n"
			     "heap 200 malloc 1000 0x6000 fast+9 both+8 main+16\n"
			     "heap 100 free 0 0x9999\n"
			     "heap 200 mmap 8192 0x100000 slow+9 main+42\n"
			     "heap 200 munmap 4096 0x100000\n"
			     "heap 200 free 0 0x3000\n"
			     "heap 100 malloc 2048 0x7000 -\n";

struct seen {
	struct profile *p;
	size_t calls;
	uint64_t sum[K];
	uint64_t thread_sum[2][K];
	uint64_t slow_work_cpu; /* the stack main;slow;work */
	int root_main, bad_fields, dup, stop_at;
	uint64_t last_ts;
	int ts_backwards;
	char names[64][256]; /* each call's frames, "main;slow;work" */
};

static int on_stack(const struct profile_stack *s, void *arg)
{
	struct seen *w = arg;
	char text[256] = "";
	for (size_t i = 0; i < s->nframes; i++) {
		size_t l = strlen(text);
		snprintf(text + l, sizeof text - l, "%s%s", i ? ";" : "",
			 profile_func(w->p, s->frames[i])->name);
	}
	if (strcmp(text, "main;slow;work") == 0)
		w->slow_work_cpu += s->metrics[PROFILE_METRIC_TOTALCPU];
	if (s->nframes && strcmp(profile_func(w->p, s->frames[0])->name, "main") == 0)
		w->root_main++;
	for (size_t i = 0; i < w->calls && i < 64; i++)
		if (strcmp(w->names[i], text) == 0)
			w->dup++;
	if (w->calls < 64)
		snprintf(w->names[w->calls], sizeof w->names[0], "%s", text);
	for (size_t k = 0; k < K; k++) {
		w->sum[k] += s->metrics[k];
		if (s->thread < 2)
			w->thread_sum[s->thread][k] += s->metrics[k];
	}
	if (s->ts_ns < w->last_ts && s->metrics[PROFILE_METRIC_TOTALCPU])
		w->ts_backwards = 1;
	w->last_ts = s->ts_ns;
	w->calls++;
	return w->stop_at && w->calls == (size_t)w->stop_at ? 7 : 0;
}

static void run(struct profile *p, unsigned flags, struct seen *w)
{
	memset(w, 0, sizeof *w);
	w->p = p;
	struct profile_stacks_options o = {.flags = flags};
	CHECK_EQ_U64(profile_foreach_stack(p, &o, on_stack, w), 0);
}

static void check_totals(struct profile *p, const struct seen *w, int with_leaks)
{
	const uint64_t *t = metrics_total(profile_metrics(p));
	for (size_t k = 0; k < K; k++)
		if (with_leaks || (k != m_leakcnt && k != m_leakbytes))
			CHECK_EQ_U64(w->sum[k], t[k]);
}

int main(void)
{
	char fixtures[4096], dir[] = "/tmp/test_stacks.XXXXXX", mkexp[4200];
	const char *build = getenv("PA_BUILD");
	snprintf(mkexp, sizeof mkexp, "%s/tests/tools/mkexp", build ? build : "build-test");
	if (!find_fixtures_dir(fixtures, sizeof fixtures, "cc_prog.c") || !exists(mkexp)) {
		fprintf(stderr, "skip: no tests/fixtures/cc_prog.c or %s (run through tests/run.sh)\n",
			mkexp);
		return 77;
	}
	if (!mkdtemp(dir))
		return 1;
	FILE *f;
	char path[4200];
	snprintf(path, sizeof path, "%s/s.txt", dir);
	if (sh("cc -O0 -g -o %s/prog %s/cc_prog.c", dir, fixtures) != 0 || !(f = fopen(path, "w")))
		return 1;
	fprintf(f, "object %s/prog\n%s", dir, script);
	fclose(f);
	if (sh("%s %s/s.er <%s", mkexp, dir, path) != 0)
		return 1;

	struct profile *p;
	char *err = NULL;
	snprintf(path, sizeof path, "%s/s.er", dir);
	CHECK(profile_new(&p) == 0);
	CHECK(profile_add_experiment(p, path, &err) == 0);
	free(err);
	size_t nm;
	profile_metric_defs(p, &nm);
	CHECK_EQ_U64(nm, K);
	long k[4] = {profile_metric_find(p, "heapalloccnt"), profile_metric_find(p, "heapallocbytes"),
		     profile_metric_find(p, "heapleakcnt"), profile_metric_find(p, "heapleakbytes")};
	CHECK(k[0] > 0 && k[1] > 0 && k[2] > 0 && k[3] > 0);
	m_alloccnt = (size_t)k[0];
	m_allocbytes = (size_t)k[1];
	m_leakcnt = (size_t)k[2];
	m_leakbytes = (size_t)k[3];

	struct seen w;
	run(p, 0, &w); /* aggregate */
	check_totals(p, &w, 1);
	CHECK_EQ_U64(metrics_total(profile_metrics(p))[PROFILE_METRIC_TOTALCPU], 180000000);
	CHECK_EQ_U64(w.sum[m_allocbytes], 12740);
	CHECK_EQ_U64(w.sum[m_leakbytes], 7644);
	CHECK_EQ_U64(w.slow_work_cpu, 130000000); /* work+10 and work+12 merged */
	CHECK_EQ_U64(w.dup, 0);
	CHECK_EQ_U64(w.root_main, w.calls - 1); /* all but the stackless allocation (<Unknown>) */
	CHECK_EQ_U64(w.calls, 5); /* main;slow;work main;both;fast main;both main;slow <Unknown> */

	run(p, PROFILE_STACKS_BY_THREAD, &w);
	check_totals(p, &w, 1);
	CHECK_EQ_U64(w.thread_sum[0][PROFILE_METRIC_TOTALCPU], 130000000);
	CHECK_EQ_U64(w.thread_sum[1][PROFILE_METRIC_TOTALCPU], 50000000);
	CHECK_EQ_U64(w.thread_sum[1][m_alloccnt], 3);
	CHECK_EQ_U64(w.thread_sum[1][m_allocbytes], 9492);
	CHECK_EQ_U64(w.thread_sum[1][m_leakcnt], 2);
	CHECK_EQ_U64(w.thread_sum[1][m_leakbytes], 5096);

	run(p, PROFILE_STACKS_BY_EVENT, &w);
	check_totals(p, &w, 0);
	CHECK_EQ_U64(w.calls, 18 + 8); /* clock samples + allocations */
	CHECK_EQ_U64(w.sum[m_leakbytes], 0);
	CHECK(!w.ts_backwards);

	/* the thread selection: thread 2 only */
	CHECK(profile_select_threads(p, "2", &err) == 0);
	run(p, 0, &w);
	check_totals(p, &w, 1);
	CHECK_EQ_U64(w.sum[PROFILE_METRIC_TOTALCPU], 50000000);
	CHECK_EQ_U64(w.sum[m_allocbytes], 9492);
	CHECK(profile_select_threads(p, "all", &err) == 0);

	/* inline off: the same totals */
	profile_set_inline(p, 0);
	run(p, 0, &w);
	check_totals(p, &w, 1);
	profile_set_inline(p, 1);

	/* a non-zero return stops; bad options */
	memset(&w, 0, sizeof w);
	w.p = p;
	w.stop_at = 2;
	CHECK_EQ_U64(profile_foreach_stack(p, NULL, on_stack, &w), 7);
	CHECK_EQ_U64(w.calls, 2);
	struct profile_stacks_options both = {.flags = PROFILE_STACKS_BY_THREAD | PROFILE_STACKS_BY_EVENT};
	CHECK(profile_foreach_stack(p, &both, on_stack, &w) == -EINVAL);
	struct profile_stacks_options bad = {.flags = 0x100};
	CHECK(profile_foreach_stack(p, &bad, on_stack, &w) == -EINVAL);

	profile_free(p);
	sh("rm -rf %s", dir);
	return check_done();
}
