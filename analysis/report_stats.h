/*
 * report_stats.h - the statistics report's model (er_print `statistics`,
 * the analyzer, `printmode json`): per experiment, its duration, thread
 * time, process times and resource-usage counters, the CPU time clock
 * profiling recorded and the samples recorded and dropped, and a note when
 * the recorded CPU falls short of the process times; summed over the
 * selected experiments.  Renderers print it; nothing here prints.
 */
#ifndef ANALYSIS_REPORT_STATS_H
#define ANALYSIS_REPORT_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/profile.h"
#include "experiment/format.h"

/* Where the process times and counters come from. */
enum report_usage_source {
	REPORT_USAGE_NONE,   /* nothing recorded */
	REPORT_USAGE_RUSAGE, /* wait4's resource usage at exit (includes descendants) */
	REPORT_USAGE_SAMPLE, /* the last overview sample (no resource usage at exit) */
	REPORT_USAGE_OWN,    /* this process's own overview samples (its descendants are separate) */
};

struct report_stats {
	uint64_t duration_ns, thread_ns, user_ns, sys_ns;
	uint64_t minflt, majflt, nswap, inblock, oublock, msgsnd, msgrcv, nsignals, nvcsw, nivcsw;
	uint64_t cpu_recorded_ns; /* over the selected threads */
	/*
	 * User Lock: the synchronization waits recorded (collect -s) of the
	 * selected threads, over the threshold; 0 without sync data.  On Linux
	 * there are no microstates (the manual's clock-profiling note), so this
	 * is the one source of the figure; it is taken out of Sleep.
	 */
	uint64_t lock_ns;
	/*
	 * Wait CPU: the selected threads' time runnable but waiting for a CPU
	 * (the run queue, /proc schedstat at each thread's end; format 1.9), the
	 * whole life of each; has_wait 0 when no thread carried it (older
	 * experiments, collect -t, kernels without schedstats) or when samples
	 * or a time range are selected (it does not fit them).  Taken out of
	 * Sleep.
	 */
	uint64_t wait_ns;
	int has_wait;
	uint64_t samples_recorded, samples_dropped;
	int samples_counted; /* the collector did not report: counted in the data */
	int finished;        /* an exit was recorded */
	enum report_usage_source usage;
	/*
	 * sample_select: the selected samples' span (relative ns) and the labels
	 * of the points that open the first and close the last ("Total" and the
	 * whole run without a sample selection).  With one, the duration, thread
	 * time, process times and counters are those of the selected samples
	 * (the counters summed over them), and the recorded CPU that of the
	 * events inside them.
	 */
	int by_samples;
	uint64_t start_ns, end_ns;
	char start_label[EXP_SAMPLE_LABEL_MAX + 1], end_label[EXP_SAMPLE_LABEL_MAX + 1];
	char note[256]; /* why the recorded CPU falls short of the process times, or "" */
};

/* The statistics of experiment xi of p (after profile_compute). */
void report_stats_of(const struct profile *p, size_t xi, struct report_stats *ret);

/* Add s into sum (the duration is the longest; the note and usage are not summed). */
void report_stats_add(struct report_stats *sum, const struct report_stats *s);

/* Wall time of the threads neither on a CPU nor in a recorded lock wait (Linux has no Solaris microstates). */
uint64_t report_stats_sleep_ns(const struct report_stats *s);

/*
 * The counters shown after the process times, in gprofng's order: up to
 * REPORT_STATS_COUNTS labels and values (the last two, system calls and
 * characters of I/O, are not recorded on Linux: 0).  Returns their number.
 */
#define REPORT_STATS_COUNTS 12
size_t report_stats_counts(const struct report_stats *s, const char **labels, uint64_t *vals);

#endif
