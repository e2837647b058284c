/*
 * rusage_cost.c - what the user/system split adds to each clock sample: one
 * getrusage(RUSAGE_THREAD) system call (collector/sampler.c sampler_user_ns),
 * next to the CLOCK_THREAD_CPUTIME_ID read every sample already makes.
 * Prints ns per call of each, over N calls (argv[1], default 1000000).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	struct rusage ru;
	struct timespec ts;
	unsigned long sink = 0;
	double t0 = now();
	for (long i = 0; i < n; i++) {
		syscall(SYS_getrusage, RUSAGE_THREAD, &ru);
		sink += (unsigned long)ru.ru_utime.tv_usec;
	}
	double t1 = now();
	for (long i = 0; i < n; i++) {
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
		sink += (unsigned long)ts.tv_nsec;
	}
	double t2 = now();
	printf("getrusage(RUSAGE_THREAD) %.0f ns/call, clock_gettime(CLOCK_THREAD_CPUTIME_ID) %.0f ns/call (%lu)\n",
	       (t1 - t0) / (double)n, (t2 - t1) / (double)n, sink & 1);
	return 0;
}
