/*
 * samples.h - sample points (overview file, EXP_REC_SAMPLE_POINT) and
 * pause/resume: at the start and end of collection, every collect -S
 * period (a POSIX timer on CLOCK_MONOTONIC whose signal is the sampling
 * signal, told apart by its cookie), on collect -l's signal, and from the
 * collector API (collector_sample, collector_pause, collector_resume).
 * collect -y's signal toggles pause and resume.
 *
 * collect -S's points are written by whichever thread takes a clock-profiling
 * sample once a period has passed (samples_tick, from the sampling signal's
 * handler): the collector neither wakes the program's threads for them nor
 * runs a thread of its own (which would keep alive a process whose threads
 * all ended with pthread_exit or a raw clone child's exit).  So a process
 * that only sleeps, or runs with clock profiling off, gets its periodic
 * points only when it next uses CPU; one point stands for the periods missed.
 *
 * A point records the process's rusage.  Points are written one at a time
 * under a spin flag: a signal handler that finds it taken drops its point
 * and counts it (lost_records).
 *
 * The -l and -y signals stay the program's: the collector's handler acts on
 * a signal sent by kill (si_code SI_USER, as gprofng) and then calls the
 * program's handler if it has one; a signal sent otherwise (raise,
 * pthread_kill, the kernel) goes only to the program's handler, and is
 * ignored when the program has none.  signals.c routes the program's
 * sigaction and signal calls for those two signals here.
 */
#ifndef COLLECTOR_SAMPLES_H
#define COLLECTOR_SAMPLES_H

#include <signal.h>
#include <stddef.h>

/*
 * Start the sample points of this process (after the data files exist):
 * point 0, the -S schedule, the -l/-y handlers, the initial pause of
 * -y SIG,p.  Not signal-safe.
 */
void samples_start(void);

/* End: stop the -S schedule and write the END point.  Not signal-safe. */
void samples_finish(void);

/*
 * Write a point now: reason (enum exp_sample_reason), label (len bytes, cut
 * to EXP_SAMPLE_LABEL_MAX).  in_signal: called from a signal handler (drop
 * rather than wait).  0, or -ESRCH when not collecting, -EBUSY when dropped,
 * -errno of the block writer.  SIGNAL_SAFE.
 */
int samples_point(unsigned reason, const char *label, size_t len, int in_signal);

/* Pause (1) or resume (0), recording the point; who: "API" or "signal". SIGNAL_SAFE. */
void samples_pause(int paused, const char *who, int in_signal);

/* After a clock-profiling sample: write the -S point if one is due. SIGNAL_SAFE. */
void samples_tick(void);

/* 1 if the program's sigaction/signal for sig go through samples_sigaction. */
int samples_owns_signal(int sig);

/* The program's view of its disposition of a -l or -y signal. */
int samples_sigaction(int sig, const struct sigaction *act, struct sigaction *old);

#endif
