/*
 * unwind.h - call stacks of an interrupted thread, from its signal context.
 *
 * The CFI unwinder (shared/DESIGN.md decision 2) over the tables of unwtab.h.
 * Every stack read is checked first against the bounds of the stack that
 * holds sp (the thread's, the running goroutine's in a Go program, the
 * signal stack, or pages checked readable first), so a bad frame pointer
 * never faults; no frame is ever made
 * up.  SIGNAL_SAFE: no allocation, no locks.
 */
#ifndef COLLECTOR_UNWIND_H
#define COLLECTOR_UNWIND_H

#include <stdint.h>
#include <ucontext.h>

struct unwind_thread {
	uint64_t stack_lo, stack_hi; /* the thread's own stack: [lo, hi) */
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
 * sets *ret_flags to 0 for a complete stack (it reached an outermost frame:
 * _start, clone's child, runtime.goexit / mstart / rt0_go in Go, a null return
 * address, or the thread's outer frame), EXP_STACK_TRUNCATED if the walk
 * stopped early (no rule, a bad frame, a stack-switching Go function, or the
 * depth limit), or EXP_STACK_TRUNCATED|EXP_STACK_FAILED if not even the leaf's
 * caller was found (also when sp lies on no stack it knows).
 * SIGNAL_SAFE.
 */
uint32_t unwind_from_context(const ucontext_t *uc, struct unwind_thread *t, uint64_t *pcs, uint32_t max,
			     uint32_t *ret_flags);

/*
 * A walk remembered: where it started, the tables' generation, and each stack
 * word its result depended on (every return address read, and the saved
 * %rbp / %rbx values a later frame's CFA was computed from) with the value
 * read.  The walk is a function of exactly these, so a later walk from the
 * same start that finds the same values there would give the same frames:
 * unwind_memo_holds checks that (a few loads and compares instead of a
 * walk).  Walks through a signal frame or reading more than
 * UNWIND_MEMO_READS words are not remembered.
 */
#define UNWIND_MEMO_READS 96u

struct unwind_memo {
	uint64_t gen; /* unwtab_generation() of the walk; 0: nothing remembered */
	uint64_t pc, sp, fp, bx;
	uint32_t max, nreads;     /* nreads > UNWIND_MEMO_READS while walking: too many */
	uint8_t need_fp, need_bx; /* the walk used the starting %rbp / %rbx */
	uint64_t addr[UNWIND_MEMO_READS], val[UNWIND_MEMO_READS];
};

/*
 * unwind_from_context that also fills *memo (may be NULL) with what its
 * result depended on (memo->gen is 0 when it cannot be remembered).
 */
uint32_t unwind_from_context_memo(const ucontext_t *uc, struct unwind_thread *t, uint64_t *pcs, uint32_t max,
				  uint32_t *ret_flags, struct unwind_memo *memo);

/*
 * 1 if a walk from uc to depth max would give the frames of the walk
 * memo remembers (same start, same generation, same stack words), else 0.
 * Reads only the stack words memo names, inside the thread's stack.
 * SIGNAL_SAFE.
 */
int unwind_memo_holds(const struct unwind_memo *memo, const ucontext_t *uc, uint32_t max);

#endif
