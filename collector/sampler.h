/*
 * sampler.h - what makes a thread take a clock-profiling sample: a signal
 * each time the thread's CPU time passes another point of its grid.
 *
 * The grid.  Each thread's expiries are at r, r + I, r + 2I, ... of its CPU
 * time, counted from the thread's origin (its creation; for a process's
 * first thread, its exec), with r drawn uniformly from (0, I] per thread:
 * the k-th thread of the process gets 1 + frac(s + k * golden ratio) *
 * (I - 1) ns, s uniform at process start, so the phases of a pool of
 * threads are spread evenly.  Each grid point stands for I of CPU time: a
 * sample weighs I for each point the thread's own clock passed since the
 * last one charged (threads.c), so a function that runs c is charged c in
 * expectation wherever it runs: the first function of a process or thread
 * is charged as fairly as any other, and a thread that runs c < I is
 * sampled with probability c / I and charged I (exact in expectation).
 * Grid points that pass before the collector can arm the thread (a
 * process's loading, a thread's start-up) are charged at arming time to a
 * start-up stack, and those that pass inside a blocking call waits.c
 * wraps, to the call, as it returns (threads.c).
 *
 * Two mechanisms, chosen once per process (sampler_init):
 *  - perf: a software task-clock perf event, counting the thread's CPU time
 *    in user and kernel mode, whose overflow is an hrtimer that fires
 *    exactly when the thread has run the period, and sends the signal to the
 *    thread itself (fcntl F_SETSIG, F_SETOWN_EX).  Needs perf_event_paranoid
 *    <= 1 or CAP_PERFMON.  The first expiry is a one-shot event (refresh 1)
 *    whose period is the distance to the thread's first grid point; at its
 *    sample the handler lets it go and makes the steady event, period I
 *    (sampler_after_sample): one event per thread at a time, none at all
 *    for the thread's own code after the first sample's handler.  The
 *    event's count drifts from the thread's clock: an expiry that comes
 *    before its grid point, or later than the steady event was made after
 *    one, is followed by a one-shot to the grid point, then the steady
 *    event again (threads.c), so that a point is sampled where the thread
 *    passes it;
 *  - timer: a POSIX timer on the thread's CPU clock (SIGEV_THREAD_ID, its
 *    first expiry at the first grid point, then every I), which the kernel
 *    checks only at its tick (HZ=250: every 4 ms of a thread's running), so a
 *    thread that ends within a tick of its next expiry misses it.
 * PA_SAMPLER=timer|perf in the environment forces one (for tests).
 *
 * Descriptors: an event's descriptor is closed once the event is mapped (a
 * one-page mapping keeps it alive, and its signals go on naming the number
 * it had in si_fd), so the collector holds no descriptor of the program's
 * table while the thread runs.  Timers are made with the raw system calls,
 * so that a thread can re-arm itself in the handler.
 *
 * The signal.  SIGURG at start: its default action is to ignore it, so a
 * sampling signal queued during an exec the collector does not see (the raw
 * execve system call) is discarded by the new image, where a SIGPROF or a
 * real-time signal would kill it; and SIGPROF stays the program's.  When the
 * program wants SIGURG itself (signals.c: it blocks it, waits for it, reads
 * it through a signalfd, or handles it), sampler_signal_move() picks a
 * real-time signal nobody uses and every thread moves its events to it:
 * the calling thread at once (sampler_rearm), the others at their next
 * sample (sampler_stale).  The numbers of a thread's events let go stay
 * known (retired), so that a late signal of theirs is still ours.
 */
#ifndef COLLECTOR_SAMPLER_H
#define COLLECTOR_SAMPLER_H

#include <signal.h>
#include <stdint.h>
#include <time.h>

/* The first sampling signal; its default action must be to ignore it. */
#define SAMPLER_SIGNAL SIGURG

enum sampler_kind { SAMPLER_NONE, SAMPLER_PERF, SAMPLER_TIMER };

#define SAMPLER_RETIRED 4
#define SAMPLER_AVOID 8

struct sampler_thread {
	enum sampler_kind kind; /* SAMPLER_NONE: not armed */
	int sig;                /* the signal its expiries send */
	int timer_id;           /* SAMPLER_TIMER: the kernel's timer id */
	int fd_num;             /* SAMPLER_PERF: the number its event's signals carry in si_fd */
	int oneshot;         /* SAMPLER_PERF: the event is the first expiry's (the steady one comes after) */
	void *_Atomic page;  /* SAMPLER_PERF: the mapping that keeps the event, or NULL */
	_Atomic int stopped; /* sampler_stop ran (from any thread): make nothing new */
	uint32_t tid;
	void *cookie;
	/* events and timers let go, whose signals may still be on their way */
	int retired_fd[SAMPLER_RETIRED], retired_sig[SAMPLER_RETIRED];
	uint32_t nretired;
	/* numbers a new event must not take: the thread's counters' (their signals carry them) */
	int avoid[SAMPLER_AVOID];
	uint32_t navoid;
};

/*
 * Choose the mechanism for interval_us (0: clock profiling off) and seed the
 * phases.  Not signal-safe.
 */
void sampler_init(uint32_t interval_us);

/* Re-seed the phases in a fork child. */
void sampler_reseed(void);

enum sampler_kind sampler_kind(void);

/* The interval I in ns (0: clock profiling off). SIGNAL_SAFE. */
uint64_t sampler_interval_ns(void);

/* The next thread's first grid point: a phase in [1, I] ns from its origin. SIGNAL_SAFE. */
uint64_t sampler_phase_ns(void);

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
 * The sampling signal new events use (SAMPLER_SIGNAL until moved), and
 * whether sig is one the samplers use or used (their late signals).
 * SIGNAL_SAFE.
 */
int sampler_signal(void);
int sampler_signal_used(int sig);
/*
 * Move the sampling signal off `from` (the program wants it): to one of the
 * highest real-time signals whose disposition is the default and that
 * `taken(sig)` says the program has not shown it wants, once `install(sig)`
 * (our handler on it) returned 0.  Returns the signal the samplers use from
 * now on (unchanged when from is not the current one or none is free).
 * Not signal-safe; serialised by the caller.
 */
int sampler_signal_move(int from, int (*taken)(int sig), int (*install)(int sig));

/*
 * Arm sampling of the calling thread tid, its first expiry after first_ns
 * more of its CPU time (at least 1); cookie identifies its timer in the
 * handler (si_value).  force_timer: use a POSIX timer even when perf is
 * the mechanism (threads that share another thread's TLS).  Returns 0 or
 * -errno (the thread then takes no samples).  SIGNAL_SAFE (raw system calls
 * only), so that a thread can re-arm itself in the handler.
 */
int sampler_start(struct sampler_thread *s, uint32_t tid, void *cookie, int force_timer, uint64_t first_ns);

/*
 * Move the calling thread's sampler to sampler_signal(), its next expiry
 * after first_ns of its CPU time: the old event or timer is let go, its
 * numbers kept as retired.  0 or -errno (then the thread is not armed).
 * SIGNAL_SAFE.
 */
int sampler_rearm(struct sampler_thread *s, uint64_t first_ns);

/*
 * The numbers (fds[i] >= 0, at most SAMPLER_AVOID) the events s makes from
 * now on must not carry: another event's of the same thread, whose
 * descriptor is closed but whose signals carry its number (hwc.c's
 * counters).  After sampler_start.  SIGNAL_SAFE.
 */
void sampler_avoid(struct sampler_thread *s, const int *fds, unsigned n);

/*
 * 1 if s's expiries come from a count of its own (perf's task-clock event),
 * which drifts from the thread's CPU clock (threads.c's next_expiry).
 * SIGNAL_SAFE.
 */
int sampler_counts_apart(const struct sampler_thread *s);

/* 1 if s's event is still the first expiry's one-shot (perf). SIGNAL_SAFE. */
int sampler_first_pending(const struct sampler_thread *s);

/* 1 if s uses another signal than sampler_signal() (it is to be re-armed). SIGNAL_SAFE. */
int sampler_stale(const struct sampler_thread *s);

/*
 * 1 if signal sig with si is this thread's sampling signal, 2 if it is a
 * retired event's or timer's (late: it may come after its grid point was
 * charged), else 0.  SIGNAL_SAFE.
 */
int sampler_owns(const struct sampler_thread *s, int sig, const siginfo_t *si, const void *cookie);

/*
 * After each sampling signal of the calling thread, taken or dropped: the
 * first expiry's one-shot event is let go and the steady event (period I)
 * made in its place.  SIGNAL_SAFE.
 */
void sampler_after_sample(struct sampler_thread *s);

/*
 * Move perf event descriptor fd to a number above half the descriptor
 * limit, out of the program's way (when one is free there): the new number,
 * or fd.  For the counters of hwc.c too.  SIGNAL_SAFE.
 */
int sampler_move_high(int fd);

/* Stop and release (from any thread of the process). SIGNAL_SAFE. */
void sampler_stop(struct sampler_thread *s);

/* In a fork child: forget an inherited thread's sampler (the child has no copy of its events). */
void sampler_forget(struct sampler_thread *s);

#endif
