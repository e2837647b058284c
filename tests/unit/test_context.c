/*
 * test_context - the collector's per-thread sample context (collector/context.h):
 * what a thread sets is what its samples read, NULL or runtime 0 clears it, and
 * each thread has its own.  Also what an interrupting reader sees: the
 * double buffer flips only once the new context is whole (checked from a
 * signal handler that interrupts a writer in a loop).
 */
#include "collector/context.h"

#include <pthread.h>
#include <signal.h>
#include <sys/time.h>

#include "tests/unit/check.h"

static struct exp_sample_ctx mk(uint32_t k)
{
	/* every field derived from k, so that a torn read shows as a mismatch */
	return (struct exp_sample_ctx){.runtime = EXP_RUNTIME_OPENMP,
				       .state = k,
				       .flags = k * 3,
				       .region = (uint64_t)k << 20,
				       .aux = (uint64_t)k * 7};
}

/* Field by field: the struct has padding, which copies need not keep. */
static int same(const struct exp_sample_ctx *a, const struct exp_sample_ctx *b)
{
	return a->runtime == b->runtime && a->state == b->state && a->flags == b->flags &&
	       a->region == b->region && a->aux == b->aux;
}

static volatile sig_atomic_t torn, seen;

static void on_alarm(int sig)
{
	(void)sig;
	struct exp_sample_ctx c;
	col_context_get(&c);
	if (c.runtime) {
		struct exp_sample_ctx w = mk(c.state);
		torn += !same(&c, &w);
		seen++;
	}
}

static void *other_thread(void *arg)
{
	(void)arg;
	struct exp_sample_ctx c;
	col_context_get(&c);
	return (void *)(uintptr_t)(c.runtime == EXP_RUNTIME_NONE);
}

int main(void)
{
	struct exp_sample_ctx c, w = mk(5);
	col_context_get(&c);
	CHECK(c.runtime == EXP_RUNTIME_NONE); /* none until one is set */
	col_context_set(&w);
	col_context_get(&c);
	CHECK(same(&c, &w));
	/* another thread has its own (none) */
	pthread_t t;
	void *none = NULL;
	CHECK(pthread_create(&t, NULL, other_thread, NULL) == 0 && pthread_join(t, &none) == 0);
	CHECK(none == (void *)1);
	col_context_set(NULL);
	col_context_get(&c);
	CHECK(c.runtime == EXP_RUNTIME_NONE && c.state == 0 && c.region == 0);
	struct exp_sample_ctx z = mk(9);
	z.runtime = EXP_RUNTIME_NONE; /* runtime 0: no context, whatever the rest says */
	col_context_set(&z);
	col_context_get(&c);
	CHECK(c.runtime == EXP_RUNTIME_NONE && c.state == 0);

	/* a profiling timer interrupting the writer never reads half of two contexts */
	struct sigaction sa = {.sa_handler = on_alarm};
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(SIGPROF, &sa, NULL) == 0);
	struct itimerval it = {.it_interval = {0, 200}, .it_value = {0, 200}};
	CHECK(setitimer(ITIMER_PROF, &it, NULL) == 0);
	for (uint32_t k = 1; k < 20000000 && seen < 2000; k++) {
		struct exp_sample_ctx n = mk(k);
		col_context_set(&n);
	}
	struct itimerval off = {0};
	setitimer(ITIMER_PROF, &off, NULL);
	CHECK(seen > 0);
	CHECK_EQ_U64(torn, 0);
	return check_done();
}
