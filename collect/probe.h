/*
 * probe.h - what this system supports for profiling, for collect's summary,
 * -h listing and dry run: perf_event_open hardware and software events, and
 * the kernel tick rate (CONFIG_HZ), which caps per-thread CPU-time timers at
 * HZ expirations per second.
 *
 * Not thread-safe (the HZ probe runs gzip through popen).  No printing.
 */
#ifndef COLLECT_PROBE_H
#define COLLECT_PROBE_H

#include <stddef.h>

struct probe_result {
	int hwc_ok;            /* PERF_COUNT_HW_CPU_CYCLES opens for this thread */
	int hwc_errno;         /* why not, when !hwc_ok */
	char hardware[160];    /* space-separated generic hardware events that open */
	char software[128];    /* space-separated names of software events that open */
	long hz;               /* kernel tick rate, 0 = unknown */
	const char *hz_source; /* where hz came from, "" when unknown */
};

/* Probe hardware and software perf events (fills hwc_* and software). */
void probe_perf(struct probe_result *r);

/*
 * Find the kernel tick rate: CONFIG_HZ from /proc/config.gz (through
 * gzip -dc) or /boot/config-RELEASE, else the resolution of
 * CLOCK_MONOTONIC_COARSE (one jiffy).  Fills hz and hz_source.
 */
void probe_hz(struct probe_result *r, const char *release);

#endif
