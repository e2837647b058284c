/*
 * regfile.h - open a file that someone else may have made, for reading: a
 * regular file only, never blocking, never opening anything else.
 *
 * An experiment, and every file it names (load objects, their debug files,
 * source files, the program), is untrusted input.  A FIFO among them blocks
 * open(2) until a writer comes, a device may be endless (/dev/zero) or act
 * when opened, and a symbolic link inside an experiment may lead to a file
 * the reader can read and the experiment's maker cannot (~/.ssh/id_rsa shown
 * as its notes, or copied into it).  Every reader of such a file opens it
 * here: the name is stat'ed first, so that anything but a regular file is
 * refused without being opened at all; then it is opened with O_NONBLOCK |
 * O_NOCTTY (a FIFO or a device swapped in after the stat cannot block it)
 * and fstat'ed: the file opened must be a regular file too.  O_NONBLOCK is
 * cleared before the descriptor is returned (O_CLOEXEC stays).
 *
 * The files of an experiment itself are opened with regfile_open_in, which
 * also refuses a name that resolves outside the experiment's directory: an
 * absolute symbolic link, or a relative one that climbs out with "..".
 * Files it names elsewhere (load objects, sources) are opened with
 * regfile_open, which follows links: /lib/x86_64-linux-gnu/libc.so.6 is one.
 *
 * The sparse rule (docs/experiment-format.md): a file's "stored" bytes are
 * those the file system holds for it, the larger of st_blocks * 512 and the
 * sum of its data extents (SEEK_DATA/SEEK_HOLE); a file longer than
 * REGFILE_SPARSE_MIN_BYTES that stores less than one byte in
 * REGFILE_SPARSE_RATIO is sparse, and readers refuse it: its holes would be
 * read as zeros, costing time and memory in proportion to a length that
 * costs its maker nothing (a 1 TiB file of 128 KiB).  Real files do not come
 * near it: the collector reserves each 64 KiB block with fallocate, and a
 * copy by cp(1) that turns the unwritten part of each block into holes keeps
 * one 4 KiB page in 16 (measured: 6.8 MB stored in 430 KB, 15.8 to 1).
 *
 * Errors are negative: an errno value (-ENOENT, -EACCES, -ELOOP, ...), or
 * for a refusal one of the codes below, which lie above every errno value;
 * regfile_strerror gives the text of both.  Nothing here prints or exits;
 * thread-safe; not for signal context.
 */
#ifndef COMMON_REGFILE_H
#define COMMON_REGFILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* The refusals (returned negated, like errno values); regfile_strerror's text for each. */
enum regfile_refusal {
	REGFILE_EFIFO = 0x10001, /* "not a regular file (a FIFO)" */
	REGFILE_ECHR,            /* "not a regular file (a character device)" */
	REGFILE_EBLK,            /* "not a regular file (a block device)" */
	REGFILE_ESOCK,           /* "not a regular file (a socket)" */
	REGFILE_EDIR,            /* "not a regular file (a directory)" */
	REGFILE_ELINK,           /* "a symbolic link" (REGFILE_NOFOLLOW) */
	REGFILE_EOUTSIDE,        /* "a symbolic link that leads out of the experiment" */
	REGFILE_ESPARSE,         /* "a sparse file (its length is mostly holes)": for callers */
};

#define REGFILE_SPARSE_MIN_BYTES (16ull << 20) /* shorter files are never called sparse */
#define REGFILE_SPARSE_RATIO 64                /* length / stored past this: sparse */

/*
 * Open `path` (links followed) for reading as a regular file, as described
 * above.  Returns the descriptor (O_CLOEXEC) with *ret_st its fstat
 * (ret_st may be NULL), or a negative errno or -REGFILE_E*.
 */
int regfile_open(const char *path, struct stat *ret_st);

/*
 * The same for `name`, a path relative to the directory `dir`, which must
 * resolve inside `dir` (openat2's RESOLVE_BENEATH where the kernel has it,
 * else a realpath(3) comparison): a symbolic link that leaves it, or an
 * absolute one, is -REGFILE_EOUTSIDE.  -ENOENT when dir or name is missing.
 */
int regfile_open_in(const char *dir, const char *name, struct stat *ret_st);

#define REGFILE_NOFOLLOW 1 /* regfile_open_at: a symbolic link is -REGFILE_ELINK, never followed */

/* The same relative to the open directory dirfd (or AT_FDCWD), with REGFILE_NOFOLLOW or 0. */
int regfile_open_at(int dirfd, const char *name, int flags, struct stat *ret_st);

/*
 * The text for err (negative): strerror(-err) for an errno value, the
 * refusal's text (above) for -REGFILE_E*.  Never NULL; static storage.
 */
const char *regfile_strerror(int err);

/* The bytes the file system stores for fd's file (st its fstat), as the sparse rule counts them. */
uint64_t regfile_stored_bytes(int fd, const struct stat *st);

/*
 * Whether fd's file (st its fstat) is sparse by the rule above: 1 with
 * *ret_stored set (may be NULL), else 0.
 */
int regfile_is_sparse(int fd, const struct stat *st, uint64_t *ret_stored);

#endif
