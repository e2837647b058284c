/*
 * threads.h - per-thread collection: a slot per live thread (mmap'd table,
 * claimed with CAS, no malloc), the pthread_create interposer and its start
 * wrapper, the per-thread CPU-time timer, THREAD_START/THREAD_END records,
 * and the sample taken in the SIGPROF handler.
 *
 * A thread's slot holds its stack bounds, timer, CPU baseline and block
 * cursors; the thread-local reentrancy guard makes the handler drop (and
 * count) a sample that would interleave with the thread's own appends.
 */
#ifndef COLLECTOR_THREADS_H
#define COLLECTOR_THREADS_H

#include <signal.h>
#include <ucontext.h>

/* Map the slot table and create the pthread key.  Returns 0 or -errno. */
int threads_init(void);

/* Set up the calling thread as the initial thread (creator 0). */
void threads_begin_initial(void);

/*
 * The SIGPROF handler's first step: if the signal comes from one of our
 * timers, take (or drop) the sample and return 1; else return 0 and the
 * caller forwards the signal to the application.  SIGNAL_SAFE.
 */
int threads_on_sigprof(const siginfo_t *si, const ucontext_t *uc);

/*
 * End of collection: delete every live thread's timer, then write a
 * THREAD_END for each (the caller's own and every other live thread's, their
 * CPU clocks read through the kernel's per-tid clock ids).
 */
void threads_finish(void);

/*
 * Call fn with the unwind-table hazard of every live thread (see unwtab.h).
 * Not signal-safe; the result is a snapshot that may be stale by the time fn
 * runs, which is what the hazard protocol allows for.
 */
void threads_scan_hazards(void (*fn)(const void *hazard, void *ctx), void *ctx);

#endif
