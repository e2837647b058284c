/*
 * reply_cache.c - the analyzer's kept replies (contract in reply_cache.h).
 * A short list searched linearly: a few dozen entries, each matched by the
 * handful of arguments its endpoint reads.
 */
#include "analyzer/reply_cache.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct entry {
	char *name;
	char **keys, **vals;
	size_t n;
	char *body;
	size_t len;
	int status;
	uint64_t used; /* the clock of its last use */
};

struct reply_cache {
	struct entry v[REPLY_CACHE_ENTRIES];
	size_t n, bytes;
	uint64_t clock;
};

struct reply_cache *reply_cache_new(void)
{
	return calloc(1, sizeof(struct reply_cache));
}

static void free_strings(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void entry_free(struct entry *e)
{
	free(e->name);
	free_strings(e->keys, e->n);
	free_strings(e->vals, e->n);
	free(e->body);
	memset(e, 0, sizeof(*e));
}

void reply_cache_free(struct reply_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		entry_free(&c->v[i]);
	free(c);
}

int reply_cache_wants(const char *name)
{
	return strcmp(name, "flame") == 0 || strcmp(name, "calltree") == 0 || strcmp(name, "timeline") == 0;
}

static int same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

int reply_cache_get(struct reply_cache *c, const char *name, const struct api_query *q, struct strbuf *out)
{
	if (!c)
		return 0;
	for (size_t i = 0; i < c->n; i++) {
		struct entry *e = &c->v[i];
		if (strcmp(e->name, name) != 0)
			continue;
		size_t k = 0;
		while (k < e->n && same(q->get(q->ctx, e->keys[k]), e->vals[k]))
			k++;
		if (k < e->n)
			continue;
		strbuf_reset(out);
		strbuf_add(out, e->body, e->len);
		if (out->failed)
			return 0;
		e->used = ++c->clock;
		return e->status;
	}
	return 0;
}

static const char *rec_get(void *ctx, const char *key)
{
	struct reply_cache_rec *r = ctx;
	const char *v = r->inner->get(r->inner->ctx, key);
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->keys[i], key) == 0)
			return v;
	if (r->failed)
		return v;
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 16;
		char **k = realloc(r->keys, cap * sizeof(*k));
		if (k)
			r->keys = k;
		char **w = k ? realloc(r->vals, cap * sizeof(*w)) : NULL;
		if (w)
			r->vals = w;
		if (!k || !w) {
			r->failed = 1;
			return v;
		}
		r->cap = cap;
	}
	r->keys[r->n] = strdup(key);
	r->vals[r->n] = v ? strdup(v) : NULL;
	if (!r->keys[r->n] || (v && !r->vals[r->n])) {
		free(r->keys[r->n]);
		free(r->vals[r->n]);
		r->failed = 1;
		return v;
	}
	r->n++;
	return v;
}

void reply_cache_rec_init(struct reply_cache_rec *r, const struct api_query *inner)
{
	memset(r, 0, sizeof(*r));
	r->inner = inner;
	r->q = (struct api_query){rec_get, r};
}

void reply_cache_rec_release(struct reply_cache_rec *r)
{
	free_strings(r->keys, r->n);
	free_strings(r->vals, r->n);
	memset(r, 0, sizeof(*r));
}

/* Drop the least recently used entry. */
static void evict(struct reply_cache *c)
{
	size_t lru = 0;
	for (size_t i = 1; i < c->n; i++)
		if (c->v[i].used < c->v[lru].used)
			lru = i;
	c->bytes -= c->v[lru].len;
	entry_free(&c->v[lru]);
	c->v[lru] = c->v[--c->n];
	memset(&c->v[c->n], 0, sizeof(c->v[c->n]));
}

void reply_cache_put(struct reply_cache *c, const char *name, struct reply_cache_rec *r, int status,
		     const struct strbuf *reply)
{
	if (!c || r->failed || status != 200 || reply->failed || reply->len > REPLY_CACHE_ONE_MAX)
		return;
	while (c->n && (c->n == REPLY_CACHE_ENTRIES || c->bytes + reply->len > REPLY_CACHE_BYTES))
		evict(c);
	struct entry e = {.name = strdup(name), .body = malloc(reply->len ? reply->len : 1)};
	if (!e.name || !e.body) {
		free(e.name);
		free(e.body);
		return;
	}
	memcpy(e.body, reply->s ? reply->s : "", reply->len);
	e.len = reply->len;
	e.status = status;
	e.keys = r->keys;
	e.vals = r->vals;
	e.n = r->n;
	e.used = ++c->clock;
	memset(r, 0, sizeof(*r)); /* taken */
	c->v[c->n++] = e;
	c->bytes += e.len;
}
