/*
 * unwind.h - call stacks of an interrupted thread, from its signal context.
 *
 * This is the interface the CFI unwinder (DESIGN.md decision 2) will
 * implement; today it walks frame pointers.  Every stack read is checked
 * against the thread's stack bounds first, so a bad frame pointer never
 * faults; no frame is ever made up.  SIGNAL_SAFE: no allocation, no locks.
 */
#ifndef COLLECTOR_UNWIND_H
#define COLLECTOR_UNWIND_H

#include <stdint.h>
#include <ucontext.h>

struct unwind_thread {
	uint64_t stack_lo, stack_hi; /* the thread's stack: [lo, hi) */
	/*
	 * Frame address of the collector's thread-start wrapper (0 for the
	 * main thread): reaching it ends the walk as a complete stack.
	 */
	uint64_t outer_fp;
	/* The unwind-table snapshot this thread's handler is reading (unwtab.h). */
	const void *_Atomic hazard;
	/*
	 * Optional: UNWIND_CACHE_BYTES of zeroed memory of this thread's own
	 * (never used by two contexts at once) that remembers the unwind rule
	 * of the PCs it has walked through, for the snapshot generation
	 * cache_gen (0: none yet).
	 */
	struct unwind_cache_entry *cache;
	uint64_t cache_gen;
};

#define UNWIND_CACHE_ENTRIES 1024u
#define UNWIND_CACHE_BYTES (UNWIND_CACHE_ENTRIES * 24u)

/*
 * Fill pcs[0..max) with the interrupted PC then the return addresses of its
 * callers, leaf first.  Returns the number of frames (>= 1 when max >= 1) and
 * sets *ret_flags to 0 for a complete stack (the frame chain ended with a
 * null frame pointer or at the thread's outer frame), EXP_STACK_TRUNCATED if
 * the walk stopped early (bad frame pointer or depth limit), or
 * EXP_STACK_TRUNCATED|EXP_STACK_FAILED if not even the leaf's caller was found.
 * SIGNAL_SAFE.
 */
uint32_t unwind_from_context(const ucontext_t *uc, struct unwind_thread *t, uint64_t *pcs, uint32_t max,
			     uint32_t *ret_flags);

#endif
