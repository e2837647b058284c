/*
 * api_internal.h - what the analyzer's API modules share: the request being
 * answered (profile, query, JSON writer, error) and the helpers that write
 * the common pieces.  Private to analyzer/api*.c.
 */
#ifndef ANALYZER_API_INTERNAL_H
#define ANALYZER_API_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/json_schema.h"
#include "analysis/report_list.h"
#include "analyzer/api.h"
#include "common/jsonw.h"

struct api_req {
	struct profile *p;
	const struct api_data *d;
	const struct api_query *q;
	struct jsonw w;
	int status;      /* 200 until an error */
	char error[512]; /* the error's message when status is not 200 */
};

/* Set the request's error (the first one stays); returns -1. */
int api_fail(struct api_req *r, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The query argument key, or NULL. */
const char *api_arg(const struct api_req *r, const char *key);

/* The function of argument "func" (a function id): 0, or -1 after api_fail. */
int api_func_arg(struct api_req *r, uint32_t *ret);

/* The metric named by argument key (a keyword; def when absent): its index, or -1 after api_fail. */
long api_metric_arg(struct api_req *r, const char *key, const char *def);

/* A function's display name (name + symbol version when needed) into buf. */
const char *api_func_name(const struct profile *p, uint32_t f, char *buf, size_t room);

/* report_name_fn for the list, calls and compare models (arg: the profile): er_print's names. */
const char *api_entity_name(void *arg, enum report_what what, uint32_t id, char *buf, size_t room);

/* Argument key as nanoseconds into *ret (def when absent): 0, or -1 after api_fail. */
int api_ns_arg(struct api_req *r, const char *key, uint64_t def, uint64_t *ret);

/* The sort spec of argument "sort" (er_print's syntax; mspec_default_sort when absent): 0, or -1 after api_fail. */
int api_sort_arg(struct api_req *r, struct mspec *ret);

/* "frames": stack s of experiment x, leaf first: function id and name, line and file when known. */
int api_frames(struct api_req *r, size_t x, uint32_t s);

/* Argument key as a count up to max into *ret (def when absent): 0, or -1 after api_fail. */
int api_count_arg(struct api_req *r, const char *key, size_t def, size_t max, size_t *ret);

/* The columns of a reply's rows, in the schema of analysis/json_schema.h. */
struct api_cols {
	struct json_col c[MSPEC_MAX];
	char titles[MSPEC_MAX][64];
	size_t n;
};

/*
 * "columns": items[0..n) as analysis/json_schema.h has them (base[c] column
 * c's 100%, NULL: none; sort the sort item, NULL: none), each with the
 * analyzer's own "value" (whether the page shows the value; "total" says
 * whether it shows a percentage) and "spec" (how a metric list or a sort
 * names the column: "e.totalcpu", "size"); into *ret for the rows' cells.
 */
void api_columns(struct api_req *r, const struct mspec_item *items, size_t n, const uint64_t *base,
		 const struct mspec_item *sort, struct api_cols *ret);

/* The endpoint of api_compare.c. */
int api_compare(struct api_req *r);

/* The endpoint of api_heap.c. */
int api_heap(struct api_req *r);

/* The endpoint of api_io.c. */
int api_io(struct api_req *r);

/* The endpoints of api_stacks.c. */
int api_calltree(struct api_req *r);
int api_flame(struct api_req *r);
int api_timeline(struct api_req *r);

#endif
