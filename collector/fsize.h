/*
 * fsize.h - the file size limit (RLIMIT_FSIZE) that every write of the
 * collector stays within.
 *
 * A write that would take a file past the process's soft limit makes the
 * kernel send it SIGXFSZ, which kills the target by default: a signal the
 * program did not earn.  The collector cannot exempt its files (under
 * `ulimit -f` the soft and hard limits are the same), so it looks before each
 * growth of a file of the experiment: a data file's header block and each
 * block claim (collector/blockw.h), each append to log.xml, map.xml and
 * processes.xml (collector/logxml.h), a subexperiment's head and vdso.so.  A
 * growth that would pass the limit is not made: a block claim fails with
 * EFBIG, which stops the data files as a full disk does, and an append is
 * dropped whole.  The limit is read each time, as the program may change it
 * (setrlimit, prlimit) at any moment; what remains is the program lowering
 * it between our look and our write.
 *
 * The kernel's rules: a write(2) that starts at or past the limit raises the
 * signal (one that starts below it is cut short, silently); fallocate and a
 * growing ftruncate raise it when the new size is past the limit.
 *
 * SIGNAL_SAFE (one prlimit64 system call, no state).
 */
#ifndef COLLECTOR_FSIZE_H
#define COLLECTOR_FSIZE_H

#include <stdint.h>

/* The soft RLIMIT_FSIZE in bytes now; UINT64_MAX when there is none. */
uint64_t fsize_limit_bytes(void);

/* 1 if a file may grow to end_bytes (fallocate to it, or pwrite ending there). */
int fsize_allows(uint64_t end_bytes);

/*
 * 1 if a file of size_bytes may take an O_APPEND write of n bytes.  One byte
 * is kept spare: another writer that looked at the same size then still
 * starts below the limit (it is cut short, never signalled).
 */
int fsize_allows_append(uint64_t size_bytes, uint64_t n);

#endif
