/*
 * hwcdesc.h - a counter of counter overflow profiling (collect -h) as collect
 * hands it to the collector: the perf_event_attr fields libpfm4 gave, the
 * interval and the name, written into PA_PARAMS by collect
 * (";h=N;hK=type:config:config1:config2:exclude_kernel:precise:interval:name")
 * and read back by the collector, which turns each into the
 * perf_event_attr it opens.  Shared so that writer and reader cannot drift
 * (tests/unit/test_hwcdesc.c).  No allocation, libc only; hwcdesc_parse and
 * hwcdesc_attr are SIGNAL_SAFE.
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

/*
 * Append ";h=N" and each counter's ";hK=..." to the NUL-terminated
 * descriptor in buf (room bytes in all).  0, or -ENOSPC (buf unchanged
 * then), -EINVAL for more than EXP_HWC_MAX_COUNTERS counters or a name
 * with ';'.
 */
int hwcdesc_format(const struct hwcdesc *c, size_t n, char *buf, size_t room);

/*
 * The counters of a PA_PARAMS descriptor (NULL: none) into ret (room for
 * EXP_HWC_MAX_COUNTERS): h=N, then h0= .. h(N-1)= in order; the first one
 * missing or malformed ends the list.  Returns how many.
 */
size_t hwcdesc_parse(const char *params, struct hwcdesc *ret);

/* The perf_event_attr to open c with: sampling every interval, disabled, a wakeup per overflow. */
void hwcdesc_attr(const struct hwcdesc *c, struct perf_event_attr *ret);

#endif
