/*
 * jsonw.h - a streaming JSON writer: objects, arrays, keys, strings and
 * numbers written as they come to a FILE or a strbuf, never building a tree.
 *
 * It guarantees well-formed output for any sequence of calls that it
 * accepts: commas and colons are placed by the writer, strings are escaped
 * (", \, and every control character; bytes that are not valid UTF-8 become
 * U+FFFD, so the output is always valid UTF-8), numbers are JSON numbers.
 * A call that would break the grammar (a value where a key is due, a key in
 * an array, an end that does not match, a second top-level value, nesting
 * deeper than JSONW_MAX_DEPTH) writes nothing and returns a negative errno;
 * so does every later call: the first error sticks (jsonw_error).
 *
 * Errors: -EINVAL misuse, -E2BIG nesting too deep, -EDOM a NaN or infinite
 * double, -EIO a write error on the FILE, -ENOMEM the strbuf failed (out of
 * memory or past its cap).  Not thread-safe; not for signal context.  The
 * writer does not own the FILE or the strbuf.
 */
#ifndef COMMON_JSONW_H
#define COMMON_JSONW_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/strbuf.h"

#define JSONW_MAX_DEPTH 64

/* jsonw_init flags */
#define JSONW_PRETTY 0x1u /* one member or element per line, indented by two spaces */

struct jsonw {
	FILE *f; /* output: f, or else sb */
	struct strbuf *sb;
	unsigned flags;
	int err;                        /* first error (negative errno), 0 while all is well */
	int depth;                      /* open objects and arrays */
	int done;                       /* a complete top-level value was written */
	int after_key;                  /* a key was written, its value is due */
	uint8_t kind[JSONW_MAX_DEPTH];  /* '{' or '[' per open level */
	uint8_t count[JSONW_MAX_DEPTH]; /* 0: nothing written at that level yet */
};

/* Start a writer on f (or sb, when f is NULL).  flags: 0 or JSONW_PRETTY. */
void jsonw_init(struct jsonw *w, FILE *f, struct strbuf *sb, unsigned flags);

int jsonw_object_begin(struct jsonw *w);
int jsonw_object_end(struct jsonw *w);
int jsonw_array_begin(struct jsonw *w);
int jsonw_array_end(struct jsonw *w);

/* A member's key inside an object; its value must come next. */
int jsonw_key(struct jsonw *w, const char *key);

/* Values (in an array, after a key, or as the one top-level value). */
int jsonw_string(struct jsonw *w, const char *s);             /* s NULL writes null */
int jsonw_string_n(struct jsonw *w, const char *s, size_t n); /* n bytes, NULs escaped */
int jsonw_uint(struct jsonw *w, uint64_t v);
int jsonw_int(struct jsonw *w, int64_t v);
/* The shortest decimal form that reads back as v; -EDOM for NaN and infinities. */
int jsonw_double(struct jsonw *w, double v);
/*
 * v / 10^scale, exactly, without trailing zeros: (1234567, 3) writes 1234.567,
 * (1500, 3) 1.5, (2000, 3) 2.  For times kept in integers (nanoseconds
 * written as microseconds or milliseconds).  scale at most 19.
 */
int jsonw_udecimal(struct jsonw *w, uint64_t v, unsigned scale);
int jsonw_bool(struct jsonw *w, int v);
int jsonw_null(struct jsonw *w);

/* Shorthands: jsonw_key then the value. */
int jsonw_key_string(struct jsonw *w, const char *key, const char *s);
int jsonw_key_uint(struct jsonw *w, const char *key, uint64_t v);
int jsonw_key_int(struct jsonw *w, const char *key, int64_t v);
int jsonw_key_udecimal(struct jsonw *w, const char *key, uint64_t v, unsigned scale);
int jsonw_key_bool(struct jsonw *w, const char *key, int v);
/* key, then an array of the n strings v[0..n) (v may be NULL when n is 0). */
int jsonw_key_strings(struct jsonw *w, const char *key, char *const *v, size_t n);

/*
 * After the top-level value: 0 if exactly one complete value was written
 * (a newline is added), the first error, or -EINVAL if a value is still open
 * or none was written.  Write errors of the FILE are only seen here and by
 * the calls after them (it checks ferror; it does not flush).
 */
int jsonw_finish(struct jsonw *w);

/* The first error, or 0. */
int jsonw_error(const struct jsonw *w);

#endif
