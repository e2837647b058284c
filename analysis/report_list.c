/*
 * report_list.c - metric-list values and list order (see report_list.h).
 */
#include "analysis/report_list.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/profile.h"

uint64_t report_item_value(const struct metrics *m, const struct mspec_item *it, uint32_t f)
{
	if (it->kind != MSPEC_METRIC)
		return 0;
	if (f == PROFILE_FUNC_TOTAL)
		return metrics_total(m)[it->metric];
	return it->flavor == MSPEC_EXCL ? metrics_exclusive(m, f)[it->metric]
					: metrics_inclusive(m, f)[it->metric];
}

struct sort_ctx {
	const uint64_t *key;
	char *const *names;
	int by_name;
};

static int cmp_ids(const void *a, const void *b, void *ctx)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct sort_ctx *s = ctx;
	if (!s->by_name && s->key[x] != s->key[y])
		return s->key[x] > s->key[y] ? -1 : 1;
	int c = strcmp(s->names[x], s->names[y]);
	return c ? c : (x > y) - (x < y);
}

void report_sort_ids(uint32_t *ids, size_t n, const uint64_t *key, char *const *names, int by_name)
{
	struct sort_ctx s = {.key = key, .names = names, .by_name = by_name};
	if (n > 1)
		qsort_r(ids, n, sizeof *ids, cmp_ids, &s);
}
