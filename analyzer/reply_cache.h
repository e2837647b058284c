/*
 * reply_cache.h - the analyzer's replies to its costly requests (flame graph,
 * call tree, timeline), kept so that asking again answers at once.
 *
 * A reply is a function of the experiments (read once, at start) and of the
 * request's arguments, and of those only through the arguments the endpoint
 * read.  So a reply is stored with every argument its computation asked for
 * and the value it got (absent included), recorded by a query that wraps the
 * request's (reply_cache_rec); a later request to the same endpoint is
 * answered from the store when every one of those arguments has the same
 * value in it.  A change of the metric, the filter, the thread or CPU
 * selection, the view or the time window is a change of an argument: that
 * request is computed afresh, never answered with another selection's reply.
 * Least recently used replies go first past the caps.  Not thread-safe (the
 * server answers one request at a time).
 */
#ifndef ANALYZER_REPLY_CACHE_H
#define ANALYZER_REPLY_CACHE_H

#include <stddef.h>

#include "analyzer/api.h"
#include "common/strbuf.h"

struct reply_cache;

#define REPLY_CACHE_BYTES (256u << 20) /* replies kept, in bytes */
#define REPLY_CACHE_ENTRIES 64
#define REPLY_CACHE_ONE_MAX (64u << 20) /* a larger reply is not kept */

/* NULL on ENOMEM (the server then answers every request afresh). */
struct reply_cache *reply_cache_new(void);
void reply_cache_free(struct reply_cache *c); /* NULL-safe */

/* Is endpoint `name`'s reply worth keeping (flame, calltree, timeline)? */
int reply_cache_wants(const char *name);

/* The kept reply of `name` that q matches: copied into out, its HTTP status returned; 0 if none. */
int reply_cache_get(struct reply_cache *c, const char *name, const struct api_query *q, struct strbuf *out);

/* A query that answers as `inner` does and records each argument asked for. */
struct reply_cache_rec {
	struct api_query q; /* pass this one to api_answer */
	const struct api_query *inner;
	char **keys, **vals; /* vals[i] NULL: the argument was absent */
	size_t n, cap;
	int failed;
};

void reply_cache_rec_init(struct reply_cache_rec *r, const struct api_query *inner);
void reply_cache_rec_release(struct reply_cache_rec *r);

/* Keep reply (status 200 only) as name's answer to the arguments r recorded; it takes them. */
void reply_cache_put(struct reply_cache *c, const char *name, struct reply_cache_rec *r, int status,
		     const struct strbuf *reply);

#endif
