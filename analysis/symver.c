/*
 * symver.c - symbol versions in function names (see symver.h).
 */
#include "analysis/symver.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

size_t symver_base_len(const char *name)
{
	size_t n = strlen(name);
	const char *at = n > 1 ? memchr(name + 1, '@', n - 1) : NULL;
	if (!at)
		return n;
	const char *v = at[1] == '@' ? at + 2 : at + 1;
	if (!*v || strchr(v, '@'))
		return n;
	return (size_t)(at - name);
}

static int cmp_idx(const void *a, const void *b, void *ctx)
{
	const struct symver_name *v = ctx, *x = &v[*(const size_t *)a], *y = &v[*(const size_t *)b];
	int c = strcmp(x->base, y->base);
	if (c)
		return c;
	if (x->object != y->object)
		return x->object < y->object ? -1 : 1;
	return strcmp(x->version, y->version);
}

int symver_disambiguate(const struct symver_name *names, size_t n, uint8_t *ret_show)
{
	if (n)
		memset(ret_show, 0, n);
	if (n < 2)
		return 0;
	size_t *idx = malloc(n * sizeof *idx);
	if (!idx)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	qsort_r(idx, n, sizeof *idx, cmp_idx, (void *)names);
	/* runs of one base in one object; a run with more than one version shows them */
	for (size_t i = 0, j; i < n; i = j) {
		const struct symver_name *first = &names[idx[i]];
		int mixed = 0;
		for (j = i + 1; j < n && strcmp(names[idx[j]].base, first->base) == 0 &&
				names[idx[j]].object == first->object;
		     j++)
			mixed |= strcmp(names[idx[j]].version, first->version) != 0;
		for (size_t k = i; mixed && k < j; k++)
			ret_show[idx[k]] = names[idx[k]].version[0] != '\0';
	}
	free(idx);
	return 0;
}
