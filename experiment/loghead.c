/*
 * loghead.c - log.xml head and tail, map.xml root tags (see loghead.h).
 */
#include "experiment/loghead.h"

#include <string.h>
#include <sys/wait.h>

#include "experiment/format.h"
#include "experiment/sysinfo.h"

#define STR_(x) #x
#define STR(x) STR_(x)
#define FORMAT_VERSION STR(EXP_FORMAT_VERSION_MAJOR) "." STR(EXP_FORMAT_VERSION_MINOR)

const char loghead_map_head[] = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
				"<map version=\"" FORMAT_VERSION "\">\n";
const char loghead_map_tail[] = "</map>\n";

static size_t len_or0(const char *s)
{
	return s ? strlen(s) : 0;
}

size_t loghead_room(const struct loghead *h)
{
	size_t n = len_or0(h->target_path) + len_or0(h->cwd) + len_or0(h->descriptor) + len_or0(h->duration) +
		   len_or0(h->sample) + len_or0(h->follow) + len_or0(h->lineage) + 1024;
	for (char *const *a = h->argv; a && *a; a++)
		n += strlen(*a) + 16;
	for (int i = 0; i < h->comment_count; i++)
		n += strlen(h->comments[i]) + 32;
	return n * 6 + 4096; /* worst case: every byte escaped as &quot; */
}

void loghead_format(struct xmlw *w, const struct loghead *h)
{
	xmlw_raw(w, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	xmlw_raw(w, "<experiment version=\"" FORMAT_VERSION "\">\n");
	xmlw_raw(w, "  <collector");
	xmlw_attr(w, "version", PA_VERSION);
	xmlw_raw(w, "/>\n  <target");
	xmlw_attr_utf8(w, "path", h->target_path);
	xmlw_raw(w, ">");
	for (char *const *a = h->argv; a && *a; a++) {
		xmlw_raw(w, "<arg>");
		xmlw_text_utf8(w, *a);
		xmlw_raw(w, "</arg>");
	}
	xmlw_raw(w, "</target>\n  <host");
	xmlw_attr_utf8(w, "name", h->host->nodename);
	xmlw_attr_utf8(w, "os", h->host->sysname);
	xmlw_attr_utf8(w, "release", h->host->release);
	xmlw_attr_utf8(w, "arch", h->host->machine);
	xmlw_attr_i64(w, "cpus", h->host->cpus_count);
	xmlw_attr_i64(w, "pagesize", h->host->pagesize_bytes);
	xmlw_attr_i64(w, "pages", h->host->pages_count);
	xmlw_attr_i64(w, "clock_mhz", h->host->clock_mhz);
	xmlw_raw(w, "/>\n  <process");
	xmlw_attr_utf8(w, "cwd", h->cwd);
	xmlw_attr_u64(w, "wordsize", sizeof(void *) * 8);
	if (h->lineage && h->lineage[0]) {
		xmlw_attr(w, "lineage", h->lineage);
		xmlw_attr(w, "origin", h->origin ? h->origin : "");
	}
	xmlw_raw(w, "/>\n  <params");
	xmlw_attr(w, "clock", h->clock_on ? "on" : "off");
	xmlw_attr_i64(w, "clock_interval_us", h->clock_on ? h->clock_interval_us : 0);
	xmlw_attr_utf8(w, "duration", h->duration);
	xmlw_attr_i64(w, "depth_limit", h->depth_limit);
	xmlw_attr_utf8(w, "descriptor", h->descriptor);
	if (h->sample)
		xmlw_attr_utf8(w, "sample", h->sample);
	if (h->heap_on)
		xmlw_attr(w, "heap", "on");
	if (h->io_on)
		xmlw_attr(w, "io", "on");
	if (h->follow)
		xmlw_attr_utf8(w, "follow", h->follow);
	xmlw_raw(w, "/>\n");
	for (int i = 0; i < h->comment_count; i++) {
		xmlw_raw(w, "  <comment>");
		xmlw_text_utf8(w, h->comments[i]);
		xmlw_raw(w, "</comment>\n");
	}
	xmlw_raw(w, "  <start");
	xmlw_attr_u64(w, "tstamp_ns", h->start_ns);
	xmlw_attr_u64(w, "realtime_ns", h->start_realtime_ns);
	xmlw_raw(w, "/>\n");
}

static uint64_t tv_ns(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000000u + (uint64_t)tv.tv_usec * 1000u;
}

void loghead_rusage(struct xmlw *w, const char *name, const struct rusage *ru)
{
	xmlw_raw(w, "  <");
	xmlw_raw(w, name);
	xmlw_attr_u64(w, "utime_ns", tv_ns(ru->ru_utime));
	xmlw_attr_u64(w, "stime_ns", tv_ns(ru->ru_stime));
	xmlw_attr_i64(w, "maxrss_kb", ru->ru_maxrss);
	xmlw_attr_i64(w, "minflt", ru->ru_minflt);
	xmlw_attr_i64(w, "majflt", ru->ru_majflt);
	xmlw_attr_i64(w, "inblock", ru->ru_inblock);
	xmlw_attr_i64(w, "oublock", ru->ru_oublock);
	xmlw_attr_i64(w, "nvcsw", ru->ru_nvcsw);
	xmlw_attr_i64(w, "nivcsw", ru->ru_nivcsw);
	xmlw_raw(w, "/>\n");
}

void loghead_exit(struct xmlw *w, uint64_t tstamp_ns, int st)
{
	xmlw_raw(w, "  <exit");
	xmlw_attr_u64(w, "tstamp_ns", tstamp_ns);
	if (WIFSIGNALED(st)) {
		const char *abbrev = sigabbrev_np(WTERMSIG(st));
		xmlw_attr_i64(w, "signal", WTERMSIG(st));
		xmlw_raw(w, " signame=\"SIG");
		xmlw_text(w, abbrev ? abbrev : "UNKNOWN");
		xmlw_raw(w, "\"");
		xmlw_attr_i64(w, "core", WCOREDUMP(st) ? 1 : 0);
	} else {
		xmlw_attr_i64(w, "status", WIFEXITED(st) ? WEXITSTATUS(st) : st);
	}
	xmlw_raw(w, "/>\n");
}

void loghead_end(struct xmlw *w, uint64_t tstamp_ns)
{
	xmlw_raw(w, "  <end");
	xmlw_attr_u64(w, "tstamp_ns", tstamp_ns);
	xmlw_raw(w, "/>\n</experiment>\n");
}
