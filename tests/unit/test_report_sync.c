/*
 * test_report_sync - synchronization waits on a synthetic experiment
 * (tests/tools/mkexp sync lines): the sync/syncn metric source's totals and
 * per-function figures, and the synclocks model (analysis/report_sync.h):
 * objects ranked by wait, the stacks that waited on each, the object's
 * function, its acquisition count and sampled acquiring stacks (mkexp acq
 * and acqcount lines), and the thread selection.
 */
#include "analysis/report_sync.h"

#include <stdio.h>
#include <stdlib.h>

#include "analysis/experiment_internal.h"
#include "analysis/metrics.h"
#include "analysis/profile.h"
#include "experiment/format.h"
#include "tests/unit/check.h"
#include "tests/unit/fixture.h"

static const char script[] = "thread 1\n"
			     "thread 2 1\n"
			     "sync 1 pthread_mutex_lock 0x1000 100000000 0xa000 0x1\n"
			     "sync 1 pthread_mutex_lock 0x1000 50000000 0xa000 0x1\n"
			     "sync 2 pthread_mutex_lock 0x1000 30000000 0xb000 0x1\n"
			     "sync 2 pthread_cond_wait 0x2000 300000000 0xc000 0x1\n"
			     "sync 1 pthread_join 0x3000 20000000 0xd000 0x1\n"
			     "acq 1 pthread_mutex_lock 0x1000 0xe000 0x1\n"
			     "acq 1 pthread_mutex_lock 0x1000 0xe000 0x1\n"
			     "acq 2 pthread_mutex_lock 0x1000 0xf000 0x1\n"
			     "acq 1 pthread_mutex_lock 0x1000 0xe000 0x1\n"
			     "acq 2 pthread_mutex_lock 0x1000 0xf000 0x1\n"
			     "acq 2 pthread_mutex_lock 0x1000 0xe000 0x1\n"
			     "acqcount 0x1000 96 16\n"
			     "end 1 1000000\n"
			     "end 2 1000000\n";

/* The leaf pc of stack s of experiment 0. */
static uint64_t leaf(const struct profile *p, uint32_t s)
{
	const struct experiment *x = profile_experiment(p, 0);
	return s < x->nstacks && x->stacks[s].nframes ? x->stacks[s].pcs[0] : 0;
}

static void check_all(const struct profile *p)
{
	struct report_sync_object *v;
	ssize_t n = report_sync_objects(p, &v);
	CHECK_EQ_U64(n, 3);
	if (n != 3)
		return;
	CHECK_EQ_U64(v[0].object, 0x2000);
	CHECK_EQ_U64(v[0].func, EXP_SYNC_COND_WAIT);
	CHECK_EQ_U64(v[0].wait_ns, 300000000);
	CHECK_EQ_U64(v[0].waits, 1);
	CHECK_EQ_U64(v[1].object, 0x1000);
	CHECK_EQ_U64(v[1].func, EXP_SYNC_MUTEX_LOCK);
	CHECK_EQ_U64(v[1].wait_ns, 180000000);
	CHECK_EQ_U64(v[1].waits, 3);
	CHECK_EQ_U64(v[1].nstacks, 2);
	if (v[1].nstacks == 2) {
		CHECK_EQ_U64(leaf(p, v[1].stacks[0].stack), 0xa000); /* 150 ms in 2 waits first */
		CHECK_EQ_U64(v[1].stacks[0].wait_ns, 150000000);
		CHECK_EQ_U64(v[1].stacks[0].waits, 2);
		CHECK_EQ_U64(leaf(p, v[1].stacks[1].stack), 0xb000);
		CHECK_EQ_U64(v[1].stacks[1].waits, 1);
	}
	/* the mutex's count, and its sampled acquisitions by stack, most first */
	CHECK_EQ_U64(v[1].acquisitions, 96);
	CHECK_EQ_U64(v[1].sample_every, 16);
	CHECK_EQ_U64(v[1].acq_samples, 6);
	CHECK_EQ_U64(v[1].nacquirers, 2);
	if (v[1].nacquirers == 2) {
		CHECK_EQ_U64(leaf(p, v[1].acquirers[0].stack), 0xe000);
		CHECK_EQ_U64(v[1].acquirers[0].samples, 4);
		CHECK_EQ_U64(leaf(p, v[1].acquirers[1].stack), 0xf000);
		CHECK_EQ_U64(v[1].acquirers[1].samples, 2);
	}
	/* a condition variable is never watched */
	CHECK_EQ_U64(v[0].acquisitions, 0);
	CHECK_EQ_U64(v[0].sample_every, 0);
	CHECK_EQ_U64(v[0].nacquirers, 0);
	CHECK_EQ_U64(v[2].object, 0x3000);
	CHECK_EQ_U64(v[2].func, EXP_SYNC_JOIN);
	CHECK_EQ_U64(v[2].wait_ns, 20000000);
	report_sync_objects_free(v, (size_t)n);
}

static void check_thread2(struct profile *p)
{
	char *err = NULL;
	CHECK(profile_select_threads(p, "2", &err) == 0);
	free(err);
	CHECK(profile_compute(p) == 0);
	struct report_sync_object *v;
	ssize_t n = report_sync_objects(p, &v);
	CHECK_EQ_U64(n, 2);
	if (n == 2) {
		CHECK_EQ_U64(v[0].object, 0x2000);
		CHECK_EQ_U64(v[1].object, 0x1000);
		CHECK_EQ_U64(v[1].wait_ns, 30000000);
		CHECK_EQ_U64(v[1].nstacks, 1);
		/* the count is the process's; the samples are thread 2's */
		CHECK_EQ_U64(v[1].acquisitions, 96);
		CHECK_EQ_U64(v[1].acq_samples, 3);
		CHECK_EQ_U64(v[1].nacquirers, 2);
		if (v[1].nacquirers == 2) {
			CHECK_EQ_U64(leaf(p, v[1].acquirers[0].stack), 0xf000);
			CHECK_EQ_U64(v[1].acquirers[0].samples, 2);
			CHECK_EQ_U64(leaf(p, v[1].acquirers[1].stack), 0xe000);
			CHECK_EQ_U64(v[1].acquirers[1].samples, 1);
		}
	}
	report_sync_objects_free(v, n > 0 ? (size_t)n : 0);
	long ks = profile_metric_find(p, "sync"), kn = profile_metric_find(p, "syncn");
	if (ks >= 0 && kn >= 0) {
		CHECK_EQ_U64(metrics_total(profile_metrics(p))[ks], 330000000);
		CHECK_EQ_U64(metrics_total(profile_metrics(p))[kn], 2);
	}
}

int main(void)
{
	const char *build = getenv("PA_BUILD");
	char dir[] = "/tmp/pa-unit-sync.XXXXXX";
	CHECK(build && mkdtemp(dir));
	if (!build)
		return check_done();
	char spath[4200], epath[4200];
	snprintf(spath, sizeof spath, "%s/script", dir);
	FILE *sf = fopen(spath, "w");
	CHECK(sf && fputs(script, sf) >= 0);
	if (sf)
		fclose(sf);
	CHECK(sh("'%s/tests/tools/mkexp' '%s/y.er' < '%s'", build, dir, spath) == 0);
	snprintf(epath, sizeof epath, "%s/y.er", dir);
	struct profile *p;
	char *err = NULL;
	CHECK(profile_new(&p) == 0);
	CHECK(profile_add_experiment(p, epath, &err) == 0);
	free(err);
	CHECK(profile_compute(p) == 0);
	const struct experiment *x = profile_experiment(p, 0);
	CHECK(EXP_PRESENT(x, SYNC));
	CHECK_EQ_U64(EXP_COUNT(x, SYNC), 5);
	CHECK_EQ_U64(EXP_COUNT(x, SYNC_ACQ), 6);
	CHECK_EQ_U64(EXP_COUNT(x, SYNC_WATCH), 1);
	long ks = profile_metric_find(p, "sync"), kn = profile_metric_find(p, "syncn");
	CHECK(ks >= 0 && kn >= 0);
	if (ks >= 0 && kn >= 0) {
		const struct metrics *m = profile_metrics(p);
		CHECK_EQ_U64(metrics_total(m)[ks], 500000000);
		CHECK_EQ_U64(metrics_total(m)[kn], 5);
	}
	check_all(p);
	check_thread2(p);
	profile_free(p);
	CHECK(sh("rm -rf '%s'", dir) == 0);
	return check_done();
}
