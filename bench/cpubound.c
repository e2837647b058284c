/*
 * cpubound - the CPU-bound target of the benchmarks (bench/runbench.py).
 *
 *   cpubound [THREADS [UNITS]]
 *
 * Deterministic integer and floating-point work through a few function
 * levels (main -> run -> phase_* -> kernel_* -> leaf_*), about 1.5 s of CPU
 * on the reference machine for UNITS = 100 (the default).  With THREADS > 1
 * the UNITS are split evenly over THREADS pthreads (main only waits), so the
 * total CPU time stays the same.  Prints a checksum so that nothing is
 * optimized away.  Built -O2 -g -fno-omit-frame-pointer by bench/bench.mk.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

static volatile uint64_t sink;

NOINLINE static uint64_t leaf_hash(uint64_t x, long n)
{
	for (long i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	return x;
}

NOINLINE static double leaf_poly(double x, long n)
{
	double s = 0;
	for (long i = 0; i < n; i++) {
		s = s * 0.999999 + x;
		x = x * 1.0000001 + 0.5;
	}
	return s;
}

NOINLINE static uint64_t kernel_int(uint64_t seed, long n)
{
	uint64_t acc = 0;
	for (int k = 0; k < 4; k++)
		acc += leaf_hash(seed + (uint64_t)k, n / 4);
	return acc;
}

NOINLINE static double kernel_fp(double seed, long n)
{
	return leaf_poly(seed, n / 2) + leaf_poly(seed * 0.5, n / 2) * 0.5;
}

NOINLINE static uint64_t kernel_mixed(uint64_t seed, long n)
{
	return kernel_int(seed, n / 2) + (uint64_t)kernel_fp((double)(seed & 0xff), n / 2);
}

/* the "^ seed" after each call keeps it from becoming a tail call (no frame) */
NOINLINE static uint64_t phase_a(uint64_t seed)
{
	return kernel_int(seed, 4000000) ^ seed;
}
NOINLINE static uint64_t phase_b(uint64_t seed)
{
	return (uint64_t)kernel_fp((double)(seed & 0xffff), 2000000) ^ seed;
}
NOINLINE static uint64_t phase_c(uint64_t seed)
{
	return kernel_mixed(seed, 4000000) ^ seed;
}

struct job {
	long units;
	uint64_t seed, result;
};

NOINLINE static void *run(void *arg)
{
	struct job *j = arg;
	uint64_t acc = j->seed;
	for (long u = 0; u < j->units; u++) {
		acc += phase_a(acc);
		acc += phase_b(acc);
		acc += phase_c(acc);
	}
	j->result = acc;
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 1;
	long units = argc > 2 ? atol(argv[2]) : 100;
	if (threads < 1 || threads > 64 || units < 1) {
		fprintf(stderr, "usage: cpubound [THREADS(1..64) [UNITS]]\n");
		return 2;
	}
	struct job jobs[64];
	uint64_t sum = 0;
	if (threads == 1) {
		jobs[0] = (struct job){.units = units, .seed = 12345};
		run(&jobs[0]);
		sum = jobs[0].result;
	} else {
		pthread_t tids[64];
		for (int t = 0; t < threads; t++) {
			jobs[t] = (struct job){.units = units / threads + (t < units % threads),
					       .seed = 12345u + (uint64_t)t};
			if (pthread_create(&tids[t], NULL, run, &jobs[t]) != 0) {
				perror("pthread_create");
				return 1;
			}
		}
		for (int t = 0; t < threads; t++) {
			pthread_join(tids[t], NULL);
			sum += jobs[t].result;
		}
	}
	sink = sum;
	printf("cpubound: threads=%d units=%ld checksum=%016llx\n", threads, units, (unsigned long long)sum);
	return 0;
}
