/*
 * test_varint.c - common/varint.h: LEB128 varints at every length boundary,
 * zigzag at the signed extremes, and the decoder's refusals (truncated,
 * longer than 10 bytes, overflowing 64 bits, and never a read past end);
 * little-endian loads and stores.
 */
#include "common/varint.h"

#include <stdlib.h>
#include <string.h>

#include "tests/unit/check.h"

/* Encode v, check its length, decode it back from a buffer of exactly its size. */
static void round_trip(uint64_t v)
{
	uint8_t buf[VARINT_MAX_BYTES];
	size_t n = varint_put(buf, v);
	CHECK_EQ_U64(n, varint_len(v));
	CHECK(n >= 1 && n <= VARINT_MAX_BYTES);
	uint8_t *exact = malloc(n); /* ASan sees a read past it */
	memcpy(exact, buf, n);
	uint64_t got = ~v;
	const uint8_t *after = varint_get(exact, exact + n, &got);
	CHECK(after == exact + n);
	CHECK_EQ_U64(got, v);
	for (size_t cut = 0; cut < n; cut++) /* every truncation is refused */
		CHECK(varint_get(exact, exact + cut, &got) == NULL);
	free(exact);
}

static void lengths(void)
{
	/* 7 bits per byte: 2^(7k) - 1 is the last value of k bytes */
	for (unsigned k = 1; k <= 9; k++) {
		uint64_t last = (1ull << (7 * k)) - 1;
		CHECK_EQ_U64(varint_len(last), k);
		CHECK_EQ_U64(varint_len(last + 1), k + 1);
		round_trip(last);
		round_trip(last + 1);
	}
	CHECK_EQ_U64(varint_len(UINT64_MAX), 10);
	round_trip(0);
	round_trip(UINT64_MAX);
	round_trip(UINT64_MAX - 1);
	round_trip(1ull << 63);
	uint8_t b[VARINT_MAX_BYTES];
	CHECK_EQ_U64(varint_put(b, 300), 2); /* the LEB128 example: 0xac 0x02 */
	CHECK_EQ_U64(b[0], 0xac);
	CHECK_EQ_U64(b[1], 0x02);
}

static void refusals(void)
{
	uint64_t v = 0;
	/* 11 continuation bytes: longer than any uint64_t */
	uint8_t eleven[11];
	memset(eleven, 0x80, sizeof eleven);
	eleven[10] = 0x00;
	CHECK(varint_get(eleven, eleven + sizeof eleven, &v) == NULL);
	/* the 10th byte may only hold bit 63 */
	uint8_t over[10];
	memset(over, 0xff, 9);
	over[9] = 0x02;
	CHECK(varint_get(over, over + 10, &v) == NULL);
	over[9] = 0x01;
	CHECK(varint_get(over, over + 10, &v) == over + 10);
	CHECK_EQ_U64(v, UINT64_MAX);
	/* an empty range */
	CHECK(varint_get(over, over, &v) == NULL);
	/* a non-minimal encoding of 0 (0x80 0x00) is accepted as 0 */
	uint8_t padded[2] = {0x80, 0x00};
	CHECK(varint_get(padded, padded + 2, &v) == padded + 2);
	CHECK_EQ_U64(v, 0);
}

static void zigzag(void)
{
	CHECK_EQ_U64(zigzag_encode(0), 0);
	CHECK_EQ_U64(zigzag_encode(-1), 1);
	CHECK_EQ_U64(zigzag_encode(1), 2);
	CHECK_EQ_U64(zigzag_encode(-2), 3);
	CHECK_EQ_U64(zigzag_encode(INT64_MAX), UINT64_MAX - 1);
	CHECK_EQ_U64(zigzag_encode(INT64_MIN), UINT64_MAX);
	const int64_t vals[] = {0, 1, -1, 63, -64, 64, -65, INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN};
	for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++)
		CHECK(zigzag_decode(zigzag_encode(vals[i])) == vals[i]);
	CHECK_EQ_U64(varint_len(zigzag_encode(-64)), 1); /* small magnitudes stay one byte */
	CHECK_EQ_U64(varint_len(zigzag_encode(64)), 2);
}

static void fixed(void)
{
	uint8_t b[8];
	le16_put(b, 0x1234);
	CHECK_EQ_U64(b[0], 0x34);
	CHECK_EQ_U64(b[1], 0x12);
	CHECK_EQ_U64(le16_get(b), 0x1234);
	le32_put(b, 0xdeadbeefu);
	CHECK_EQ_U64(b[0], 0xef);
	CHECK_EQ_U64(b[3], 0xde);
	CHECK_EQ_U64(le32_get(b), 0xdeadbeefu);
	le64_put(b, 0x0102030405060708ull);
	CHECK_EQ_U64(b[0], 0x08);
	CHECK_EQ_U64(b[7], 0x01);
	CHECK_EQ_U64(le64_get(b), 0x0102030405060708ull);
	le64_put(b, UINT64_MAX);
	CHECK_EQ_U64(le64_get(b), UINT64_MAX);
	le32_put(b, 0x80000000u); /* the top bit does not sign-extend */
	CHECK_EQ_U64(le32_get(b), 0x80000000u);
}

int main(void)
{
	lengths();
	refusals();
	zigzag();
	fixed();
	return check_done();
}
