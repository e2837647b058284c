/*
 * io.h - whole writes to a file descriptor.
 *
 * One loop over write(2) for every layer (collector, collect, er_archive):
 * it calls write(2) only, allocates nothing and is SIGNAL_SAFE (it may change
 * errno).  It never prints or exits.
 */
#ifndef COMMON_IO_H
#define COMMON_IO_H

#include <stddef.h>

/*
 * Write all n bytes of p to fd, calling write(2) again after a short write and
 * after EINTR.  n == 0 returns 0 without calling write(2) (p may then be NULL).
 * Returns 0 when every byte was written, else a negative errno: the one
 * write(2) failed with (-EBADF, -ENOSPC, -EPIPE, -EAGAIN on a non-blocking fd,
 * ...), or -ENOSPC when write(2) returned 0 for a non-empty request.  On
 * failure an unknown prefix of p may have been written.  SIGNAL_SAFE.
 */
int io_write_all(int fd, const void *p, size_t n);

#endif
