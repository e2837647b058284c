/*
 * fsize.h - collect under a file size limit (RLIMIT_FSIZE, `ulimit -f`),
 * which binds collect as it binds the target: a write of collect's past the
 * limit must fail with EFBIG (and say so) rather than kill collect with
 * SIGXFSZ, while the target keeps the disposition of SIGXFSZ it would have
 * had without collect.
 *
 * Not thread-safe (collect is single-threaded); prints nothing.
 */
#ifndef COLLECT_FSIZE_H
#define COLLECT_FSIZE_H

#include <stddef.h>
#include <stdint.h>

/*
 * Make SIGXFSZ harmless to collect: a handler that does nothing, unless the
 * signal is ignored already.  A handler (not SIG_IGN) because exec resets it
 * to the default: the target, and every program collect runs, inherits
 * SIGXFSZ as collect found it.  Call before the first write.
 */
void fsize_guard(void);

/* The soft RLIMIT_FSIZE in bytes; UINT64_MAX when there is none. */
uint64_t fsize_limit_bytes(void);

/*
 * Why a write that ended at end_bytes took less than it was given: EFBIG
 * when it stopped at the file size limit, else ENOSPC.
 */
int fsize_short_write_errno(uint64_t end_bytes);

/* "ulimit -f 64 KiB" (or "65000 bytes" for a limit `ulimit -f` cannot give). */
void fsize_words(char *dst, size_t room, uint64_t bytes);

#endif
