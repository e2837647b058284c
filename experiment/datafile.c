/*
 * datafile.c - block walker for experiment data files.  The file is mapped
 * read-only; every offset is checked against the mapped size.
 */
#include "experiment/datafile.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/regfile.h"
#include "common/varint.h"

struct datafile {
	const uint8_t *data;
	size_t bytes;
	int mapped;
	struct datafile_info info;
	struct datafile_damage damage;
};

static int parse_header(struct datafile *df, enum exp_file_kind expect_kind)
{
	const uint8_t *h = df->data;
	if (df->bytes < EXP_FILE_HEADER_BYTES || memcmp(h, EXP_FILE_MAGIC, EXP_FILE_MAGIC_BYTES) != 0)
		return -EBADMSG;
	df->info.version_major = le16_get(h + EXP_FH_VERSION_MAJOR);
	df->info.version_minor = le16_get(h + EXP_FH_VERSION_MINOR);
	if (df->info.version_major != EXP_FORMAT_VERSION_MAJOR)
		return -ENOTSUP;
	df->info.kind = (enum exp_file_kind)le32_get(h + EXP_FH_FILE_KIND);
	if (le32_get(h + EXP_FH_BLOCK_BYTES) != EXP_BLOCK_BYTES)
		return -EBADMSG;
	if (expect_kind && df->info.kind != expect_kind)
		return -EBADMSG;
	df->info.pid = le32_get(h + EXP_FH_PID);
	df->info.start_ns = le64_get(h + EXP_FH_START_NS);
	if (df->bytes <= EXP_BLOCK_BYTES) {
		df->info.block_count = 0;
		/* header block itself may be partial while being written */
	} else {
		df->info.block_count = (df->bytes - EXP_BLOCK_BYTES) / EXP_BLOCK_BYTES;
		df->damage.torn_bytes = (df->bytes - EXP_BLOCK_BYTES) % EXP_BLOCK_BYTES;
	}
	return 0;
}

int datafile_open_memory(const uint8_t *data, size_t bytes, enum exp_file_kind expect_kind,
			 struct datafile **ret)
{
	struct datafile *df = calloc(1, sizeof *df);
	if (!df)
		return -ENOMEM;
	df->data = data;
	df->bytes = bytes;
	int r = parse_header(df, expect_kind);
	if (r < 0) {
		free(df);
		return r;
	}
	*ret = df;
	return 0;
}

int datafile_open_fd(int fd, uint64_t bytes, enum exp_file_kind expect_kind, struct datafile **ret)
{
	if (bytes < EXP_FILE_HEADER_BYTES)
		return -EBADMSG;
	if (bytes > SIZE_MAX)
		return -EFBIG;
	void *p = mmap(NULL, (size_t)bytes, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	int r = datafile_open_memory(p, (size_t)bytes, expect_kind, ret);
	if (r < 0) {
		munmap(p, (size_t)bytes);
		return r;
	}
	(*ret)->mapped = 1;
	return 0;
}

int datafile_open(const char *path, enum exp_file_kind expect_kind, struct datafile **ret)
{
	struct stat st;
	int fd = regfile_open(path, &st);
	if (fd < 0)
		return fd;
	int r = datafile_open_fd(fd, (uint64_t)st.st_size, expect_kind, ret);
	close(fd);
	return r;
}

void datafile_close(struct datafile *df)
{
	if (!df)
		return;
	if (df->mapped)
		munmap((void *)df->data, df->bytes);
	free(df);
}

const struct datafile_info *datafile_info(const struct datafile *df)
{
	return &df->info;
}

struct datafile_damage *datafile_damage(struct datafile *df)
{
	return &df->damage;
}

int datafile_walk(struct datafile *df, datafile_record_fn fn, void *ctx)
{
	for (uint64_t b = 0; b < df->info.block_count; b++) {
		const uint8_t *blk = df->data + EXP_BLOCK_BYTES * (b + 1);
		uint32_t magic = le32_get(blk + EXP_BH_MAGIC);
		if (magic == 0)
			continue; /* claimed but not yet initialised, or never used */
		if (magic != EXP_BLOCK_MAGIC) {
			df->damage.bad_blocks++;
			continue;
		}
		uint32_t tid = le32_get(blk + EXP_BH_TID);
		uint64_t base = le64_get(blk + EXP_BH_BASE_NS);
		const uint8_t *pos = blk + EXP_BLOCK_HEADER_BYTES, *end = blk + EXP_BLOCK_BYTES;
		int first = 1;
		struct exp_record rec;
		int r;
		while ((r = record_next(&pos, end, &rec)) > 0) {
			int s = fn(ctx, tid, base, first, &rec);
			if (s)
				return s;
			first = 0;
		}
		if (r < 0)
			df->damage.bad_blocks++;
	}
	return 0;
}

int datafile_walk_stream(struct datafile *df, datafile_stream_fn fn, void *ctx)
{
	for (uint64_t b = 0; b < df->info.block_count; b++) {
		const uint8_t *blk = df->data + EXP_BLOCK_BYTES * (b + 1);
		uint32_t magic = le32_get(blk + EXP_BH_MAGIC);
		if (magic == 0)
			continue;
		if (magic != EXP_BLOCK_MAGIC) {
			df->damage.bad_blocks++;
			continue;
		}
		/* the writer stores the count after each event's bytes (release) */
		uint32_t used = le32_get(blk + EXP_BH_USED);
		atomic_thread_fence(memory_order_acquire);
		if (used > EXP_BLOCK_BYTES - EXP_BLOCK_HEADER_BYTES) {
			df->damage.bad_blocks++;
			continue;
		}
		int s = fn(ctx, le32_get(blk + EXP_BH_TID), le64_get(blk + EXP_BH_BASE_NS),
			   blk + EXP_BLOCK_HEADER_BYTES, used);
		if (s)
			return s;
	}
	return 0;
}
