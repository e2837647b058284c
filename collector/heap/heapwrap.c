/*
 * heapwrap.c - libcollector-heap.so: the heap interposers of collect -H on
 * (malloc, calloc, realloc, reallocarray, free, memalign, posix_memalign,
 * aligned_alloc, valloc, pvalloc, mmap, mmap64, munmap).  collect preloads it
 * before libcollector.so only with -H on, so no other target ever runs
 * through these functions.
 *
 * Each interposer calls the real function (dlsym(RTLD_NEXT), resolved on the
 * first call) and reports a success through libcollector.so's trace API
 * (collector/trace_api.h), which decides whether to record it and guards
 * against its own allocations.  While the real functions are being resolved
 * (dlsym may call calloc), allocations are served from a static bootstrap
 * arena; free and realloc recognise its blocks and never pass them to libc.
 * Never harms the target: without a real function or the API it passes
 * through, and nothing here allocates or locks.
 */
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collector/trace_api.h"
#include "experiment/format.h"

#define EXPORT __attribute__((visibility("default")))

#define ARENA_BYTES (256u * 1024)
#define ARENA_HEADER 16u /* the block's size sits in the 8 bytes before it */

struct heap_real {
	void *(*malloc)(size_t);
	void *(*calloc)(size_t, size_t);
	void *(*realloc)(void *, size_t);
	void (*free)(void *);
	void *(*memalign)(size_t, size_t);
	int (*posix_memalign)(void **, size_t, size_t);
	void *(*aligned_alloc)(size_t, size_t);
	void *(*valloc)(size_t);
	void *(*pvalloc)(size_t);
	void *(*mmap)(void *, size_t, int, int, int, off_t);
	void *(*mmap64)(void *, size_t, int, int, int, off_t);
	int (*munmap)(void *, size_t);
};

static struct heap_real heap_reals;
static const struct pa_trace_api *heap_api;
static _Atomic int heap_state; /* 0 unresolved, 1 resolving, 2 ready */
static __thread int heap_resolving;

static _Alignas(64) uint8_t heap_arena[ARENA_BYTES];
static _Atomic size_t heap_arena_used;

/* ------------------------------------------------------------ bootstrap arena */

static void *arena_alloc(size_t n, size_t align)
{
	if (align < ARENA_HEADER)
		align = ARENA_HEADER;
	if (align & (align - 1) || n > ARENA_BYTES || align > ARENA_BYTES / 4)
		return NULL;
	size_t used = atomic_load(&heap_arena_used);
	for (;;) {
		size_t start = (used + ARENA_HEADER + align - 1) & ~(align - 1);
		size_t end = (start + n + ARENA_HEADER - 1) & ~(size_t)(ARENA_HEADER - 1);
		if (end > ARENA_BYTES || end < start) {
			errno = ENOMEM;
			return NULL;
		}
		if (atomic_compare_exchange_weak(&heap_arena_used, &used, end)) {
			memcpy(heap_arena + start - 8, &n, sizeof n);
			return heap_arena + start; /* zeroed: the arena is never reused */
		}
	}
}

static int in_arena(const void *p)
{
	const uint8_t *q = p;
	return q >= heap_arena && q < heap_arena + ARENA_BYTES;
}

static size_t arena_size(const void *p)
{
	size_t n;
	memcpy(&n, (const uint8_t *)p - 8, sizeof n);
	return n;
}

/* ------------------------------------------------------------ resolution */

static void *next_sym(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

static void resolve(void)
{
	struct heap_real *r = &heap_reals;
	r->malloc = (void *(*)(size_t))next_sym("malloc");
	r->calloc = (void *(*)(size_t, size_t))next_sym("calloc");
	r->realloc = (void *(*)(void *, size_t))next_sym("realloc");
	r->free = (void (*)(void *))next_sym("free");
	r->memalign = (void *(*)(size_t, size_t))next_sym("memalign");
	r->posix_memalign = (int (*)(void **, size_t, size_t))next_sym("posix_memalign");
	r->aligned_alloc = (void *(*)(size_t, size_t))next_sym("aligned_alloc");
	r->valloc = (void *(*)(size_t))next_sym("valloc");
	r->pvalloc = (void *(*)(size_t))next_sym("pvalloc");
	r->mmap = (void *(*)(void *, size_t, int, int, int, off_t))next_sym("mmap");
	r->mmap64 = (void *(*)(void *, size_t, int, int, int, off_t))next_sym("mmap64");
	r->munmap = (int (*)(void *, size_t))next_sym("munmap");
	const struct pa_trace_api *(*get)(void) =
		(const struct pa_trace_api *(*)(void))dlsym(RTLD_DEFAULT, "pa_collector_trace_api");
	const struct pa_trace_api *api = get ? get() : NULL;
	if (api && api->version == PA_TRACE_API_VERSION)
		heap_api = api;
}

/*
 * 1 once the real functions are known; 0 while they are being resolved (by
 * this thread, whose dlsym may allocate, or by another one: waiting could
 * deadlock on the loader's lock, so its callers use the arena too).
 */
static int ready(void)
{
	if (atomic_load_explicit(&heap_state, memory_order_acquire) == 2)
		return 1;
	if (heap_resolving)
		return 0;
	int expect = 0;
	if (!atomic_compare_exchange_strong(&heap_state, &expect, 1))
		return atomic_load_explicit(&heap_state, memory_order_acquire) == 2;
	heap_resolving = 1;
	int saved = errno;
	resolve();
	errno = saved;
	heap_resolving = 0;
	atomic_store_explicit(&heap_state, 2, memory_order_release);
	return 1;
}

static int traced(void)
{
	return heap_api && heap_api->heap_active();
}

static void record(unsigned op, uint64_t size, const void *addr, const void *old, uint64_t stamp)
{
	heap_api->heap_record(op, size, (uint64_t)(uintptr_t)addr, (uint64_t)(uintptr_t)old, stamp);
}

static void *enomem(void)
{
	errno = ENOMEM;
	return NULL;
}

/* ------------------------------------------------------------ interposers */

EXPORT void *malloc(size_t n)
{
	if (!ready())
		return arena_alloc(n, 16);
	if (!heap_reals.malloc)
		return enomem();
	void *p = heap_reals.malloc(n);
	if (p && traced())
		record(EXP_HEAP_MALLOC, n, p, NULL, 0);
	return p;
}

EXPORT void *calloc(size_t n, size_t m)
{
	size_t bytes;
	if (!ready()) {
		if (__builtin_mul_overflow(n, m, &bytes))
			return enomem();
		return arena_alloc(bytes, 16);
	}
	if (!heap_reals.calloc)
		return enomem();
	void *p = heap_reals.calloc(n, m);
	if (p && traced())
		record(EXP_HEAP_CALLOC, (uint64_t)n * m, p, NULL, 0);
	return p;
}

EXPORT void free(void *p)
{
	if (!p || in_arena(p))
		return;
	if (!ready() || !heap_reals.free)
		return; /* a leak is better than a crash */
	/* recorded first: once freed, another thread may get and record p */
	if (traced())
		record(EXP_HEAP_FREE, 0, p, NULL, 0);
	heap_reals.free(p);
}

/* realloc of an arena block: a fresh block, the old one is simply dropped. */
static void *arena_realloc(void *p, size_t n, unsigned op)
{
	size_t old = arena_size(p);
	if (n == 0)
		return NULL; /* as glibc: realloc(p, 0) frees p */
	void *q = ready() && heap_reals.malloc ? heap_reals.malloc(n) : arena_alloc(n, 16);
	if (!q)
		return NULL;
	memcpy(q, p, old < n ? old : n);
	if (!in_arena(q) && traced())
		record(op, n, q, NULL, 0); /* the arena block was never recorded */
	return q;
}

/*
 * The real realloc and its record; `array`: for reallocarray (whose size the
 * caller has checked), which does not call the real reallocarray: glibc's
 * calls realloc through the PLT, which would record the call twice.
 */
static void *do_realloc(void *p, size_t n, int array)
{
	int tr = traced();
	uint64_t stamp = tr && p ? heap_api->heap_stamp() : 0;
	if (!heap_reals.realloc)
		return enomem();
	void *q = heap_reals.realloc(p, n);
	if (!tr)
		return q;
	if (q)
		record(array && !p ? EXP_HEAP_CALLOC : EXP_HEAP_REALLOC, n, q, p, stamp);
	else if (p && n == 0)
		record(EXP_HEAP_FREE, 0, p, NULL, stamp); /* glibc: realloc(p, 0) frees p */
	return q;
}

EXPORT void *realloc(void *p, size_t n)
{
	if (p && in_arena(p))
		return arena_realloc(p, n, EXP_HEAP_MALLOC);
	if (!ready())
		return p ? enomem() : arena_alloc(n, 16); /* p is not ours: cannot happen */
	return do_realloc(p, n, 0);
}

EXPORT void *reallocarray(void *p, size_t count, size_t size)
{
	size_t n;
	if (__builtin_mul_overflow(count, size, &n))
		return enomem();
	if (p && in_arena(p))
		return arena_realloc(p, n, EXP_HEAP_CALLOC);
	if (!ready())
		return p ? enomem() : arena_alloc(n, 16);
	return do_realloc(p, n, 1);
}

EXPORT void *memalign(size_t align, size_t n)
{
	if (!ready())
		return arena_alloc(n, align);
	if (!heap_reals.memalign)
		return enomem();
	void *p = heap_reals.memalign(align, n);
	if (p && traced())
		record(EXP_HEAP_MEMALIGN, n, p, NULL, 0);
	return p;
}

EXPORT int posix_memalign(void **ret, size_t align, size_t n)
{
	if (!ready()) {
		if (align % sizeof(void *) || (align & (align - 1)))
			return EINVAL;
		void *p = arena_alloc(n, align);
		if (!p)
			return ENOMEM;
		*ret = p;
		return 0;
	}
	if (!heap_reals.posix_memalign)
		return ENOMEM;
	int r = heap_reals.posix_memalign(ret, align, n);
	if (r == 0 && traced())
		record(EXP_HEAP_MEMALIGN, n, *ret, NULL, 0);
	return r;
}

EXPORT void *aligned_alloc(size_t align, size_t n)
{
	if (!ready())
		return arena_alloc(n, align);
	if (!heap_reals.aligned_alloc)
		return enomem();
	void *p = heap_reals.aligned_alloc(align, n);
	if (p && traced())
		record(EXP_HEAP_MEMALIGN, n, p, NULL, 0);
	return p;
}

EXPORT void *valloc(size_t n)
{
	if (!ready())
		return arena_alloc(n, 4096);
	if (!heap_reals.valloc)
		return enomem();
	void *p = heap_reals.valloc(n);
	if (p && traced())
		record(EXP_HEAP_MEMALIGN, n, p, NULL, 0);
	return p;
}

EXPORT void *pvalloc(size_t n)
{
	if (!ready())
		return arena_alloc((n + 4095) & ~(size_t)4095, 4096);
	if (!heap_reals.pvalloc)
		return enomem();
	void *p = heap_reals.pvalloc(n);
	if (p && traced())
		record(EXP_HEAP_MEMALIGN, n, p, NULL, 0);
	return p;
}

static void *do_mmap(void *(*real)(void *, size_t, int, int, int, off_t), void *addr, size_t len, int prot,
		     int flags, int fd, off_t off)
{
	void *p;
	if (real) {
		p = real(addr, len, prot, flags, fd, off);
	} else { /* another thread is resolving the real functions */
		long r = syscall(SYS_mmap, addr, len, prot, flags, fd, off);
		p = r < 0 ? MAP_FAILED : (void *)r;
	}
	if (p != MAP_FAILED && (flags & MAP_ANONYMOUS) && traced())
		record(EXP_HEAP_MMAP, len, p, NULL, 0);
	return p;
}

EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	ready(); /* no arena for mmap: dlsym does not map memory through us */
	return do_mmap(heap_reals.mmap, addr, len, prot, flags, fd, off);
}

EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	ready();
	return do_mmap(heap_reals.mmap64 ? heap_reals.mmap64 : heap_reals.mmap, addr, len, prot, flags, fd,
		       off);
}

EXPORT int munmap(void *addr, size_t len)
{
	ready();
	if (!heap_reals.munmap)
		return (int)syscall(SYS_munmap, addr, len);
	int tr = traced();
	uint64_t stamp = tr ? heap_api->heap_stamp() : 0;
	int r = heap_reals.munmap(addr, len);
	if (r == 0 && tr)
		record(EXP_HEAP_MUNMAP, len, addr, NULL, stamp);
	return r;
}
