/*
 * utf8.h - UTF-8 validation, byte by byte (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF), for the writers that must not pass
 * invalid text on (jsonw's strings, er_print's escaped names).
 * Pure functions; thread-safe.
 */
#ifndef COMMON_UTF8_H
#define COMMON_UTF8_H

#include <stddef.h>

/*
 * The length (2 to 4) of the valid multi-byte UTF-8 sequence at s[0..n),
 * s[0] >= 0x80, or 0 if there is none; *ret_bad is then the length of its
 * maximal invalid subpart (at least 1), the bytes the Unicode standard
 * recommends replacing by one U+FFFD.
 */
size_t utf8_seq_len(const unsigned char *s, size_t n, size_t *ret_bad);

#endif
