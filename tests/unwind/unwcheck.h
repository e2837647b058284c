/*
 * unwcheck.h - test-only harness for the collector's CFI unwinder
 * (collector/cfi.c, unwtab.c, unwind.c compiled into libunwcheck.so, NOT
 * libcollector.so).  A fixture thread calls unwcheck_thread_start first: from
 * then on it is sampled by SIGPROF (a CLOCK_THREAD_CPUTIME_ID timer at the
 * highest rate, 1 ms, plus optional tgkill "kicks" from a helper thread,
 * UNWCHECK_KICK_US), and every sample is unwound twice on the same ucontext:
 * by unwind_from_context (timed) and by libunwind (the reference, unless
 * UNWCHECK_REF=0).  At exit the library prints a summary to stderr and, with
 * UNWCHECK_OUT=file, appends key=value results to that file.
 *
 * Environment: UNWCHECK_REF (1), UNWCHECK_KICK_US (0 = timer only),
 * UNWCHECK_MAXD (256, depth cap of both unwinders), UNWCHECK_OUT,
 * UNWCHECK_TAG (a name for the summary), UNWCHECK_TIMER_US (1000),
 * UNWCHECK_SELFTEST=1 (negative control: corrupt 1 % of our stacks after timing).
 */
#ifndef TESTS_UNWIND_UNWCHECK_H
#define TESTS_UNWIND_UNWCHECK_H

/*
 * Register the calling thread; root_fn is the function whose frame ends the
 * program's part of the stack (main, or the thread's start routine): a
 * reference stack through it must be complete in ours too.
 */
void unwcheck_thread_start(void *root_fn);
/* Stop sampling the calling thread (before it returns from its root). */
void unwcheck_thread_end(void);
/* Rebuild the unwind tables after dlopen/dlclose (unwtab begin/seen/commit). */
void unwcheck_rescan(void);
/* dlopen stress: watch objects whose name contains `name` as library k (1..15). */
void unwcheck_watch_lib(const char *name, int k);
/* dlopen stress: the calling thread may now execute in watched library k (0: none). */
void unwcheck_set_lib(int k);
/* Print per-object table build time and memory (cfi_build_eh_frame_hdr, `reps` times each). */
void unwcheck_table_report(int reps);

#endif
