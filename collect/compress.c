/*
 * compress.c - zstd streaming compression of a finished data file.
 */
#include "collect/compress.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <zstd.h>

static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n) {
		ssize_t w = write(fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

int compress_data_file(const char *path)
{
	char dst[PATH_MAX], tmp[PATH_MAX];
	if ((size_t)snprintf(dst, sizeof dst, "%s.zst", path) >= sizeof dst ||
	    (size_t)snprintf(tmp, sizeof tmp, "%s.zst.tmp", path) >= sizeof tmp)
		return -ENAMETOOLONG;
	int in = open(path, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	int out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		int e = -errno;
		close(in);
		return e;
	}
	ZSTD_CCtx *cctx = ZSTD_createCCtx();
	size_t ibytes = ZSTD_CStreamInSize(), obytes = ZSTD_CStreamOutSize();
	char *ibuf = malloc(ibytes), *obuf = malloc(obytes);
	int r = 0;
	if (!cctx || !ibuf || !obuf) {
		r = -ENOMEM;
		goto out;
	}
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 3);
	for (;;) {
		ssize_t got = read(in, ibuf, ibytes);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			r = -errno;
			goto out;
		}
		ZSTD_EndDirective mode = got == 0 ? ZSTD_e_end : ZSTD_e_continue;
		ZSTD_inBuffer input = {ibuf, (size_t)got, 0};
		int finished;
		do {
			ZSTD_outBuffer output = {obuf, obytes, 0};
			size_t left = ZSTD_compressStream2(cctx, &output, &input, mode);
			if (ZSTD_isError(left)) {
				r = -EIO;
				goto out;
			}
			if ((r = write_all(out, obuf, output.pos)) < 0)
				goto out;
			finished = mode == ZSTD_e_end ? left == 0 : input.pos == input.size;
		} while (!finished);
		if (got == 0)
			break;
	}
	if (fsync(out) < 0)
		r = -errno;
out:
	ZSTD_freeCCtx(cctx);
	free(ibuf);
	free(obuf);
	close(in);
	if (close(out) < 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, dst) < 0)
		r = -errno;
	if (r < 0) {
		unlink(tmp);
		return r;
	}
	unlink(path);
	return 0;
}
