/*
 * unwbench.c - the CFI unwinder's cost, measured inside the SIGPROF handler
 * by libunwcheck.so (tests/unwind/unwcheck.h; run with UNWCHECK_REF=0 so
 * libunwind does not run).  Built -O2 without frame pointers.
 *   unwbench DEPTH SECONDS THREADS  each thread recurses DEPTH frames deep,
 *                                   then spins in a frameless leaf until the end
 *   unwbench tables REPS            per load object: table build time and memory
 * bench/unwind/run.sh runs both and prints the figures.
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/unwind/unwcheck.h"

uint64_t ub_leaf(uint64_t n);
uint64_t ub_rec(int depth);
void *ub_thread(void *arg);

volatile uint64_t ub_sink;
volatile double ub_dsink;
static double deadline;
static int depth;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline, noclone)) uint64_t ub_leaf(uint64_t n)
{
	uint64_t x = n;
	for (uint64_t i = 0; i < n; i++)
		x = x * 2862933555777941757u + i;
	return x;
}

__attribute__((noinline, noclone)) uint64_t ub_rec(int d)
{
	if (d <= 1) {
		uint64_t r = 0;
		while (now() < deadline)
			r += ub_leaf(1000000);
		return r;
	}
	uint64_t r = ub_rec(d - 1);
	ub_sink += r; /* not a tail call */
	return r ^ (uint64_t)d;
}

void *ub_thread(void *arg)
{
	(void)arg;
	unwcheck_thread_start((void *)ub_thread);
	ub_sink += ub_rec(depth);
	unwcheck_thread_end();
	return NULL;
}

int main(int argc, char **argv)
{
	ub_dsink = cbrt((double)argc); /* keep libm loaded: one more object for the table report */
	if (argc > 1 && strcmp(argv[1], "tables") == 0) {
		unwcheck_table_report(argc > 2 ? atoi(argv[2]) : 5);
		return 0;
	}
	if (argc < 4) {
		fprintf(stderr, "usage: unwbench DEPTH SECONDS THREADS | unwbench tables [REPS]\n");
		return 2;
	}
	depth = atoi(argv[1]);
	deadline = now() + atof(argv[2]);
	int n = atoi(argv[3]);
	pthread_t t[16];
	if (n < 1 || n > 16)
		n = 2;
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, ub_thread, NULL);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
