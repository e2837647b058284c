/*
 * heapbench - a tight allocation workload for comparing heap tracers:
 * `heapbench N` makes N malloc/free pairs of varied sizes from 4 call sites
 * (some kept alive for a while, a few leaked), deterministic, and prints a
 * checksum so the compiler cannot elide the allocations.
 */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#define KEEP 64

static void *volatile keep[KEEP];
static volatile unsigned long sink;

__attribute__((noinline)) static void *site_small(size_t n)
{
	return malloc(16 + n % 48);
}
__attribute__((noinline)) static void *site_medium(size_t n)
{
	return malloc(256 + n % 1024);
}
__attribute__((noinline)) static void *site_calloc(size_t n)
{
	return calloc(1, 32 + n % 96);
}
__attribute__((noinline)) static void *site_realloc(void *p, size_t n)
{
	return realloc(p, 64 + n % 512);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	for (long i = 0; i < n; i++) {
		void *p;
		switch (i & 3) {
		case 0: p = site_small((size_t)i); break;
		case 1: p = site_medium((size_t)i); break;
		case 2: p = site_calloc((size_t)i); break;
		default:
			p = site_realloc(NULL, (size_t)i);
			p = site_realloc(p, (size_t)i * 7);
			break;
		}
		if (!p)
			return 1;
		((volatile char *)p)[0] = (char)i;
		sink += (unsigned long)(uintptr_t)p >> 4;
		size_t k = (size_t)i % KEEP;
		void *old = keep[k];
		keep[k] = p; /* blocks live for KEEP iterations */
		if (i % 100000 == 99999)
			old = NULL; /* leak one block in 100000 */
		free(old);
	}
	printf("heapbench %ld %lu\n", n, sink & 0xffff);
	return 0;
}
