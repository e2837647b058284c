/*
 * fuzz_datafile - an arbitrary byte string as an experiment data file: the
 * header check, the block walk and every record decoder.  Blocks are 64 KiB,
 * so to keep inputs small the first byte selects the form: 'F' = the input
 * is a whole file image (walked as records and as heap event streams); 'H' =
 * the rest is block 1 of a heaptrace file (block header and heap events);
 * anything else = the rest is block 1 (block header and records) of a
 * profile file.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/varint.h"

#include "experiment/datafile.h"
#include "experiment/heapstream.h"
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
	struct exp_stack_slot sl;
	(void)record_decode_stack_slot(rec, &sl);
	struct exp_sync y;
	if (record_decode_sync(rec, *prev, tid, &y) == 0)
		*prev = y.ts_ns;
	struct exp_sync_acq a;
	if (record_decode_sync_acq(rec, *prev, tid, &a) == 0)
		*prev = a.ts_ns;
	struct exp_sync_count n;
	(void)record_decode_sync_count(rec, &n);
	struct exp_hwc h;
	if (record_decode_hwc(rec, *prev, tid, &h) == 0)
		*prev = h.ts_ns;
	return 0;
}

static int visit_heap(void *ctx, uint32_t tid, uint64_t base_ns, const uint8_t *events, size_t bytes)
{
	uint64_t *count = ctx;
	struct heapstream_state st;
	heapstream_begin(&st, base_ns, (base_ns & 1) ? 1 : EXP_FORMAT_VERSION_MINOR); /* both codings */
	const uint8_t *pos = events, *end = events + bytes;
	struct exp_heap h;
	while (heapstream_next(&pos, end, &st, tid, &h) > 0) {
		if (h.op >= EXP_HEAP_TIME || pos > end)
			abort();
		(*count)++;
	}
	return 0;
}

static uint8_t image[2 * EXP_BLOCK_BYTES];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct datafile *df;
	if (size == 0)
		return 0;
	int whole = data[0] == 'F';
	if (!whole) {
		size_t n = size - 1 < EXP_BLOCK_BYTES ? size - 1 : EXP_BLOCK_BYTES;
		memset(image, 0, sizeof image);
		memcpy(image, EXP_FILE_MAGIC, EXP_FILE_MAGIC_BYTES);
		le16_put(image + EXP_FH_VERSION_MAJOR, EXP_FORMAT_VERSION_MAJOR);
		le32_put(image + EXP_FH_FILE_KIND, data[0] == 'H' ? EXP_FILE_HEAP : EXP_FILE_PROFILE);
		le32_put(image + EXP_FH_BLOCK_BYTES, EXP_BLOCK_BYTES);
		memcpy(image + EXP_BLOCK_BYTES, data + 1, n);
		data = image;
		size = sizeof image;
	}
	if (datafile_open_memory(data, size, 0, &df) < 0)
		return 0;
	uint64_t prev = 0, count = 0;
	int heap = datafile_info(df)->kind == EXP_FILE_HEAP;
	if (whole || !heap)
		datafile_walk(df, visit, &prev);
	if (whole || heap)
		datafile_walk_stream(df, visit_heap, &count);
	datafile_close(df);
	return 0;
}
