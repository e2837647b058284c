/*
 * test_u64map.c - common/u64map.h: absent keys are -1, put then get, an
 * overwrite keeps the count, keys 0 and UINT64_MAX, growth through many
 * doublings with colliding keys (multiples of a power of two), release.
 */
#include "common/u64map.h"

#include "tests/unit/check.h"

int main(void)
{
	struct u64map m;
	u64map_init(&m);
	CHECK_EQ_U64(u64map_get(&m, 0), (uint64_t)-1);
	CHECK(u64map_put(&m, 0, 7) == 0);
	CHECK(u64map_put(&m, UINT64_MAX, 8) == 0);
	CHECK(u64map_get(&m, 0) == 7 && u64map_get(&m, UINT64_MAX) == 8);
	CHECK(u64map_put(&m, 0, 9) == 0);
	CHECK(u64map_get(&m, 0) == 9);
	CHECK_EQ_U64(m.count, 2);
	enum { N = 50000 };
	for (uint64_t i = 1; i <= N; i++)
		CHECK(u64map_put(&m, i << 20, (uint32_t)i) == 0); /* same low bits */
	CHECK_EQ_U64(m.count, N + 2);
	size_t bad = 0;
	for (uint64_t i = 1; i <= N; i++)
		bad += u64map_get(&m, i << 20) != (int64_t)i;
	CHECK_EQ_U64(bad, 0);
	CHECK(u64map_get(&m, 3) == -1 && u64map_get(&m, (N + 1ull) << 20) == -1);
	CHECK(u64map_get(&m, UINT64_MAX) == 8);
	CHECK(m.cap > m.count && (m.cap & (m.cap - 1)) == 0);
	u64map_release(&m);
	u64map_release(&m); /* twice is fine */
	return check_done();
}
