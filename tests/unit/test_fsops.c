/*
 * test_fsops.c - common/fsops.h in a temporary directory: exact-length and
 * to-the-end copies (from offset 0 whatever in's file offset, written at
 * out's), a source shorter than asked (-ESTALE, the source's fault), a
 * source that cannot be read (a directory: -EISDIR), a destination that
 * cannot be written (/dev/full: -ENOSPC, not the source's fault), a copy
 * larger than one pread buffer; mkdir -p with a skipped prefix, existing
 * directories, and the prefix that failed.
 */
#include "common/fsops.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/unit/check.h"

static char tmp[PATH_MAX / 2];

static const char *at(const char *rel)
{
	static char p[2][PATH_MAX];
	static int k;
	k ^= 1;
	snprintf(p[k], sizeof p[k], "%s/%s", tmp, rel);
	return p[k];
}

static int make_file(const char *rel, const void *data, size_t n)
{
	int fd = open(at(rel), O_RDWR | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0);
	CHECK(write(fd, data, n) == (ssize_t)n);
	return fd; /* its offset at the end */
}

static size_t read_file(const char *rel, char *buf, size_t room)
{
	int fd = open(at(rel), O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, room) : -1;
	if (fd >= 0)
		close(fd);
	return n > 0 ? (size_t)n : 0;
}

static void test_copy(void)
{
	int in = make_file("src", "0123456789", 10);
	int out = open(at("dst"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int src_failed = -1;
	CHECK_EQ_U64(fsops_copy_bytes(in, out, 4, &src_failed), 0);
	CHECK_EQ_U64(src_failed, 0);
	CHECK_EQ_U64(fsops_copy_bytes(in, out, FSOPS_TO_EOF, &src_failed), 0); /* appended at out's offset */
	close(out);
	char buf[64] = "";
	CHECK_EQ_U64(read_file("dst", buf, sizeof buf), 14);
	CHECK(memcmp(buf, "01230123456789", 14) == 0);

	out = open(at("dst2"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK_EQ_U64(fsops_copy_bytes(in, out, 11, &src_failed), -ESTALE);
	CHECK_EQ_U64(src_failed, 1);
	close(out);
	CHECK_EQ_U64(read_file("dst2", buf, sizeof buf), 10); /* what there was */

	int full = open("/dev/full", O_WRONLY);
	if (full >= 0) {
		CHECK_EQ_U64(fsops_copy_bytes(in, full, 10, &src_failed), -ENOSPC);
		CHECK_EQ_U64(src_failed, 0);
		close(full);
	}
	close(in);

	int dir = open(tmp, O_RDONLY | O_DIRECTORY);
	out = open(at("dst3"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK_EQ_U64(fsops_copy_bytes(dir, out, FSOPS_TO_EOF, &src_failed), -EISDIR);
	CHECK_EQ_U64(src_failed, 1);
	close(out);
	close(dir);

	/* three pread buffers and a bit, every byte in place */
	size_t big = 3 * 65536 + 123;
	unsigned char *data = malloc(big), *back = malloc(big + 1);
	for (size_t i = 0; i < big; i++)
		data[i] = (unsigned char)(i * 131 + i / 65536);
	in = make_file("big", data, big);
	out = open(at("bigcopy"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK_EQ_U64(fsops_copy_bytes(in, out, big, &src_failed), 0);
	close(out);
	close(in);
	CHECK_EQ_U64(read_file("bigcopy", (char *)back, big + 1), big);
	CHECK(memcmp(data, back, big) == 0);
	free(data);
	free(back);
}

static int is_dir(const char *rel)
{
	struct stat st;
	return stat(at(rel), &st) == 0 && S_ISDIR(st.st_mode);
}

static void test_mkdir(void)
{
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s", at("a/b/c"));
	CHECK_EQ_U64(fsops_mkdir_p(p, strlen(tmp), 0755, NULL), 0);
	CHECK(is_dir("a") && is_dir("a/b") && is_dir("a/b/c"));
	CHECK_EQ_U64(fsops_mkdir_p(p, strlen(tmp), 0755, NULL), 0); /* all there already */
	snprintf(p, sizeof p, "%s", at("a/b/d/"));
	CHECK_EQ_U64(fsops_mkdir_p(p, 0, 0700, NULL), 0); /* from the root; a trailing slash */
	struct stat st;
	CHECK(stat(at("a/b/d"), &st) == 0 && (st.st_mode & 0777) == (0700 & ~(unsigned)umask(022)));

	close(make_file("a/file", "x", 1));
	snprintf(p, sizeof p, "%s", at("a/file/e/f"));
	size_t failed = 0;
	CHECK_EQ_U64(fsops_mkdir_p(p, strlen(tmp), 0755, &failed), -ENOTDIR);
	CHECK_EQ_U64(failed, strlen(at("a/file/e")));

	char longp[PATH_MAX + 8];
	memset(longp, 'x', sizeof longp - 1);
	longp[sizeof longp - 1] = 0;
	failed = 99;
	CHECK_EQ_U64(fsops_mkdir_p(longp, 0, 0755, &failed), -ENAMETOOLONG);
	CHECK_EQ_U64(failed, 99); /* no mkdir was tried */
}

int main(void)
{
	snprintf(tmp, sizeof tmp, "%s/test_fsops.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	CHECK(mkdtemp(tmp) != NULL);
	test_copy();
	test_mkdir();
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
	CHECK(system(cmd) == 0);
	return check_done();
}
