/*
 * sampler.h - what makes a thread take a clock-profiling sample: a signal
 * (SAMPLER_SIGNAL, SIGURG) each time the thread has used another interval of
 * CPU time.
 *
 * The signal is SIGURG, not SIGPROF, because its default action is to ignore
 * it.  A signal queued for a thread stays pending through an exec, and the
 * exec resets its action to the default: a SIGPROF queued by an overflow
 * during an exec the collector did not see (the raw execve system call)
 * killed the new image, whereas a SIGURG is discarded.  It also leaves
 * SIGPROF and ITIMER_PROF wholly to the program (gperftools, watchdogs).
 * Programs rarely use SIGURG (out-of-band socket data, Go's preemption);
 * signals.c forwards to their handler what is not ours.
 *
 * Two mechanisms, chosen once per process (sampler_init):
 *  - perf: a software task-clock perf event per thread, counting the thread's
 *    CPU time in user and kernel mode, whose overflow is an hrtimer that fires
 *    exactly when the thread has run the period, and sends the signal to the
 *    thread itself (fcntl F_SETSIG, F_SETOWN_EX).  Needs perf_event_paranoid
 *    <= 1 or CAP_PERFMON (counting kernel time is what makes a sample taken
 *    during a system call land on the code that made it);
 *  - timer: a POSIX timer on the thread's CPU clock (timer_create with
 *    SIGEV_THREAD_ID), which the kernel checks only at its tick (HZ=250: every
 *    4 ms of a thread's running), so a thread that ends within a tick of its
 *    next expiry misses it.
 * PA_SAMPLER=timer|perf in the environment forces one (for tests).
 *
 * The first expiry of each thread is at a random phase of the interval: the
 * k-th thread of the process gets 1 + frac(s + k * golden ratio) * (I - 1) ns,
 * s uniform at process start.  Every thread's phase is uniform, so a thread
 * that runs c < I gets a sample with probability c / I exactly (perf), and the
 * sequence spreads the phases of a pool of threads evenly, so the number of
 * short threads sampled hardly varies from run to run.  The reader charges a
 * sampled thread that ran less than I with I (docs/architecture.md): exact in
 * expectation.  Later expiries follow every I (perf: at I, 2I, ... of the
 * thread's CPU time, below).
 *
 * With perf each thread has two events, both made when it starts: a phase
 * event, armed for a single overflow at the thread's phase (it stops itself
 * after it), and a steady one with period I from the thread's start.  Their
 * descriptors are closed before sampler_start returns (a one-page mapping of
 * each keeps it alive, and the signals go on naming the numbers they had), so
 * the collector holds no descriptor of the program's table while the thread
 * runs: a program that closes every descriptor, reuses the numbers or has
 * a thousand threads waiting for their first sample changes nothing.  The
 * expiries are the phase r, then I, 2I, ...: a thread that runs c < I is
 * sampled at r with probability c / I as before, and each sample is weighted
 * by the CPU time since the previous one, so nothing is counted twice.
 */
#ifndef COLLECTOR_SAMPLER_H
#define COLLECTOR_SAMPLER_H

#include <signal.h>
#include <stdint.h>
#include <time.h>

/* The sampling signal of both mechanisms; its default action must be to ignore it. */
#define SAMPLER_SIGNAL SIGURG

enum sampler_kind { SAMPLER_NONE, SAMPLER_PERF, SAMPLER_TIMER };

struct sampler_thread {
	enum sampler_kind kind; /* SAMPLER_NONE: not armed */
	timer_t timer;          /* SAMPLER_TIMER; any value is valid, NULL included */
	int phase_fd_num;       /* SAMPLER_PERF: the numbers the events' signals carry in si_fd */
	int steady_fd_num;
	void *_Atomic phase_page;  /* SAMPLER_PERF: the mappings that keep the events, or NULL */
	void *_Atomic steady_page; /* (the phase one is let go after its sample) */
};

/*
 * Choose the mechanism for interval_us (0: clock profiling off) and seed the
 * phases.  Not signal-safe.
 */
void sampler_init(uint32_t interval_us);

/* Re-seed the phases in a fork child. */
void sampler_reseed(void);

enum sampler_kind sampler_kind(void);

/* "perf_task_clock", "timer_create" or "none", as log.xml says. */
const char *sampler_mechanism(void);

/*
 * The user/system split of each sample's CPU time.  The kernel keeps per
 * thread its exact CPU time and, at each tick (HZ=250: 4 ms), charges the
 * tick to user or system by the mode it interrupted; getrusage(RUSAGE_THREAD)
 * gives the exact time divided in that ratio (cputime_adjust), to the
 * microsecond.  A sample's user part is the growth of that user time since
 * the thread's previous sample (at most the sample's weight); the rest of
 * the weight is system time.  Exact in sum, tick-sampled in its division: a
 * function that runs under a tick of CPU between two samples is split as the
 * ticks around it fell.  On unless PA_CPU_SPLIT=off (tests) or the call
 * fails; decided by sampler_init.
 */
int sampler_splits(void);
/* "rusage_thread" or "none", as log.xml says (<collector_start cpu_split>). */
const char *sampler_split_mechanism(void);
/* The calling thread's user-mode CPU time (ns) into *ret: 0, or -1. SIGNAL_SAFE. */
int sampler_user_ns(uint64_t *ret);

/*
 * Arm sampling of the calling thread tid; cookie identifies the thread's
 * timer in the handler (si_value).  force_timer: use a POSIX timer even when
 * perf is the mechanism (threads that share another thread's TLS).  Returns 0
 * or -errno (the thread then takes no samples).
 */
int sampler_start(struct sampler_thread *s, uint32_t tid, void *cookie, int force_timer);

/* 1 if si is this thread's sampling signal. SIGNAL_SAFE. */
int sampler_owns(const struct sampler_thread *s, const siginfo_t *si, const void *cookie);

/*
 * After each sampling signal of the thread, taken or dropped: lets the
 * phase event go once it has given its sample.  SIGNAL_SAFE.
 */
void sampler_after_sample(struct sampler_thread *s);

/*
 * Move perf event descriptor fd to a number above half the descriptor
 * limit, out of the program's way (when one is free there): the new number,
 * or fd.  For the counters of hwc.c too.
 */
int sampler_move_high(int fd);

/* Stop and release (from any thread of the process). */
void sampler_stop(struct sampler_thread *s);

/* In a fork child: forget an inherited thread's sampler (the child has no copy of its events). */
void sampler_forget(struct sampler_thread *s);

#endif
