/*
 * stacktab.c - lock-free set of u64 stack ids (see stacktab.h).  Slot value 0
 * means empty; ids are never 0 (record_stack_hash reserves it).
 */
#include "collector/stacktab.h"

#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <sys/mman.h>

#define PROBE_LIMIT 64

static _Atomic uint64_t *stacktab_slots;
static uint64_t stacktab_mask;

int stacktab_init(unsigned log2_slots)
{
	size_t bytes = ((size_t)1 << log2_slots) * sizeof(uint64_t);
	void *p =
		mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	stacktab_mask = ((uint64_t)1 << log2_slots) - 1;
	atomic_store_explicit(&stacktab_slots, p, memory_order_release);
	return 0;
}

int stacktab_contains(uint64_t id)
{
	_Atomic uint64_t *s = atomic_load_explicit(&stacktab_slots, memory_order_acquire);
	if (!s)
		return 0;
	for (uint64_t i = 0; i < PROBE_LIMIT; i++) {
		uint64_t v = atomic_load_explicit(&s[(id + i) & stacktab_mask], memory_order_acquire);
		if (v == id)
			return 1;
		if (v == 0)
			return 0;
	}
	return 0;
}

int stacktab_insert(uint64_t id)
{
	_Atomic uint64_t *s = atomic_load_explicit(&stacktab_slots, memory_order_acquire);
	if (!s || id == 0)
		return -ENOSPC;
	for (uint64_t i = 0; i < PROBE_LIMIT; i++) {
		_Atomic uint64_t *slot = &s[(id + i) & stacktab_mask];
		uint64_t v = atomic_load_explicit(slot, memory_order_acquire);
		if (v == 0 && atomic_compare_exchange_strong_explicit(slot, &v, id, memory_order_acq_rel,
								      memory_order_acquire))
			return 1;
		if (v == id)
			return 0;
	}
	return -ENOSPC;
}
