/*
 * hwc.h - collect's counters for counter overflow profiling (-h): the
 * names a user may give (Oracle's aliases such as cycles and insts,
 * perf-style names such as page-faults, and every event libpfm4 knows for
 * the PMUs present), their intervals (on, hi, lo or a number), the
 * perf_event_attr fields each becomes, and the two lists `collect -h`
 * prints.
 *
 * Only collect uses libpfm4: the collector gets each counter's attr fields
 * in PA_PARAMS (hwc_describe) and calls perf_event_open with them.
 * Not thread-safe (libpfm4's tables are initialised once, lazily).
 */
#ifndef COLLECT_HWC_H
#define COLLECT_HWC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "experiment/format.h"

struct hwcdesc;

#define HWC_MAX_COUNTERS EXP_HWC_MAX_COUNTERS

struct hwc_counter {
	char name[64];    /* as given, without :p modifiers: the metric's name (e.insts) */
	char event[192];  /* what it stands for: libpfm4's full event name */
	const char *desc; /* an alias's description ("CPU Cycles"), else NULL */
	const char *unit; /* "CPU-cycles", "events" or "nanoseconds" (shown as time) */
	uint32_t type;    /* perf_event_attr fields */
	uint64_t config, config1, config2;
	int exclude_kernel; /* hardware counters count user mode only, as Oracle's */
	int precise;        /* precise_ip, from :p / :pp / :ppp */
	uint64_t interval;  /* events per overflow */
};

/*
 * Parse -h's value "ctr[,interval][,ctr2[,interval2]]..." into ret (at most
 * max counters), resolving each name (hwc_resolve).  "off" gives 0 counters.
 * Returns the number of counters, or -EINVAL with a message naming the
 * counter and the problem in err.
 */
int hwc_parse(const char *spec, struct hwc_counter *ret, size_t max, char *err, size_t room);

/*
 * Open counter c on the calling thread as the collector will (sampling,
 * disabled) and close it: 0, or -errno with a message in err saying which
 * counter failed and why (no hardware counters on this machine, not
 * permitted, ...).
 */
int hwc_probe(const struct hwc_counter *c, char *err, size_t room);

/* The n counters at c as PA_PARAMS describes them to the collector (experiment/params.h) into ret. */
void hwc_describe(const struct hwc_counter *c, size_t n, struct hwcdesc *ret);

/*
 * Print `collect -h`'s lists, in the manual's format: the aliased counters
 * that open on this machine, then the raw counters (every event of the
 * hardware PMUs libpfm4 finds present, and the perf generic events that
 * open), and a plain sentence when the machine has no hardware counters.
 */
void hwc_print_list(FILE *o);

#endif
