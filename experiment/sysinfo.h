/*
 * sysinfo.h - facts about the host that an experiment records in log.xml
 * <host> and that collect shows in its dry run: uname, CPUs, memory, CPU
 * clock and the kernel's timer frequency (CONFIG_HZ, which caps the rate of
 * per-thread CPU-time timers at HZ expirations per second).
 *
 * Library code: no printing; unknown values are 0 and errors are negative
 * errno values.  Thread-safe (no static state), not async-signal-safe.
 */
#ifndef EXPERIMENT_SYSINFO_H
#define EXPERIMENT_SYSINFO_H

#include <stddef.h>

struct sysinfo_host {
	char nodename[65];
	char sysname[65];
	char release[65];
	char machine[65];
	long cpus_count;     /* online CPUs, sysconf(_SC_NPROCESSORS_ONLN) */
	long pagesize_bytes; /* sysconf(_SC_PAGESIZE) */
	long pages_count;    /* sysconf(_SC_PHYS_PAGES) */
	long clock_mhz;      /* "cpu MHz" of /proc/cpuinfo, truncated; 0 = unknown */
};

/*
 * Fill *ret.  Returns 0, or -errno if uname(2) fails (the other fields are
 * then still filled where possible).
 */
int sysinfo_host_read(struct sysinfo_host *ret);

/*
 * The first "cpu MHz : <number>" line of TEXT (the format of
 * /proc/cpuinfo), truncated to an integer; 0 when there is none.
 */
long sysinfo_parse_cpu_mhz(const char *text);

/*
 * The value of "CONFIG_HZ=<n>" in TEXT (a kernel .config: /boot/config-*,
 * or /proc/config.gz decompressed), or -ENOENT when absent or malformed.
 */
long sysinfo_parse_config_hz(const char *text);

/*
 * CONFIG_HZ from /boot/config-<release> (plain text; /proc/config.gz is
 * compressed and left to the caller).  -errno when unreadable, -ENOENT
 * when the file has no CONFIG_HZ line.
 */
long sysinfo_config_hz_from_boot(const char *release);

/*
 * The kernel tick rate derived from the resolution of
 * CLOCK_MONOTONIC_COARSE (which is one jiffy), or -errno.
 */
long sysinfo_tick_hz(void);

#endif
