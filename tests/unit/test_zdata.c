/*
 * test_zdata.c - analysis/zdata.h's bounds: PA_MAX_DATA_BYTES parsing; a
 * data file raw and as a .zst whose frames declare their size and one whose
 * frame does not (both read back); zstd bombs refused with the ceiling named
 * (a frame that declares 16 GiB, two frames whose sum passes it, a frame
 * that does not declare and expands past it); a truncated frame; a sparse
 * raw file and one past the ceiling; a FIFO and a link out of the
 * experiment.  Sizes in the messages are words ("64 MiB").
 */
#include "analysis/zdata.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "common/regfile.h"
#include "common/varint.h"
#include "experiment/format.h"
#include "tests/unit/check.h"

static char dir[64];

static const char *at(const char *name)
{
	static char p[PATH_MAX];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	return p;
}

static void put(const char *name, const void *p, size_t n)
{
	unlink(at(name));
	FILE *f = fopen(at(name), "wb");
	CHECK(f && fwrite(p, 1, n, f) == n);
	if (f)
		fclose(f);
}

/* A data file of one header block and `blocks` empty blocks (kind profile). */
static uint8_t *image(size_t blocks, size_t *ret_n)
{
	size_t n = (blocks + 1) * EXP_BLOCK_BYTES;
	uint8_t *b = calloc(1, n);
	memcpy(b + EXP_FH_MAGIC, EXP_FILE_MAGIC, EXP_FILE_MAGIC_BYTES);
	le16_put(b + EXP_FH_VERSION_MAJOR, EXP_FORMAT_VERSION_MAJOR);
	le16_put(b + EXP_FH_VERSION_MINOR, EXP_FORMAT_VERSION_MINOR);
	le32_put(b + EXP_FH_FILE_KIND, EXP_FILE_PROFILE);
	le32_put(b + EXP_FH_BLOCK_BYTES, EXP_BLOCK_BYTES);
	le32_put(b + EXP_FH_PID, 4242);
	*ret_n = n;
	return b;
}

/* A zstd frame of `blocks` RLE blocks of 128 KiB of zeros, declaring `declared` bytes (0: not). */
static size_t bomb(uint8_t *out, uint64_t declared, unsigned blocks)
{
	uint8_t *q = out;
	memcpy(q, "\x28\xb5\x2f\xfd", 4);
	q += 4;
	*q++ = declared ? 0xC0 : 0x00;
	*q++ = 0x38;
	for (int i = 0; declared && i < 8; i++)
		*q++ = (uint8_t)(declared >> (8 * i));
	for (unsigned i = 0; i < blocks; i++) {
		uint32_t h = (131072u << 3) | 2u | (i + 1 == blocks);
		*q++ = (uint8_t)h, *q++ = (uint8_t)(h >> 8), *q++ = (uint8_t)(h >> 16), *q++ = 0;
	}
	return (size_t)(q - out);
}

/* zdata_open_max of name (in dir) with cap: its result, with why in ret_why. */
static int open_cap(const char *name, uint64_t cap, char *why, size_t room, uint64_t *ret_blocks)
{
	struct datafile *df = NULL;
	void *buf = NULL;
	int r = zdata_open_max(dir, name, 0, cap, &df, &buf, why, room);
	if (r == 0) {
		if (ret_blocks)
			*ret_blocks = datafile_info(df)->block_count;
		datafile_close(df);
		free(buf);
	}
	return r;
}

static void test_max_bytes(void)
{
	static const struct {
		const char *v;
		uint64_t want;
	} cases[] = {
		{NULL, ZDATA_MAX_BYTES},  {"64M", 64ull << 20},     {"1G", 1ull << 30},
		{"16g", 16ull << 30},     {"2097152", 2ull << 20},  {"2048K", 2ull << 20},
		{"1T", 1ull << 40},       {"100", ZDATA_MAX_BYTES}, {"512K", ZDATA_MAX_BYTES},
		{"abc", ZDATA_MAX_BYTES}, {"5X", ZDATA_MAX_BYTES},  {"64MB", ZDATA_MAX_BYTES},
		{"-1", ZDATA_MAX_BYTES},  {"", ZDATA_MAX_BYTES},    {"99999999999999999999", ZDATA_MAX_BYTES},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		if (cases[i].v)
			setenv(ZDATA_MAX_ENV, cases[i].v, 1);
		else
			unsetenv(ZDATA_MAX_ENV);
		CHECK_EQ_U64(zdata_max_bytes(), cases[i].want);
	}
	unsetenv(ZDATA_MAX_ENV);
	CHECK_EQ_U64(ZDATA_MAX_BYTES, 8ull << 30);
}

static void test_good(void)
{
	size_t n;
	uint8_t *img = image(3, &n);
	char why[512];
	uint64_t blocks = 0;
	put("profile", img, n);
	CHECK(open_cap("profile", ZDATA_MAX_BYTES, why, sizeof why, &blocks) == 0 && blocks == 3);
	unlink(at("profile"));
	/* declared: ZSTD_compress puts the size in the frame header */
	size_t room = ZSTD_compressBound(n);
	uint8_t *z = malloc(room);
	size_t zn = ZSTD_compress(z, room, img, n, 3);
	CHECK(!ZSTD_isError(zn) && ZSTD_getFrameContentSize(z, zn) == n);
	put("profile.zst", z, zn);
	blocks = 0;
	CHECK(open_cap("profile", ZDATA_MAX_BYTES, why, sizeof why, &blocks) == 0 && blocks == 3);
	/* not declared: a stream without a pledged size, counted before it is kept */
	ZSTD_CCtx *c = ZSTD_createCCtx();
	ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 0);
	ZSTD_inBuffer in = {img, n, 0};
	ZSTD_outBuffer out = {z, room, 0};
	size_t left;
	do
		left = ZSTD_compressStream2(c, &out, &in, ZSTD_e_end);
	while (left && !ZSTD_isError(left));
	ZSTD_freeCCtx(c);
	CHECK(ZSTD_getFrameContentSize(z, out.pos) == ZSTD_CONTENTSIZE_UNKNOWN);
	put("profile.zst", z, out.pos);
	blocks = 0;
	CHECK(open_cap("profile", ZDATA_MAX_BYTES, why, sizeof why, &blocks) == 0 && blocks == 3);
	/* the same past a ceiling below its 256 KiB: refused after counting */
	CHECK(open_cap("profile", 128 << 10, why, sizeof why, NULL) == -EFBIG);
	CHECK_EQ_STR(why, "profile.zst: decompresses past the ceiling of 128 KiB (PA_MAX_DATA_BYTES)");
	/* truncated */
	put("profile.zst", z, out.pos - 3);
	CHECK(open_cap("profile", ZDATA_MAX_BYTES, why, sizeof why, NULL) == -EBADMSG);
	CHECK_EQ_STR(why, "profile.zst: corrupt or truncated zstd data");
	unlink(at("profile.zst"));
	free(z);
	free(img);
}

static void test_bombs(void)
{
	uint8_t *b = malloc(14 + 4 * 4096 * 2);
	char why[512];
	put("profile.zst", b, bomb(b, 16ull << 30, 1));
	CHECK(open_cap("profile", 64 << 20, why, sizeof why, NULL) == -EFBIG);
	CHECK_EQ_STR(why,
		     "profile.zst: decompresses past the ceiling of 64 MiB (PA_MAX_DATA_BYTES): its frames "
		     "declare 16 GiB");
	size_t n = bomb(b, 48 << 20, 384);
	n += bomb(b + n, 48 << 20, 384); /* two frames: 96 MiB in all */
	put("profile.zst", b, n);
	CHECK(open_cap("profile", 64 << 20, why, sizeof why, NULL) == -EFBIG);
	CHECK(strstr(why, "its frames declare 96 MiB") != NULL);
	put("profile.zst", b, bomb(b, 0, 1024)); /* 128 MiB in 4 KiB, not declared */
	CHECK(open_cap("profile", 64 << 20, why, sizeof why, NULL) == -EFBIG);
	CHECK_EQ_STR(why, "profile.zst: decompresses past the ceiling of 64 MiB (PA_MAX_DATA_BYTES)");
	/* under the ceiling a bomb is just zeros: read, and refused for its header */
	CHECK(open_cap("profile", 256 << 20, why, sizeof why, NULL) == -EBADMSG);
	CHECK_EQ_STR(why, "profile.zst: not an experiment data file, or its header is damaged");
	/* a frame that declares less than it holds */
	put("profile.zst", b, bomb(b, 1 << 20, 16));
	CHECK(open_cap("profile", 64 << 20, why, sizeof why, NULL) == -EBADMSG);
	unlink(at("profile.zst"));
	free(b);
}

static void test_files(void)
{
	char why[512];
	size_t n;
	uint8_t *img = image(1, &n);
	put("profile", img, n);
	CHECK(truncate(at("profile"), 1ll << 30) == 0);
	CHECK(open_cap("profile", ZDATA_MAX_BYTES, why, sizeof why, NULL) == -EFBIG);
	CHECK(strncmp(why, "profile: data file is sparse: 1 GiB long, ", 42) == 0 && strstr(why, " stored"));
	free(img);
	img = image(31, &n); /* 2 MiB, all of it written */
	put("profile", img, n);
	CHECK(open_cap("profile", 1 << 20, why, sizeof why, NULL) == -EFBIG);
	CHECK_EQ_STR(why, "profile: 2 MiB long, past the ceiling of 1 MiB (PA_MAX_DATA_BYTES)");
	free(img);
	unlink(at("profile"));
	CHECK(mkfifo(at("profile"), 0600) == 0);
	CHECK(open_cap("profile", ZDATA_MAX_BYTES, why, sizeof why, NULL) == -REGFILE_EFIFO);
	CHECK_EQ_STR(why, "profile: not a regular file (a FIFO)");
	unlink(at("profile"));
	CHECK(symlink("/etc/passwd", at("profile")) == 0);
	CHECK(open_cap("profile", ZDATA_MAX_BYTES, why, sizeof why, NULL) == -REGFILE_EOUTSIDE);
	CHECK_EQ_STR(why, "profile: a symbolic link that leads out of the experiment");
	unlink(at("profile"));
	CHECK(open_cap("profile", ZDATA_MAX_BYTES, why, sizeof why, NULL) == -ENOENT);
}

int main(void)
{
	snprintf(dir, sizeof dir, "/tmp/test_zdata.XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	test_max_bytes();
	test_good();
	test_bombs();
	test_files();
	rmdir(dir);
	return check_done();
}
