/*
 * demo.c - the bundled demo program that `make demo` profiles.
 *
 * A small, deterministic, multi-threaded CPU burner whose call structure the reports make
 * visible:
 *
 *     main -> compute -> fast_part -> kernel_loop       (1 unit of work)
 *                     -> slow_part -> kernel_loop       (3 units: 3x fast_part)
 *     worker (x2, one thread each) -> kernel_loop       (WORKER_UNITS units each)
 *
 * All time is spent in kernel_loop (exclusive); compute's inclusive time splits 1:3 between
 * fast_part and slow_part.  About 1.5 s of CPU in total on a current x86-64 core (main
 * ~0.8 s, each worker ~0.35 s, the workers running alongside main).  Prints one result line;
 * the checksum is the same on every run.  Optional argument: work scale in percent (default
 * 100), e.g. `demo 10` for a quick run.
 *
 * Built by scripts/demo.sh with -O1 -g -fno-omit-frame-pointer -pthread; the functions are
 * kept out of line so each one appears in the call stacks.  Note that GCC 12 gives
 * kernel_loop no frame (push %rbp) even with -fno-omit-frame-pointer, as it does for every
 * leaf that needs no stack: while it runs, its return address is at [sp], not [fp + 8].  An
 * unwinder that misses this attributes kernel_loop straight to compute and shows fast_part
 * and slow_part with no time, so the 1:3 split is also a check of the unwinder.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(__clang__)
#define DEMO_NOINLINE __attribute__((noinline))
#else
#define DEMO_NOINLINE __attribute__((noinline, noclone))
#endif

/* Iterations of kernel_loop in one unit of work (~0.2 s at 100 %). */
#define UNIT_ITERATIONS 140000000ull
#define FAST_UNITS 1
#define SLOW_UNITS 3
#define WORKER_COUNT 2
/* Each worker does 7/4 of a unit: ~0.35 s. */
#define WORKER_UNITS_NUM 7
#define WORKER_UNITS_DEN 4

static uint64_t unit_iterations = UNIT_ITERATIONS;

struct worker_arg {
	uint64_t seed;
	uint64_t result;
};

/* The shared leaf: a serial chain of xorshift steps the compiler cannot shorten. */
static DEMO_NOINLINE uint64_t kernel_loop(uint64_t seed, uint64_t iterations)
{
	uint64_t x = seed | 1;
	for (uint64_t i = 0; i < iterations; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	return x;
}

static DEMO_NOINLINE uint64_t fast_part(uint64_t seed)
{
	uint64_t r = kernel_loop(seed, FAST_UNITS * unit_iterations);
	return r + 1;
}

static DEMO_NOINLINE uint64_t slow_part(uint64_t seed)
{
	uint64_t r = kernel_loop(seed, SLOW_UNITS * unit_iterations);
	return r + 1;
}

static DEMO_NOINLINE uint64_t compute(uint64_t seed)
{
	uint64_t a = fast_part(seed);
	uint64_t b = slow_part(seed + 1);
	return a ^ b;
}

static DEMO_NOINLINE void *worker(void *p)
{
	struct worker_arg *w = p;
	w->result = kernel_loop(w->seed, unit_iterations * WORKER_UNITS_NUM / WORKER_UNITS_DEN);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		char *end;
		unsigned long pct = strtoul(argv[1], &end, 10);
		if (*end || pct == 0 || pct > 10000) {
			fprintf(stderr, "usage: %s [SCALE_PERCENT]  (1..10000, default 100)\n", argv[0]);
			return 2;
		}
		unit_iterations = UNIT_ITERATIONS / 100 * pct;
	}

	pthread_t tid[WORKER_COUNT];
	struct worker_arg args[WORKER_COUNT];
	for (int i = 0; i < WORKER_COUNT; i++) {
		args[i].seed = 0x9e3779b97f4a7c15ull * (uint64_t)(i + 2);
		args[i].result = 0;
		int e = pthread_create(&tid[i], NULL, worker, &args[i]);
		if (e) {
			fprintf(stderr, "demo: pthread_create failed (error %d)\n", e);
			return 1;
		}
	}

	uint64_t sum = compute(0x2545f4914f6cdd1dull);

	for (int i = 0; i < WORKER_COUNT; i++) {
		pthread_join(tid[i], NULL);
		sum ^= args[i].result;
	}
	printf("demo: result %016" PRIx64 " (%d worker threads)\n", sum, WORKER_COUNT);
	return 0;
}
