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
