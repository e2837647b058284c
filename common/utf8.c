/*
 * utf8.c - UTF-8 validation (utf8.h): the lead byte gives the length and
 * the allowed range of the second byte, which is what excludes overlong
 * forms, surrogates and code points above U+10FFFF.
 */
#include "common/utf8.h"

size_t utf8_seq_len(const unsigned char *s, size_t n, size_t *ret_bad)
{
	unsigned char c = s[0];
	size_t len;
	unsigned char lo = 0x80, hi = 0xbf; /* allowed range of the second byte */
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		if (c == 0xe0)
			lo = 0xa0; /* no overlong forms */
		else if (c == 0xed)
			hi = 0x9f; /* no surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f; /* nothing above U+10FFFF */
	} else {
		*ret_bad = 1;
		return 0;
	}
	size_t i = 1;
	for (; i < len && i < n; i++) {
		unsigned char b = s[i];
		if (i == 1 ? b < lo || b > hi : (b & 0xc0) != 0x80)
			break;
	}
	if (i == len)
		return len;
	*ret_bad = i;
	return 0;
}
