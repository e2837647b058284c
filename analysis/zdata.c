/*
 * zdata.c - raw or zstd-compressed experiment data files; a compressed
 * heaptrace is also undone from its column transform (experiment/colxform.h).
 */
#include "analysis/zdata.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "experiment/colxform.h"

static int decompress(int fd, uint64_t max_bytes, uint8_t **ret, size_t *ret_bytes)
{
	ZSTD_DCtx *dctx = ZSTD_createDCtx();
	size_t ibytes = ZSTD_DStreamInSize();
	uint8_t *ibuf = malloc(ibytes), *out = NULL;
	size_t cap = 0, len = 0;
	int r = 0;
	if (!dctx || !ibuf) {
		r = -ENOMEM;
		goto out;
	}
	size_t last = 1;
	for (;;) {
		ssize_t got = read(fd, ibuf, ibytes);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			r = -errno;
			goto out;
		}
		if (got == 0)
			break;
		ZSTD_inBuffer input = {ibuf, (size_t)got, 0};
		while (input.pos < input.size) {
			if (cap - len < ZSTD_DStreamOutSize()) {
				size_t ncap = cap ? cap * 2 : (size_t)4 << 20;
				if (ncap > max_bytes) {
					r = -EFBIG;
					goto out;
				}
				uint8_t *n = realloc(out, ncap);
				if (!n) {
					r = -ENOMEM;
					goto out;
				}
				out = n;
				cap = ncap;
			}
			ZSTD_outBuffer output = {out + len, cap - len, 0};
			last = ZSTD_decompressStream(dctx, &output, &input);
			if (ZSTD_isError(last)) {
				r = -EBADMSG;
				goto out;
			}
			len += output.pos;
		}
	}
	if (last != 0)
		r = -EBADMSG; /* truncated frame */
out:
	ZSTD_freeDCtx(dctx);
	free(ibuf);
	if (r < 0) {
		free(out);
		return r;
	}
	*ret = out;
	*ret_bytes = len;
	return 0;
}

int zdata_open(const char *path, enum exp_file_kind kind, struct datafile **ret, void **ret_buf)
{
	return zdata_open_max(path, kind, ZDATA_MAX_BYTES, ret, ret_buf);
}

int zdata_open_max(const char *path, enum exp_file_kind kind, uint64_t max_bytes, struct datafile **ret,
		   void **ret_buf)
{
	*ret_buf = NULL;
	int r = datafile_open(path, kind, ret);
	if (r != -ENOENT)
		return r;
	char zpath[PATH_MAX];
	if ((size_t)snprintf(zpath, sizeof zpath, "%s.zst", path) >= sizeof zpath)
		return -ENAMETOOLONG;
	int fd = open(zpath, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ENOENT : -errno;
	uint8_t *buf;
	size_t bytes;
	r = decompress(fd, max_bytes, &buf, &bytes);
	close(fd);
	if (r < 0)
		return r;
	if (colx_is_transformed(buf, bytes)) {
		/* the transformed stream and the image it gives are both held for a moment */
		uint8_t *img;
		size_t n;
		r = colx_inverse(buf, bytes, max_bytes, &img, &n);
		free(buf);
		if (r < 0)
			return r;
		buf = img;
		bytes = n;
	}
	r = datafile_open_memory(buf, bytes, kind, ret);
	if (r < 0) {
		free(buf);
		return r;
	}
	*ret_buf = buf;
	return 0;
}
