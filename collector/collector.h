/*
 * collector.h - process-wide state of libcollector.so: lazy idempotent
 * initialisation, the PA_* environment contract, and the end of collection.
 *
 * Environment (set by `collect` for the target):
 *   PA_EXPERIMENT=/abs/dir.er   the experiment directory (unset: dormant)
 *   PA_TARGET_PID=<pid>         only this pid collects; others stay dormant
 *   PA_PARAMS=p=<us>;d=<depth>;t=<start_s>:<end_s>;H=1;F=<0|1|2>
 *                               (H=1: heap tracing; F: follow descendants)
 *   PA_FOLLOW=<regex>            (F=2: which descendants to follow)
 *   PA_LINEAGE=<pid>:<lineage>   (kept by every process: lineage.h)
 * In a dormant process every interposer passes straight through.
 *
 * col_init may be called from any interposer and from the constructor; it is
 * not signal-safe.  The getters are SIGNAL_SAFE.
 */
#ifndef COLLECTOR_COLLECTOR_H
#define COLLECTOR_COLLECTOR_H

#include <pthread.h>
#include <signal.h>
#include <stdint.h>

#include "collector/blockw.h"

/* The real functions behind the interposers, resolved at init. */
struct col_real {
	int (*pthread_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
	int (*sigaction)(int, const struct sigaction *, struct sigaction *);
	__sighandler_t (*signal)(int, __sighandler_t);
	int (*sigprocmask)(int, const sigset_t *, sigset_t *);
	int (*pthread_sigmask)(int, const sigset_t *, sigset_t *);
	void (*exit_)(int);
	void (*exit)(int);
	void (*Exit_)(int);
	void *(*dlopen)(const char *, int);
	int (*dlclose)(void *);
};

/* What this process collects; filled once by col_init. */
struct col_config {
	uint32_t owner_pid;
	uint64_t start_ns;        /* CLOCK_MONOTONIC at init */
	uint32_t interval_us;     /* 0: clock profiling off */
	uint32_t depth_limit;     /* frames, [1, 6000] */
	uint64_t window_start_ns; /* collect only in [start, end) after start_ns */
	uint64_t window_end_ns;   /* 0: no end */
	int heap_on;              /* H=1: heap tracing (libcollector-heap.so calls in) */
	uint64_t heap_step_ns;    /* between the heap stream's time marks (heapstream_time_step_ns) */
	int follow;               /* F=: enum lineage_follow */
	char dir[PATH_MAX - 64];
	int64_t fault_blocks; /* PA_FAULT_BLOCKS: blocks a process may claim, then ENOSPC; < 0 no limit */
	struct blockw_health health; /* shared by the four files below */
	struct blockw_file profile, stacks, overview, heap;
};

/* Counters reported in <collector_end>. */
struct col_counters {
	_Atomic uint64_t samples;
	_Atomic uint64_t
		signals; /* sampling signals of live threads while collecting: samples + coalesced + dropped + lost */
	_Atomic uint64_t deferred;      /* samples taken when the collector's own code returned */
	_Atomic uint64_t coalesced;     /* signals folded into such a sample (several arrived) */
	_Atomic uint64_t dropped_busy;  /* samples lost: the thread was in collector code that cannot defer */
	_Atomic uint64_t dropped_other; /* samples lost: a record too big for a block */
	_Atomic uint64_t lost_samples;  /* samples lost after the data files stopped (health) */
	_Atomic uint64_t lost_sample_ns;  /* ... and the CPU time they stood for */
	_Atomic uint64_t lost_records;    /* thread and sample-point records lost so */
	_Atomic uint64_t timer_failures;  /* threads left without a timer */
	_Atomic uint64_t timer_fallbacks; /* threads on a POSIX timer though perf is the mechanism */
	_Atomic uint64_t slot_failures;   /* threads not followed: slot table full */
	_Atomic uint64_t heap_records;    /* heap calls recorded */
	_Atomic uint64_t heap_dropped;    /* heap calls lost: no block (the data files stopped) */
	_Atomic uint64_t heap_stackless;  /* heap calls recorded without their stack */
};

/* Initialise once (any thread; recursion-safe). */
void col_init(void);

const struct col_real *col_real(void);
struct col_config *col_config(void);
struct col_counters *col_counters(void);

/* 1 while this process is the experiment's owner and has not finished. SIGNAL_SAFE. */
int col_collecting(void);
/* 1 in the owner process once our sampling signal handler is installed (forks keep it). */
int col_signals_owned(void);

/* CLOCK_MONOTONIC and this thread's CPU clock in ns. SIGNAL_SAFE. */
uint64_t col_now_ns(void);
/*
 * The time of the latest load or unload map.xml records (0: none yet), and
 * recording one: a heap call after it gets an exact time mark, so that the
 * reader pins its frames to the objects mapped then. SIGNAL_SAFE.
 */
uint64_t col_map_change_ns(void);
void col_map_changed(uint64_t now_ns);
/* The next number of the process-wide order of heap calls (1, 2, ...). SIGNAL_SAFE. */
uint64_t col_heap_stamp(void);
uint64_t col_thread_cpu_ns(void);
uint32_t col_gettid(void);

/* End collection: stop sampling, thread ends, <collector_end>. Idempotent. */
void col_finish(void);

/*
 * The process is about to exec path: end this image's recording (its
 * experiment is closed; the new image records in a subexperiment of its
 * own).  A path that cannot be executed changes nothing.
 */
void col_before_exec(const char *path);

/* In the child of clone(2) without CLONE_VM: start over as a descendant (_C<n>). */
void col_clone_child(void);

#endif
