/*
 * datafile.h - read one binary data file of an experiment (profile, stacks,
 * overview): check its header, then walk its blocks and their records.
 *
 * The file may still be being written: a block whose magic is not yet set is
 * skipped, records stop at the first kind-0 byte of a block, and a file whose
 * size is not a whole number of blocks is read up to its last whole block.
 * Damage is never fatal: it is counted in struct datafile_damage and the walk
 * goes on with the next block.  Not thread-safe; no signal-safety.
 */
#ifndef EXPERIMENT_DATAFILE_H
#define EXPERIMENT_DATAFILE_H

#include <stddef.h>
#include <stdint.h>

#include "experiment/format.h"
#include "experiment/record.h"

struct datafile; /* opaque */

struct datafile_info {
	enum exp_file_kind kind;
	uint16_t version_major, version_minor;
	uint32_t pid;
	uint64_t start_ns;
	uint64_t block_count; /* whole blocks after the header */
};

struct datafile_damage {
	uint64_t bad_blocks;  /* blocks with a bad magic or a malformed record (rest skipped) */
	uint64_t torn_bytes;  /* bytes of a partial block at the end of the file */
	uint64_t bad_records; /* records that failed to decode (counted by callers) */
};

/*
 * Open `path` and check its header.  Returns 0 and *ret, or -errno: -ENOENT,
 * -EBADMSG (not an experiment data file or truncated header), -ENOTSUP (newer
 * major version), or common/regfile.h's refusals (-REGFILE_EFIFO, ...: the
 * file is opened with regfile_open, a regular file only, never blocking).
 * `expect_kind` 0 accepts any kind.
 */
int datafile_open(const char *path, enum exp_file_kind expect_kind, struct datafile **ret);

/*
 * The same on a regular file the caller opened (and checked: regfile.h),
 * `bytes` long: it is mapped, and fd may be closed once this returns.
 */
int datafile_open_fd(int fd, uint64_t bytes, enum exp_file_kind expect_kind, struct datafile **ret);
void datafile_close(struct datafile *df);

const struct datafile_info *datafile_info(const struct datafile *df);
struct datafile_damage *datafile_damage(struct datafile *df);

/*
 * The callback sees each record with its block's tid and base time; for clock
 * records the caller keeps the running timestamp (reset at each block, via
 * `block_start` = 1 on the block's first record).  A non-zero return stops the
 * walk and is returned by datafile_walk.
 */
typedef int (*datafile_record_fn)(void *ctx, uint32_t tid, uint64_t base_ns, int block_start,
				  const struct exp_record *rec);

/* Walk every block in file order. Returns 0, or the callback's non-zero value. */
int datafile_walk(struct datafile *df, datafile_record_fn fn, void *ctx);

/*
 * Walk a heaptrace file (experiment/heapstream.h): the callback sees each
 * block's complete event bytes, the EXP_BH_USED bytes after its header (0
 * or more).  A block whose used count passes its end is counted as bad and
 * skipped.  Returns 0, or the callback's non-zero value.
 */
typedef int (*datafile_stream_fn)(void *ctx, uint32_t tid, uint64_t base_ns, const uint8_t *events,
				  size_t bytes);
int datafile_walk_stream(struct datafile *df, datafile_stream_fn fn, void *ctx);

/*
 * Same on a file image in memory (fuzzing and tests): the image is not copied
 * and must outlive the handle.
 */
int datafile_open_memory(const uint8_t *data, size_t bytes, enum exp_file_kind expect_kind,
			 struct datafile **ret);

#endif
