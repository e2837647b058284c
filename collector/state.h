/*
 * state.h - the process state every collector module reads: the real
 * functions behind the interposers, what this process collects (col_config),
 * the counters of <collector_end>, whether it is collecting, and its clocks.
 * The bottom of the collector: it includes no other collector module but the
 * block writer, so that the modules above it (threads, signals, loadmap,
 * tracers, collector.c) form no include cycle (scripts/layers-check.sh).
 *
 * collector.c fills the state (col_init) and is its only writer, except the
 * counters, which every module adds to.  The getters are SIGNAL_SAFE.
 */
#ifndef COLLECTOR_STATE_H
#define COLLECTOR_STATE_H

#include <limits.h>
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
	int (*pthread_mutex_lock)(pthread_mutex_t *); /* interposed by libcollector-sync.so under -s */
};

/* What this process collects; filled once by col_init (tracers keep their own). */
struct col_config {
	uint32_t owner_pid;
	uint64_t start_ns;        /* CLOCK_MONOTONIC at init */
	uint64_t init_cpu_ns;     /* the initialising thread's CPU clock when col_init began */
	uint32_t interval_us;     /* 0: clock profiling off */
	uint32_t depth_limit;     /* frames, [1, EXP_PARAMS_DEPTH_MAX] */
	uint64_t window_start_ns; /* collect only in [start, end) after start_ns */
	uint64_t window_end_ns;   /* 0: no end */
	int follow;               /* F=: enum lineage_follow */
	uint32_t sample_period_s; /* S=: periodic sample points (collect -S); 0 none */
	int sample_signal;        /* l=: a sample point on this signal (collect -l); 0 none */
	int pause_signal;         /* y=<sig>[p]: pause/resume toggle (collect -y); 0 none */
	int start_paused;         /* y=<sig>p: start paused */
	char dir[PATH_MAX - 64];
	int64_t fault_blocks; /* PA_FAULT_BLOCKS: blocks a process may claim, then ENOSPC; < 0 no limit */
	struct blockw_health health; /* shared by every data file, the tracers' too */
	struct blockw_file profile, stacks, overview;
};

/* Counters reported in <collector_end> (a tracer counts its own records). */
struct col_counters {
	_Atomic uint64_t samples;
	_Atomic uint64_t startup_samples; /* grid points passed before a thread was armed (sampler.h) */
	_Atomic uint64_t end_samples; /* grid points passed that no expiry brought, taken at a thread's end */
	_Atomic uint64_t resyncs;     /* steady events made again on the grid: they had drifted (threads.c) */
	_Atomic uint64_t
		signals; /* sampling signals of live threads while collecting: samples - wait_samples + coalesced + dropped + lost */
	_Atomic uint64_t deferred;      /* samples taken when the collector's own code returned */
	_Atomic uint64_t wait_samples;  /* samples a blocking call took as it returned (no signal) */
	_Atomic uint64_t coalesced;     /* signals folded into such a sample (several arrived) */
	_Atomic uint64_t dropped_busy;  /* samples lost: the thread was in collector code that cannot defer */
	_Atomic uint64_t dropped_other; /* samples lost: a record too big for a block */
	_Atomic uint64_t lost_samples;  /* samples lost after the data files stopped (health) */
	_Atomic uint64_t lost_sample_ns;  /* ... and the CPU time they stood for */
	_Atomic uint64_t lost_records;    /* thread and sample-point records lost so */
	_Atomic uint64_t timer_failures;  /* threads left without a timer */
	_Atomic uint64_t timer_fallbacks; /* threads on a POSIX timer though perf is the mechanism */
	_Atomic uint64_t slot_failures;   /* threads not followed: slot table full */
	_Atomic uint64_t fsize_dropped;   /* XML appends left out: the file size limit (logxml.h) */
};

/* The next definition of name after ours (RTLD_NEXT), of that version if it exists. */
void *col_next_sym(const char *name, const char *version);

/* Resolve the real functions (dlsym RTLD_NEXT); col_init's first step. Not signal-safe. */
void col_resolve_reals(void);

const struct col_real *col_real(void);
struct col_config *col_config(void);
struct col_counters *col_counters(void);

/* 1 while this process is the experiment's owner and has not finished. SIGNAL_SAFE. */
int col_collecting(void);
/* Start (1: collecting, not finished) or stop (0) being the collecting owner. */
void col_set_active(int on);
/* 1 once col_set_active(1) ran and until col_set_active(0), finished or not. */
int col_active(void);
/*
 * 1 in a child of this process made without our interposers (the raw
 * clone or clone3 system call): it inherited the active state, but not as
 * the process that recorded it (col_collecting() is 0 there).  SIGNAL_SAFE.
 */
int col_forked_unseen(void);
/* Mark the collection finished; returns 1 if it already was. SIGNAL_SAFE. */
int col_mark_finished(void);

/*
 * Pause (1) or resume (0) recording (collector_pause, collect -y): while
 * paused no clock sample and no traced call is recorded (thread starts and
 * ends still are).  col_pause_seen: 1 once the process has paused, so that
 * a thread's end charges only the CPU time its samples carry.  SIGNAL_SAFE.
 */
void col_set_paused(int paused);
int col_paused(void);
int col_pause_seen(void);
/*
 * When recording last began (col_now_ns): the latest resume, or the -t
 * window's start, whichever is later; 0 if neither.  A thread's CPU since
 * its previous sample, taken before that, was not recorded: a sample's
 * weight is at most the time since then.  SIGNAL_SAFE.
 */
uint64_t col_recording_since_ns(void);
/* col_collecting() and not paused: traced calls are recorded. SIGNAL_SAFE. */
int col_recording(void);

/* CLOCK_MONOTONIC and this thread's CPU clock in ns; the thread's id. SIGNAL_SAFE. */
uint64_t col_now_ns(void);
uint64_t col_thread_cpu_ns(void);
uint32_t col_gettid(void);

/*
 * The time of the latest load or unload map.xml records (0: none yet), and
 * recording one: a traced call after it gets an exact time mark, so that the
 * reader pins its frames to the objects mapped then. SIGNAL_SAFE.
 */
uint64_t col_map_change_ns(void);
void col_map_changed(uint64_t now_ns);

#endif
