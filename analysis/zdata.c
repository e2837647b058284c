/*
 * zdata.c - raw or zstd-compressed experiment data files, with the bounds of
 * zdata.h: regular files only, not sparse, no longer than the ceiling raw or
 * decompressed; a compressed heaptrace is also undone from its column
 * transform (experiment/colxform.h).
 */
#include "analysis/zdata.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "common/why.h"
#include "common/regfile.h"
#include "common/strbuf.h"
#include "experiment/colxform.h"

#define ZERO_CHUNK 4096 /* output written to the image only where a chunk this long is not all zero */

uint64_t zdata_max_bytes(void)
{
	const char *v = getenv(ZDATA_MAX_ENV);
	if (!v || v[0] < '0' || v[0] > '9')
		return ZDATA_MAX_BYTES;
	char *end;
	errno = 0;
	unsigned long long n = strtoull(v, &end, 10);
	int shift = 0;
	if (*end) {
		const char *units = "KMGT", *u = strchr(units, *end >= 'a' ? *end - 32 : *end);
		if (!u || end[1])
			return ZDATA_MAX_BYTES;
		shift = 10 * (int)(u - units + 1);
	}
	if (errno || n > (UINT64_MAX >> shift) || (n << shift) < (1u << 20))
		return ZDATA_MAX_BYTES;
	return (uint64_t)n << shift;
}

/* why = "NAME: LENGTH_TEXT ... " with sizes in words. */
static int refuse_sizes(char *why, size_t room, const char *name, const char *a, uint64_t x, const char *b,
			uint64_t y, const char *c)
{
	struct strbuf s;
	strbuf_init(&s, 0);
	strbuf_addf(&s, "%s: %s", name, a);
	strbuf_add_size(&s, x);
	strbuf_adds(&s, b);
	if (y != UINT64_MAX) /* UINT64_MAX: no second size */
		strbuf_add_size(&s, y);
	strbuf_adds(&s, c);
	int r = why_set(why, room, -EFBIG, "%s", strbuf_str(&s));
	strbuf_release(&s);
	return r;
}

/* why = "NAME: decompresses past the ceiling of MAX (PA_MAX_DATA_BYTES)TAIL"; -EFBIG. */
static int ceiling_refusal(char *why, size_t room, const char *zname, uint64_t max, const char *tail)
{
	return refuse_sizes(why, room, zname, "decompresses past the ceiling of ", max,
			    " (" ZDATA_MAX_ENV ")", UINT64_MAX, tail);
}

/* The bounds every data file is held to before it is read: not sparse, and no longer than max. */
static int check_length(int fd, const struct stat *st, const char *name, uint64_t max, char *why, size_t room)
{
	uint64_t stored;
	if (regfile_is_sparse(fd, st, &stored))
		return refuse_sizes(why, room, name, "data file is sparse: ", (uint64_t)st->st_size,
				    " long, ", stored, " stored");
	if ((uint64_t)st->st_size > max)
		return refuse_sizes(why, room, name, "", (uint64_t)st->st_size, " long, past the ceiling of ",
				    max, " (" ZDATA_MAX_ENV ")");
	return 0;
}

/*
 * Decompress all of z's zn bytes.  With img NULL only count them (*total,
 * -EFBIG once past cap); else write them into img (cap bytes, zeroed: the
 * all-zero chunks are left alone), -EBADMSG past cap.  -EBADMSG for a
 * corrupt or truncated stream.
 */
static int inflate(const uint8_t *z, size_t zn, uint8_t *img, uint64_t cap, uint64_t *total)
{
	ZSTD_DCtx *dctx = ZSTD_createDCtx();
	size_t sbytes = ZSTD_DStreamOutSize();
	uint8_t *scratch = malloc(sbytes);
	int r = 0;
	*total = 0;
	if (!dctx || !scratch) {
		r = -ENOMEM;
		goto out;
	}
	ZSTD_inBuffer in = {z, zn, 0};
	size_t last = 1;
	while (in.pos < in.size || last != 0) {
		ZSTD_outBuffer out = {scratch, sbytes, 0};
		size_t before = in.pos;
		last = ZSTD_decompressStream(dctx, &out, &in);
		if (ZSTD_isError(last)) {
			r = -EBADMSG;
			goto out;
		}
		if (out.pos > cap - *total) {
			r = img ? -EBADMSG : -EFBIG; /* more than the frames declared, or past the ceiling */
			goto out;
		}
		for (size_t o = 0; img && o < out.pos; o += ZERO_CHUNK) {
			size_t n = out.pos - o < ZERO_CHUNK ? out.pos - o : ZERO_CHUNK;
			const uint8_t *c = scratch + o;
			if (c[0] || memcmp(c, c + 1, n - 1) != 0)
				memcpy(img + *total + o, c, n);
		}
		*total += out.pos;
		if (in.pos == in.size && out.pos == 0 && in.pos == before && last != 0) {
			r = -EBADMSG; /* truncated frame: no input left and no progress */
			goto out;
		}
	}
out:
	ZSTD_freeDCtx(dctx);
	free(scratch);
	return r;
}

/*
 * The size z's frames declare (saturating at UINT64_MAX) in *ret_bytes: 0,
 * 1 when a frame does not say (then the output must be counted), -EFBIG
 * when they declare more than max, -EBADMSG when a frame is not zstd's.
 */
static int declared_size(const uint8_t *z, size_t zn, uint64_t max, uint64_t *ret_bytes)
{
	uint64_t sum = 0;
	int unknown = 0;
	for (size_t pos = 0; pos < zn;) {
		size_t fn = ZSTD_findFrameCompressedSize(z + pos, zn - pos);
		unsigned long long n = ZSTD_getFrameContentSize(z + pos, zn - pos);
		if (ZSTD_isError(fn) || n == ZSTD_CONTENTSIZE_ERROR)
			return -EBADMSG;
		if (n == ZSTD_CONTENTSIZE_UNKNOWN)
			unknown = 1;
		else
			sum = n > UINT64_MAX - sum ? UINT64_MAX : sum + n;
		pos += fn;
	}
	*ret_bytes = sum;
	return sum > max ? -EFBIG : unknown;
}

/* The image of the .zst open as fd (st its fstat) in *ret (calloc'd), at most max bytes. */
static int zst_image(int fd, const struct stat *st, const char *zname, uint64_t max, uint8_t **ret,
		     size_t *ret_bytes, char *why, size_t room)
{
	size_t zn = (size_t)st->st_size;
	if (zn == 0)
		return why_set(why, room, -EBADMSG, "%s: empty, not a zstd file", zname);
	uint8_t *z = mmap(NULL, zn, PROT_READ, MAP_PRIVATE, fd, 0);
	if (z == MAP_FAILED)
		return why_set(why, room, -errno, "%s: %s", zname, strerror(errno));
	uint64_t n = 0, got;
	uint8_t *img = NULL;
	int r = declared_size(z, zn, max, &n);
	if (r == -EFBIG) {
		r = refuse_sizes(why, room, zname, "decompresses past the ceiling of ", max,
				 " (" ZDATA_MAX_ENV "): its frames declare ", n, "");
		goto out;
	}
	if (r == 1) /* a frame that does not declare its size: count the output, keep none of it */
		r = inflate(z, zn, NULL, max, &n);
	if (r == -EFBIG) {
		r = ceiling_refusal(why, room, zname, max, "");
		goto out;
	}
	if (r == 0 && n > SIZE_MAX - 1)
		r = -ENOMEM;
	if (r == 0 && !(img = calloc(n ? (size_t)n : 1, 1)))
		r = -ENOMEM;
	if (r == 0 && (r = inflate(z, zn, img, n, &got)) == 0 && got != n)
		r = -EBADMSG; /* fewer bytes than the frames declared */
	if (r == -EBADMSG)
		why_set(why, room, r, "%s: corrupt or truncated zstd data", zname);
out:
	munmap(z, zn);
	if (r < 0) {
		free(img);
		return r;
	}
	*ret = img;
	*ret_bytes = (size_t)n;
	return 0;
}

/* The header checks' refusals in words. */
static int header_refusal(int r, const char *name, char *why, size_t room)
{
	if (r == -EBADMSG)
		return why_set(why, room, r, "%s: not an experiment data file, or its header is damaged",
			       name);
	if (r == -ENOTSUP)
		return why_set(why, room, r, "%s: written by a newer version of the format", name);
	if (r == -ENOMEM)
		return r;
	return why_set(why, room, r, "%s: %s", name, regfile_strerror(r));
}

static int open_file(const char *dir, const char *name, struct stat *st)
{
	return dir ? regfile_open_in(dir, name, st) : regfile_open(name, st);
}

/* NAME.zst, opened as fd: its image, undone from the column transform, as *ret. */
static int open_zst(int fd, const struct stat *st, const char *zname, enum exp_file_kind kind, uint64_t max,
		    struct datafile **ret, void **ret_buf, char *why, size_t room)
{
	uint8_t *buf = NULL;
	size_t bytes = 0;
	int r = check_length(fd, st, zname, max, why, room);
	if (r == 0)
		r = zst_image(fd, st, zname, max, &buf, &bytes, why, room);
	if (r < 0)
		return r;
	if (colx_is_transformed(buf, bytes)) {
		/* the transformed stream and the image it gives are both held for a moment */
		uint8_t *img;
		size_t n;
		r = colx_inverse(buf, bytes, max, &img, &n);
		free(buf);
		if (r == -EFBIG)
			return ceiling_refusal(why, room, zname, max, "");
		if (r < 0)
			return r == -ENOMEM ? r
					    : why_set(why, room, r, "%s: corrupt column transform", zname);
		buf = img;
		bytes = n;
	}
	r = datafile_open_memory(buf, bytes, kind, ret);
	if (r < 0) {
		free(buf);
		return header_refusal(r, zname, why, room);
	}
	*ret_buf = buf;
	return 0;
}

int zdata_open(const char *dir, const char *name, enum exp_file_kind kind, struct datafile **ret,
	       void **ret_buf, char *why, size_t room)
{
	return zdata_open_max(dir, name, kind, zdata_max_bytes(), ret, ret_buf, why, room);
}

int zdata_open_max(const char *dir, const char *name, enum exp_file_kind kind, uint64_t max_bytes,
		   struct datafile **ret, void **ret_buf, char *why, size_t room)
{
	*ret_buf = NULL;
	if (room)
		why[0] = '\0';
	struct stat st;
	int fd = open_file(dir, name, &st);
	if (fd >= 0) {
		int r = check_length(fd, &st, name, max_bytes, why, room);
		if (r == 0 && (r = datafile_open_fd(fd, (uint64_t)st.st_size, kind, ret)) < 0)
			r = header_refusal(r, name, why, room);
		close(fd);
		return r;
	}
	if (fd != -ENOENT)
		return header_refusal(fd, name, why, room);
	char zname[PATH_MAX];
	if ((size_t)snprintf(zname, sizeof zname, "%s.zst", name) >= sizeof zname)
		return why_set(why, room, -ENAMETOOLONG, "%s: name too long", name);
	fd = open_file(dir, zname, &st);
	if (fd < 0)
		return fd == -ENOENT ? fd : header_refusal(fd, zname, why, room);
	int r = open_zst(fd, &st, zname, kind, max_bytes, ret, ret_buf, why, room);
	close(fd);
	return r;
}
