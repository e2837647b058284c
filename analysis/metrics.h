/*
 * metrics.h - the metrics engine: exclusive, inclusive and attributed metrics
 * and the call tree, from call stacks of function ids, exactly as the
 * Performance Analyzer manual defines them:
 *
 *  - exclusive(F): the event's value goes to the leaf function;
 *  - inclusive(F): added once per unique function on the stack (recursion
 *    counts once);
 *  - attributed: from the innermost occurrence of F on each stack, the value
 *    goes to the edge caller->F (F's caller-attributed metric) and to the edge
 *    F->callee (F's callee-attributed metric).
 *
 * Hence for every F: inclusive(F) = exclusive(F) + sum of F's callee edges, and
 * for every F but the root: sum of F's caller edges = inclusive(F).  Every
 * stack gets the root pseudo-function (<Total>, id given at creation) appended
 * as its outermost frame.
 *
 * A value is a vector of `nmetrics` uint64_t.  Function ids are small dense
 * integers chosen by the caller.  Not thread-safe.
 */
#ifndef ANALYSIS_METRICS_H
#define ANALYSIS_METRICS_H

#include <stddef.h>
#include <stdint.h>

struct metrics;

struct metrics_edge {
	uint32_t func; /* the caller (for callers lists) or the callee */
	const uint64_t *values;
};

struct metrics_node {
	uint32_t func;
	uint32_t parent;      /* UINT32_MAX for the root */
	uint32_t first_child; /* UINT32_MAX if none */
	uint32_t next_sibling;
	uint32_t depth;
	const uint64_t *values; /* inclusive value of this call path */
};

/*
 * What an engine keeps besides exclusive and inclusive values: the attributed
 * edges (metrics_callers/callees), the call tree (metrics_tree_*).  An engine
 * without them answers no edges and a tree of the root alone, and adds a stack
 * in a fraction of the time (no hash lookups per frame).
 */
enum metrics_keep { METRICS_FLAT = 0, METRICS_EDGES = 1, METRICS_TREE = 2, METRICS_ALL = 3 };

/* nmetrics values per vector (0 is allowed: nothing to add up).  NULL on allocation failure. */
struct metrics *metrics_new(size_t nmetrics, uint32_t root_func, enum metrics_keep keep);
void metrics_free(struct metrics *m);

/*
 * Add one stack (leaf first, without the root) with its value vector.
 * Returns 0 or -ENOMEM.
 */
int metrics_add_stack(struct metrics *m, const uint32_t *funcs, size_t nframes, const uint64_t *values);

size_t metrics_count(const struct metrics *m);        /* number of metrics per vector */
uint32_t metrics_func_limit(const struct metrics *m); /* 1 + highest function id seen */
const uint64_t *metrics_total(const struct metrics *m);
/* Zero vectors for functions never seen. */
const uint64_t *metrics_exclusive(const struct metrics *m, uint32_t func);
const uint64_t *metrics_inclusive(const struct metrics *m, uint32_t func);
/* 1 if the function was on any stack added. */
int metrics_seen(const struct metrics *m, uint32_t func);

/*
 * Edges of F (unsorted).  *ret points into the engine; valid until the next
 * metrics_add_stack.  Returns the count.
 */
size_t metrics_callers(const struct metrics *m, uint32_t func, const struct metrics_edge **ret);
size_t metrics_callees(const struct metrics *m, uint32_t func, const struct metrics_edge **ret);

/*
 * Make metric k a ratio: in every vector the engine holds (exclusive,
 * inclusive, total, attributed edges, tree nodes), element k becomes
 * element num x 1000 / element den, or 0 where den is 0.  For metrics whose
 * values are computed, not charged (IPC, CPI): call it after the last
 * metrics_add_stack, since adding a stack afterwards adds to the ratio.
 * Indices out of range (>= metrics_count) are ignored.
 */
void metrics_ratio(struct metrics *m, size_t k, size_t num, size_t den);

/* Call tree: node 0 is the root (<Total>). */
size_t metrics_tree_size(const struct metrics *m);
const struct metrics_node *metrics_tree_node(const struct metrics *m, uint32_t i);

#endif
