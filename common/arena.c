/*
 * arena.c - bump allocator over malloc'd chunks.
 */
#include "common/arena.h"

#include <stdlib.h>
#include <string.h>

#define ARENA_CHUNK_MAX (64 * 1024)

struct arena_chunk {
	struct arena_chunk *next;
	size_t used, cap;
	_Alignas(16) char data[];
};

char *arena_alloc(struct arena_chunk **head, size_t n)
{
	struct arena_chunk *c = *head;
	size_t start = c ? (c->used + 7) & ~(size_t)7 : 0;
	if (!c || start > c->cap || c->cap - start < n) {
		/* 4 KiB, doubling to 64 KiB: small objects (the vDSO) stay small */
		size_t cap = c ? 2 * c->cap : 4096;
		if (cap > ARENA_CHUNK_MAX)
			cap = ARENA_CHUNK_MAX;
		if (cap < n)
			cap = n;
		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->next = *head;
		c->used = 0;
		c->cap = cap;
		*head = c;
		start = 0;
	}
	char *p = c->data + start;
	c->used = start + n;
	return p;
}

char *arena_strndup(struct arena_chunk **head, const char *s, size_t n)
{
	char *p = arena_alloc(head, n + 1);
	if (p) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}

void arena_free(struct arena_chunk *c)
{
	while (c) {
		struct arena_chunk *next = c->next;
		free(c);
		c = next;
	}
}
