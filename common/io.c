/*
 * io.c - whole writes to a file descriptor (contract in io.h).  Plain
 * write(2) in a loop: no allocation, no stdio, so the collector can use it.
 */
#include "common/io.h"

#include <errno.h>
#include <unistd.h>

int io_write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n) {
		ssize_t w = write(fd, c, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (w == 0)
			return -ENOSPC; /* no progress and no error: do not spin */
		c += w;
		n -= (size_t)w;
	}
	return 0;
}
