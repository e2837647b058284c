/*
 * report_heap.h - the heap reports' model (er_print `leaks`, `allocs`,
 * `heap`, `heapstat`; the analyzer; `printmode json`): the call stacks of
 * the loaded experiments that hold a heap figure, largest first.  The
 * figures and their semantics are analysis/profile_heap.h's.
 */
#ifndef ANALYSIS_REPORT_HEAP_H
#define ANALYSIS_REPORT_HEAP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "analysis/profile_heap.h"

/* Which figure of a stack a list is about. */
enum report_heap_key { REPORT_HEAP_ALLOC, REPORT_HEAP_LEAK, REPORT_HEAP_TEMP, REPORT_HEAP_PEAK };

struct report_heap_item {
	size_t exp;                       /* experiment index */
	uint32_t stack;                   /* stack index in that experiment */
	uint64_t count, bytes;            /* the key's figures */
	const struct heap_stack_stat *st; /* all of the stack's figures (owned by the profile) */
};

/*
 * The stacks whose count under `key` is not zero (with all, for
 * REPORT_HEAP_ALLOC: any stack that allocated or leaked), sorted by bytes,
 * then count (largest first), then experiment and stack.  After
 * profile_compute.  Returns their number with *ret malloc'd (NULL when 0;
 * the caller frees it), or -ENOMEM.
 */
ssize_t report_heap_items(const struct profile *p, enum report_heap_key key, int all,
			  struct report_heap_item **ret);

#endif
