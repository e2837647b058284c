/*
 * expname.h - experiment directory naming (Oracle collect / gprofng rules).
 *
 * An experiment name ends in ".er".  A name of the form STEM.N.er (STEM not
 * empty, N decimal digits) is "numbered": when it is already in use, the next
 * free name is STEM.(M+1).er where M is the highest number of any existing
 * STEM.M.er in the directory (gaps are not filled).  A name that is not
 * numbered and exists is an error.  The default name is "test.1.er".
 *
 * Library code: no printing, errors are negative errno values.  Thread-safe
 * (no static state).  Not async-signal-safe (uses opendir).  Choosing a name
 * is inherently racy with other processes; a caller should create the
 * directory with mkdir(2), and on EEXIST ask again.
 */
#ifndef EXPERIMENT_EXPNAME_H
#define EXPERIMENT_EXPNAME_H

#include <stddef.h>

#define EXPNAME_DEFAULT "test.1.er"
/* Longest experiment name (one path component), not counting the NUL. */
#define EXPNAME_MAX_BYTES 255

/*
 * Check that NAME is a valid experiment name: one path component (no '/'),
 * ends in ".er" with something before it, at most EXPNAME_MAX_BYTES bytes.
 * Returns 0, or -EINVAL (NULL, no ".er" suffix, nothing before it, or
 * contains '/'), or -ENAMETOOLONG.
 */
int expname_validate(const char *name);

/*
 * If NAME is numbered (STEM.N.er), return 1 and store the length of STEM in
 * *ret_stem_bytes and N in *ret_number (either pointer may be NULL).
 * Return 0 if NAME is not numbered, -EOVERFLOW if N does not fit an
 * unsigned long.
 */
int expname_parse(const char *name, size_t *ret_stem_bytes, unsigned long *ret_number);

/*
 * Choose the name of a new experiment in directory DIR (NULL = ".") starting
 * from NAME (NULL = EXPNAME_DEFAULT), following the rules above, and copy it
 * to RET_NAME (ROOM bytes including the NUL).  Nothing is created.
 * Returns 0, or -EINVAL / -ENAMETOOLONG (invalid NAME), -EEXIST (NAME is not
 * numbered and exists), -EOVERFLOW (the next number does not fit), -ENOSPC
 * (RET_NAME too small), or the -errno of lstat/opendir on DIR (e.g.
 * -ENOENT when DIR does not exist, -ENOTDIR).
 */
int expname_next(const char *dir, const char *name, char *ret_name, size_t room);

#endif
