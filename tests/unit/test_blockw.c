/*
 * test_blockw.c - the collector's block writer (collector/blockw.h) and its
 * record adapters (collector/encode.h), linked from libcollector-core.a, on
 * real files in a fresh temporary directory: the file header, a claimed
 * block's header and records read back with experiment/record.h, the second
 * claim when a block is full, a record that fits in no block, and the claims
 * that must fail: an injected ENOSPC (every file of the health stops, on_fail
 * runs once, later appends fail without touching the file), the stop file
 * gone, a block past RLIMIT_FSIZE (EFBIG, and no SIGXFSZ: the test would
 * die), a header block past it (nothing created), and no descriptor free
 * (the block is lost and counted, nothing stops; a kept descriptor is used
 * when there is one).
 */
#include "collector/blockw.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collector/encode.h"
#include "collector/fdkeep.h"
#include "common/varint.h"
#include "experiment/record.h"
#include "tests/unit/check.h"

static char tmp[PATH_MAX / 2];
static int fails, fail_err;
static uint64_t fail_ns;

static void on_fail(int err, uint64_t now_ns)
{
	fails++;
	fail_err = err;
	fail_ns = now_ns;
}

static off_t file_bytes(const struct blockw_file *f)
{
	struct stat st;
	return stat(f->path, &st) == 0 ? st.st_size : -1;
}

/* Block b of f, read from the file (not through the writer's mapping). */
static void read_block(const struct blockw_file *f, uint32_t b, uint8_t *buf)
{
	int fd = open(f->path, O_RDONLY);
	CHECK(fd >= 0);
	CHECK(pread(fd, buf, EXP_BLOCK_BYTES, (off_t)b * EXP_BLOCK_BYTES) == (ssize_t)EXP_BLOCK_BYTES);
	close(fd);
}

static struct exp_clock clock_at(uint64_t ts_ns, uint64_t stack_id)
{
	return (struct exp_clock){.ts_ns = ts_ns, .cpu = 3, .stack_id = stack_id, .weight_ns = 10007000};
}

static int append_clock(struct blockw_file *f, struct blockw_cursor *c, uint64_t ts_ns, uint64_t stack_id)
{
	struct exp_clock k = clock_at(ts_ns, stack_id);
	return blockw_append(f, c, 77, ts_ns, EXP_REC_CLOCK, encode_clock, &k, ts_ns);
}

static void test_header(void)
{
	struct blockw_health h;
	struct blockw_file f;
	blockw_health_init(&h, -1, NULL, on_fail);
	CHECK_EQ_U64(blockw_file_create(&f, &h, tmp, "profile", EXP_FILE_PROFILE, 4242, 123456789), 0);
	CHECK_EQ_U64(file_bytes(&f), EXP_BLOCK_BYTES);
	uint8_t *b = malloc(EXP_BLOCK_BYTES);
	read_block(&f, 0, b);
	CHECK(memcmp(b + EXP_FH_MAGIC, EXP_FILE_MAGIC, EXP_FILE_MAGIC_BYTES) == 0);
	CHECK_EQ_U64(le16_get(b + EXP_FH_VERSION_MAJOR), EXP_FORMAT_VERSION_MAJOR);
	CHECK_EQ_U64(le16_get(b + EXP_FH_VERSION_MINOR), EXP_FORMAT_VERSION_MINOR);
	CHECK_EQ_U64(le32_get(b + EXP_FH_FILE_KIND), EXP_FILE_PROFILE);
	CHECK_EQ_U64(le32_get(b + EXP_FH_BLOCK_BYTES), EXP_BLOCK_BYTES);
	CHECK_EQ_U64(le32_get(b + EXP_FH_PID), 4242);
	CHECK_EQ_U64(le64_get(b + EXP_FH_START_NS), 123456789);
	size_t nonzero = 0;
	for (size_t i = EXP_FILE_HEADER_BYTES; i < EXP_BLOCK_BYTES; i++)
		nonzero += b[i] != 0;
	CHECK_EQ_U64(nonzero, 0);
	free(b);
	/* O_EXCL: an existing file is never taken over */
	struct blockw_file g;
	CHECK_EQ_U64(blockw_file_create(&g, &h, tmp, "profile", EXP_FILE_PROFILE, 1, 1), -EEXIST);
	char longname[PATH_MAX];
	memset(longname, 'x', sizeof longname - 1);
	longname[sizeof longname - 1] = 0;
	CHECK_EQ_U64(blockw_file_create(&g, &h, tmp, longname, EXP_FILE_PROFILE, 1, 1), -ENAMETOOLONG);
	unlink(f.path);
}

/* Records of one block, decoded in order: their count; ts of the first and last. */
static size_t decode_block(const uint8_t *b, uint64_t *first_ts, uint64_t *last_ts)
{
	const uint8_t *pos = b + EXP_BLOCK_HEADER_BYTES;
	uint64_t prev = le64_get(b + EXP_BH_BASE_NS);
	struct exp_record r;
	size_t n = 0;
	while (record_next(&pos, b + EXP_BLOCK_BYTES, &r) == 1) {
		struct exp_clock d;
		CHECK_EQ_U64(r.kind, EXP_REC_CLOCK);
		CHECK_EQ_U64(record_decode_clock(&r, prev, le32_get(b + EXP_BH_TID), &d), 0);
		CHECK_EQ_U64(d.tid, 77);
		CHECK_EQ_U64(d.cpu, 3);
		CHECK_EQ_U64(d.weight_ns, 10007000);
		CHECK_EQ_U64(d.stack_id, 0x1000 + d.ts_ns);
		if (!n)
			*first_ts = d.ts_ns;
		*last_ts = d.ts_ns;
		prev = d.ts_ns;
		n++;
	}
	return n;
}

static void test_claims(void)
{
	struct blockw_health h;
	struct blockw_file f;
	struct blockw_cursor c = {0};
	blockw_health_init(&h, -1, NULL, on_fail);
	CHECK_EQ_U64(blockw_file_create(&f, &h, tmp, "profile", EXP_FILE_PROFILE, 1, 1000), 0);
	/* the first append claims block 1 with base ns = its now_ns */
	CHECK_EQ_U64(append_clock(&f, &c, 5000, 0x1000 + 5000), 0);
	CHECK(c.block != NULL);
	CHECK_EQ_U64(c.seq, 0);
	CHECK_EQ_U64(file_bytes(&f), 2 * EXP_BLOCK_BYTES);
	/* fill it: the record that does not fit claims block 2, seq 1 */
	uint64_t ts = 5000;
	while (c.seq == 0) {
		ts += 1000;
		CHECK_EQ_U64(append_clock(&f, &c, ts, 0x1000 + ts), 0);
	}
	CHECK_EQ_U64(c.seq, 1);
	CHECK_EQ_U64(atomic_load(&f.next_block), 3);
	CHECK_EQ_U64(file_bytes(&f), 3 * EXP_BLOCK_BYTES);
	blockw_cursor_release(&c);
	CHECK(c.block == NULL);

	uint8_t *b = malloc(EXP_BLOCK_BYTES);
	uint64_t first = 0, last = 0;
	read_block(&f, 1, b);
	CHECK_EQ_U64(le32_get(b + EXP_BH_MAGIC), EXP_BLOCK_MAGIC);
	CHECK_EQ_U64(le32_get(b + EXP_BH_TID), 77);
	CHECK_EQ_U64(le32_get(b + EXP_BH_SEQ), 0);
	CHECK_EQ_U64(le32_get(b + EXP_BH_USED), 0);
	CHECK_EQ_U64(le64_get(b + EXP_BH_BASE_NS), 5000);
	size_t n1 = decode_block(b, &first, &last);
	CHECK_EQ_U64(first, 5000);
	CHECK_EQ_U64(last, ts - 1000); /* the last record that fitted */
	CHECK_EQ_U64(n1, (ts - 1000 - 5000) / 1000 + 1);
	read_block(&f, 2, b);
	CHECK_EQ_U64(le32_get(b + EXP_BH_SEQ), 1);
	CHECK_EQ_U64(le64_get(b + EXP_BH_BASE_NS), ts);
	CHECK_EQ_U64(decode_block(b, &first, &last), 1);
	CHECK_EQ_U64(first, ts);
	free(b);
	CHECK_EQ_U64(fails, 0);
	CHECK_EQ_U64(atomic_load(&f.failure_count), 0);
	unlink(f.path);
}

/* An encoder for which no block has room. */
static size_t encode_never(uint8_t *buf, size_t room, uint64_t prev_ns, const void *rec)
{
	(void)prev_ns;
	(void)rec;
	memset(buf, 0xee, room); /* what a failed encoder may leave: cleared again */
	return 0;
}

static void test_too_big(void)
{
	struct blockw_health h;
	struct blockw_file f;
	struct blockw_cursor c = {0};
	blockw_health_init(&h, -1, NULL, on_fail);
	CHECK_EQ_U64(blockw_file_create(&f, &h, tmp, "stacks", EXP_FILE_STACKS, 1, 0), 0);
	CHECK_EQ_U64(blockw_append(&f, &c, 77, 10, EXP_REC_STACK, encode_never, NULL, 0), -E2BIG);
	/*
	 * Not a failure of the file: the fresh block it claimed for the record
	 * stays, its scribbled free space cleared, and takes the next record.
	 */
	CHECK_EQ_U64(atomic_load(&h.err), 0);
	CHECK_EQ_U64(atomic_load(&f.next_block), 2);
	CHECK_EQ_U64(append_clock(&f, &c, 20, 0x1000 + 20), 0);
	CHECK_EQ_U64(c.seq, 0);
	CHECK_EQ_U64(atomic_load(&f.next_block), 2);
	blockw_cursor_release(&c);
	uint8_t *b = malloc(EXP_BLOCK_BYTES);
	uint64_t first = 0, last = 0;
	read_block(&f, 1, b);
	CHECK_EQ_U64(decode_block(b, &first, &last), 1);
	CHECK_EQ_U64(first, 20);
	free(b);
	unlink(f.path);
}

static void test_injected_enospc(void)
{
	struct blockw_health h;
	struct blockw_file f, g;
	struct blockw_cursor c = {0}, d = {0};
	fails = 0;
	blockw_health_init(&h, 1, NULL, on_fail); /* one claim succeeds, the next fails */
	CHECK_EQ_U64(blockw_file_create(&f, &h, tmp, "profile", EXP_FILE_PROFILE, 1, 0), 0);
	CHECK_EQ_U64(blockw_file_create(&g, &h, tmp, "stacks", EXP_FILE_STACKS, 1, 0), 0);
	CHECK_EQ_U64(append_clock(&f, &c, 100, 0x1000 + 100), 0);
	CHECK_EQ_U64(append_clock(&g, &d, 200, 0x1000 + 200), -ENOSPC);
	CHECK_EQ_U64(fails, 1);
	CHECK_EQ_U64(fail_err, ENOSPC);
	CHECK_EQ_U64(fail_ns, 200);
	CHECK_EQ_U64(atomic_load(&h.err), ENOSPC);
	CHECK_EQ_U64(atomic_load(&h.since_ns), 200);
	/* the other file stops too, even with room left in its block */
	CHECK_EQ_U64(append_clock(&f, &c, 300, 0x1000 + 300), -ENOSPC);
	CHECK_EQ_U64(append_clock(&g, &d, 400, 0x1000 + 400), -ENOSPC);
	CHECK_EQ_U64(fails, 1); /* reported once */
	CHECK_EQ_U64(file_bytes(&g), EXP_BLOCK_BYTES);
	blockw_cursor_release(&c);
	uint8_t *b = malloc(EXP_BLOCK_BYTES);
	uint64_t first = 0, last = 0;
	read_block(&f, 1, b);
	CHECK_EQ_U64(decode_block(b, &first, &last), 1);
	free(b);
	unlink(f.path);
	unlink(g.path);
}

static void test_stop_file(void)
{
	char stop[PATH_MAX];
	snprintf(stop, sizeof stop, "%s/stop", tmp);
	FILE *s = fopen(stop, "w");
	CHECK(s != NULL);
	fclose(s);
	struct blockw_health h;
	struct blockw_file f;
	struct blockw_cursor c = {0};
	fails = 0;
	blockw_health_init(&h, -1, stop, on_fail);
	CHECK_EQ_U64(blockw_file_create(&f, &h, tmp, "profile", EXP_FILE_PROFILE, 1, 0), 0);
	CHECK_EQ_U64(append_clock(&f, &c, 100, 0x1000 + 100), 0);
	blockw_cursor_release(&c); /* the next append claims */
	unlink(stop);              /* another process ran out of space */
	CHECK_EQ_U64(append_clock(&f, &c, 200, 0x1000 + 200), -ENOSPC);
	CHECK_EQ_U64(fails, 1);
	CHECK_EQ_U64(file_bytes(&f), 2 * EXP_BLOCK_BYTES);
	unlink(f.path);
}

static void test_fsize(void)
{
	struct rlimit old;
	CHECK(getrlimit(RLIMIT_FSIZE, &old) == 0);
	if (old.rlim_max != RLIM_INFINITY && old.rlim_max < 4 * EXP_BLOCK_BYTES) {
		printf("# RLIMIT_FSIZE hard limit too low: fsize cases skipped\n");
		return;
	}
	struct rlimit two = {2 * EXP_BLOCK_BYTES, old.rlim_max};
	CHECK(setrlimit(RLIMIT_FSIZE, &two) == 0);
	struct blockw_health h;
	struct blockw_file f;
	struct blockw_cursor c = {0};
	fails = 0;
	blockw_health_init(&h, -1, NULL, on_fail);
	CHECK_EQ_U64(blockw_file_create(&f, &h, tmp, "profile", EXP_FILE_PROFILE, 1, 0), 0);
	CHECK_EQ_U64(append_clock(&f, &c, 100, 0x1000 + 100), 0); /* block 1 ends at the limit */
	uint64_t ts = 100;
	int r = 0;
	while (r == 0 && c.seq == 0) {
		ts += 1000;
		r = append_clock(&f, &c, ts, 0x1000 + ts);
	}
	CHECK_EQ_U64(r, -EFBIG); /* block 2 would pass it: never asked of the kernel */
	CHECK_EQ_U64(atomic_load(&h.err), EFBIG);
	CHECK_EQ_U64(atomic_load(&h.fsize_limit_bytes), 2 * EXP_BLOCK_BYTES);
	CHECK_EQ_U64(fails, 1);
	CHECK_EQ_U64(file_bytes(&f), 2 * EXP_BLOCK_BYTES);
	CHECK_EQ_U64(atomic_load(&f.failure_count), 1);
	unlink(f.path);

	/* a limit below one block: not even the header is written */
	struct rlimit tiny = {EXP_BLOCK_BYTES - 1, old.rlim_max};
	CHECK(setrlimit(RLIMIT_FSIZE, &tiny) == 0);
	struct blockw_file g;
	CHECK_EQ_U64(blockw_file_create(&g, &h, tmp, "stacks", EXP_FILE_STACKS, 1, 0), -EFBIG);
	CHECK(access(g.path, F_OK) != 0 && errno == ENOENT);
	CHECK(setrlimit(RLIMIT_FSIZE, &old) == 0);
}

/* Take every free descriptor; returns how many (closed again by release_fds). */
static int fds[4096];
static int fill_fds(void)
{
	int n = 0;
	while (n < (int)(sizeof fds / sizeof fds[0])) {
		int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			break;
		fds[n++] = fd;
	}
	return n;
}

static void release_fds(int n)
{
	while (n > 0)
		close(fds[--n]);
}

static void test_no_descriptor(void)
{
	struct rlimit old;
	CHECK(getrlimit(RLIMIT_NOFILE, &old) == 0);
	struct rlimit low = {256, old.rlim_max};
	CHECK(setrlimit(RLIMIT_NOFILE, &low) == 0);

	struct blockw_health h;
	struct blockw_file f;
	struct blockw_cursor c = {0};
	fails = 0;
	blockw_health_init(&h, -1, NULL, on_fail);
	fdkeep_reset();
	CHECK_EQ_U64(blockw_file_create(&f, &h, tmp, "profile", EXP_FILE_PROFILE, 1, 0), 0);
	/* its descriptor was kept: a claim with none free still works */
	int n = fill_fds();
	CHECK(n > 0);
	CHECK_EQ_U64(append_clock(&f, &c, 100, 0x1000 + 100), 0);
	CHECK_EQ_U64(atomic_load(&h.transient_err), 0);
	blockw_cursor_release(&c);
	/* none kept: the block is lost, counted, and nothing stops */
	release_fds(n);
	fdkeep_reset();
	n = fill_fds();
	CHECK_EQ_U64(append_clock(&f, &c, 200, 0x1000 + 200), -EMFILE);
	CHECK_EQ_U64(atomic_load(&h.transient_err), EMFILE);
	CHECK_EQ_U64(atomic_load(&h.transient_since_ns), 200);
	CHECK_EQ_U64(atomic_load(&h.err), 0);
	CHECK_EQ_U64(atomic_load(&f.failure_count), 1);
	CHECK_EQ_U64(fails, 0);
	release_fds(n);
	CHECK_EQ_U64(append_clock(&f, &c, 300, 0x1000 + 300), 0);
	blockw_cursor_release(&c);
	CHECK(setrlimit(RLIMIT_NOFILE, &old) == 0);
	unlink(f.path);
}

int main(void)
{
	snprintf(tmp, sizeof tmp, "%s/test_blockw.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	CHECK(mkdtemp(tmp) != NULL);
	test_header();
	test_claims();
	test_too_big();
	test_injected_enospc();
	test_stop_file();
	test_fsize();
	test_no_descriptor();
	rmdir(tmp);
	return check_done();
}
