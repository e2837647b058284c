/*
 * loghead.h - the text of log.xml's head and tail and of map.xml's root tags
 * (docs/experiment-format.md), shared by the two writers of experiments:
 * collect, for the founder process, and the collector in a descendant
 * process, which writes its own subexperiment from start to end.
 *
 * Everything is built into a caller's struct xmlw (experiment/xmlw.h): no
 * allocation, no stdio, so the collector may call it in a fork child.
 * Strings from the system (paths, arguments) are written UTF-8-clean.
 */
#ifndef EXPERIMENT_LOGHEAD_H
#define EXPERIMENT_LOGHEAD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>

#include "experiment/xmlw.h"

struct sysinfo_host;

/* What log.xml's head records, up to and including <start/>. */
struct loghead {
	const char *target_path; /* absolute path of the program */
	char *const *argv;       /* NULL-terminated; may be NULL (no arguments known) */
	const struct sysinfo_host *host;
	const char *cwd;
	int clock_on;
	long clock_interval_us;
	const char *duration; /* "START:END" in seconds, or "" */
	int depth_limit;
	const char *descriptor; /* PA_PARAMS */
	const char *sample;     /* -S value, or NULL (no attribute) */
	int heap_on;            /* -H on: heap="on" */
	int io_on;              /* -i on: io="on" */
	const char *follow;     /* -F value (on, off, all, =regex), or NULL (no attribute) */
	const char *const *comments;
	int comment_count;
	const char *lineage; /* NULL or "": the founder; else the subexperiment's lineage, "_f1_x1" */
	const char *origin;  /* how a descendant began: "fork", "exec", "clone", "spawn" */
	uint64_t start_ns;   /* CLOCK_MONOTONIC */
	uint64_t start_realtime_ns;
};

/* Bytes a head needs at most (every byte escaped), including the NUL. */
size_t loghead_room(const struct loghead *h);

/* Append log.xml's head: the XML declaration, <experiment>, ... <start/>. */
void loghead_format(struct xmlw *w, const struct loghead *h);

/* map.xml's first lines and its last line. */
extern const char loghead_map_head[];
extern const char loghead_map_tail[];

/* Append `  <NAME utime_ns=.. stime_ns=.. maxrss_kb=.. .../>` from ru. */
void loghead_rusage(struct xmlw *w, const char *name, const struct rusage *ru);

/*
 * Append `  <exit .../>` for a wait(2) status: signal, signame and core for
 * a process killed by a signal, else status (the exit status).
 */
void loghead_exit(struct xmlw *w, uint64_t tstamp_ns, int wait_status);

/* Append `  <end tstamp_ns=".."/>` and `</experiment>`. */
void loghead_end(struct xmlw *w, uint64_t tstamp_ns);

#endif
