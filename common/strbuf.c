/*
 * strbuf.c - growable string with a cap.
 */
#include "common/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void strbuf_init(struct strbuf *b, size_t max)
{
	memset(b, 0, sizeof *b);
	b->max = max;
}

void strbuf_release(struct strbuf *b)
{
	free(b->s);
	strbuf_init(b, b->max);
}

static int grow(struct strbuf *b, size_t extra)
{
	size_t need = b->len + extra + 1;
	if (b->max && need > b->max + 1) {
		b->failed = 1;
		return -1;
	}
	if (need <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap *= 2;
	char *s = realloc(b->s, cap);
	if (!s) {
		b->failed = 1;
		return -1;
	}
	b->s = s;
	b->cap = cap;
	return 0;
}

void strbuf_add(struct strbuf *b, const char *s, size_t n)
{
	if (grow(b, n) < 0)
		return;
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void strbuf_adds(struct strbuf *b, const char *s)
{
	strbuf_add(b, s, strlen(s));
}

void strbuf_vaddf(struct strbuf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0 || grow(b, (size_t)n) < 0)
		return;
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void strbuf_addf(struct strbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(b, fmt, ap);
	va_end(ap);
}

void strbuf_add_size(struct strbuf *b, uint64_t bytes)
{
	static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	if (bytes < 1024) {
		strbuf_addf(b, "%llu byte%s", (unsigned long long)bytes, bytes == 1 ? "" : "s");
		return;
	}
	int u = 0;
	while (u + 1 < (int)(sizeof units / sizeof units[0]) && bytes >> (10 * (u + 2)))
		u++;
	uint64_t unit = (uint64_t)1 << (10 * (u + 1));
	if (bytes % unit == 0)
		strbuf_addf(b, "%llu %s", (unsigned long long)(bytes / unit), units[u]);
	else
		strbuf_addf(b, "%.1f %s", (double)bytes / (double)unit, units[u]);
}

void strbuf_reset(struct strbuf *b)
{
	b->len = 0;
	if (b->s)
		b->s[0] = '\0';
}

const char *strbuf_str(const struct strbuf *b)
{
	return b->s ? b->s : "";
}

char *strbuf_detach(struct strbuf *b)
{
	char *s = b->s ? b->s : strdup("");
	b->s = NULL;
	b->len = b->cap = 0;
	return s;
}
