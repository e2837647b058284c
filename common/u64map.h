/*
 * u64map.h - open-addressing hash map from a uint64_t key to a uint32_t value
 * (typically an index into an array the caller owns).  Grows by doubling.
 * Not thread-safe; not for signal context.
 */
#ifndef COMMON_U64MAP_H
#define COMMON_U64MAP_H

#include <stddef.h>
#include <stdint.h>

struct u64map {
	uint64_t *keys;
	uint32_t *vals;
	uint8_t *used;
	size_t cap; /* power of two, or 0 */
	size_t count;
};

void u64map_init(struct u64map *m);
void u64map_release(struct u64map *m);
/* Value for key, or -1 if absent. */
int64_t u64map_get(const struct u64map *m, uint64_t key);
/* Insert or overwrite; 0 or -ENOMEM. */
int u64map_put(struct u64map *m, uint64_t key, uint32_t val);

#endif
