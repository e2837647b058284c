/*
 * zdata.h - open an experiment data file that collect may have compressed:
 * NAME as written, or, when it is gone, NAME.zst (zstd, and for heaptrace
 * the column transform of experiment/colxform.h), decompressed into memory.
 *
 * Data files are untrusted input, and what they may cost is bounded before
 * anything is read (docs/experiment-format.md, "What a reader accepts"):
 *   - a regular file only, opened without blocking; inside an experiment
 *     directory, not a link out of it (common/regfile.h);
 *   - not sparse (regfile.h's rule: a long file that stores less than a
 *     64th of its length is refused, so that a 1 TiB file of 128 KiB costs
 *     nothing);
 *   - at most the ceiling long, raw or decompressed: zdata_max_bytes(),
 *     PA_MAX_DATA_BYTES when set, else ZDATA_MAX_BYTES.  A .zst's size is
 *     known before anything is allocated: from its frames' headers when they
 *     declare it (collect's do), else by decompressing it once without
 *     keeping the output, so a decompression bomb is refused at the ceiling
 *     having cost no memory, and an image is allocated once, at its size;
 *     the image's all-zero pages (unused blocks) are never written, so they
 *     cost no memory either.
 * Not thread-safe per file; no printing.
 */
#ifndef ANALYSIS_ZDATA_H
#define ANALYSIS_ZDATA_H

#include <stddef.h>
#include <stdint.h>

#include "experiment/datafile.h"

/*
 * The default ceiling, per data file.  A clock profile this long holds some
 * 400 million samples (about 20 bytes each, measured): 64 busy threads for
 * 100 minutes at collect -p hi; the reader needs 40 bytes of memory per
 * sample for its events, 16 GiB for this one.
 */
#define ZDATA_MAX_BYTES (8ull << 30)

/* The environment variable that sets another ceiling (bytes, or with a K, M, G or T suffix). */
#define ZDATA_MAX_ENV "PA_MAX_DATA_BYTES"

/*
 * The ceiling in force: $PA_MAX_DATA_BYTES when it is a number of bytes
 * (digits, then optionally K, M, G or T, powers of 1024; at least 1 MiB),
 * else ZDATA_MAX_BYTES.
 */
uint64_t zdata_max_bytes(void);

/*
 * Open the data file `name` of the experiment directory `dir` (dir NULL:
 * `name` is a path, opened as a file from anywhere).  Returns 0 and *ret,
 * with *ret_buf the decompressed image of a .zst (or NULL for a file mapped
 * as it is; free it after datafile_close); -ENOENT when neither NAME nor
 * NAME.zst exists; -ENOMEM; or another negative code, with why (room bytes)
 * saying what was refused, naming the file: "profile: not a regular file (a
 * FIFO)", "profile: data file is sparse: 4 GiB long, 128 KiB stored",
 * "profile.zst: decompresses past the ceiling of 8 GiB (PA_MAX_DATA_BYTES)",
 * "profile: not an experiment data file, or its header is damaged"
 * (-EBADMSG), "profile: written by a newer version of the format"
 * (-ENOTSUP), ....
 */
int zdata_open(const char *dir, const char *name, enum exp_file_kind kind, struct datafile **ret,
	       void **ret_buf, char *why, size_t room);

/* The same with another ceiling than zdata_max_bytes() (tests and fuzzing). */
int zdata_open_max(const char *dir, const char *name, enum exp_file_kind kind, uint64_t max_bytes,
		   struct datafile **ret, void **ret_buf, char *why, size_t room);

#endif
