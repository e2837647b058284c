/*
 * wrapreal.h - what the interposing libraries of collect -s and -i
 * (syncwrap.c, iowrap.c) share: the real functions they call, resolved on
 * first use by name and symbol version, and the trace API of libcollector.so
 * (trace_api.h), looked up once.  Header-only: each library is one
 * translation unit and includes it once.  Nothing here allocates or locks
 * after the first call, and errno is kept.  (heapwrap.c resolves its real
 * functions differently: its dlsym may itself call malloc.)
 */
#ifndef COLLECTOR_WRAPREAL_H
#define COLLECTOR_WRAPREAL_H

#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "collector/trace_api.h"

/* A real function: its name and version, resolved on first use. */
struct real {
	const char *name;
	const char *version; /* NULL: the default version */
	_Atomic(void *) fn;
};

__attribute__((noinline, cold)) static void *real_resolve(struct real *r)
{
	int saved = errno;
	void *p = r->version ? dlvsym(RTLD_NEXT, r->name, r->version) : NULL;
	if (!p)
		p = dlsym(RTLD_NEXT, r->name);
	errno = saved;
	atomic_store_explicit(&r->fn, p, memory_order_relaxed);
	return p;
}

static inline __attribute__((always_inline)) void *real_get(struct real *r)
{
	void *p = atomic_load_explicit(&r->fn, memory_order_relaxed);
	return p ? p : real_resolve(r);
}

static const struct pa_trace_api *wrap_api;
static _Atomic int wrap_api_state; /* 0: not looked up, 1: looked up (wrap_api may be NULL) */

/* libcollector.so's trace API of this very version, or NULL (not loaded, or another version). */
static inline const struct pa_trace_api *trace_api(void)
{
	if (!atomic_load_explicit(&wrap_api_state, memory_order_acquire)) {
		int saved = errno;
		const struct pa_trace_api *(*get)(void) =
			(const struct pa_trace_api *(*)(void))dlsym(RTLD_DEFAULT, "pa_collector_trace_api");
		const struct pa_trace_api *api = get ? get() : NULL;
		if (api && api->version == PA_TRACE_API_VERSION)
			wrap_api = api;
		errno = saved;
		atomic_store_explicit(&wrap_api_state, 1, memory_order_release);
	}
	return wrap_api;
}

static inline uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
