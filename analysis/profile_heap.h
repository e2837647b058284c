/*
 * profile_heap.h - heap tracing (collect -H) analysed: the heap calls of
 * each experiment replayed in time order into allocations, leaks, the peak
 * of live memory and temporary allocations, per call stack.
 *
 * Semantics (exactly what the metrics and er_print's heap reports count):
 *  - An allocation is every MALLOC, CALLOC, MEMALIGN and MMAP with a non-zero
 *    address, and the allocating half of a REALLOC (addr, size): count 1,
 *    bytes = size, charged to the call's stack.  A call that returned 0
 *    (failed) is no allocation.
 *  - FREE, MUNMAP and the releasing half of a REALLOC (old_addr, done before
 *    its allocating half) release the live block at that address.  free(0)
 *    is ignored; a release of an address that holds no live block counts as
 *    an unknown free.  An allocation at an address that is still live (its
 *    free was not traced) first releases the old block (counted as reused).
 *  - munmap releases the bytes of [addr, addr + size) from the live mappings
 *    made by mmap: a mapping wholly inside is released; a partly unmapped
 *    one shrinks (or is split in two) and keeps its stack; the pieces of one
 *    mapping remain one block for the leak count.  An munmap that overlaps
 *    no traced mapping counts as an unknown free.
 *  - A block (or the remaining bytes of a mapping) still live at the end of
 *    the experiment is a leak at its allocation's stack: count 1, bytes =
 *    its live size.
 *  - Temporary allocation: a block released by the next heap call of its
 *    thread that releases anything, with no other allocation on that thread
 *    in between: the block itself, by address (heaptrack's rule before its
 *    file format 1).  A realloc that moves or grows the block just allocated
 *    makes that block temporary.  heaptrack now compares the freed block's
 *    size and stack with the last allocation's instead, so freeing an older
 *    block of the same size and stack right after allocating a new one
 *    (grow-by-copy) is temporary there and not here
 *    (tests/e2e/heap_temporaries.sh).
 *  - Peak: the largest number of live bytes of a process (experiment) over
 *    time, first reached at peak_ns; the stacks holding memory at that
 *    moment are each stack's live blocks just after that call.
 *  - Thread selection: allocations, leaks and temporaries are counted for
 *    blocks allocated by a selected thread (the free may come from any
 *    thread); the peak and unknown frees are properties of the process and
 *    ignore the selection.
 * Not thread-safe.
 */
#ifndef ANALYSIS_PROFILE_HEAP_H
#define ANALYSIS_PROFILE_HEAP_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/profile.h"

/* Size classes of gprofng's heapstat: 0KB-1KB, 1KB-8KB, ... 1TB-10TB (and beyond). */
#define HEAP_SIZE_CLASSES 14

/* One call stack's heap figures. */
struct heap_stack_stat {
	uint64_t alloc_count, alloc_bytes;
	uint64_t leak_count, leak_bytes;
	uint64_t temp_count, temp_bytes;
	uint64_t peak_count, peak_bytes; /* live at its experiment's peak */
};

struct heap_summary {
	int has_heap; /* some experiment traced the heap */
	uint64_t alloc_count, alloc_bytes, leak_count, leak_bytes, temp_count, temp_bytes;
	uint64_t free_count;         /* releases of a live block (realloc halves included) */
	uint64_t unknown_free_count; /* releases of an address holding no live block */
	uint64_t reused_count;       /* allocations at a still-live address */
	uint64_t failed_count;       /* allocating calls that returned 0 */
	uint64_t alloc_min_bytes, alloc_max_bytes, leak_min_bytes, leak_max_bytes;
	uint64_t alloc_classes[HEAP_SIZE_CLASSES], leak_classes[HEAP_SIZE_CLASSES];
	/* the experiment (process) with the highest peak; peak_exp = SIZE_MAX if none */
	size_t peak_exp;
	uint32_t peak_pid;
	uint64_t peak_bytes;
	uint64_t peak_ns; /* since the experiment's start */
};

/*
 * The size class of a block (or an I/O call) of `bytes`, 0..HEAP_SIZE_CLASSES-1,
 * and its label ("1KB - 8KB"); as gprofng's, a class includes its upper
 * bound (8192 bytes are "1KB - 8KB").
 */
size_t heap_size_class(uint64_t bytes);
const char *heap_size_class_label(size_t cls);

/*
 * Figures of stack s of experiment x (after profile_compute); NULL if the
 * experiment has no heap data or s is out of range.
 */
const struct heap_stack_stat *profile_heap_stack(const struct profile *p, size_t x, uint32_t s);
/* Totals over the selection (after profile_compute). */
const struct heap_summary *profile_heap_summary(const struct profile *p);

/*
 * The live heap of experiment x over time: its heap calls replayed one at a
 * time in the order of the replay above (all threads: the thread and time
 * selections do not apply, live memory is the process's), giving after each
 * call its time (on the experiment's clock, as exp_heap_event.ts_ns) and
 * the live bytes then, by the semantics above; so the largest value, first
 * reached, is the experiment's peak (heap_summary.peak_bytes, peak_ns)
 * whatever the selections.  The experiment need not be selected.
 * open: 0 and *ret (free with profile_heap_live_close, NULL-safe);
 * -EINVAL for no such experiment, -ENOENT if it has no heap data, -ENOMEM.
 * next: 1 and the call's figures, 0 after the last call, -ENOMEM.
 * The iterator reads the profile's experiment: close it before
 * profile_free.  Not thread-safe.
 */
struct heap_live;
int profile_heap_live_open(const struct profile *p, size_t x, struct heap_live **ret);
int profile_heap_live_next(struct heap_live *h, uint64_t *ret_ts_ns, uint64_t *ret_bytes);
void profile_heap_live_close(struct heap_live *h);

/*
 * The frames of stack s of experiment x as PC ids (leaf first), after the
 * same resolution as the metrics (collector frames dropped, PLT rules).
 * Returns the count, *ret points into the profile; -ENOMEM on failure.
 */
int profile_stack_pcs(struct profile *p, size_t x, uint32_t s, const uint32_t **ret);

#endif
