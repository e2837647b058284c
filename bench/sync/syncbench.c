/*
 * syncbench.c - the cost of synchronization wait tracing (bench/sync/run.py).
 *
 *   syncbench uncontended N [mt]  N pthread_mutex_lock/unlock pairs on one
 *                             thread; prints "ns_per_pair X" (its own clock,
 *                             so the profiler's start-up is not counted); mt:
 *                             after starting and joining a thread, so that
 *                             the process is multi-threaded (glibc's lock then
 *                             makes atomic instructions)
 *   syncbench contended N MS  two threads take one mutex N times each, holding
 *                             it about MS microseconds; prints the lock calls
 *                             that took at least 1 ms by its own clock and
 *                             their total ("waits_over_1ms K NS"), which a
 *                             tracer with a 1 ms threshold should record
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long rounds, hold_us;
static uint64_t over_count[2], over_ns[2];

static void spin_us(long us)
{
	uint64_t end = now_ns() + (uint64_t)us * 1000u;
	while (now_ns() < end)
		;
}

static void *worker(void *arg)
{
	int id = (int)(intptr_t)arg;
	for (long i = 0; i < rounds; i++) {
		uint64_t t0 = now_ns();
		pthread_mutex_lock(&m);
		uint64_t w = now_ns() - t0;
		if (w >= 1000000u) {
			over_count[id]++;
			over_ns[id] += w;
		}
		spin_us(hold_us);
		pthread_mutex_unlock(&m);
		spin_us(hold_us / 4);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && strcmp(argv[1], "uncontended") == 0) {
		long n = atol(argv[2]);
		if (argc >= 4 && strcmp(argv[3], "mt") == 0) {
			pthread_t t;
			rounds = 0;
			pthread_create(&t, NULL, worker, (void *)(intptr_t)1);
			pthread_join(t, NULL);
		}
		uint64_t t0 = now_ns();
		for (long i = 0; i < n; i++) {
			pthread_mutex_lock(&m);
			pthread_mutex_unlock(&m);
		}
		printf("ns_per_pair %.2f\n", (double)(now_ns() - t0) / (double)n);
		return 0;
	}
	if (argc >= 4 && strcmp(argv[1], "contended") == 0) {
		rounds = atol(argv[2]);
		hold_us = atol(argv[3]);
		pthread_t t;
		pthread_create(&t, NULL, worker, (void *)(intptr_t)1);
		worker((void *)(intptr_t)0);
		pthread_join(t, NULL);
		printf("waits_over_1ms %llu %llu\n", (unsigned long long)(over_count[0] + over_count[1]),
		       (unsigned long long)(over_ns[0] + over_ns[1]));
		return 0;
	}
	fprintf(stderr, "usage: syncbench uncontended N | contended N HOLD_US\n");
	return 2;
}
