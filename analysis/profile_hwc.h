/*
 * profile_hwc.h - counter overflow profiling (collect -h) as metrics: one
 * metric per counter, named after it as given to collect (`insts`,
 * `page-faults`; a ':' of a libpfm4 name becomes '_', since ':' separates
 * metric lists), worth overflows x interval: a count of events, or time
 * for the nanosecond counters (task-clock, cpu-clock).  Counters are known
 * only when an experiment is read, so each distinct name becomes a metric
 * source of its own as experiments are added (the counter module of
 * profile_internal.h); experiments that recorded the same counter share
 * its metric.  Besides: per cycles counter KEYWORD_time, its cycles as time
 * (x 1000 / the experiment's clock_mhz ns; none where that is unknown), and
 * when an experiment has a cycles and an instructions counter the derived
 * ratios IPC and CPI (metric_def.ratio_num/ratio_den, computed by
 * profile_compute, not charged).
 */
#ifndef ANALYSIS_PROFILE_HWC_H
#define ANALYSIS_PROFILE_HWC_H

#include "analysis/experiment.h"
#include "analysis/profile.h"

/*
 * The default metric list `base` (an MSPEC_DEFAULT_*_METRICS list) with
 * e. and i. of every counter metric after its CPU columns, or base itself
 * when p has no counter data.  The string stays valid until the next
 * call or profile_add_experiment.
 */
const char *profile_hwc_default_metrics(const struct profile *p, const char *base);

/*
 * The default sort: base (MSPEC_DEFAULT_SORT), or the first counter's
 * exclusive metric when p has counter data and no experiment had clock
 * profiling on (collect -h without -p: every CPU time is 0).
 */
const char *profile_hwc_default_sort(const struct profile *p, const char *base);

#endif
