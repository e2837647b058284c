/*
 * fsops.h - the file copies and directory paths that the tools which copy
 * experiments' files share: er_archive (load objects, debug and source files
 * into archives/, er_archive/copy.h) and er_cp/er_mv (whole experiments,
 * er_manage/exptree.h).  Not for the collector (it is not linked into
 * libcollector.so: none of this is signal-safe).
 *
 * Library code: nothing is printed, errors are negative errno values.
 */
#ifndef COMMON_FSOPS_H
#define COMMON_FSOPS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define FSOPS_TO_EOF UINT64_MAX /* fsops_copy_bytes: however many bytes in has */

/*
 * Copy `length` bytes of the open file in, from its offset 0 (in's file
 * offset is not used), to out at out's file offset: with copy_file_range
 * (the kernel copies, or shares the blocks), and with pread/write for
 * whatever it leaves (another file system, a kernel or file type without
 * it, any error: the retry says which side failed).  Exactly `length`
 * bytes, or every byte up to in's end with FSOPS_TO_EOF (a file growing
 * meanwhile is followed to where reading ends).
 *
 * Returns 0; or with *ret_src_failed = 1, -ESTALE when in ended before
 * `length` bytes, or the -errno reading it failed with; or with
 * *ret_src_failed = 0, the -errno writing out failed with (-ENOSPC,
 * -EDQUOT, -EFBIG past the file size limit: ignore SIGXFSZ to get it).
 * On failure an unknown prefix was written.
 */
int fsops_copy_bytes(int in, int out, uint64_t length, int *ret_src_failed);

/*
 * mkdir -p: create each missing directory of path (mode `mode`, before the
 * umask) whose name ends past its first `skip` bytes, which name a
 * directory that exists (0: from the root or the working directory).  An
 * existing one is left as it is.  Returns 0, or the -errno of the first
 * mkdir that failed, with *ret_failed_len (may be NULL) the length of the
 * prefix of path it was given.
 */
int fsops_mkdir_p(const char *path, size_t skip, mode_t mode, size_t *ret_failed_len);

#endif
