/*
 * sysinfo.c - host facts for log.xml <host> and collect's dry run: uname,
 * sysconf, /proc/cpuinfo's "cpu MHz", the kernel's CONFIG_HZ.  No printing,
 * no static state.
 */
#include "experiment/sysinfo.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define READ_CAP_BYTES (1u << 20) /* /proc/cpuinfo on a big machine; .config ~250 KB */

/* Read up to READ_CAP_BYTES of PATH into a malloc'd NUL-terminated buffer. */
static int read_text(const char *path, char **ret_text)
{
	FILE *f = fopen(path, "re");
	char *buf;
	size_t n;

	if (!f)
		return -errno;
	buf = malloc(READ_CAP_BYTES + 1);
	if (!buf) {
		fclose(f);
		return -ENOMEM;
	}
	n = fread(buf, 1, READ_CAP_BYTES, f);
	if (ferror(f)) {
		int e = errno ? errno : EIO;
		fclose(f);
		free(buf);
		return -e;
	}
	fclose(f);
	buf[n] = '\0';
	*ret_text = buf;
	return 0;
}

static void copy_field(char *dst, size_t room, const char *src)
{
	snprintf(dst, room, "%s", src);
}

int sysinfo_host_read(struct sysinfo_host *ret)
{
	struct utsname u;
	char *text = NULL;
	int rc = 0;

	memset(ret, 0, sizeof *ret);
	if (uname(&u) == 0) {
		copy_field(ret->nodename, sizeof ret->nodename, u.nodename);
		copy_field(ret->sysname, sizeof ret->sysname, u.sysname);
		copy_field(ret->release, sizeof ret->release, u.release);
		copy_field(ret->machine, sizeof ret->machine, u.machine);
	} else {
		rc = -errno;
	}
	ret->cpus_count = sysconf(_SC_NPROCESSORS_ONLN);
	ret->pagesize_bytes = sysconf(_SC_PAGESIZE);
	ret->pages_count = sysconf(_SC_PHYS_PAGES);
	if (ret->cpus_count < 0)
		ret->cpus_count = 0;
	if (ret->pagesize_bytes < 0)
		ret->pagesize_bytes = 0;
	if (ret->pages_count < 0)
		ret->pages_count = 0;
	if (read_text("/proc/cpuinfo", &text) == 0) {
		ret->clock_mhz = sysinfo_parse_cpu_mhz(text);
		free(text);
	}
	return rc;
}

long sysinfo_parse_cpu_mhz(const char *text)
{
	const char *p = text;

	while (p && *p) {
		const char *eol = strchr(p, '\n');
		if (strncmp(p, "cpu MHz", 7) == 0) {
			const char *q = p + 7;
			while (*q == ' ' || *q == '\t')
				q++;
			if (*q == ':') {
				char *end;
				long v;
				q++;
				errno = 0;
				v = strtol(q, &end, 10);
				if (end != q && errno == 0 && v > 0)
					return v;
			}
			return 0;
		}
		p = eol ? eol + 1 : NULL;
	}
	return 0;
}

long sysinfo_parse_config_hz(const char *text)
{
	const char *p = text;

	while (p && *p) {
		const char *eol = strchr(p, '\n');
		if (strncmp(p, "CONFIG_HZ=", 10) == 0) {
			const char *q = p + 10;
			char *end;
			long v;
			errno = 0;
			v = strtol(q, &end, 10);
			if (end == q || errno || v <= 0 ||
			    (*end && *end != '\n' && !isspace((unsigned char)*end)))
				return -ENOENT;
			return v;
		}
		p = eol ? eol + 1 : NULL;
	}
	return -ENOENT;
}

long sysinfo_config_hz_from_boot(const char *release)
{
	char path[128];
	char *text = NULL;
	long hz;
	int rc, n;

	n = snprintf(path, sizeof path, "/boot/config-%s", release ? release : "");
	if (!release || !*release || n < 0 || (size_t)n >= sizeof path)
		return -EINVAL;
	rc = read_text(path, &text);
	if (rc < 0)
		return rc;
	hz = sysinfo_parse_config_hz(text);
	free(text);
	return hz;
}

long sysinfo_tick_hz(void)
{
	struct timespec res;
	long long ns;

	if (clock_getres(CLOCK_MONOTONIC_COARSE, &res) < 0)
		return -errno;
	ns = (long long)res.tv_sec * 1000000000LL + res.tv_nsec;
	/* a jiffy is 1..10 ms for every supported CONFIG_HZ (100..1000) */
	if (ns < 1000000 || ns > 10000000)
		return -ENOTSUP;
	return (long)((1000000000LL + ns / 2) / ns);
}
