/*
 * u64map.c - linear-probing hash map, load factor <= 1/2.
 */
#include "common/u64map.h"

#include <errno.h>
#include <stdlib.h>

static inline size_t slot_of(uint64_t k, size_t cap)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return (size_t)k & (cap - 1);
}

void u64map_init(struct u64map *m)
{
	m->keys = NULL;
	m->vals = NULL;
	m->used = NULL;
	m->cap = m->count = 0;
}

void u64map_release(struct u64map *m)
{
	free(m->keys);
	free(m->vals);
	free(m->used);
	u64map_init(m);
}

int64_t u64map_get(const struct u64map *m, uint64_t key)
{
	if (!m->cap)
		return -1;
	for (size_t i = slot_of(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (!m->used[i])
			return -1;
		if (m->keys[i] == key)
			return m->vals[i];
	}
}

static int grow(struct u64map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64;
	struct u64map n = {.keys = malloc(cap * sizeof(uint64_t)),
			   .vals = malloc(cap * sizeof(uint32_t)),
			   .used = calloc(cap, 1),
			   .cap = cap};
	if (!n.keys || !n.vals || !n.used) {
		u64map_release(&n);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->used[i])
			continue;
		size_t j = slot_of(m->keys[i], cap);
		while (n.used[j])
			j = (j + 1) & (cap - 1);
		n.used[j] = 1;
		n.keys[j] = m->keys[i];
		n.vals[j] = m->vals[i];
	}
	n.count = m->count;
	u64map_release(m);
	*m = n;
	return 0;
}

int u64map_put(struct u64map *m, uint64_t key, uint32_t val)
{
	if ((m->count + 1) * 2 > m->cap && grow(m) < 0)
		return -ENOMEM;
	size_t i = slot_of(key, m->cap);
	while (m->used[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	if (!m->used[i]) {
		m->used[i] = 1;
		m->keys[i] = key;
		m->count++;
	}
	m->vals[i] = val;
	return 0;
}
