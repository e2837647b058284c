/*
 * fuzz_datafile - an arbitrary byte string as an experiment data file: the
 * header check, the block walk and every record decoder.  Blocks are 64 KiB,
 * so to keep inputs small the first byte selects the form: 'F' = the input
 * is a whole file image; anything else = the input after that byte is the
 * content of block 1 (block header and records) behind a valid file header.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/varint.h"

#include "experiment/datafile.h"
#include "experiment/record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t pcs[EXP_MAX_FRAMES];

static int visit(void *ctx, uint32_t tid, uint64_t base_ns, int block_start, const struct exp_record *rec)
{
	uint64_t *prev = ctx;
	if (block_start)
		*prev = base_ns;
	struct exp_clock c;
	struct exp_thread_start ts;
	struct exp_thread_end te;
	struct exp_stack s;
	struct exp_sample sm;
	if (record_decode_clock(rec, *prev, tid, &c) == 0)
		*prev = c.ts_ns;
	(void)record_decode_thread_start(rec, &ts);
	(void)record_decode_thread_end(rec, &te);
	(void)record_decode_stack(rec, pcs, EXP_MAX_FRAMES, &s);
	(void)record_decode_stack(rec, pcs, 4, &s);
	(void)record_decode_sample(rec, &sm);
	struct exp_heap h;
	struct exp_stack_slot sl;
	(void)record_decode_heap(rec, *prev, 0x100000, tid, &h);
	(void)record_decode_stack_slot(rec, &sl);
	return 0;
}

static uint8_t image[2 * EXP_BLOCK_BYTES];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct datafile *df;
	if (size == 0)
		return 0;
	if (data[0] != 'F') {
		size_t n = size - 1 < EXP_BLOCK_BYTES ? size - 1 : EXP_BLOCK_BYTES;
		memset(image, 0, sizeof image);
		memcpy(image, EXP_FILE_MAGIC, EXP_FILE_MAGIC_BYTES);
		le16_put(image + EXP_FH_VERSION_MAJOR, EXP_FORMAT_VERSION_MAJOR);
		le32_put(image + EXP_FH_FILE_KIND, EXP_FILE_PROFILE);
		le32_put(image + EXP_FH_BLOCK_BYTES, EXP_BLOCK_BYTES);
		memcpy(image + EXP_BLOCK_BYTES, data + 1, n);
		data = image;
		size = sizeof image;
	}
	if (datafile_open_memory(data, size, 0, &df) < 0)
		return 0;
	uint64_t prev = 0;
	datafile_walk(df, visit, &prev);
	datafile_close(df);
	return 0;
}
