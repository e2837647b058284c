/*
 * exptree.h - copy and remove a directory tree (an experiment) with libc
 * calls only: openat/fdopendir, copy_file_range (read/write where the
 * kernel cannot), readlinkat/symlinkat, fchmod/futimens.
 *
 * A copy keeps regular files, directories and symbolic links (as links,
 * their targets unchanged, relative or absolute), permission bits and
 * access/modification times; other file types are refused, and so is a
 * sparse file (common/regfile.h's rule: its holes would be written as
 * zeros).  Symbolic links are never followed; files are opened with
 * regfile_open_at, so a FIFO swapped in never blocks the copy.  Nothing is
 * printed: errors are negative errno values or common/regfile.h's
 * -REGFILE_E* refusals (regfile_strerror says which), and WHERE (ROOM
 * bytes) names the file they happened on.
 */
#ifndef ER_MANAGE_EXPTREE_H
#define ER_MANAGE_EXPTREE_H

#include <stddef.h>

#define EXPTREE_DEPTH_MAX 64 /* deeper trees are refused (-ELOOP) */

/* exptree_copy flags */
#define EXPTREE_SYNC 1 /* fsync every file and directory written (er_mv: before the source goes) */

/*
 * Copy the directory SRC to DST, which must not exist.  0 when every file
 * was copied; else -errno (-EEXIST: DST exists, -ENOSPC, -EDQUOT,
 * -ELOOP deeper than EXPTREE_DEPTH_MAX) or -REGFILE_E* (a FIFO, device or
 * socket; a sparse file) after removing whatever part of DST it had made.
 */
int exptree_copy(const char *src, const char *dst, int flags, char *where, size_t room);

/*
 * Remove the directory tree PATH (not following links; a directory without
 * write permission is given it first).  0 or -errno; on failure part of the
 * tree may be gone.
 */
int exptree_remove(const char *path, char *where, size_t room);

#endif
