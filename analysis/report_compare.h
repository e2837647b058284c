/*
 * report_compare.h - compare mode's model (er_print `compare on|delta|ratio`,
 * Oracle 12.5+ and gprofng): the same list (functions, lines, PCs) or
 * callers-callees blocks computed once per side, a side being a group of
 * the loaded experiments (an experiment with its descendants, or an .erg
 * group), with the items of every side matched by name, not by address: a
 * function by its display name and its load object's basename; a line by
 * its display name (function, line, file) and object; a PC by function +
 * offset and object.  The first side is the baseline: rows are ordered by
 * its value of the sort item, then by name.
 *
 * Each side is computed by selecting its experiments (those of it that the
 * current experiment selection keeps) with profile_select_experiments,
 * then the previous selection is restored: the profile's computed metrics
 * are those of the last side afterwards (the next profile_compute redoes
 * them).  The thread, sample and time selections apply to every side.  No
 * printing; not thread-safe.
 */
#ifndef ANALYSIS_REPORT_COMPARE_H
#define ANALYSIS_REPORT_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/mspec.h"
#include "analysis/profile.h"
#include "analysis/report_list.h"

struct report_compare_side {
	const char *name;    /* its heading: "a.er", "base.erg" */
	size_t first, count; /* its experiments: profile indices [first, first + count) */
};

/*
 * The sides of experiment arguments args[0..nargs) as a front end's command
 * line gives them (er_print, analyzer): each argument is one side, named by
 * its basename (trailing slashes dropped): an experiment with the
 * descendants loaded with it, or an .erg group's members.  The arguments
 * were expanded (expgroup_expand, in order) to paths, and first_of[k] is
 * the profile index of path k's first experiment, first_of[npaths] the
 * experiment count after the last.  A group of no experiment gives no side.
 * 0 with *ret (free with report_compare_sides_free) and *ret_n; -ENOMEM, or
 * the error of expgroup_expand (a group unreadable since).
 */
int report_compare_sides(const char *const *args, size_t nargs, const size_t *first_of,
			 struct report_compare_side **ret, size_t *ret_n);
void report_compare_sides_free(struct report_compare_side *sides, size_t n);

/* An item matched across the sides. */
struct report_compare_row {
	char *name;       /* its display name (of the first side that has it) */
	uint64_t *values; /* nsides x ncols: side s's value of column c at [s * ncols + c], 0 where absent */
};

struct report_compare {
	enum report_what what; /* REPORT_FUNCTIONS, REPORT_LINES or REPORT_PCS */
	size_t nsides;
	size_t ncols;            /* the metric list's columns for `what` (report_columns_of) */
	struct mspec_item *cols; /* (size and address columns have 0 values) */
	uint64_t *totals;        /* nsides x ncols: each side's <Total> of the column (its 100%) */
	size_t nrows;            /* row 0 is <Total>, then every item with data in some side */
	struct report_compare_row *rows;
};

/*
 * The compared list of `what` for metric list spec (NULL: no columns),
 * ordered by `sort` (an item of a sort spec) as the baseline shows it,
 * then by name.  0 with *ret (report_compare_free); -EINVAL for fewer
 * than two sides, a side out of range, or `what` REPORT_OBJECTS; -ENOMEM,
 * or the errors of profile_compute and profile_select_experiments.
 */
int report_compare_list(struct profile *p, enum report_what what, const struct report_compare_side *sides,
			size_t nsides, const struct mspec *spec, const struct mspec_item *sort,
			report_name_fn name, void *arg, struct report_compare **ret);
void report_compare_free(struct report_compare *c);

/* A caller or callee of a compared block. */
struct report_compare_edge {
	char *name;
	uint64_t *values; /* nsides x nmetrics: side s's attributed vector at [s * nmetrics] */
};

/* One function's callers-callees block, matched across the sides. */
struct report_compare_block {
	char *name;
	uint64_t *exclusive; /* nsides x nmetrics: the function's own value */
	uint64_t *base;      /* nsides x nmetrics: the block's 100%: inclusive, the total for <Total> */
	size_t ncallers, ncallees;
	/* each list by the baseline's attributed value of the sort metric, largest first, then name */
	struct report_compare_edge *callers, *callees;
};

struct report_compare_calls {
	size_t nsides, nmetrics; /* nmetrics: the registry's size */
	size_t nblocks;          /* <Total> first, then as the compared function list is ordered by sort */
	struct report_compare_block *blocks;
};

/*
 * The callers-callees blocks of every function with data in some side,
 * ordered as report_compare_list orders functions for `sort`; edges by
 * the attributed value of report_sort_metric(sort).  Errors as
 * report_compare_list.
 */
int report_compare_calls(struct profile *p, const struct report_compare_side *sides, size_t nsides,
			 const struct mspec_item *sort, report_name_fn name, void *arg,
			 struct report_compare_calls **ret);
void report_compare_calls_free(struct report_compare_calls *c);

#endif
