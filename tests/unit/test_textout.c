/*
 * test_textout.c - er_print/textout.h: what a name looks like in er_print's
 * text output.  Printable ASCII and valid UTF-8 stay; C0 controls, DEL, C1
 * controls and each byte of invalid UTF-8 become visible escapes (tabs kept
 * only with TEXTOUT_KEEP_TAB); textout_printf escapes its %s arguments
 * (width counted on the escaped text, precision on the argument's bytes) and
 * writes every other conversion as printf does.
 */
#include "er_print/textout.h"

#include <inttypes.h>
#include <stdlib.h>

#include "tests/unit/check.h"

static char out[4096];

static const char *esc(const char *s, unsigned flags)
{
	struct strbuf b;
	strbuf_init(&b, 0);
	textout_escape(&b, s, strlen(s), flags);
	snprintf(out, sizeof out, "%s", strbuf_str(&b));
	CHECK_EQ_U64(textout_len(s, flags), b.len);
	CHECK_EQ_U64(textout_is_clean(s, strlen(s), flags), strcmp(s, out) == 0);
	strbuf_release(&b);
	return out;
}

static void test_escape(void)
{
	/* unchanged: names as compilers and file systems make them */
	CHECK_EQ_STR(esc("main", 0), "main");
	CHECK_EQ_STR(esc("geo::Shape::area(int) const", 0), "geo::Shape::area(int) const");
	CHECK_EQ_STR(esc("<static>@0x271c1 (<libc.so.6>)", 0), "<static>@0x271c1 (<libc.so.6>)");
	CHECK_EQ_STR(esc("caf\xc3\xa9.c \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x94\xa5", 0),
		     "caf\xc3\xa9.c \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x94\xa5");
	CHECK_EQ_STR(esc("back\\slash", 0), "back\\slash");
	CHECK_EQ_STR(esc("nbsp\xc2\xa0", 0), "nbsp\xc2\xa0"); /* U+00A0 is no control */
	/* C0, DEL */
	CHECK_EQ_STR(esc("red\x1b[31mRED\x1b[0m", 0), "red\\x1b[31mRED\\x1b[0m");
	CHECK_EQ_STR(esc("fake\n    9.999 100.00   row", 0), "fake\\n    9.999 100.00   row");
	CHECK_EQ_STR(esc("a\tb\rc\x01\x7f", 0), "a\\tb\\rc\\x01\\x7f");
	CHECK_EQ_STR(esc("a\tb\n", TEXTOUT_KEEP_TAB), "a\tb\\n");
	/* C1: U+009B is CSI to a terminal that reads 8-bit controls */
	CHECK_EQ_STR(esc("c1\xc2\x9b"
			 "31mX\xc2\x80",
			 0),
		     "c1\\u009b31mX\\u0080");
	/* invalid UTF-8: a lone CSI byte, a lone continuation, a cut sequence, overlong, surrogate */
	CHECK_EQ_STR(esc("\x9b"
			 "31m",
			 0),
		     "\\x9b31m");
	CHECK_EQ_STR(esc("\xff\x80", 0), "\\xff\\x80");
	CHECK_EQ_STR(esc("x\xe2\x82", 0), "x\\xe2\\x82");
	CHECK_EQ_STR(esc("\xc0\xaf", 0), "\\xc0\\xaf");
	CHECK_EQ_STR(esc("\xed\xa0\x80z", 0), "\\xed\\xa0\\x80z");
	CHECK_EQ_STR(esc("\xf4\x90\x80\x80", 0), "\\xf4\\x90\\x80\\x80"); /* above U+10FFFF */
	CHECK_EQ_STR(esc("", 0), "");
}

/* textout_printf into a string. */
static const char *pf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static const char *pf(const char *fmt, ...)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	va_list ap;
	va_start(ap, fmt);
	CHECK(textout_vprintf(f, fmt, ap) == 0);
	va_end(ap);
	fclose(f);
	snprintf(out, sizeof out, "%s", buf);
	free(buf);
	return out;
}

static void test_printf(void)
{
	CHECK_EQ_STR(pf("plain\n"), "plain\n");
	CHECK_EQ_STR(pf("100%%\t%s\n", "x"), "100%\tx\n"); /* the format's own tab and newline */
	CHECK_EQ_STR(pf("Load Object: %s\n", "/lib/a\nb.so"), "Load Object: /lib/a\\nb.so\n");
	CHECK_EQ_STR(pf("[%-8s|%6s]", "a\x1b", "\tb"), "[a\\x1b   |   \\tb]");
	CHECK_EQ_STR(pf("[%-*s|%*s]", 5, "ab", -4, "c"), "[ab   |c   ]");
	CHECK_EQ_STR(pf("[%.*s]", 2,
			"\x1b"
			"abc"),
		     "[\\x1ba]");
	CHECK_EQ_STR(pf("[%.3s]", "abcdef"), "[abc]");
	CHECK_EQ_STR(pf("%d %i %u %x %X %o %c", -5, 7, 3000000000u, 255, 255, 8, '*'),
		     "-5 7 3000000000 ff FF 10 *");
	CHECK_EQ_STR(pf("%ld %lu %lld %llu", -1L, 2UL, -3LL, 4ULL), "-1 2 -3 4");
	CHECK_EQ_STR(pf("%zu %zd %jd %td", (size_t)9, (ssize_t)-9, (intmax_t)-1, (ptrdiff_t)5), "9 -9 -1 5");
	CHECK_EQ_STR(pf("%" PRIu64 " %" PRIX64 " %08llx", UINT64_MAX, (uint64_t)0xabc, 0x1fULL),
		     "18446744073709551615 ABC 0000001f");
	CHECK_EQ_STR(pf("%5.1f%% %.3f %-6.2f| %g %e", 12.345, 1.0, 2.5, 0.5, 1e10),
		     " 12.3% 1.000 2.50  | 0.5 1.000000e+10");
	CHECK_EQ_STR(pf("%*" PRIu64 "|%-*zu|%+d|% d|%#x", 6, (uint64_t)42, 4, (size_t)1, 3, 4, 16),
		     "    42|1   |+3| 4|0x10");
	CHECK_EQ_STR(pf("%Lf", (long double)1.5), "1.500000");
	CHECK_EQ_STR(pf("%p", (void *)0x10), "0x10");
	CHECK_EQ_STR(pf("%s%s%s", "a", "\n", "b"), "a\\nb");
}

int main(void)
{
	test_escape();
	test_printf();
	return check_done();
}
