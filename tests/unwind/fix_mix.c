/*
 * fix_mix.c - unwinder correctness fixture (built -O2 -g -fomit-frame-pointer
 * -rdynamic, linked with libunwcheck.so).  The main thread and NTHREADS-1
 * workers run, until the deadline, a rotation of workloads at the bottom of
 * a recursion of depth 3, 30 or 150:
 *   spin        a frameless leaf loop
 *   qsort       libc qsort with a comparator that spins (callbacks through libc)
 *   leaf        a frameless leaf called 3:1 from two callers
 *   signal      pthread_kill(self, SIGUSR1); the handler spins (signal frames)
 *   vdso        clock_gettime(CLOCK_MONOTONIC) in a loop
 *   mem         memset/memcpy of 64 KiB (libc asm leaves)
 *   dl          a function of a dlopen'ed library (recursion there, callback back here)
 * With LAZYLIB (tests/unwind/fixlazy.c), the main thread first takes 8
 * samples inside lazy binding (ld.so's _dl_runtime_resolve trampoline).
 * Usage: fix_mix SECONDS THREADS LIBPATH [LAZYLIB]
 */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/unwind/unwcheck.h"

#define MAXW 16

uint64_t fx_spin(uint64_t n);
uint64_t fx_leaf(uint64_t n);
uint64_t fx_caller_a(uint64_t n);
uint64_t fx_caller_b(uint64_t n);
int fx_cmp(const void *a, const void *b);
void fx_on_usr1(int sig);
uint64_t fx_usr1_work(uint64_t n);
uint64_t fx_rec(int depth, int what);
uint64_t fx_run(int what);
uint64_t fx_cb(uint64_t n);
void *fx_worker(void *arg);

volatile uint64_t fx_sink;
static double deadline;
static uint64_t (*lib_work)(int, uint64_t (*)(uint64_t), uint64_t);
enum { W_SPIN, W_QSORT, W_LEAF, W_SIG, W_VDSO, W_MEM, W_DL, W_COUNT };

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline, noclone)) uint64_t fx_spin(uint64_t n)
{
	uint64_t x = n;
	for (uint64_t i = 0; i < n; i++)
		x = x * 2862933555777941757u + i;
	return x;
}

/* frameless leaf: no calls, no stack frame */
__attribute__((noinline, noclone)) uint64_t fx_leaf(uint64_t n)
{
	uint64_t x = 1;
	for (uint64_t i = 0; i < n; i++)
		x ^= (x << 7) + i;
	return x;
}

__attribute__((noinline, noclone)) uint64_t fx_caller_a(uint64_t n)
{
	uint64_t r = fx_leaf(n);
	r += fx_leaf(n + 1);
	r += fx_leaf(n + 2);
	fx_sink += r;
	return r;
}

__attribute__((noinline, noclone)) uint64_t fx_caller_b(uint64_t n)
{
	uint64_t r = fx_leaf(n);
	fx_sink += r;
	return r;
}

__attribute__((noinline, noclone)) int fx_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	fx_sink += fx_spin(40);
	return (x > y) - (x < y);
}

__attribute__((noinline, noclone)) uint64_t fx_usr1_work(uint64_t n)
{
	return fx_spin(n) + fx_leaf(n / 4);
}

void fx_on_usr1(int sig)
{
	fx_sink += fx_usr1_work(20000 + (uint64_t)sig);
}

__attribute__((noinline, noclone)) uint64_t fx_cb(uint64_t n)
{
	return fx_spin(n);
}

__attribute__((noinline, noclone)) uint64_t fx_run(int what)
{
	uint64_t r = 0;
	switch (what) {
	case W_SPIN: r = fx_spin(200000); break;
	case W_QSORT: {
		int v[3000];
		uint32_t s = 12345;
		for (int i = 0; i < 3000; i++)
			v[i] = (int)(s = s * 1103515245u + 12345u);
		qsort(v, 3000, sizeof v[0], fx_cmp);
		r = (uint64_t)v[7];
		break;
	}
	case W_LEAF:
		for (int i = 0; i < 200; i++)
			r += fx_caller_a(300) + fx_caller_b(300);
		break;
	case W_SIG:
		for (int i = 0; i < 20; i++)
			pthread_kill(pthread_self(), SIGUSR1);
		break;
	case W_VDSO:
		for (int i = 0; i < 20000; i++) {
			struct timespec ts;
			clock_gettime(CLOCK_MONOTONIC, &ts);
			r += (uint64_t)ts.tv_nsec;
		}
		break;
	case W_MEM: {
		static __thread char a[65536], b[65536];
		for (int i = 0; i < 40; i++) {
			memset(a, i, sizeof a);
			memcpy(b, a, sizeof b);
			r += (uint64_t)b[i * 100];
		}
		break;
	}
	case W_DL: r = lib_work ? lib_work(10, fx_cb, 30000) : 0; break;
	}
	fx_sink += r;
	return r;
}

__attribute__((noinline, noclone)) uint64_t fx_rec(int depth, int what)
{
	if (depth <= 0)
		return fx_run(what);
	uint64_t r = fx_rec(depth - 1, what);
	fx_sink += r; /* keeps the call from becoming a loop */
	return r ^ (uint64_t)depth;
}

static void work(uintptr_t id)
{
	static const int depths[] = {3, 30, 150};
	for (uint64_t k = id; now() < deadline; k++)
		fx_sink += fx_rec(depths[k % 3], (int)(k % W_COUNT));
}

void *fx_worker(void *arg)
{
	unwcheck_thread_start((void *)fx_worker);
	work((uintptr_t)arg);
	unwcheck_thread_end();
	return NULL;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 5;
	int nthreads = argc > 2 ? atoi(argv[2]) : 4;
	if (nthreads < 1 || nthreads > MAXW)
		nthreads = 4;
	if (argc > 3) {
		void *h = dlopen(argv[3], RTLD_NOW);
		if (!h) {
			fprintf(stderr, "fix_mix: %s\n", dlerror());
			return 2;
		}
		lib_work = (uint64_t(*)(int, uint64_t (*)(uint64_t), uint64_t))dlsym(h, "fixlib_work");
		unwcheck_rescan(); /* the collector's dlopen hook does this */
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = fx_on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	deadline = now() + secs;
	unwcheck_thread_start((void *)main);
	if (argc > 4) { /* lazy binding: samples with ld.so's trampoline on the stack */
		void *h = dlopen(argv[4], RTLD_LAZY);
		int (*run)(void) = h ? (int (*)(void))dlsym(h, "fixlazy_run") : NULL;
		if (!run) {
			fprintf(stderr, "fix_mix: %s\n", dlerror());
			return 2;
		}
		unwcheck_rescan();
		printf("fix_mix: %d lazy-binding samples\n", run());
	}
	pthread_t t[MAXW];
	for (int i = 1; i < nthreads; i++)
		pthread_create(&t[i], NULL, fx_worker, (void *)(uintptr_t)i);
	work(0);
	for (int i = 1; i < nthreads; i++)
		pthread_join(t[i], NULL);
	unwcheck_thread_end();
	printf("fix_mix: done, sink %llu\n", (unsigned long long)(fx_sink & 1));
	return 0;
}
