/*
 * test_arena.c - common/arena.h: 8-byte alignment, allocations that do not
 * overlap across chunk boundaries (each filled with its own byte and checked
 * after all were made), requests larger than a chunk, strndup copies exactly
 * n bytes and terminates, and arena_free(NULL).  ASan checks the bounds.
 */
#include "common/arena.h"

#include <stdint.h>
#include <stdlib.h>

#include "tests/unit/check.h"

int main(void)
{
	struct arena_chunk *a = NULL;
	enum { N = 2000 };
	static char *p[N];
	static size_t len[N];
	for (size_t i = 0; i < N; i++) {
		len[i] = i % 7 == 0 ? 70000 + i : 1 + (i * 37) % 300; /* some larger than any chunk */
		p[i] = arena_alloc(&a, len[i]);
		CHECK(p[i] != NULL);
		if (!p[i])
			return check_done();
		CHECK((uintptr_t)p[i] % 8 == 0);
		memset(p[i], (int)(i & 0xff), len[i]);
	}
	size_t bad = 0;
	for (size_t i = 0; i < N; i++)
		for (size_t k = 0; k < len[i]; k++)
			bad += (unsigned char)p[i][k] != (i & 0xff);
	CHECK_EQ_U64(bad, 0); /* nothing overwrote anything */

	char *s = arena_strndup(&a, "hello world", 5);
	CHECK_EQ_STR(s, "hello");
	char *e = arena_strndup(&a, "", 0);
	CHECK_EQ_STR(e, "");
	char *z = arena_alloc(&a, 0);
	CHECK(z != NULL && (uintptr_t)z % 8 == 0);
	arena_free(a);
	arena_free(NULL);
	return check_done();
}
