/*
 * probe.c - probe perf_event_open events and the kernel tick rate for
 * collect's summary, -h listing and dry run.  Each perf event is opened on
 * the calling thread, user space only, and closed at once.
 */
#include "collect/probe.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "experiment/sysinfo.h"

#define CONFIG_CAP_BYTES (4u << 20)

/* 0 if the event opens, else the errno of perf_event_open. */
static int try_event(unsigned type, unsigned long long config)
{
	struct perf_event_attr a;
	long fd;

	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = type;
	a.config = config;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0UL);
	if (fd < 0)
		return errno;
	close((int)fd);
	return 0;
}

static void append(char *buf, size_t room, size_t *len, const char *word)
{
	int n = snprintf(buf + *len, room - *len, "%s%s", *len ? " " : "", word);
	if (n > 0 && (size_t)n < room - *len)
		*len += (size_t)n;
}

void probe_perf(struct probe_result *r)
{
	static const struct {
		const char *name;
		unsigned long long config;
	} sw[] = {
		{"task-clock", PERF_COUNT_SW_TASK_CLOCK},
		{"cpu-clock", PERF_COUNT_SW_CPU_CLOCK},
		{"page-faults", PERF_COUNT_SW_PAGE_FAULTS},
		{"context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES},
	};
	static const struct {
		const char *name;
		unsigned long long config;
	} hw[] = {
		{"cycles", PERF_COUNT_HW_CPU_CYCLES},
		{"instructions", PERF_COUNT_HW_INSTRUCTIONS},
		{"cache-references", PERF_COUNT_HW_CACHE_REFERENCES},
		{"cache-misses", PERF_COUNT_HW_CACHE_MISSES},
		{"branch-instructions", PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
		{"branch-misses", PERF_COUNT_HW_BRANCH_MISSES},
	};
	size_t len = 0;

	r->hwc_errno = try_event(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	r->hwc_ok = r->hwc_errno == 0;
	r->hardware[0] = '\0';
	for (size_t i = 0; r->hwc_ok && i < sizeof hw / sizeof hw[0]; i++)
		if (try_event(PERF_TYPE_HARDWARE, hw[i].config) == 0)
			append(r->hardware, sizeof r->hardware, &len, hw[i].name);
	len = 0;
	r->software[0] = '\0';
	for (size_t i = 0; i < sizeof sw / sizeof sw[0]; i++)
		if (try_event(PERF_TYPE_SOFTWARE, sw[i].config) == 0)
			append(r->software, sizeof r->software, &len, sw[i].name);
}

/* CONFIG_HZ from /proc/config.gz, or -errno. */
static long hz_from_proc_config(void)
{
	FILE *f;
	char *buf;
	size_t n;
	long hz;

	if (access("/proc/config.gz", R_OK) != 0)
		return -errno;
	f = popen("gzip -dc /proc/config.gz 2>/dev/null", "r");
	if (!f)
		return -errno;
	buf = malloc(CONFIG_CAP_BYTES + 1);
	if (!buf) {
		pclose(f);
		return -ENOMEM;
	}
	n = fread(buf, 1, CONFIG_CAP_BYTES, f);
	buf[n] = '\0';
	pclose(f);
	hz = sysinfo_parse_config_hz(buf);
	free(buf);
	return hz;
}

void probe_hz(struct probe_result *r, const char *release)
{
	long hz;

	r->hz = 0;
	r->hz_source = "";
	hz = hz_from_proc_config();
	if (hz > 0) {
		r->hz = hz;
		r->hz_source = "/proc/config.gz";
		return;
	}
	hz = sysinfo_config_hz_from_boot(release);
	if (hz > 0) {
		r->hz = hz;
		r->hz_source = "/boot/config";
		return;
	}
	hz = sysinfo_tick_hz();
	if (hz > 0) {
		r->hz = hz;
		r->hz_source = "CLOCK_MONOTONIC_COARSE resolution";
	}
}
