/*
 * fsops.c - shared file copies and directory paths (contract in fsops.h).
 */
#include "common/fsops.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/io.h"

/* The rest of the copy from in's offset *done with pread/write. */
static int copy_rw(int in, int out, uint64_t length, uint64_t *done, int *ret_src_failed)
{
	char buf[1 << 16];
	while (*done < length) {
		size_t want = length - *done < sizeof buf ? (size_t)(length - *done) : sizeof buf;
		ssize_t n = pread(in, buf, want, (off_t)*done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0 && length == FSOPS_TO_EOF)
			return 0;
		if (n <= 0) {
			*ret_src_failed = 1;
			return n < 0 ? -errno : -ESTALE;
		}
		int r = io_write_all(out, buf, (size_t)n);
		if (r < 0)
			return r;
		*done += (uint64_t)n;
	}
	return 0;
}

int fsops_copy_bytes(int in, int out, uint64_t length, int *ret_src_failed)
{
	uint64_t done = 0;
	*ret_src_failed = 0;
	while (done < length) {
		uint64_t left = length - done;
		size_t chunk = left < ((size_t)1 << 30) ? (size_t)left : (size_t)1 << 30;
		loff_t off = (loff_t)done;
		ssize_t n = copy_file_range(in, &off, out, NULL, chunk, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break; /* the end of in, or no copy_file_range here: pread tells which */
		done += (uint64_t)n;
	}
	return copy_rw(in, out, length, &done, ret_src_failed);
}

int fsops_mkdir_p(const char *path, size_t skip, mode_t mode, size_t *ret_failed_len)
{
	char p[PATH_MAX];
	size_t n = strlen(path);
	if (n >= sizeof p)
		return -ENAMETOOLONG;
	memcpy(p, path, n + 1);
	for (size_t i = skip + 1; i <= n; i++) {
		if (p[i] != '/' && p[i] != '\0')
			continue;
		char save = p[i];
		p[i] = '\0';
		if (mkdir(p, mode) < 0 && errno != EEXIST) {
			if (ret_failed_len)
				*ret_failed_len = i;
			return -errno;
		}
		p[i] = save;
	}
	return 0;
}
