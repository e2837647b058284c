/*
 * report_list.h - what every list report (functions, objects, lines, PCs,
 * callers-callees) needs of a metric list: the value an item shows for one
 * entity, and the order of the entities under the sort item.  No global
 * state (the sort uses qsort_r's context).
 */
#ifndef ANALYSIS_REPORT_LIST_H
#define ANALYSIS_REPORT_LIST_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/metrics.h"
#include "analysis/mspec.h"

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

#endif
