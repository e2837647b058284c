/*
 * report_heap.c - the heap reports' model (see report_heap.h).
 */
#include "analysis/report_heap.h"
#include "analysis/experiment_internal.h"

#include <errno.h>
#include <stdlib.h>

#include "common/vec.h"

static void item_values(const struct heap_stack_stat *st, enum report_heap_key key, uint64_t *count,
			uint64_t *bytes)
{
	switch (key) {
	case REPORT_HEAP_ALLOC: *count = st->alloc_count, *bytes = st->alloc_bytes; break;
	case REPORT_HEAP_LEAK: *count = st->leak_count, *bytes = st->leak_bytes; break;
	case REPORT_HEAP_TEMP: *count = st->temp_count, *bytes = st->temp_bytes; break;
	default: *count = st->peak_count, *bytes = st->peak_bytes; break;
	}
}

static int cmp_item(const void *a, const void *b)
{
	const struct report_heap_item *x = a, *y = b;
	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->exp != y->exp)
		return x->exp < y->exp ? -1 : 1;
	return (x->stack > y->stack) - (x->stack < y->stack);
}

ssize_t report_heap_items(const struct profile *p, enum report_heap_key key, int all,
			  struct report_heap_item **ret)
{
	VEC(struct report_heap_item) v = {0};
	*ret = NULL;
	for (size_t x = 0; x < profile_experiment_count(p); x++) {
		const struct experiment *exp = profile_experiment(p, x);
		for (uint32_t s = 0; s < exp->nstacks; s++) {
			const struct heap_stack_stat *st = profile_heap_stack(p, x, s);
			if (!st)
				break;
			struct report_heap_item it = {.exp = x, .stack = s, .st = st};
			item_values(st, key, &it.count, &it.bytes);
			if (!it.count &&
			    !(all && key == REPORT_HEAP_ALLOC && (st->alloc_count || st->leak_count)))
				continue;
			if (VEC_PUSH(&v, it) < 0) {
				free(v.v);
				return -ENOMEM;
			}
		}
	}
	if (v.n)
		qsort(v.v, v.n, sizeof *v.v, cmp_item);
	*ret = v.v;
	return (ssize_t)v.n;
}
