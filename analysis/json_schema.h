/*
 * json_schema.h - the one JSON rendering of the library's models, on
 * common/jsonw: what `er_print -printmode json` prints for header,
 * statistics, experiment_list, thread_list and the heap, sync and I/O
 * stacks' frames, and what the analyzer's /api/overview, /api/threads,
 * /api/experiments and stack replies hold.  Each function writes keys into
 * an object the caller has opened (a front end adds its own keys beside
 * them, never the same field under another key), or one keyed value.
 * docs/json-schema.md documents every key; JSON_SCHEMA_VERSION is its
 * version (minor: keys added; major: a key renamed, removed or retyped).
 * Times are in ns, sizes in bytes; nothing here allocates or prints.
 */
#ifndef ANALYSIS_JSON_SCHEMA_H
#define ANALYSIS_JSON_SCHEMA_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/profile.h"
#include "analysis/report_info.h"
#include "analysis/report_stats.h"

#define JSON_SCHEMA_VERSION "1.0"

struct jsonw;
struct experiment;

/*
 * How a front end names a function (its name options: er_print's
 * `name_style`, `soname`): the name in buf (room bytes), returned.  NULL:
 * json_func_name's, the name with its symbol version where the listing
 * needs one.
 */
struct json_names {
	const char *(*func)(void *ctx, const struct pfunc *f, char *buf, size_t room);
	void *ctx;
};

/* The name with its version where another function of the listing has that name. */
const char *json_func_name(const struct pfunc *f, char *buf, size_t room);

/* The header of experiment x: "experiment" (its path) ... "complete" (docs/json-schema.md#header). */
void json_header_fields(struct jsonw *w, const struct experiment *x);

/* "ending": how the process ended, an object with "how" and its details; then the header's warnings' counts. */
void json_ending_fields(struct jsonw *w, const struct experiment *x);

/* One experiment's statistics, or their sum: "duration_ns" ... "note". */
void json_stats_fields(struct jsonw *w, const struct report_stats *s);

/* Experiment i of p as experiment_list has it: "id" (1-based), "experiment", "selected" ... "argv". */
void json_experiment_fields(struct jsonw *w, const struct profile *p, size_t i);

/* Thread r of experiment xi (0-based) as an object: "experiment_id", "thread", "tid" ... "samples". */
void json_thread(struct jsonw *w, size_t xi, const struct report_thread *r, const struct json_names *names);

/*
 * "frames": stack s of experiment x, leaf first, each {"function", "offset"
 * (from the function's start, or the object's when the PC is in no
 * function of it), "file", "line" (where known)}; with_ids: also "func",
 * the function's id in p (the analyzer's follow-up requests name it).
 * -errno if the stack cannot be read (the key then holds an empty array).
 */
int json_frames(struct jsonw *w, struct profile *p, size_t x, uint32_t s, const struct json_names *names,
		int with_ids);

#endif
