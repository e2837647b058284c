/*
 * report_list.h - the list reports' model (er_print `functions`,
 * `fsummary`, `objects`, `lines`, `pcs`, `lsummary`, `psummary`; any other
 * front end): the entities with data of one kind, <Total> first then in the
 * order of a sort item, and the values of a metric list's columns; and what
 * every list (callers-callees too) needs of a metric list: the value an
 * item shows for one entity, and a total order.  No global state (sorting
 * uses qsort_r's context); no printing.
 */
#ifndef ANALYSIS_REPORT_LIST_H
#define ANALYSIS_REPORT_LIST_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/metrics.h"
#include "analysis/mspec.h"
#include "analysis/profile.h"

/*
 * The value of item `it` for entity f of m: its exclusive or inclusive
 * metric (the total for f = PROFILE_FUNC_TOTAL, entity 0); 0 for the static
 * columns (name, size, address).
 */
uint64_t report_item_value(const struct metrics *m, const struct mspec_item *it, uint32_t f);

/*
 * Sort ids[0..n) for a list: by key[id] largest first (unless by_name), then
 * by names[id] (strcmp), then by id, so that the order is total and the
 * same on every run.  key and names are indexed by id.
 */
void report_sort_ids(uint32_t *ids, size_t n, const uint64_t *key, char *const *names, int by_name);

/* What a list report lists. */
enum report_what {
	REPORT_FUNCTIONS, /* profile_metrics: engine id = function id (PROFILE_FUNC_TOTAL = 0) */
	REPORT_OBJECTS,   /* profile_object_metrics: engine id = object id + 1 */
	REPORT_LINES,     /* profile_line_metrics: engine id = line id + 1 */
	REPORT_PCS,       /* profile_pc_metrics: engine id = PC id + 1 */
};

/*
 * The name a front end shows for entity `id` (a function, object, line or
 * PC id: not the engine id) of kind `what`, written into buf (room bytes)
 * and returned.  Equal values are ordered by these names, and a sort by
 * name uses them.
 */
typedef const char *(*report_name_fn)(void *arg, enum report_what what, uint32_t id, char *buf, size_t room);

struct report_list {
	enum report_what what;
	const struct metrics *m; /* the engine of `what` (owned by the profile) */
	size_t nrows;
	uint32_t *ids; /* per row its engine id: row 0 is <Total> (0), then every entity with data, sorted */
	char **names;  /* per row the name_fn's name; "<Total>" for row 0 */
	/*
	 * The columns of the metric list this kind of list shows: for
	 * functions, lines and PCs every item but hidden, attributed and name
	 * ones (metric, size and address columns); for objects the metric
	 * items but hidden and attributed ones.
	 */
	size_t ncols;
	struct mspec_item *cols;
	uint64_t *values; /* nrows x ncols: report_item_value of the row's entity (0 for static columns) */
	uint64_t *percent_base; /* per column: its metric's total (100%), 0 for static columns */
};

/*
 * The list of `what` for metric list `spec` (may be NULL: no columns),
 * ordered by `sort` (an item of a sort spec: largest value first, or by
 * name), then by name, then by id.  Computes the profile first.  Returns 0
 * with *ret (report_list_free), or a negative errno (-ENOMEM, or
 * profile_compute's).
 */
int report_list_new(struct profile *p, enum report_what what, const struct mspec *spec,
		    const struct mspec_item *sort, report_name_fn name, void *arg, struct report_list **ret);
void report_list_free(struct report_list *l);

/*
 * The columns a list of `what` shows for spec (NULL: none; see struct
 * report_list) into *ret_cols, and their 100% (the totals of m, 0 for a
 * static column) into *ret_base, both malloc'd.  Returns the count, or
 * -ENOMEM.
 */
long report_columns_of(enum report_what what, const struct mspec *spec, const struct metrics *m,
		       struct mspec_item **ret_cols, uint64_t **ret_base);

/*
 * The text of static column c (size or address) of row `row` of a function
 * list, as gprofng shows it: the size in bytes ("123"), the address as
 * "object:0xoffset" (object 1: no object, the others from 2 in load order:
 * "2:0x00001234"); "" for other columns and other lists.  Into buf (room
 * bytes), returned.
 */
const char *report_list_text(const struct profile *p, const struct report_list *l, size_t row, size_t c,
			     char *buf, size_t room);

/* The entity id (function, object, line or PC id) of an engine id of a list of `what`. */
uint32_t report_list_entity(enum report_what what, uint32_t engine_id);

#endif
