/*
 * vec.h - a typed growable array as a macro over a void* helper.
 *   VEC(struct foo) v = {0};  VEC_PUSH(&v, x) returns 0 or -ENOMEM;  free(v.v).
 * Not for signal context.
 */
#ifndef COMMON_VEC_H
#define COMMON_VEC_H

#include <stddef.h>

#define VEC(type)              \
	struct {               \
		type *v;       \
		size_t n, cap; \
	}

/* Make room for one more element of `elem` bytes; 0 or -ENOMEM. */
int vec_reserve_one(void **v, size_t *cap, size_t n, size_t elem);

#define VEC_PUSH(vec, x)                                                                  \
	(vec_reserve_one((void **)&(vec)->v, &(vec)->cap, (vec)->n, sizeof *(vec)->v) < 0 \
		 ? -12                                                                    \
		 : ((vec)->v[(vec)->n++] = (x), 0))

#endif
