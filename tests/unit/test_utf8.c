/*
 * test_utf8.c - common/utf8.h: the length of each valid sequence (2, 3, 4
 * bytes, the edges of each range), and for invalid ones the maximal invalid
 * subpart: lone continuation and lead bytes, cut sequences, overlong forms,
 * surrogates, code points above U+10FFFF.
 */
#include "common/utf8.h"

#include "tests/unit/check.h"

static size_t len_of(const char *s, size_t *bad)
{
	*bad = 0;
	return utf8_seq_len((const unsigned char *)s, strlen(s), bad);
}

int main(void)
{
	size_t bad;
	CHECK_EQ_U64(len_of("\xc2\x80", &bad), 2);                /* U+0080 */
	CHECK_EQ_U64(len_of("\xdf\xbf", &bad), 2);                /* U+07FF */
	CHECK_EQ_U64(len_of("\xe0\xa0\x80", &bad), 3);            /* U+0800 */
	CHECK_EQ_U64(len_of("\xed\x9f\xbf", &bad), 3);            /* U+D7FF */
	CHECK_EQ_U64(len_of("\xef\xbf\xbf", &bad), 3);            /* U+FFFF */
	CHECK_EQ_U64(len_of("\xf0\x90\x80\x80", &bad), 4);        /* U+10000 */
	CHECK_EQ_U64(len_of("\xf4\x8f\xbf\xbf", &bad), 4);        /* U+10FFFF */
	CHECK_EQ_U64(len_of("\xc3\xa9tail", &bad), 2);            /* only the first character */
	CHECK(len_of("\x80", &bad) == 0 && bad == 1);             /* lone continuation */
	CHECK(len_of("\xff", &bad) == 0 && bad == 1);             /* never a lead byte */
	CHECK(len_of("\xc0\xaf", &bad) == 0 && bad == 1);         /* overlong lead */
	CHECK(len_of("\xe0\x9f\xbf", &bad) == 0 && bad == 1);     /* overlong 3-byte */
	CHECK(len_of("\xed\xa0\x80", &bad) == 0 && bad == 1);     /* surrogate */
	CHECK(len_of("\xf4\x90\x80\x80", &bad) == 0 && bad == 1); /* above U+10FFFF */
	CHECK(len_of("\xe2\x82", &bad) == 0 && bad == 2);         /* cut at the end */
	CHECK(len_of("\xf0\x9f\x94x", &bad) == 0 && bad == 3);    /* cut by an ASCII byte */
	return check_done();
}
