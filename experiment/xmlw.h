/*
 * xmlw.h - build XML text for log.xml and map.xml into a caller's fixed
 * buffer, without allocation (the collector uses it from interposers, never
 * from signal handlers).  Every append is bounded by the buffer; on overflow
 * the builder remembers it and xmlw_ok() returns 0, so a caller writes either
 * a whole element or nothing.
 */
#ifndef EXPERIMENT_XMLW_H
#define EXPERIMENT_XMLW_H

#include <stddef.h>
#include <stdint.h>

struct xmlw {
	char *buf;
	size_t room; /* bytes of buf, including the NUL */
	size_t len;
	int overflow;
};

void xmlw_init(struct xmlw *w, char *buf, size_t room);
/* Raw text, not escaped. */
void xmlw_raw(struct xmlw *w, const char *s);
/* Text with & < > " ' escaped; bytes < 0x20 other than \t \n become '?'. */
void xmlw_text(struct xmlw *w, const char *s);
/* ` name="escaped value"` */
void xmlw_attr(struct xmlw *w, const char *name, const char *value);
/*
 * As xmlw_text / xmlw_attr, for strings that may not be valid UTF-8 (paths,
 * arguments, the environment): each byte of an invalid UTF-8 sequence, and of
 * U+FFFE and U+FFFF, which XML forbids, becomes '?'.
 */
void xmlw_text_utf8(struct xmlw *w, const char *s);
void xmlw_attr_utf8(struct xmlw *w, const char *name, const char *value);
void xmlw_attr_u64(struct xmlw *w, const char *name, uint64_t v);
void xmlw_attr_i64(struct xmlw *w, const char *name, int64_t v);
void xmlw_attr_hex(struct xmlw *w, const char *name, uint64_t v); /* 0x... lower case */
int xmlw_ok(const struct xmlw *w);

#endif
