/*
 * report_calls.h - the callers-callees and call tree models (er_print
 * `callers-callees`, `csingle`, `calltree`; any other front end): a
 * function's callers and callees with their attributed metrics in report
 * order, and the call tree walked in report order.  The figures are the
 * metrics engine's (analysis/metrics.h: attributed values from the
 * innermost occurrence of a function on each stack).  No printing.
 */
#ifndef ANALYSIS_REPORT_CALLS_H
#define ANALYSIS_REPORT_CALLS_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/metrics.h"
#include "analysis/mspec.h"
#include "analysis/profile.h"
#include "analysis/report_list.h"

/*
 * The attributed columns of metric list `spec`: each metric it shows (not
 * hidden) once, in list order, as flavor attributed shown as value and
 * percent.  ret has room for MSPEC_MAX; returns the count.
 */
size_t report_attr_items(const struct mspec *spec, struct mspec_item *ret);

/* The metric a sort item orders attributed lists by: its metric, or 0 (a sort by name). */
size_t report_sort_metric(const struct mspec_item *sort);

struct report_edge {
	uint32_t func;          /* the caller or callee */
	const uint64_t *values; /* its attributed metric vector (owned by the profile) */
};

/* One function's block of callers-callees. */
struct report_calls {
	uint32_t func;
	const uint64_t *exclusive; /* the function's own (exclusive) vector */
	const uint64_t *base;      /* the block's 100%: its inclusive vector, the total for <Total> */
	size_t ncallers, ncallees;
	struct report_edge *callers, *callees;
};

/*
 * The callers and callees of function f (PROFILE_FUNC_TOTAL: the root's
 * callees), each list by attributed value of metric sort_metric, largest
 * first, then by name (name_fn), then in the order the engine met them.
 * Computes the profile first.  0 with *ret filled (report_calls_release),
 * -EINVAL for an unknown function, -ENOMEM.
 */
int report_calls_of(struct profile *p, uint32_t f, size_t sort_metric, report_name_fn name, void *arg,
		    struct report_calls *ret);
void report_calls_release(struct report_calls *c);

/*
 * The call tree (profile_metrics' tree of inclusive call paths), depth
 * first from the root (<Total>, depth 0), children by their value of
 * sort_metric, largest first, then by function id.  fn gets each node, its
 * depth and whether a later sibling follows it (has_next: the root has
 * none), and returns 0 to go on, REPORT_TREE_SKIP not to enter the node's
 * children, REPORT_TREE_STOP to end the walk.  Computes the profile first.
 * Returns 0, -ENOMEM, or profile_compute's error.
 */
#define REPORT_TREE_SKIP 1
#define REPORT_TREE_STOP 2
typedef int (*report_tree_fn)(void *arg, const struct metrics_node *n, size_t depth, int has_next);
int report_tree_walk(struct profile *p, size_t sort_metric, report_tree_fn fn, void *arg);

#endif
