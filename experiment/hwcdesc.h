/*
 * hwcdesc.h - a counter of counter overflow profiling (collect -h) as collect
 * hands it to the collector: the perf_event_attr fields libpfm4 gave, the
 * interval and the name.  PA_PARAMS carries them (";h=N;hK=...", written
 * and read by experiment/params.h); the collector turns each into the
 * perf_event_attr it opens, and collect probes the same attr, so that the
 * two cannot drift (tests/unit/test_hwcdesc.c).  No allocation, libc only;
 * hwcdesc_attr is SIGNAL_SAFE.
 */
#ifndef EXPERIMENT_HWCDESC_H
#define EXPERIMENT_HWCDESC_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

#include "experiment/format.h"

struct hwcdesc {
	uint32_t type; /* perf_event_attr fields */
	uint64_t config, config1, config2;
	int exclude_kernel;
	int precise;       /* precise_ip, 0..3 */
	uint64_t interval; /* sample_period: events per overflow, >= 1 */
	char name[64];     /* as given to collect; no ';' */
};

/* The perf_event_attr to open c with: sampling every interval, disabled, a wakeup per overflow. */
void hwcdesc_attr(const struct hwcdesc *c, struct perf_event_attr *ret);

#endif
