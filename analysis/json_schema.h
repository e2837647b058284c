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

#include "analysis/mspec.h"
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

struct heap_summary;
struct report_heap_item;

/* One heap stack of a leaks or allocs list: "count", "bytes" (the list's figures) and json_frames' "frames". */
int json_heap_stack(struct jsonw *w, struct profile *p, const struct report_heap_item *it,
		    const struct json_names *names, int with_ids);

/*
 * The heap's figures (profile_heap_summary): "alloc_count" ... "leak_max_bytes",
 * "alloc_classes" and "leak_classes" ([{"range", "count"}] of the size classes
 * with blocks).
 */
void json_heap_summary_fields(struct jsonw *w, const struct heap_summary *h);

/* "peak": {"experiment_id", "pid", "bytes", "t_ns"} of the heap's peak, or null when it has none. */
void json_heap_peak(struct jsonw *w, const struct heap_summary *h);

/*
 * One column of a metric table: er_print's tables (functions, lines, pcs,
 * objects, callers-callees, csingle, source, disasm, compare) and the
 * analyzer's function list, callers and annotated code.  Written as
 * {"key", "title", "unit", "total" (when the column shows percentages: their
 * 100%), "sort" (the sort column), and in compare "experiment", "side",
 * "compare"}; a metric column's key is "e.totalcpu" ("e.totalcpu#2" on side
 * 2), a text column's its title.
 */
struct json_col {
	const char *title;     /* "Excl. Total CPU", "Size", "PC Addr." */
	const char *keyword;   /* the metric's keyword; NULL: a text column (unit "text") */
	char flavor;           /* 'e', 'i' or 'a' */
	enum metric_unit unit; /* metric columns */
	int show_percent;
	uint64_t total;
	int sort;
	const char *group; /* compare: the experiment (group) shown, on side 1.. */
	int side;
	char compare; /* 'd': values as differences, 'r': as ratios, 0: values */
};

/* A unit's name: "ns", "bytes", "count", "ratio_x1000" (ratios are integers x 1000). */
const char *json_unit_name(enum metric_unit u);

/* The key of column c (buf: room bytes for a metric's). */
const char *json_col_key(const struct json_col *c, char *buf, size_t room);

/*
 * Column c of a list model (report_list's cols) with its total, titled as
 * er_print titles it ("Excl. " and the metric's abbreviation) into title
 * (room bytes); sort is the list's sort item (NULL: none).
 */
void json_list_col(const struct profile *p, const struct mspec_item *c, uint64_t total,
		   const struct mspec_item *sort, struct json_col *ret, char *title, size_t room);

/* The attributed column of metric m of a callers-callees block ("Attr. Total CPU"), total its 100%. */
void json_attr_col(const struct profile *p, int m, uint64_t total, int sort, struct json_col *ret,
		   char *title, size_t room);

/*
 * "columns": cols[0..n) as an array; extra (may be NULL) adds a front end's
 * own keys to column c's object, after the schema's.
 */
void json_columns(struct jsonw *w, const struct json_col *cols, size_t n,
		  void (*extra)(struct jsonw *w, size_t c, void *ctx), void *ctx);

/* One row of a metric table. */
struct json_row {
	const char *section;      /* "section": the block it is in ("Callers", "Callees"), or NULL */
	const uint64_t *vals;     /* per column: a metric column's value */
	const char *const *texts; /* per column: a text column's text (leading blanks dropped), or NULL */
	int blank;                /* no cells (annotated source outside every function) */
	char marker;              /* "marker" when not 0 or ' ': '*' the focus of a callers-callees block */
	int hot;                  /* "hot": a line above the hot threshold (## in the text) */
	const char *name;         /* "name" */
};

/* One key per column: a metric column's vals[c], a text column's texts[c] (texts may be NULL). */
void json_cells(struct jsonw *w, const struct json_col *cols, size_t n, const uint64_t *vals,
		const char *const *texts);

/* Row r's keys, into an object the caller has opened: its section, one key per column, marker, hot, name. */
void json_row_fields(struct jsonw *w, const struct json_col *cols, size_t n, const struct json_row *r);

#endif
