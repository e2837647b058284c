/*
 * test_vec.c - common/vec.h: VEC_PUSH keeps order through growth, the
 * capacity doubles from 16, elements of a struct type, and the overflow
 * check of vec_reserve_one (an element size that makes the doubled capacity
 * overflow gives -ENOMEM and leaves the vector alone).
 */
#include "common/vec.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "tests/unit/check.h"

struct pair {
	int a;
	double b;
};

int main(void)
{
	VEC(int) v = {0};
	for (int i = 0; i < 1000; i++)
		CHECK(VEC_PUSH(&v, i * 3) == 0);
	CHECK_EQ_U64(v.n, 1000);
	CHECK_EQ_U64(v.cap, 1024);
	size_t bad = 0;
	for (int i = 0; i < 1000; i++)
		bad += v.v[i] != i * 3;
	CHECK_EQ_U64(bad, 0);
	free(v.v);

	VEC(struct pair) p = {0};
	CHECK(VEC_PUSH(&p, ((struct pair){1, 2.5})) == 0);
	CHECK_EQ_U64(p.cap, 16);
	CHECK(p.n == 1 && p.v[0].a == 1 && p.v[0].b == 2.5);
	free(p.v);

	void *q = NULL;
	size_t cap = 0;
	CHECK(vec_reserve_one(&q, &cap, 0, SIZE_MAX / 8) == -ENOMEM);
	CHECK(q == NULL && cap == 0);
	CHECK(vec_reserve_one(&q, &cap, 0, 4) == 0 && cap == 16);
	CHECK(vec_reserve_one(&q, &cap, 15, 4) == 0 && cap == 16); /* room left */
	CHECK(vec_reserve_one(&q, &cap, 16, 4) == 0 && cap == 32);
	free(q);
	return check_done();
}
