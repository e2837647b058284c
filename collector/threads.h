/*
 * threads.h - per-thread collection: a slot per live thread (mmap'd table,
 * claimed with CAS, no malloc), the pthread_create interposer and its start
 * wrapper, the per-thread CPU-time timer, THREAD_START/THREAD_END records,
 * the sample taken in the sampling signal handler, and what tracers
 * (tracer.h) need of the calling thread: its id, its guard and its stack,
 * named by its stack-table slot.
 *
 * A thread's slot holds its stack bounds, timer, CPU baseline and block
 * cursors; the thread-local reentrancy guard makes the handler drop (and
 * count) a sample that would interleave with the thread's own appends.
 */
#ifndef COLLECTOR_THREADS_H
#define COLLECTOR_THREADS_H

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <ucontext.h>

/*
 * Map the slot table and create the pthread key.  thread_end (may be NULL)
 * runs on each thread as it ends, under its guard.  Returns 0 or -errno.
 */
int threads_init(void (*thread_end)(void));

/*
 * pthread_create's work once the collector is initialised: the new thread
 * is profiled from its first instruction (a slot, THREAD_START, its timer)
 * while collecting.
 */
int threads_pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg);

/*
 * Set up the calling thread as the initial thread (creator 0) of a new
 * image; origin_ns: its CPU clock before the exec (what the image that
 * exec'd recorded), 0 when all of it is this image's.
 */
void threads_begin_initial(uint64_t origin_ns);

/*
 * In a fork child (from the atfork child handler): forget every thread of
 * the parent (their slots, timers, perf fds and block cursors; blocks are
 * not mapped in the child) and, when the child is followed, start the
 * calling thread again as the child's main thread in the new data files.
 * unseen: a child of the raw system call, found later: the CPU time it ran
 * until now was sampled by nobody (charged as <Unknown>, not as the
 * collector's start).
 */
void threads_fork_child(int followed, int unseen);

/*
 * Held across fork (atfork prepare .. parent/child) so that the shared
 * cursor of thread starts and ends is never copied half-updated.
 */
void threads_lock(void);
void threads_unlock(void);

/*
 * clone(2) with CLONE_VM | CLONE_THREAD: claim a slot for the new thread and
 * return it, with *ret_fn the routine to give clone instead of fn (pass the
 * slot as its argument).  NULL when not collecting or no slot is free (call
 * clone unchanged).  threads_raw_cancel gives the slot back if clone fails.
 */
void *threads_raw_prepare(int (*fn)(void *), void *arg, void *stack_top, int (**ret_fn)(void *));
void threads_raw_cancel(void *slot);

/*
 * The sampling signal handler's first step: if signal sig comes from one of
 * our timers or events, take (or drop) the sample and return 1; else return
 * 0 and the caller forwards the signal to the application.  SIGNAL_SAFE.
 */
int threads_on_sampling_signal(int sig, const siginfo_t *si, const ucontext_t *uc);

/*
 * If the sampling signal has moved (sampler.h) and the calling thread's
 * sampler still uses the old one, move it now: before the thread blocks or
 * waits for the old signal as the program asked.  Not signal-safe.
 */
void threads_resignal_self(void);

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

/*
 * The thread's reentrancy guard, for collector code outside the handler
 * that may call interposed functions (malloc, mmap): enter returns the old
 * value to pass to leave.  Heap calls made under the guard are not traced.
 */
int threads_guard_enter(void);
void threads_guard_leave(int old);

/*
 * Per-thread event counters of the tracers: counted in the calling thread's
 * slot (no shared cache line, no locked instruction per event) and summed
 * over the live threads and those that ended.  A thread without a slot
 * counts into the shared sum.  A fork child starts from 0.  SIGNAL_SAFE.
 */
enum threads_counter { THREADS_COUNT_IO_CALLS, THREADS_COUNTERS };
void threads_count(enum threads_counter which);
uint64_t threads_count_sum(enum threads_counter which);

/*
 * The calling thread returns from the blocking library function at pc (0:
 * done) with its sampling signals still held (waits.h): a sample delivered
 * as they are released is the call's, and has pc as its leaf (the reader
 * hides the collector's frames under it).  SIGNAL_SAFE.
 */
void threads_wait_leaf(uint64_t pc);

/*
 * Around a blocking call (waits.c), whose grid points (sampler.h) are its
 * own: threads_wait_begin() before it reads the calling thread's CPU clock
 * (it returns the outer call's state, for threads_wait_done);
 * threads_wait_end(pc) after it charges the grid points the thread's
 * clock passed inside the call to the call, as one sample whose leaf is pc
 * (with the sampling signals still held, or in the mask the call
 * restored); threads_wait_done(outer) when the signals are released.
 * The task-clock event does not count the time the kernel takes to switch
 * the thread off its CPU and back, which the thread's clock counts (tens of
 * microseconds a wait in a VM): its expiries would charge the grid points
 * that pass there to the code after the call.  And an expiry that comes
 * inside the call (held till it returns) charges only the call's points,
 * not those before it, which it came late for: the next sample takes them,
 * in the code the event sees.  SIGNAL_SAFE.
 */
uint64_t threads_wait_begin(void);
void threads_wait_end(uint64_t pc);
void threads_wait_done(uint64_t outer);

/*
 * The next definition of name after ours (dlsym RTLD_NEXT), found once and
 * kept in *slot: under the calling thread's guard, so that dlsym's own
 * allocations are not traced as the program's.  NULL if none.  Not
 * signal-safe.
 */
void *threads_next_fn(void *_Atomic *slot, const char *name);

/* The calling thread's id (its slot's, else gettid). SIGNAL_SAFE. */
uint32_t threads_trace_tid(void);

/* A stack in a trace record: by stack-table slot or by the STACK record's id. */
struct threads_stackref {
	uint32_t kind; /* EXP_STACKREF_SLOT0 (slot) or EXP_STACKREF_ID (id) */
	uint32_t slot;
	uint64_t id;
};

/*
 * The calling thread's stack, unwound from here (the collector's frames are
 * hidden by the reader) to at most the depth limit, written to the stacks
 * file when new.  Call under the guard.  1: *ref names it; 0: the thread
 * has no collector slot (no stack); -1: it could not be written.
 * SIGNAL_SAFE.
 */
int threads_trace_stack(struct threads_stackref *ref);
/*
 * As threads_trace_stack, with leaf_pc (if not 0) as the stack's leaf above
 * the frames unwound: the entry of the library function a tracer called
 * for the program (its wait is charged there, not to the program's caller).
 */
int threads_trace_stack_leaf(struct threads_stackref *ref, uint64_t leaf_pc);

#endif
