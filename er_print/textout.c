/*
 * textout.c - escaped text output (textout.h).  textout_vprintf walks the
 * format itself: literal text is copied, a %s conversion is escaped and
 * padded here, and every other conversion is handed to fprintf as the piece
 * of the (compiler-checked) format it is, with its argument fetched by type.
 */
#include "er_print/textout.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "common/utf8.h"

/*
 * The first character of s[0..n): its byte count, and in esc its escape, or
 * "" when it is written as it is.
 */
static size_t next_char(const unsigned char *s, size_t n, unsigned flags, char esc[8])
{
	unsigned char c = s[0];
	esc[0] = '\0';
	if ((c >= 0x20 && c < 0x7f) || (c == '\t' && (flags & TEXTOUT_KEEP_TAB)))
		return 1;
	if (c < 0x80) {
		const char *two = c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\r' ? "\\r" : NULL;
		if (two)
			memcpy(esc, two, 3);
		else
			snprintf(esc, 8, "\\x%02x", c);
		return 1;
	}
	size_t bad;
	size_t len = utf8_seq_len(s, n, &bad);
	if (len == 0) { /* one byte at a time: the next one is escaped or starts a character */
		snprintf(esc, 8, "\\x%02x", c);
		return 1;
	}
	if (c == 0xc2 && s[1] <= 0x9f) /* U+0080..U+009F */
		snprintf(esc, 8, "\\u%04x", s[1]);
	return len;
}

int textout_is_clean(const char *s, size_t n, unsigned flags)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	while (i < n) {
		if (p[i] >= 0x20 && p[i] < 0x7f) { /* the common case */
			i++;
			continue;
		}
		char esc[8];
		i += next_char(p + i, n - i, flags, esc);
		if (esc[0])
			return 0;
	}
	return 1;
}

void textout_escape(struct strbuf *b, const char *s, size_t n, unsigned flags)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0; /* run: bytes before i to copy as they are */
	while (i < n) {
		char esc[8];
		size_t step = next_char(p + i, n - i, flags, esc);
		if (esc[0]) {
			strbuf_add(b, s + i - run, run);
			strbuf_adds(b, esc);
			run = 0;
		} else {
			run += step;
		}
		i += step;
	}
	strbuf_add(b, s + i - run, run);
}

size_t textout_len(const char *s, unsigned flags)
{
	size_t n = strlen(s);
	if (textout_is_clean(s, n, flags))
		return n;
	struct strbuf b;
	strbuf_init(&b, 0);
	textout_escape(&b, s, n, flags);
	size_t len = b.len;
	strbuf_release(&b);
	return len;
}

/* s[0..n) escaped to f, padded with blanks to width (on the left unless left). */
static void put_escaped(FILE *f, const char *s, size_t n, unsigned flags, size_t width, int left)
{
	struct strbuf b;
	strbuf_init(&b, 0);
	const char *out = s;
	size_t len = n;
	if (!textout_is_clean(s, n, flags)) {
		textout_escape(&b, s, n, flags);
		if (!b.failed) {
			out = strbuf_str(&b);
			len = b.len;
		} else { /* out of memory: the string cut before its first escape */
			for (len = 0; len < n && textout_is_clean(s + len, 1, flags); len++)
				;
		}
	}
	for (size_t i = len; !left && i < width; i++)
		fputc(' ', f);
	fwrite(out, 1, len, f);
	for (size_t i = len; left && i < width; i++)
		fputc(' ', f);
	strbuf_release(&b);
}

void textout_puts(FILE *f, const char *s, unsigned flags)
{
	put_escaped(f, s, strlen(s), flags, 0, 0);
}

void textout_write(FILE *f, const char *s, size_t n, unsigned flags)
{
	put_escaped(f, s, n, flags, 0, 0);
}

/* One conversion of a format, from its '%' (spec[0]) to its letter. */
struct conv {
	size_t len;   /* bytes of the format it takes */
	char letter;  /* 'd', 's', ... */
	char size[3]; /* the length modifier: "", "h", "hh", "l", "ll", "z", "j", "t", "L" */
	int left;     /* the '-' flag */
	int star_width, star_prec;
	long width, prec; /* prec -1: none; from the arguments when star_* */
	char flags[8];    /* "-+ #0" flags as written */
};

static void parse_conv(const char *spec, struct conv *c)
{
	const char *p = spec + 1;
	memset(c, 0, sizeof *c);
	c->prec = -1;
	size_t nf = strspn(p, "-+ #0");
	snprintf(c->flags, sizeof c->flags, "%.*s", nf < 7 ? (int)nf : 7, p);
	c->left = memchr(p, '-', nf) != NULL;
	p += nf;
	if (*p == '*') {
		c->star_width = 1;
		p++;
	} else {
		c->width = strtol(p, (char **)&p, 10);
	}
	if (*p == '.') {
		p++;
		if (*p == '*') {
			c->star_prec = 1;
			p++;
		} else {
			c->prec = strtol(p, (char **)&p, 10);
		}
	}
	size_t ns = strspn(p, "hlLqjzt");
	snprintf(c->size, sizeof c->size, "%.*s", ns < 2 ? (int)ns : 2, p);
	p += ns;
	c->letter = *p;
	c->len = (size_t)(p - spec) + (*p != '\0');
}

/* The conversion rebuilt with its width and precision as numbers, e.g. "%-12.3f". */
static void conv_format(const struct conv *c, char *buf, size_t room)
{
	char prec[24] = "";
	if (c->prec >= 0)
		snprintf(prec, sizeof prec, ".%ld", c->prec);
	snprintf(buf, room, "%%%s%.0ld%s%s%c", c->flags, c->width, prec, c->size, c->letter);
}

/*
 * The piece of a checked format that is one conversion, with the argument
 * of the type that conversion takes.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static void put_number(FILE *f, const struct conv *c, va_list *ap)
{
	char fmt[64];
	conv_format(c, fmt, sizeof fmt);
	const char *z = c->size;
	switch (c->letter) {
	case 'd':
	case 'i':
		if (!strcmp(z, "l"))
			fprintf(f, fmt, va_arg(*ap, long));
		else if (!strcmp(z, "ll") || !strcmp(z, "q"))
			fprintf(f, fmt, va_arg(*ap, long long));
		else if (!strcmp(z, "z"))
			fprintf(f, fmt, va_arg(*ap, ssize_t));
		else if (!strcmp(z, "j"))
			fprintf(f, fmt, va_arg(*ap, intmax_t));
		else if (!strcmp(z, "t"))
			fprintf(f, fmt, va_arg(*ap, ptrdiff_t));
		else
			fprintf(f, fmt, va_arg(*ap, int));
		break;
	case 'u':
	case 'o':
	case 'x':
	case 'X':
		if (!strcmp(z, "l"))
			fprintf(f, fmt, va_arg(*ap, unsigned long));
		else if (!strcmp(z, "ll") || !strcmp(z, "q"))
			fprintf(f, fmt, va_arg(*ap, unsigned long long));
		else if (!strcmp(z, "z"))
			fprintf(f, fmt, va_arg(*ap, size_t));
		else if (!strcmp(z, "j"))
			fprintf(f, fmt, va_arg(*ap, uintmax_t));
		else if (!strcmp(z, "t"))
			fprintf(f, fmt, va_arg(*ap, ptrdiff_t));
		else
			fprintf(f, fmt, va_arg(*ap, unsigned));
		break;
	case 'c': fprintf(f, fmt, va_arg(*ap, int)); break;
	case 'p': fprintf(f, fmt, va_arg(*ap, void *)); break;
	case 'f':
	case 'F':
	case 'e':
	case 'E':
	case 'g':
	case 'G':
	case 'a':
	case 'A':
		if (!strcmp(z, "L"))
			fprintf(f, fmt, va_arg(*ap, long double));
		else
			fprintf(f, fmt, va_arg(*ap, double));
		break;
	default: /* %n, or not a conversion: the text as written */ fputs(fmt, f);
	}
}
#pragma GCC diagnostic pop

static void put_conv(FILE *f, struct conv *c, va_list *ap)
{
	if (c->letter == '%') {
		fputc('%', f);
		return;
	}
	if (c->star_width) {
		int w = va_arg(*ap, int);
		c->width = w < 0 ? -(long)w : w;
		if (w < 0 && !c->left) { /* a negative width is the '-' flag */
			c->left = 1;
			size_t nf = strlen(c->flags);
			if (nf + 1 < sizeof c->flags)
				memcpy(c->flags + nf, "-", 2);
		}
	}
	if (c->star_prec) {
		int pr = va_arg(*ap, int);
		c->prec = pr < 0 ? -1 : pr;
	}
	if (c->letter == 's' && !c->size[0]) {
		const char *s = va_arg(*ap, const char *);
		if (!s)
			s = "(null)";
		size_t n = c->prec >= 0 ? strnlen(s, (size_t)c->prec) : strlen(s);
		put_escaped(f, s, n, 0, (size_t)c->width, c->left);
		return;
	}
	put_number(f, c, ap);
}

int textout_vprintf(FILE *f, const char *fmt, va_list ap)
{
	va_list aq;
	va_copy(aq, ap);
	const char *p = fmt;
	while (*p) {
		const char *pct = strchr(p, '%');
		size_t lit = pct ? (size_t)(pct - p) : strlen(p);
		fwrite(p, 1, lit, f);
		if (!pct)
			break;
		struct conv c;
		parse_conv(pct, &c);
		put_conv(f, &c, &aq);
		p = pct + c.len;
	}
	va_end(aq);
	return ferror(f) ? -1 : 0;
}

int textout_printf(FILE *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = textout_vprintf(f, fmt, ap);
	va_end(ap);
	return r;
}
