/*
 * zdata.h - open an experiment data file that collect may have compressed:
 * NAME as written, or, when it is gone, NAME.zst (zstd, and for heaptrace
 * the column transform of experiment/colxform.h), decompressed into memory
 * (at most ZDATA_MAX_BYTES).  Returns what datafile_open returns;
 * -ENOENT when neither exists, -EBADMSG for a corrupt .zst, -EFBIG past the cap.
 */
#ifndef ANALYSIS_ZDATA_H
#define ANALYSIS_ZDATA_H

#include "experiment/datafile.h"

#define ZDATA_MAX_BYTES (8ull << 30)

/* *ret_buf receives the decompressed image (or NULL); free it after datafile_close. */
int zdata_open(const char *path, enum exp_file_kind kind, struct datafile **ret, void **ret_buf);

/*
 * The same with another cap than ZDATA_MAX_BYTES on the decompressed image
 * (tests and fuzzing: a few KiB of zstd can ask for gigabytes).
 */
int zdata_open_max(const char *path, enum exp_file_kind kind, uint64_t max_bytes, struct datafile **ret,
		   void **ret_buf);

#endif
