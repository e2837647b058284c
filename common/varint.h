/*
 * varint.h - LEB128 unsigned varints and zigzag signed varints, little-endian
 * fixed-width loads and stores.
 *
 * Every function here is pure, allocation-free and SIGNAL_SAFE.  Decoders never
 * read past `end` and report malformed input by returning 0 / NULL.
 */
#ifndef COMMON_VARINT_H
#define COMMON_VARINT_H

#include <stddef.h>
#include <stdint.h>

/* Longest encoding of a uint64_t varint. */
#define VARINT_MAX_BYTES 10

/* Encode v at p (room for VARINT_MAX_BYTES assumed); returns bytes written. */
static inline size_t varint_put(uint8_t *p, uint64_t v)
{
	size_t n = 0;
	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

/* Bytes varint_put would write for v. */
static inline size_t varint_len(uint64_t v)
{
	size_t n = 1;
	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

/*
 * Decode a varint from [p, end).  Returns the position after it, or NULL if the
 * input is truncated or longer than VARINT_MAX_BYTES / overflows 64 bits.
 */
static inline const uint8_t *varint_get(const uint8_t *p, const uint8_t *end, uint64_t *ret_v)
{
	uint64_t v = 0;
	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (p >= end)
			return NULL;
		uint8_t b = *p++;
		if (shift == 63 && (b & 0x7e))
			return NULL;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*ret_v = v;
			return p;
		}
	}
	return NULL;
}

static inline uint64_t zigzag_encode(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t zigzag_decode(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static inline void le16_put(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void le32_put(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void le64_put(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint16_t le16_get(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t le32_get(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static inline uint64_t le64_get(const uint8_t *p)
{
	return (uint64_t)le32_get(p) | ((uint64_t)le32_get(p + 4) << 32);
}

#endif
