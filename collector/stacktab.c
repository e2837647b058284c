/*
 * stacktab.c - lock-free set of u64 stack ids (see stacktab.h).  Slot value 0
 * means empty; ids are never 0 (record_stack_hash reserves it).
 */
#include "collector/stacktab.h"

#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>

#define PROBE_LIMIT 64

static _Atomic uint64_t *_Atomic stacktab_slots; /* published once mapped */
static _Atomic uint8_t *stacktab_named;          /* 1: the slot's STACK_SLOT record is (being) written */
static uint64_t stacktab_mask;
static _Atomic uint64_t stacktab_resets;

/*
 * The table's pages that an id was ever stored in, one bit each: a lookup
 * does not read a page never written, which would fault in the zero page
 * only for the insert that follows to fault again (python3: 57 of the
 * collector's 227 page faults).  A bit is set after the id is stored, so a
 * clear bit can only make a lookup miss an id being stored meanwhile:
 * its caller then writes the stack again, which the reader deduplicates.
 */
#define SLOTS_PER_PAGE (4096 / sizeof(uint64_t))
#define PAGE_WORDS 64u /* 4096 pages: tables up to 2^21 slots; past that, pages count as written */
static _Atomic uint64_t stacktab_written[PAGE_WORDS];

static int page_written(uint64_t slot)
{
	uint64_t page = slot / SLOTS_PER_PAGE;
	return page >= 64u * PAGE_WORDS ||
	       (atomic_load_explicit(&stacktab_written[page / 64], memory_order_acquire) >> (page % 64) & 1);
}

static void mark_written(uint64_t slot)
{
	uint64_t page = slot / SLOTS_PER_PAGE;
	if (page < 64u * PAGE_WORDS && !page_written(slot))
		atomic_fetch_or_explicit(&stacktab_written[page / 64], 1ull << (page % 64),
					 memory_order_release);
}

int stacktab_init(unsigned log2_slots)
{
	size_t count = (size_t)1 << log2_slots;
	size_t bytes = count * (sizeof(uint64_t) + 1);
	void *p =
		mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	stacktab_mask = ((uint64_t)1 << log2_slots) - 1;
	stacktab_named = (_Atomic uint8_t *)((char *)p + count * sizeof(uint64_t));
	atomic_store_explicit(&stacktab_slots, p, memory_order_release);
	return 0;
}

void stacktab_reset(void)
{
	_Atomic uint64_t *s = atomic_load(&stacktab_slots);
	size_t bytes = (size_t)(stacktab_mask + 1) * (sizeof(uint64_t) + 1);
	/* a fork child's copy: dropped, not written (every page written copies it, 144 of
	 * them per fork); a private anonymous mapping reads as zeros after MADV_DONTNEED */
	if (s && madvise((void *)s, bytes, MADV_DONTNEED) < 0)
		memset((void *)s, 0, bytes);
	for (unsigned i = 0; i < PAGE_WORDS; i++)
		atomic_store(&stacktab_written[i], 0);
	atomic_fetch_add(&stacktab_resets, 1);
}

uint64_t stacktab_epoch(void)
{
	return atomic_load_explicit(&stacktab_resets, memory_order_relaxed);
}

int stacktab_contains(uint64_t id)
{
	return stacktab_find_slot(id) >= 0;
}

long stacktab_find_slot(uint64_t id)
{
	_Atomic uint64_t *s = atomic_load_explicit(&stacktab_slots, memory_order_acquire);
	if (!s)
		return -ENOENT;
	for (uint64_t i = 0; i < PROBE_LIMIT; i++) {
		uint64_t k = (id + i) & stacktab_mask;
		if (!page_written(k))
			return -ENOENT; /* its slots are all empty */
		uint64_t v = atomic_load_explicit(&s[k], memory_order_acquire);
		if (v == id)
			return (long)k;
		if (v == 0)
			return -ENOENT;
	}
	return -ENOENT;
}

int stacktab_insert(uint64_t id)
{
	if (stacktab_find_slot(id) >= 0)
		return 0;
	return stacktab_insert_slot(id) >= 0 ? 1 : -ENOSPC;
}

long stacktab_insert_slot(uint64_t id)
{
	_Atomic uint64_t *s = atomic_load_explicit(&stacktab_slots, memory_order_acquire);
	if (!s || id == 0)
		return -ENOSPC;
	for (uint64_t i = 0; i < PROBE_LIMIT; i++) {
		uint64_t k = (id + i) & stacktab_mask;
		_Atomic uint64_t *slot = &s[k];
		/* a page never written: straight to the store, whose fault is the page's only one */
		uint64_t v = page_written(k) ? atomic_load_explicit(slot, memory_order_acquire) : 0;
		if (v == 0 && atomic_compare_exchange_strong_explicit(slot, &v, id, memory_order_acq_rel,
								      memory_order_acquire)) {
			mark_written(k);
			return (long)k;
		}
		if (v == id)
			return (long)k;
	}
	return -ENOSPC;
}

int stacktab_claim_slot(uint32_t slot)
{
	if (!stacktab_named || slot > stacktab_mask)
		return 0;
	uint8_t expect = 0;
	return atomic_compare_exchange_strong(&stacktab_named[slot], &expect, 1);
}

void stacktab_unclaim_slot(uint32_t slot)
{
	if (stacktab_named && slot <= stacktab_mask)
		atomic_store(&stacktab_named[slot], 0);
}
