/*
 * fuzz_colxform - the column transform of heaptrace images
 * (experiment/colxform.h).  Every input is used three ways:
 *   1. as a transformed stream: colx_inverse must not crash, and what it
 *      accepts must itself go forward and back exactly;
 *   2. as a file image: forward every 64 KiB piece, inverse, must be equal;
 *   3. as the events of one heaptrace block (blocks are 64 KiB, inputs are
 *      small): header with magic and used = the input's bytes, then the
 *      input, then zeros; or, when the input starts with 'G', the input
 *      after that byte fills the block after a used count of half of it
 *      (garbage past `used`).  Forward and back must be equal.
 * A difference calls abort().
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/varint.h"
#include "experiment/colxform.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t block[EXP_BLOCK_BYTES];

/* Forward img piece by piece, then inverse: must give img back. */
static void roundtrip(const uint8_t *img, size_t bytes)
{
	size_t pieces = (bytes + EXP_BLOCK_BYTES - 1) / EXP_BLOCK_BYTES;
	uint8_t *x = malloc(COLX_MAGIC_BYTES + (pieces + 1) * COLX_UNIT_MAX_BYTES);
	if (!x)
		abort();
	size_t n = (size_t)colx_forward_begin(x);
	for (size_t off = 0; off < bytes; off += EXP_BLOCK_BYTES) {
		size_t len = bytes - off < EXP_BLOCK_BYTES ? bytes - off : EXP_BLOCK_BYTES;
		int u = colx_forward_unit(img + off, len, x + n);
		if (u <= 0 || (size_t)u > COLX_UNIT_MAX_BYTES)
			abort();
		n += (size_t)u;
	}
	n += (size_t)colx_forward_end(bytes, x + n);
	uint8_t *back;
	size_t back_bytes;
	if (colx_inverse(x, n, SIZE_MAX, &back, &back_bytes) != 0 || back_bytes != bytes ||
	    memcmp(back, img, bytes) != 0)
		abort();
	free(back);
	free(x);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *img;
	size_t bytes;
	if (colx_inverse(data, size, (size_t)64 << 20, &img, &bytes) == 0) {
		roundtrip(img, bytes);
		free(img);
	}
	roundtrip(data, size);
	memset(block, 0, sizeof block);
	le32_put(block + EXP_BH_MAGIC, EXP_BLOCK_MAGIC);
	le32_put(block + EXP_BH_TID, 7);
	le64_put(block + EXP_BH_BASE_NS, 1000);
	const uint8_t *ev = data;
	size_t n = size, used = size;
	if (size && data[0] == 'G') {
		ev++;
		n--;
		used = n / 2;
	}
	if (n > EXP_BLOCK_BYTES - EXP_BLOCK_HEADER_BYTES)
		n = used = EXP_BLOCK_BYTES - EXP_BLOCK_HEADER_BYTES;
	le32_put(block + EXP_BH_USED, (uint32_t)used);
	if (n)
		memcpy(block + EXP_BLOCK_HEADER_BYTES, ev, n);
	roundtrip(block, sizeof block);
	return 0;
}
