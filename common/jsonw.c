/*
 * jsonw.c - the streaming JSON writer.  State is a stack of open levels
 * ('{' or '[') with a "something written" bit each, plus whether a key
 * waits for its value; every call first checks that its token may come
 * next (before writing anything), then writes the separator and the token.
 * Strings are validated as UTF-8 byte by byte (common/utf8.h); each maximal
 * invalid subpart becomes one U+FFFD, as the Unicode standard recommends.
 */
#include "common/jsonw.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/utf8.h"

void jsonw_init(struct jsonw *w, FILE *f, struct strbuf *sb, unsigned flags)
{
	memset(w, 0, sizeof *w);
	w->f = f;
	w->sb = sb;
	w->flags = flags;
}

int jsonw_error(const struct jsonw *w)
{
	return w->err;
}

static int fail(struct jsonw *w, int err)
{
	if (!w->err)
		w->err = err;
	return w->err;
}

static void emit(struct jsonw *w, const char *s, size_t n)
{
	if (w->err || !n)
		return;
	if (w->f) {
		if (fwrite(s, 1, n, w->f) != n || ferror(w->f))
			fail(w, -EIO);
	} else {
		strbuf_add(w->sb, s, n);
		if (w->sb->failed)
			fail(w, -ENOMEM);
	}
}

static void emits(struct jsonw *w, const char *s)
{
	emit(w, s, strlen(s));
}

static void newline_indent(struct jsonw *w, int depth)
{
	static const char spaces[] = "                                ";
	emit(w, "\n", 1);
	for (size_t n = (size_t)depth * 2; n > 0;) {
		size_t k = n < sizeof spaces - 1 ? n : sizeof spaces - 1;
		emit(w, spaces, k);
		n -= k;
	}
}

/* May a value (or, with is_key, a key) come next?  Writes the separator. */
static int begin_token(struct jsonw *w, int is_key)
{
	if (w->err)
		return w->err;
	if (w->depth == 0) {
		if (is_key || w->done)
			return fail(w, -EINVAL);
		return 0;
	}
	int in_object = w->kind[w->depth - 1] == '{';
	if (is_key ? !in_object || w->after_key : in_object && !w->after_key)
		return fail(w, -EINVAL);
	if (w->after_key) {
		w->after_key = 0;
		return 0;
	}
	if (w->count[w->depth - 1])
		emit(w, ",", 1);
	w->count[w->depth - 1] = 1;
	if (w->flags & JSONW_PRETTY)
		newline_indent(w, w->depth);
	return w->err;
}

/* After a scalar or a closed container: the top-level value may be complete. */
static int end_value(struct jsonw *w)
{
	if (w->depth == 0)
		w->done = 1;
	return w->err;
}

static int open_level(struct jsonw *w, char kind)
{
	if (begin_token(w, 0) < 0)
		return w->err;
	if (w->depth >= JSONW_MAX_DEPTH)
		return fail(w, -E2BIG);
	w->kind[w->depth] = (uint8_t)kind;
	w->count[w->depth] = 0;
	w->depth++;
	emit(w, &kind, 1);
	return w->err;
}

static int close_level(struct jsonw *w, char kind)
{
	if (w->err)
		return w->err;
	if (w->depth == 0 || w->kind[w->depth - 1] != (uint8_t)kind || w->after_key)
		return fail(w, -EINVAL);
	w->depth--;
	if ((w->flags & JSONW_PRETTY) && w->count[w->depth])
		newline_indent(w, w->depth);
	emit(w, kind == '{' ? "}" : "]", 1);
	return end_value(w);
}

int jsonw_object_begin(struct jsonw *w)
{
	return open_level(w, '{');
}

int jsonw_object_end(struct jsonw *w)
{
	return close_level(w, '{');
}

int jsonw_array_begin(struct jsonw *w)
{
	return open_level(w, '[');
}

int jsonw_array_end(struct jsonw *w)
{
	return close_level(w, '[');
}

/* JSON's two-character escape of c, or NULL. */
static const char *short_escape(unsigned char c)
{
	switch (c) {
	case '"': return "\\\"";
	case '\\': return "\\\\";
	case '\n': return "\\n";
	case '\t': return "\\t";
	case '\r': return "\\r";
	case '\b': return "\\b";
	case '\f': return "\\f";
	}
	return NULL;
}

static void emit_escaped(struct jsonw *w, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t run = 0; /* bytes of s[i - run .. i) to copy as they are */
	size_t i = 0;
	while (i < n) {
		unsigned char c = s[i];
		const char *esc = short_escape(c);
		char buf[8];
		size_t step = 1;
		if (!esc && c < 0x20) {
			snprintf(buf, sizeof buf, "\\u%04x", c);
			esc = buf;
		} else if (!esc && c >= 0x80) {
			size_t bad = 0;
			step = utf8_seq_len(s + i, n - i, &bad);
			if (!step) {
				esc = "\xef\xbf\xbd"; /* U+FFFD */
				step = bad;
			}
		}
		if (esc) {
			emit(w, (const char *)s + i - run, run);
			emits(w, esc);
			run = 0;
		} else {
			run += step;
		}
		i += step;
	}
	emit(w, (const char *)s + i - run, run);
}

int jsonw_string_n(struct jsonw *w, const char *s, size_t n)
{
	if (begin_token(w, 0) < 0)
		return w->err;
	emit(w, "\"", 1);
	emit_escaped(w, s, n);
	emit(w, "\"", 1);
	return end_value(w);
}

int jsonw_string(struct jsonw *w, const char *s)
{
	if (!s)
		return jsonw_null(w);
	return jsonw_string_n(w, s, strlen(s));
}

int jsonw_key(struct jsonw *w, const char *key)
{
	if (begin_token(w, 1) < 0)
		return w->err;
	emit(w, "\"", 1);
	emit_escaped(w, key, strlen(key));
	emit(w, (w->flags & JSONW_PRETTY) ? "\": " : "\":", (w->flags & JSONW_PRETTY) ? 3 : 2);
	w->after_key = 1;
	return w->err;
}

static int raw_value(struct jsonw *w, const char *text)
{
	if (begin_token(w, 0) < 0)
		return w->err;
	emits(w, text);
	return end_value(w);
}

int jsonw_uint(struct jsonw *w, uint64_t v)
{
	char buf[24];
	snprintf(buf, sizeof buf, "%" PRIu64, v);
	return raw_value(w, buf);
}

int jsonw_int(struct jsonw *w, int64_t v)
{
	char buf[24];
	snprintf(buf, sizeof buf, "%" PRId64, v);
	return raw_value(w, buf);
}

int jsonw_double(struct jsonw *w, double v)
{
	if (w->err)
		return w->err;
	if (!isfinite(v))
		return fail(w, -EDOM);
	char buf[40];
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof buf, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	/* JSON wants '.', whatever LC_NUMERIC says */
	for (char *p = buf; *p; p++)
		if (*p == ',')
			*p = '.';
	return raw_value(w, buf);
}

int jsonw_udecimal(struct jsonw *w, uint64_t v, unsigned scale)
{
	if (w->err)
		return w->err;
	if (scale > 19)
		return fail(w, -EINVAL);
	uint64_t div = 1;
	for (unsigned i = 0; i < scale; i++)
		div *= 10;
	uint64_t ip = v / div, fp = v % div;
	char buf[48];
	int len = snprintf(buf, sizeof buf, "%" PRIu64, ip);
	if (fp) {
		unsigned digits = scale;
		while (fp % 10 == 0) {
			fp /= 10;
			digits--;
		}
		snprintf(buf + len, sizeof buf - (size_t)len, ".%0*" PRIu64, (int)digits, fp);
	}
	return raw_value(w, buf);
}

int jsonw_bool(struct jsonw *w, int v)
{
	return raw_value(w, v ? "true" : "false");
}

int jsonw_null(struct jsonw *w)
{
	return raw_value(w, "null");
}

int jsonw_key_string(struct jsonw *w, const char *key, const char *s)
{
	jsonw_key(w, key);
	return jsonw_string(w, s);
}

int jsonw_key_uint(struct jsonw *w, const char *key, uint64_t v)
{
	jsonw_key(w, key);
	return jsonw_uint(w, v);
}

int jsonw_key_int(struct jsonw *w, const char *key, int64_t v)
{
	jsonw_key(w, key);
	return jsonw_int(w, v);
}

int jsonw_key_udecimal(struct jsonw *w, const char *key, uint64_t v, unsigned scale)
{
	jsonw_key(w, key);
	return jsonw_udecimal(w, v, scale);
}

int jsonw_key_bool(struct jsonw *w, const char *key, int v)
{
	jsonw_key(w, key);
	return jsonw_bool(w, v);
}

int jsonw_key_strings(struct jsonw *w, const char *key, char *const *v, size_t n)
{
	jsonw_key(w, key);
	jsonw_array_begin(w);
	for (size_t i = 0; i < n; i++)
		jsonw_string(w, v[i]);
	return jsonw_array_end(w);
}

int jsonw_finish(struct jsonw *w)
{
	if (w->err)
		return w->err;
	if (w->depth || !w->done)
		return fail(w, -EINVAL);
	emit(w, "\n", 1);
	if (w->f && ferror(w->f))
		fail(w, -EIO);
	return w->err;
}
