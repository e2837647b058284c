/*
 * xmlw.c - bounded XML text builder (no allocation, no stdio).
 */
#include "experiment/xmlw.h"

void xmlw_init(struct xmlw *w, char *buf, size_t room)
{
	w->buf = buf;
	w->room = room;
	w->len = 0;
	w->overflow = room == 0;
	if (room)
		buf[0] = '\0';
}

static void put(struct xmlw *w, char c)
{
	if (w->overflow || w->len + 1 >= w->room) {
		w->overflow = 1;
		return;
	}
	w->buf[w->len++] = c;
	w->buf[w->len] = '\0';
}

void xmlw_raw(struct xmlw *w, const char *s)
{
	while (*s)
		put(w, *s++);
}

void xmlw_text(struct xmlw *w, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		switch (c) {
		case '&': xmlw_raw(w, "&amp;"); break;
		case '<': xmlw_raw(w, "&lt;"); break;
		case '>': xmlw_raw(w, "&gt;"); break;
		case '"': xmlw_raw(w, "&quot;"); break;
		case '\'': xmlw_raw(w, "&apos;"); break;
		default: put(w, c < 0x20 && c != '\t' && c != '\n' ? '?' : (char)c);
		}
	}
}

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if it is not one. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned c = s[0], lo = 0x80, hi = 0xbf;
	size_t len;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		lo = c == 0xe0 ? 0xa0 : lo;
		hi = c == 0xed ? 0x9f : hi;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		lo = c == 0xf0 ? 0x90 : lo;
		hi = c == 0xf4 ? 0x8f : hi;
	} else {
		return 0;
	}
	for (size_t k = 1; k < len; k++) /* a NUL ends the sequence early: invalid */
		if (s[k] < (k == 1 ? lo : 0x80) || s[k] > (k == 1 ? hi : 0xbf))
			return 0;
	if (len == 3 && c == 0xef && s[1] == 0xbf && (s[2] & 0xfe) == 0xbe)
		return 0; /* U+FFFE, U+FFFF */
	return len;
}

void xmlw_text_utf8(struct xmlw *w, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	while (*u) {
		size_t n = utf8_len(u);
		if (n == 0) {
			put(w, '?');
			u++;
		} else if (n == 1) {
			char one[2] = {(char)*u++, 0};
			xmlw_text(w, one);
		} else {
			while (n--)
				put(w, (char)*u++);
		}
	}
}

void xmlw_attr_utf8(struct xmlw *w, const char *name, const char *value)
{
	put(w, ' ');
	xmlw_raw(w, name);
	xmlw_raw(w, "=\"");
	xmlw_text_utf8(w, value ? value : "");
	put(w, '"');
}

void xmlw_attr(struct xmlw *w, const char *name, const char *value)
{
	put(w, ' ');
	xmlw_raw(w, name);
	xmlw_raw(w, "=\"");
	xmlw_text(w, value ? value : "");
	put(w, '"');
}

static void put_u64(struct xmlw *w, uint64_t v, unsigned base)
{
	char tmp[24];
	int n = 0;
	do {
		unsigned d = (unsigned)(v % base);
		tmp[n++] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
		v /= base;
	} while (v);
	while (n)
		put(w, tmp[--n]);
}

void xmlw_attr_u64(struct xmlw *w, const char *name, uint64_t v)
{
	put(w, ' ');
	xmlw_raw(w, name);
	xmlw_raw(w, "=\"");
	put_u64(w, v, 10);
	put(w, '"');
}

void xmlw_attr_i64(struct xmlw *w, const char *name, int64_t v)
{
	put(w, ' ');
	xmlw_raw(w, name);
	xmlw_raw(w, "=\"");
	if (v < 0) {
		put(w, '-');
		put_u64(w, (uint64_t)0 - (uint64_t)v, 10);
	} else {
		put_u64(w, (uint64_t)v, 10);
	}
	put(w, '"');
}

void xmlw_attr_hex(struct xmlw *w, const char *name, uint64_t v)
{
	put(w, ' ');
	xmlw_raw(w, name);
	xmlw_raw(w, "=\"0x");
	put_u64(w, v, 16);
	put(w, '"');
}

int xmlw_ok(const struct xmlw *w)
{
	return !w->overflow;
}
