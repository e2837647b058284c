/*
 * compress.h - compress an experiment data file with zstd once the target
 * has ended (the collector itself links only libc, so it writes raw blocks;
 * heap traces are large and compress well).  A heaptrace file goes through
 * the column transform of experiment/colxform.h first; every block is
 * checked to come back exactly before it is compressed.  Library-style:
 * returns -errno, prints nothing.
 */
#ifndef COLLECT_COMPRESS_H
#define COLLECT_COMPRESS_H

/*
 * Write `path`.zst (through a temporary name, then rename) and remove `path`.
 * On any failure `path` stays as it was and nothing else is left behind.
 * Returns 0, -ENOENT if `path` does not exist, -EIO if the transform would
 * not give the file back, or another -errno.  Not thread-safe: calls share
 * one compression context.
 */
int compress_data_file(const char *path);

#endif
