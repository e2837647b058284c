/*
 * vec.c - growth helper for VEC.
 */
#include "common/vec.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

int vec_reserve_one(void **v, size_t *cap, size_t n, size_t elem)
{
	if (n < *cap)
		return 0;
	size_t c = *cap ? *cap * 2 : 16;
	if (c > SIZE_MAX / elem)
		return -ENOMEM;
	void *p = realloc(*v, c * elem);
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = c;
	return 0;
}
