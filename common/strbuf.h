/*
 * strbuf.h - a growable NUL-terminated string with a size cap.
 * Not for signal context (uses malloc).  On allocation failure or when the
 * cap would be exceeded the buffer keeps what it had and sets `failed`.
 */
#ifndef COMMON_STRBUF_H
#define COMMON_STRBUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

struct strbuf {
	char *s;    /* always NUL-terminated once anything was added; may be NULL when empty */
	size_t len; /* bytes before the NUL */
	size_t cap; /* allocated bytes */
	size_t max; /* 0 = no cap */
	int failed;
};

void strbuf_init(struct strbuf *b, size_t max);
void strbuf_release(struct strbuf *b);
void strbuf_add(struct strbuf *b, const char *s, size_t n);
void strbuf_adds(struct strbuf *b, const char *s);
void strbuf_addf(struct strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strbuf_vaddf(struct strbuf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/*
 * A size in words: "100 bytes", "8 KiB", "4 GiB", "1.5 MiB" (the largest
 * binary unit it fills, a whole number when it is one, else one decimal).
 */
void strbuf_add_size(struct strbuf *b, uint64_t bytes);
void strbuf_reset(struct strbuf *b);
/* The text ("" when empty); valid until the next change. */
const char *strbuf_str(const struct strbuf *b);
/* Hand the string to the caller (malloc'd, "" if empty) and reset; NULL on failure. */
char *strbuf_detach(struct strbuf *b);

#endif
