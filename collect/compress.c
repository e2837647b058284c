/*
 * compress.c - zstd streaming compression of a finished data file; a
 * heaptrace file goes through the column transform (experiment/colxform.h)
 * first, one block at a time, each block checked to come back exactly.
 */
#include "collect/compress.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "common/io.h"
#include "common/varint.h"
#include "experiment/colxform.h"
#include "experiment/format.h"

/* zstd's jobs are 8 MiB or more (4 windows): below that, one thread */
#define MT_MIN_BYTES (8 * 1024 * 1024)

/* Read n bytes, fewer only at the end of the file; returns the count or -errno. */
static ssize_t read_full(int fd, void *p, size_t n)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(fd, (char *)p + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

struct zout {
	ZSTD_CCtx *cctx;
	int fd;
	void *buf;
	size_t bytes;
};

/* Compress n bytes at p and write what zstd gives; ZSTD_e_end finishes the frame. */
static int feed(struct zout *z, const void *p, size_t n, ZSTD_EndDirective mode)
{
	ZSTD_inBuffer input = {p, n, 0};
	int finished;
	do {
		ZSTD_outBuffer output = {z->buf, z->bytes, 0};
		size_t left = ZSTD_compressStream2(z->cctx, &output, &input, mode);
		if (ZSTD_isError(left))
			return -EIO;
		int r = io_write_all(z->fd, z->buf, output.pos);
		if (r < 0)
			return r;
		finished = mode == ZSTD_e_end ? left == 0 : input.pos == input.size;
	} while (!finished);
	return 0;
}

/*
 * zstd's level: 9 takes 0.3 s for 33 MB of heap events (7.6M calls) on one
 * core and stores 30% less than 3 did.
 */
#define COMPRESS_LEVEL 9
/*
 * The heap event stream, the one large file, where heap_choose finds the
 * trace compresses well: level 11 stores 3% less than 9 at about its speed
 * (sqlite3's 35 MB raw: 134 KB against 139 KB, 0.09 s against 0.10 s of
 * one core).  15 stored another 2.5% but took 0.61 s there, and 3.1 s on
 * the 39 MB of a tight loop of 4M malloc/free pairs (29 KB against 30 KB
 * at 11, 0.06 s): collect's ending was three quarters of that command.
 */
#define COMPRESS_LEVEL_HEAP 11
/*
 * Any other large file (an I/O trace of millions of calls, 19 raw bytes
 * each): level 3 takes 0.21 s for 3M I/O calls where 9 took 1.17 s, for 10%
 * more bytes; collect's ending dominated the cost of I/O tracing.
 */
#define COMPRESS_LEVEL_LARGE 3
#define LARGE_FILE_BYTES (8u << 20)

/* The colxform unit of one piece into unit; -EIO unless it undoes to the piece exactly. */
static int transform_piece(const uint8_t *piece, size_t n, uint8_t *unit, uint8_t *check, size_t *unit_bytes)
{
	int u = colx_forward_unit(piece, n, unit);
	if (u < 0)
		return u;
	const uint8_t *pos = unit;
	size_t got;
	if (colx_inverse_unit(&pos, unit + u, check, &got) < 0 || pos != unit + u || got != n ||
	    memcmp(check, piece, n) != 0)
		return -EIO;
	*unit_bytes = (size_t)u;
	return 0;
}

static int is_heap_file(const uint8_t *blk, size_t n)
{
	return n >= EXP_FILE_HEADER_BYTES &&
	       memcmp(blk + EXP_FH_MAGIC, EXP_FILE_MAGIC, EXP_FILE_MAGIC_BYTES) == 0 &&
	       le32_get(blk + EXP_FH_FILE_KIND) == EXP_FILE_HEAP;
}

/*
 * Does the column transform pay for this heaptrace file?  It depends on the
 * program: for a trace whose addresses are mostly recent ones (sqlite3) the
 * events as they are compress better, for one with many distinct addresses
 * (git) the columns do.  Both are tried on the first SAMPLE_BLOCKS blocks.
 *
 * The same sample sets the level.  A higher level pays on a trace that
 * compresses well (sqlite3's 35 MB to 139 KB at 9, 3% less at 11) and not on
 * one that compresses poorly (1M malloc/free pairs of bench/heap: 14 MB to
 * 4.6 MB, 2% less at 15 for 1.4 s more, the target's run being 0.06 s).  So
 * COMPRESS_LEVEL_HEAP only when level 9 shrinks the sample
 * HEAP_LEVEL_MIN_RATIO times or more.
 */
#define SAMPLE_BLOCKS 48
#define HEAP_LEVEL_MIN_RATIO 10
struct heap_choice {
	int columns; /* through the column transform */
	int level;   /* zstd's */
};

static struct heap_choice heap_choose(int fd, uint8_t *unit, uint8_t *check)
{
	size_t cap = (size_t)SAMPLE_BLOCKS * EXP_BLOCK_BYTES;
	uint8_t *raw = malloc(cap), *cols = malloc(cap + (size_t)SAMPLE_BLOCKS * COLX_UNIT_MAX_BYTES);
	size_t bound = ZSTD_compressBound(cap + (size_t)SAMPLE_BLOCKS * COLX_UNIT_MAX_BYTES);
	uint8_t *zbuf = malloc(bound);
	struct heap_choice c = {.columns = 1, .level = COMPRESS_LEVEL_HEAP};
	if (!raw || !cols || !zbuf)
		goto out;
	size_t nraw = 0, ncols = 0;
	for (int b = 1; b <= SAMPLE_BLOCKS; b++) {
		ssize_t got = pread(fd, raw + nraw, EXP_BLOCK_BYTES, (off_t)b * EXP_BLOCK_BYTES);
		if (got <= 0)
			break;
		size_t n;
		if (transform_piece(raw + nraw, (size_t)got, unit, check, &n) < 0)
			goto out;
		memcpy(cols + ncols, unit, n);
		ncols += n;
		nraw += (size_t)got;
		if (got < EXP_BLOCK_BYTES)
			break;
	}
	if (nraw < EXP_BLOCK_BYTES)
		goto out; /* too little to tell: the columns, as before */
	size_t zr = ZSTD_compress(zbuf, bound, raw, nraw, COMPRESS_LEVEL);
	size_t zc = ZSTD_compress(zbuf, bound, cols, ncols, COMPRESS_LEVEL);
	if (!ZSTD_isError(zr) && !ZSTD_isError(zc)) {
		c.columns = zc <= zr;
		size_t best = c.columns ? zc : zr;
		if (best * HEAP_LEVEL_MIN_RATIO > nraw)
			c.level = COMPRESS_LEVEL;
	}
out:
	free(raw);
	free(cols);
	free(zbuf);
	return c;
}

/*
 * One compression context for every file, reset between them: making one
 * allocates megabytes (10 ms a file in the ASan test build), and a process
 * tree has three files per process.  collect is single-threaded; the
 * context lives until it exits.
 */
static ZSTD_CCtx *cctx_get(void)
{
	static ZSTD_CCtx *cctx;
	if (cctx)
		ZSTD_CCtx_reset(cctx, ZSTD_reset_session_and_parameters);
	else
		cctx = ZSTD_createCCtx();
	return cctx;
}

/* One file's compression: its descriptors, zstd's stream and the block buffers. */
struct job {
	struct zout z;
	int in;
	uint8_t *blk, *unit, *check;
	struct stat st;
	int st_ok; /* st holds the input's size */
};

/*
 * Set the level and how blocks go (through the column transform or not) from
 * the first block, got bytes in j->blk; returns 1 for the columns, 0 for the
 * blocks as they are, or -errno.
 */
static int stream_begin(struct job *j, size_t got)
{
	int columns = 0;
	if (is_heap_file(j->blk, got)) {
		struct heap_choice c = heap_choose(j->in, j->unit, j->check);
		ZSTD_CCtx_setParameter(j->z.cctx, ZSTD_c_compressionLevel, c.level);
		columns = c.columns;
	} else if (j->st_ok && j->st.st_size >= LARGE_FILE_BYTES)
		ZSTD_CCtx_setParameter(j->z.cctx, ZSTD_c_compressionLevel, COMPRESS_LEVEL_LARGE);
	/* the size known: zstd sizes its tables to it (level 9's would be 24 MB to clear) */
	if (!columns && j->st_ok)
		ZSTD_CCtx_setPledgedSrcSize(j->z.cctx, (unsigned long long)j->st.st_size);
	if (columns) {
		int r = feed(&j->z, j->unit, (size_t)colx_forward_begin(j->unit), ZSTD_e_continue);
		if (r < 0)
			return r;
	}
	return columns;
}

/* Compress one block of got bytes in j->blk, through the column transform when columns. */
static int stream_block(struct job *j, size_t got, int columns)
{
	if (!columns)
		return feed(&j->z, j->blk, got, ZSTD_e_continue);
	size_t n;
	int r = transform_piece(j->blk, got, j->unit, j->check, &n);
	if (r < 0)
		return r;
	return feed(&j->z, j->unit, n, ZSTD_e_continue);
}

/* Compress the whole input into one zstd frame, block by block; 0 or -errno. */
static int stream_file(struct job *j)
{
	int columns = -1; /* heaptrace: through the column transform; known after block 0 */
	uint64_t total = 0;
	int r;
	for (;;) {
		ssize_t got = read_full(j->in, j->blk, EXP_BLOCK_BYTES);
		if (got < 0)
			return (int)got;
		if (columns < 0 && (columns = stream_begin(j, (size_t)got)) < 0)
			return columns;
		if (got == 0)
			break;
		total += (uint64_t)got;
		if ((r = stream_block(j, (size_t)got, columns)) < 0)
			return r;
		if (got < EXP_BLOCK_BYTES)
			break; /* the end: only the last piece may be short */
	}
	if (columns &&
	    (r = feed(&j->z, j->unit, (size_t)colx_forward_end(total, j->unit), ZSTD_e_continue)) < 0)
		return r;
	return feed(&j->z, NULL, 0, ZSTD_e_end);
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
	struct job j = {.z = {cctx_get(), out, NULL, ZSTD_CStreamOutSize()}, .in = in};
	j.z.buf = malloc(j.z.bytes);
	j.blk = malloc(EXP_BLOCK_BYTES);
	j.unit = malloc(COLX_UNIT_MAX_BYTES);
	j.check = malloc(EXP_BLOCK_BYTES);
	int r = 0;
	if (!j.z.cctx || !j.z.buf || !j.blk || !j.unit || !j.check) {
		r = -ENOMEM;
		goto out;
	}
	ZSTD_CCtx_setParameter(j.z.cctx, ZSTD_c_compressionLevel, COMPRESS_LEVEL);
	/*
	 * A second thread when libzstd has them (the target has ended, its CPUs
	 * are free), for a file big enough to be cut into several of its jobs:
	 * for a smaller one the threads only cost their start, which for the
	 * 600 small files of a 200-process tree was most of collect's ending.
	 */
	j.st_ok = fstat(in, &j.st) == 0;
	if (j.st_ok && j.st.st_size >= MT_MIN_BYTES)
		ZSTD_CCtx_setParameter(j.z.cctx, ZSTD_c_nbWorkers, 2);
	if ((r = stream_file(&j)) < 0)
		goto out;
	if (fsync(out) < 0)
		r = -errno;
out:
	free(j.z.buf);
	free(j.blk);
	free(j.unit);
	free(j.check);
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
