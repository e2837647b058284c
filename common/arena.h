/*
 * arena.h - a bump allocator for data that lives and dies together (one
 * load object's symbols or line tables): chunks of 4 KiB doubling up to
 * 64 KiB, larger requests get a chunk of their own; everything is freed at
 * once.  Not thread-safe; not for signal context.
 */
#ifndef COMMON_ARENA_H
#define COMMON_ARENA_H

#include <stddef.h>

struct arena_chunk; /* the arena is the pointer to its newest chunk, NULL when empty */

/* n bytes aligned to 8, or NULL on allocation failure. */
char *arena_alloc(struct arena_chunk **head, size_t n);
/* A NUL-terminated copy of s[0..n), or NULL. */
char *arena_strndup(struct arena_chunk **head, const char *s, size_t n);
/* Free every chunk; NULL-safe. */
void arena_free(struct arena_chunk *head);

#endif
