/*
 * test_colxform - the column transform of heaptrace images
 * (experiment/colxform.h): forward then inverse gives the image back byte
 * for byte, clean heaptrace blocks become COLUMNS units and everything else
 * VERBATIM or ZERO, and the inverse rejects truncated and damaged streams.
 */
#include "experiment/colxform.h"

#include <errno.h>
#include <stdlib.h>

#include "common/varint.h"
#include "experiment/heapstream.h"

#include "tests/unit/check.h"

#define MAX_BLOCKS 16
/* a string literal as (bytes, size) */
#define LIT(s) (const uint8_t *)(s), sizeof(s) - 1

struct image {
	uint8_t *data;
	size_t bytes;
};

static uint8_t *add_block(struct image *im)
{
	CHECK(im->bytes + EXP_BLOCK_BYTES <= (size_t)MAX_BLOCKS * EXP_BLOCK_BYTES);
	uint8_t *b = im->data + im->bytes;
	memset(b, 0, EXP_BLOCK_BYTES);
	im->bytes += EXP_BLOCK_BYTES;
	return b;
}

static void image_init(struct image *im)
{
	im->data = calloc(MAX_BLOCKS, EXP_BLOCK_BYTES);
	im->bytes = 0;
	uint8_t *h = add_block(im);
	memcpy(h + EXP_FH_MAGIC, EXP_FILE_MAGIC, EXP_FILE_MAGIC_BYTES);
	le16_put(h + EXP_FH_VERSION_MAJOR, EXP_FORMAT_VERSION_MAJOR);
	le16_put(h + EXP_FH_VERSION_MINOR, EXP_FORMAT_VERSION_MINOR);
	le32_put(h + EXP_FH_FILE_KIND, EXP_FILE_HEAP);
	le32_put(h + EXP_FH_BLOCK_BYTES, EXP_BLOCK_BYTES);
	le32_put(h + EXP_FH_PID, 4242);
	le64_put(h + EXP_FH_START_NS, 1000000);
}

static void block_header(uint8_t *b, uint32_t tid, uint32_t seq, uint32_t used, uint64_t base_ns)
{
	le32_put(b + EXP_BH_MAGIC, EXP_BLOCK_MAGIC);
	le32_put(b + EXP_BH_TID, tid);
	le32_put(b + EXP_BH_SEQ, seq);
	le32_put(b + EXP_BH_USED, used);
	le64_put(b + EXP_BH_BASE_NS, base_ns);
}

static uint32_t rng = 12345;
static uint32_t next_rand(void)
{
	rng = rng * 1103515245u + 12345u;
	return rng >> 8;
}

/*
 * A heap block of events: `varied` mixes every op, realloc old 0 / == addr /
 * elsewhere, stack ids, slots, seq escapes (forward and back) and time marks;
 * otherwise `n` similar malloc/free pairs.  Returns the used bytes.
 */
static uint32_t fill_heap_block(uint8_t *b, uint32_t tid, int varied, unsigned n)
{
	struct heapstream_state s;
	uint64_t now = 5000000, seq = 100, addr = 0x555500001000ull;
	heapstream_begin(&s, now, EXP_FORMAT_VERSION_MINOR);
	uint8_t *ev = b + EXP_BLOCK_HEADER_BYTES;
	size_t used = 0;
	for (unsigned i = 0; i < n; i++) {
		struct exp_heap h = {.seq = ++seq, .addr = addr, .size = 16 + (i % 4) * 16};
		if (varied) {
			uint32_t r = next_rand();
			h.op = (uint8_t)(r % EXP_HEAP_TIME);
			h.size = r % 7 == 0 ? (1ull << 40) + r : r % 5000;
			h.addr = r % 11 == 0 ? 0xffffffffffff0000ull - r : addr + (r % 64) * 16;
			if (r % 13 == 0)
				h.seq = seq += 1000 + r % 100000; /* escape */
			else if (r % 17 == 0)
				h.seq = seq -= 40; /* backwards: escape too */
			h.seq = seq;
			switch (i % 3) {
			case 0: h.old_addr = 0; break;
			case 1: h.old_addr = h.addr; break;
			default: h.old_addr = h.addr - 4096 * (r % 9); break;
			}
			switch (r % 4) {
			case 0: h.stack_kind = EXP_STACKREF_NONE; break;
			case 1:
				h.stack_kind = EXP_STACKREF_ID;
				h.stack_id = 0x1234567890abcdefull * r;
				break;
			default:
				h.stack_kind = EXP_STACKREF_SLOT0;
				h.stack_slot = r % 3 ? r % 100 : r;
				break;
			}
			now += r % 3 ? 10 : 300000;
		} else {
			h.op = i % 2 ? EXP_HEAP_FREE : EXP_HEAP_MALLOC;
			h.stack_kind = EXP_STACKREF_SLOT0;
			h.stack_slot = i % 5;
			if (i % 2)
				addr += 32;
			now += 2000;
		}
		if (used + 2 * EXP_HEAP_EVENT_MAX_BYTES > EXP_BLOCK_BYTES - EXP_BLOCK_HEADER_BYTES)
			break;
		if (heapstream_time_due(&s, now, EXP_HEAP_TIME_STEP_NS))
			used += heapstream_encode_time(ev + used, &s, now);
		used += heapstream_encode(ev + used, &s, &h);
	}
	block_header(b, tid, 0, (uint32_t)used, 5000000);
	return (uint32_t)used;
}

/* Forward the image piece by piece into a malloc'd stream; types[] gets each unit's type. */
static uint8_t *forward(const struct image *im, size_t *ret_bytes, int *types, size_t max_types)
{
	size_t pieces = (im->bytes + EXP_BLOCK_BYTES - 1) / EXP_BLOCK_BYTES;
	uint8_t *out = malloc(COLX_MAGIC_BYTES + (pieces + 1) * COLX_UNIT_MAX_BYTES);
	size_t n = (size_t)colx_forward_begin(out);
	for (size_t i = 0; i < pieces; i++) {
		size_t off = i * EXP_BLOCK_BYTES, len = im->bytes - off;
		if (len > EXP_BLOCK_BYTES)
			len = EXP_BLOCK_BYTES;
		int u = colx_forward_unit(im->data + off, len, out + n);
		CHECK(u > 0 && (size_t)u <= COLX_UNIT_MAX_BYTES);
		if (u <= 0)
			break;
		if (i < max_types)
			types[i] = out[n];
		/* each unit undoes to its piece on its own */
		const uint8_t *pos = out + n;
		uint8_t *piece = malloc(EXP_BLOCK_BYTES);
		size_t got = 0;
		CHECK(colx_inverse_unit(&pos, out + n + (size_t)u, piece, &got) == 0);
		CHECK(pos == out + n + (size_t)u);
		CHECK(got == len && memcmp(piece, im->data + off, len) == 0);
		free(piece);
		n += (size_t)u;
	}
	n += (size_t)colx_forward_end(im->bytes, out + n);
	*ret_bytes = n;
	return out;
}

static void check_roundtrip(const struct image *im)
{
	size_t n;
	int types[MAX_BLOCKS + 1];
	uint8_t *x = forward(im, &n, types, MAX_BLOCKS + 1);
	CHECK(colx_is_transformed(x, n));
	uint8_t *back = NULL;
	size_t bytes = 0;
	CHECK(colx_inverse(x, n, SIZE_MAX, &back, &bytes) == 0);
	CHECK_EQ_U64(bytes, im->bytes);
	CHECK(back && memcmp(back, im->data, im->bytes) == 0);
	free(back);
	/* the cap */
	if (im->bytes) {
		CHECK(colx_inverse(x, n, im->bytes - 1, &back, &bytes) == -EFBIG);
		CHECK(colx_inverse(x, n, im->bytes, &back, &bytes) == 0);
		free(back);
	}
	free(x);
}

static void test_mixed_image(void)
{
	struct image im;
	image_init(&im);
	uint8_t *b;
	b = add_block(&im); /* 1: varied events, column-split */
	CHECK(fill_heap_block(b, 11, 1, 5000) > 30000);
	b = add_block(&im); /* 2: 1000 similar events */
	fill_heap_block(b, 12, 0, 1000);
	b = add_block(&im); /* 3: empty heap block */
	block_header(b, 13, 1, 0, 7);
	add_block(&im);     /* 4: unclaimed, all zero */
	b = add_block(&im); /* 5: garbage after used */
	uint32_t used = fill_heap_block(b, 14, 1, 50);
	b[EXP_BLOCK_HEADER_BYTES + used + 100] = 0x5a;
	b = add_block(&im); /* 6: used ends inside an event */
	used = fill_heap_block(b, 15, 1, 50);
	le32_put(b + EXP_BH_USED, used - 1);
	memset(b + EXP_BLOCK_HEADER_BYTES + used - 1, 0, 1);
	b = add_block(&im); /* 7: an 11-byte varint */
	block_header(b, 16, 0, 13, 0);
	b[EXP_BLOCK_HEADER_BYTES] = EXP_HEAP_FREE;
	memset(b + EXP_BLOCK_HEADER_BYTES + 1, 0x80, 11);
	b[EXP_BLOCK_HEADER_BYTES + 12] = 0;
	b = add_block(&im); /* 8: used past the block */
	block_header(b, 17, 0, EXP_BLOCK_BYTES, 0);
	b = add_block(&im); /* 9: magic 0, some bytes */
	b[100] = 1;
	b = add_block(&im); /* 10: bad magic, otherwise clean */
	fill_heap_block(b, 18, 0, 10);
	le32_put(b + EXP_BH_MAGIC, 0x12345678);
	b = add_block(&im); /* 11: non-canonical varints, TIME head with seq bits */
	{
		/* MALLOC: size 16 in two bytes, addr delta in three, stackref 1 in two: an id follows;
		 * a time mark with seq bits; REALLOC with a seq escape: escape, size, addr, old (two
		 * bytes), slot 1; MUNMAP: size in three bytes, addr */
		static const uint8_t ev[] = "\x00\x90\x00\x82\x80\x00\x81\x00\x01\x02\x03\x04\x05\x06\x07\x08"
					    "\x0f\xff\x01"
					    "\xfa\x80\x00\x05\x06\x80\x00\x03"
					    "\x36\x80\x80\x01\x02";
		block_header(b, 19, 3, sizeof ev - 1, 99);
		memcpy(b + EXP_BLOCK_HEADER_BYTES, ev, sizeof ev - 1);
	}
	b = add_block(&im); /* 12: 10-byte varints that overflow 64 bits (not for varint_get) */
	block_header(b, 20, 0, 11, 0);
	b[EXP_BLOCK_HEADER_BYTES] = EXP_HEAP_FREE;
	memset(b + EXP_BLOCK_HEADER_BYTES + 1, 0xff, 9);
	b[EXP_BLOCK_HEADER_BYTES + 10] = 0x7f;
	b = add_block(&im); /* 13: truncated trailing block */
	fill_heap_block(b, 21, 1, 100);
	im.bytes -= EXP_BLOCK_BYTES - 3000;

	size_t n;
	int t[MAX_BLOCKS + 1];
	uint8_t *x = forward(&im, &n, t, MAX_BLOCKS + 1);
	CHECK(t[0] == COLX_UNIT_VERBATIM);
	CHECK(t[1] == COLX_UNIT_COLUMNS);
	CHECK(t[2] == COLX_UNIT_COLUMNS);
	CHECK(t[3] == COLX_UNIT_COLUMNS);
	CHECK(t[4] == COLX_UNIT_ZERO);
	CHECK(t[5] == COLX_UNIT_VERBATIM);
	CHECK(t[6] == COLX_UNIT_VERBATIM);
	CHECK(t[7] == COLX_UNIT_VERBATIM);
	CHECK(t[8] == COLX_UNIT_VERBATIM);
	CHECK(t[9] == COLX_UNIT_VERBATIM);
	CHECK(t[10] == COLX_UNIT_VERBATIM);
	CHECK(t[11] == COLX_UNIT_COLUMNS);
	CHECK(t[12] == COLX_UNIT_VERBATIM);
	CHECK(t[13] == COLX_UNIT_VERBATIM);
	free(x);
	check_roundtrip(&im);

	/* the events of block 11 were split as the decoder reads them */
	struct heapstream_state s;
	const uint8_t *blk = im.data + 11 * (size_t)EXP_BLOCK_BYTES, *pos = blk + EXP_BLOCK_HEADER_BYTES;
	heapstream_begin(&s, 0, EXP_FORMAT_VERSION_MINOR);
	struct exp_heap h;
	CHECK(heapstream_next(&pos, pos + 16, &s, 1, &h) == 1);
	CHECK(h.stack_kind == EXP_STACKREF_ID && h.stack_id == 0x0807060504030201ull && h.size == 16);
	free(im.data);
}

/* A clean block's COLUMNS unit is no bigger than its events and groups the heads. */
static void test_columns_layout(void)
{
	struct image im;
	image_init(&im);
	uint8_t *b = add_block(&im);
	uint32_t used = fill_heap_block(b, 1, 0, 1000);
	uint8_t *out = malloc(COLX_UNIT_MAX_BYTES);
	int u = colx_forward_unit(b, EXP_BLOCK_BYTES, out);
	CHECK(u > 0 && out[0] == COLX_UNIT_COLUMNS);
	CHECK((size_t)u <= 1 + EXP_BLOCK_HEADER_BYTES + 3 + 7 * 3 + used);
	CHECK(memcmp(out + 1, b, EXP_BLOCK_HEADER_BYTES) == 0);
	uint64_t count;
	const uint8_t *p = varint_get(out + 1 + EXP_BLOCK_HEADER_BYTES, out + u, &count);
	CHECK(p && count == 1000 + (1000 * 2000 / EXP_HEAP_TIME_STEP_NS));
	uint64_t len[7];
	for (int i = 0; p && i < 7; i++)
		p = varint_get(p, out + u, &len[i]);
	CHECK(p && len[0] == 2); /* one seq escape: the first event, seq 101 (varint 169) */
	/* the heads column: malloc, free, ... with time marks between */
	unsigned mallocs = 0, frees = 0, marks = 0;
	for (uint64_t i = 0; p && i < count; i++) {
		unsigned op = p[i] & 7;
		mallocs += op == EXP_HEAP_MALLOC;
		frees += op == EXP_HEAP_FREE;
		marks += op == EXP_HEAP_TIME;
	}
	CHECK(mallocs == 500 && frees == 500 && marks == count - 1000);
	/* bad sizes */
	CHECK(colx_forward_unit(b, 0, out) == -EINVAL);
	CHECK(colx_forward_unit(b, EXP_BLOCK_BYTES + 1, out) == -EINVAL);
	/* END is not a piece */
	int e = colx_forward_end(12345, out);
	p = out;
	size_t got;
	CHECK(colx_inverse_unit(&p, out + e, out + 64, &got) == -EBADMSG);
	free(out);
	check_roundtrip(&im);
	free(im.data);
}

static void test_small_images(void)
{
	struct image im = {calloc(MAX_BLOCKS, EXP_BLOCK_BYTES), 0};
	check_roundtrip(&im); /* empty */
	im.bytes = 1;
	check_roundtrip(&im);
	im.bytes = EXP_BLOCK_BYTES; /* one zero block */
	check_roundtrip(&im);
	im.bytes = EXP_BLOCK_BYTES + 1;
	check_roundtrip(&im);
	free(im.data);
	uint8_t *img;
	size_t n;
	CHECK(colx_inverse(LIT("PAHCOLS0\004\000"), SIZE_MAX, &img, &n) == -EBADMSG);
	CHECK(colx_inverse(LIT("PAHCOLS1\004\000"), SIZE_MAX, &img, &n) == 0);
	CHECK(n == 0);
	free(img);
	CHECK(colx_inverse(LIT("PAHCOLS1\004\001"), SIZE_MAX, &img, &n) == -EBADMSG);
	CHECK(colx_inverse(LIT("PAHCOLS1"), SIZE_MAX, &img, &n) == -EBADMSG);
	CHECK(colx_inverse(LIT("PAHCOLS"), SIZE_MAX, &img, &n) == -EBADMSG);
	CHECK(!colx_is_transformed(LIT("PAHCOLS")));
	/* a short piece, then another one */
	CHECK(colx_inverse(LIT("PAHCOLS1\001\001x\001\001y\004\002"), SIZE_MAX, &img, &n) == -EBADMSG);
	CHECK(colx_inverse(LIT("PAHCOLS1\001\001x\004\001"), SIZE_MAX, &img, &n) == 0);
	CHECK(n == 1 && img[0] == 'x');
	free(img);
	/* trailing bytes after END */
	CHECK(colx_inverse(LIT("PAHCOLS1\001\001x\004\001\000"), SIZE_MAX, &img, &n) == -EBADMSG);
	/* ZERO units: -EFBIG before allocating */
	CHECK(colx_inverse(LIT("PAHCOLS1\002\002\004\200\200\010"), EXP_BLOCK_BYTES, &img, &n) == -EFBIG);
	CHECK(colx_inverse(LIT("PAHCOLS1\002\002\004\200\200\010"), 2 * EXP_BLOCK_BYTES, &img, &n) == 0);
	CHECK(n == 2 * EXP_BLOCK_BYTES && img[0] == 0 && img[n - 1] == 0);
	free(img);
}

/* Every strict prefix is rejected; every flipped byte is survived. */
static void test_damage(void)
{
	struct image im;
	image_init(&im);
	fill_heap_block(add_block(&im), 5, 1, 300);
	fill_heap_block(add_block(&im), 6, 0, 300);
	add_block(&im);
	size_t n;
	int t[4];
	uint8_t *x = forward(&im, &n, t, 4);
	CHECK(t[1] == COLX_UNIT_COLUMNS && t[2] == COLX_UNIT_COLUMNS && t[3] == COLX_UNIT_ZERO);
	uint8_t *img;
	size_t bytes;
	unsigned ok = 0;
	for (size_t len = 0; len < n; len++) {
		uint8_t *copy = malloc(len ? len : 1); /* exact size: ASan sees any overread */
		memcpy(copy, x, len);
		int r = colx_inverse(copy, len, SIZE_MAX, &img, &bytes);
		ok += r == -EBADMSG;
		free(copy);
	}
	CHECK_EQ_U64(ok, n);
	/* flip one byte at a time (every byte of the column units, a sample of the verbatim one) */
	uint8_t *copy = malloc(n);
	unsigned accepted = 0, rejected = 0;
	for (size_t i = 0; i < n; i += i < EXP_BLOCK_BYTES + 16 ? 97 : 1) {
		for (unsigned bit = 0; bit < 8; bit += 7) {
			memcpy(copy, x, n);
			copy[i] ^= (uint8_t)(1u << bit);
			int r = colx_inverse(copy, n, SIZE_MAX, &img, &bytes);
			CHECK(r == 0 || r == -EBADMSG || r == -EFBIG);
			if (r == 0) {
				accepted++;
				/* whatever it accepts is a whole-block image plus maybe a short piece */
				free(img);
			} else {
				rejected++;
			}
		}
	}
	CHECK(rejected > 0);
	printf("flips: %u accepted, %u rejected\n", accepted, rejected);
	free(copy);
	free(x);
	free(im.data);
}

int main(void)
{
	test_mixed_image();
	test_columns_layout();
	test_small_images();
	test_damage();
	return check_done();
}
