/*
 * fix_dlstress.c - dlopen/dlclose while sampling (built -O2 -g
 * -fomit-frame-pointer -rdynamic, linked with libunwcheck.so).  One thread
 * loops: dlopen one of the libraries given on the command line, rebuild the
 * unwind tables (what the collector's dlopen hook does), call into it (so
 * samples land in it), dlclose it, rebuild again.  The other threads recurse
 * and spin, call memcpy and clock_gettime.  Every thread is sampled at the
 * highest rate; libunwcheck checks that no sample of a thread outside a
 * library's load/unload window has a PC in any library's address range
 * (stale attribution), and reports the table memory.
 * Usage: fix_dlstress SECONDS WORKERS LIB...
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/unwind/unwcheck.h"

uint64_t ds_spin(uint64_t n);
uint64_t ds_rec(int depth);
uint64_t ds_cb(uint64_t n);
void *ds_worker(void *arg);
void *ds_loader(void *arg);

volatile uint64_t ds_sink;
static double deadline;
static char **lib_paths;
static int nlibs;
static unsigned long cycles, dl_errors;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline, noclone)) uint64_t ds_spin(uint64_t n)
{
	uint64_t x = n;
	for (uint64_t i = 0; i < n; i++)
		x = x * 2862933555777941757u + i;
	return x;
}

__attribute__((noinline, noclone)) uint64_t ds_cb(uint64_t n)
{
	return ds_spin(n);
}

__attribute__((noinline, noclone)) uint64_t ds_rec(int depth)
{
	if (depth <= 0) {
		static __thread char a[65536], b[65536];
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		memset(a, (int)ts.tv_nsec, sizeof a);
		memcpy(b, a, sizeof b);
		return ds_spin(100000) + (uint64_t)b[5];
	}
	uint64_t r = ds_rec(depth - 1);
	ds_sink += r;
	return r ^ (uint64_t)depth;
}

void *ds_worker(void *arg)
{
	unwcheck_thread_start((void *)ds_worker);
	for (uintptr_t k = (uintptr_t)arg; now() < deadline; k++)
		ds_sink += ds_rec((int)(k % 40));
	unwcheck_thread_end();
	return NULL;
}

void *ds_loader(void *arg)
{
	(void)arg;
	unwcheck_thread_start((void *)ds_loader);
	for (int k = 0; now() < deadline; k = (k + 1) % nlibs) {
		unwcheck_set_lib(k + 1);
		void *h = dlopen(lib_paths[k], RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			dl_errors++;
			unwcheck_set_lib(0);
			continue;
		}
		unwcheck_rescan();
		uint64_t (*fn)(int, uint64_t (*)(uint64_t), uint64_t) =
			(uint64_t(*)(int, uint64_t (*)(uint64_t), uint64_t))dlsym(h, "fixlib_work");
		if (fn)
			ds_sink += fn(8, ds_cb, 20000);
		dlclose(h);
		unwcheck_rescan();
		unwcheck_set_lib(0);
		cycles++;
	}
	unwcheck_thread_end();
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: fix_dlstress SECONDS WORKERS LIB...\n");
		return 2;
	}
	double secs = atof(argv[1]);
	int nw = atoi(argv[2]);
	if (nw < 0 || nw > 8)
		nw = 2;
	lib_paths = argv + 3;
	nlibs = argc - 3;
	for (int k = 0; k < nlibs && k < 15; k++) {
		const char *b = strrchr(lib_paths[k], '/') ? strrchr(lib_paths[k], '/') + 1 : lib_paths[k];
		unwcheck_watch_lib(b, k + 1);
	}
	deadline = now() + secs;
	pthread_t w[8], l;
	for (int i = 0; i < nw; i++)
		pthread_create(&w[i], NULL, ds_worker, (void *)(uintptr_t)i);
	pthread_create(&l, NULL, ds_loader, NULL);
	pthread_join(l, NULL);
	for (int i = 0; i < nw; i++)
		pthread_join(w[i], NULL);
	/* no sampled thread is left, so no hazard: this rescan frees every retired table */
	unwcheck_rescan();
	printf("fix_dlstress: %lu dlopen/dlclose cycles, %lu dlopen errors\n", cycles, dl_errors);
	return dl_errors ? 1 : 0;
}
