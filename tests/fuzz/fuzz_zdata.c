/*
 * fuzz_zdata - a compressed experiment data file, NAME.zst as collect leaves
 * it (analysis/zdata.h): zstd frames, for heaptrace the column transform
 * inside them, then the data file.  The first byte selects the form: 'Z' =
 * the rest is the .zst file itself (zstd's framing and the reader's loop
 * around it); anything else = the rest is what the .zst holds, compressed
 * here first, so that mutations reach the column transform and the data
 * file behind a valid frame.  The image is capped at 64 MiB (zdata_open_max);
 * a file that opens is walked as records and as heap event streams.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "analysis/zdata.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_IMAGE_BYTES (64u << 20)

static char dir[64], path[128], zpath[136];

static int count_record(void *ctx, uint32_t tid, uint64_t base_ns, int block_start,
			const struct exp_record *rec)
{
	(void)tid, (void)base_ns, (void)block_start, (void)rec;
	(*(uint64_t *)ctx)++;
	return 0;
}

static int count_block(void *ctx, uint32_t tid, uint64_t base_ns, const uint8_t *events, size_t bytes)
{
	(void)tid, (void)base_ns;
	if (bytes && !events)
		abort();
	(*(uint64_t *)ctx) += bytes;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!dir[0]) {
		snprintf(dir, sizeof dir, "/tmp/pa-fuzz-zdata.XXXXXX");
		if (!mkdtemp(dir))
			abort();
		snprintf(path, sizeof path, "%s/data", dir);
		snprintf(zpath, sizeof zpath, "%s.zst", path);
	}
	if (size == 0)
		return 0;
	const uint8_t *file = data + 1;
	size_t bytes = size - 1;
	void *z = NULL;
	if (data[0] != 'Z') {
		size_t room = ZSTD_compressBound(bytes);
		z = malloc(room ? room : 1);
		if (!z)
			abort();
		bytes = ZSTD_compress(z, room, file, bytes, 1);
		if (ZSTD_isError(bytes))
			abort();
		file = z;
	}
	FILE *f = fopen(zpath, "wb");
	if (!f || fwrite(file, 1, bytes, f) != bytes || fclose(f) != 0)
		abort();
	free(z);
	struct datafile *df;
	void *buf;
	char why[256];
	if (zdata_open_max(NULL, path, 0, MAX_IMAGE_BYTES, &df, &buf, why, sizeof why) == 0) {
		uint64_t n = 0;
		if (!buf)
			abort(); /* a .zst is always read into memory */
		datafile_walk(df, count_record, &n);
		datafile_walk_stream(df, count_block, &n);
		datafile_close(df);
		free(buf);
	}
	return 0;
}
