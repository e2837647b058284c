/*
 * test_regfile.c - common/regfile.h: a regular file opens (blocking mode
 * restored, O_CLOEXEC); a FIFO without a writer, a character device, a
 * directory and a socket are refused at once with their own code and text
 * (an alarm turns a blocked open into a failure instead of a hang); links:
 * followed by regfile_open, refused by REGFILE_NOFOLLOW, and inside a
 * directory accepted only while they stay in it (a relative link in, a
 * relative link out, an absolute link, a "../" name, a link through a
 * subdirectory); the sparse rule on files with holes (a 1 GiB file storing
 * 64 KiB, and what cp(1) makes of an experiment's blocks: one page in 16,
 * which is not sparse) and on short files; regfile_strerror for errno values
 * and refusals.  Files with holes cost no disk.
 */
#include "common/regfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/strbuf.h"
#include "tests/unit/check.h"

static char dir[64];

static const char *at(const char *name)
{
	static char p[PATH_MAX];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	return p;
}

static void put(const char *name, const char *text)
{
	FILE *f = fopen(at(name), "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void on_alarm(int sig)
{
	(void)sig;
	static const char m[] = "not ok: regfile blocked (an open or read waited)\n";
	(void)!write(2, m, sizeof m - 1);
	_exit(1);
}

static void test_regular(void)
{
	put("a.txt", "hello");
	struct stat st;
	int fd = regfile_open(at("a.txt"), &st);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK(S_ISREG(st.st_mode) && st.st_size == 5);
	CHECK((fcntl(fd, F_GETFL) & O_NONBLOCK) == 0);
	CHECK((fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0);
	char b[8] = {0};
	CHECK(read(fd, b, sizeof b) == 5 && strcmp(b, "hello") == 0);
	close(fd);
	CHECK(regfile_open(at("missing"), NULL) == -ENOENT);
	CHECK(regfile_open_in(dir, "missing", NULL) == -ENOENT);
	CHECK(regfile_open_in(at("nodir"), "a.txt", NULL) == -ENOENT);
	fd = regfile_open_in(dir, "a.txt", NULL);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
}

static void test_not_regular(void)
{
	CHECK(mkfifo(at("fifo"), 0600) == 0);
	CHECK(regfile_open(at("fifo"), NULL) == -REGFILE_EFIFO);
	CHECK(regfile_open_in(dir, "fifo", NULL) == -REGFILE_EFIFO);
	CHECK(regfile_open_at(AT_FDCWD, at("fifo"), REGFILE_NOFOLLOW, NULL) == -REGFILE_EFIFO);
	CHECK_EQ_STR(regfile_strerror(-REGFILE_EFIFO), "not a regular file (a FIFO)");
	CHECK(regfile_open("/dev/zero", NULL) == -REGFILE_ECHR);
	CHECK_EQ_STR(regfile_strerror(-REGFILE_ECHR), "not a regular file (a character device)");
	CHECK(regfile_open(dir, NULL) == -REGFILE_EDIR);
	CHECK_EQ_STR(regfile_strerror(-REGFILE_EDIR), "not a regular file (a directory)");
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	const char *sp = at("sock");
	CHECK(strlen(sp) < sizeof sa.sun_path);
	memcpy(sa.sun_path, sp,
	       strlen(sp) + 1 < sizeof sa.sun_path ? strlen(sp) + 1 : sizeof sa.sun_path - 1);
	CHECK(s >= 0 && bind(s, (struct sockaddr *)&sa, sizeof sa) == 0);
	CHECK(regfile_open(at("sock"), NULL) == -REGFILE_ESOCK);
	CHECK_EQ_STR(regfile_strerror(-REGFILE_ESOCK), "not a regular file (a socket)");
	if (s >= 0)
		close(s);
	/* a link to a FIFO or a device is what it leads to */
	CHECK(symlink("/dev/zero", at("zero")) == 0);
	CHECK(regfile_open(at("zero"), NULL) == -REGFILE_ECHR);
	CHECK(symlink("fifo", at("tofifo")) == 0);
	CHECK(regfile_open_in(dir, "tofifo", NULL) == -REGFILE_EFIFO);
}

static void test_links(void)
{
	CHECK(symlink("a.txt", at("in")) == 0);
	int fd = regfile_open(at("in"), NULL);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	CHECK(regfile_open_at(AT_FDCWD, at("in"), REGFILE_NOFOLLOW, NULL) == -REGFILE_ELINK);
	CHECK_EQ_STR(regfile_strerror(-REGFILE_ELINK), "a symbolic link");
	/* inside a directory: a relative link that stays in is fine ... */
	fd = regfile_open_in(dir, "in", NULL);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	CHECK(mkdir(at("sub"), 0700) == 0);
	CHECK(symlink("../a.txt", at("sub/up")) == 0);
	fd = regfile_open_in(dir, "sub/up", NULL);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	/* ... one that leaves it, or an absolute one, or a name that climbs out, is not */
	CHECK(regfile_open_in(at("sub"), "up", NULL) == -REGFILE_EOUTSIDE);
	CHECK(symlink("/etc/passwd", at("abs")) == 0);
	CHECK(regfile_open_in(dir, "abs", NULL) == -REGFILE_EOUTSIDE);
	CHECK(regfile_open_in(at("sub"), "../a.txt", NULL) == -REGFILE_EOUTSIDE);
	CHECK(regfile_open_in(dir, at("a.txt"), NULL) == -REGFILE_EOUTSIDE); /* an absolute name */
	CHECK(symlink("..", at("sub/parent")) == 0);
	CHECK(regfile_open_in(at("sub"), "parent/a.txt", NULL) == -REGFILE_EOUTSIDE);
	CHECK_EQ_STR(regfile_strerror(-REGFILE_EOUTSIDE), "a symbolic link that leads out of the experiment");
	CHECK_EQ_STR(regfile_strerror(-ENOENT), strerror(ENOENT));
}

/* The checks of links inside a directory (test_links' second half), as their count of failures. */
static int beneath_failures(void)
{
	int before = check_failures, fd = regfile_open_in(dir, "in", NULL);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	fd = regfile_open_in(dir, "sub/up", NULL);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	CHECK(regfile_open_in(at("sub"), "up", NULL) == -REGFILE_EOUTSIDE);
	CHECK(regfile_open_in(dir, "abs", NULL) == -REGFILE_EOUTSIDE);
	CHECK(regfile_open_in(at("sub"), "../a.txt", NULL) == -REGFILE_EOUTSIDE);
	CHECK(regfile_open_in(at("sub"), "parent/a.txt", NULL) == -REGFILE_EOUTSIDE);
	CHECK(regfile_open_in(dir, "tofifo", NULL) == -REGFILE_EFIFO);
	return check_failures - before;
}

/* Without openat2 (a seccomp filter makes it ENOSYS, as an old kernel would): the realpath fallback. */
static void test_no_openat2(void)
{
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		struct sock_filter f[] = {
			BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat2, 0, 1),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		};
		struct sock_fprog prog = {.len = sizeof f / sizeof f[0], .filter = f};
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
			_exit(99);
		struct open_how_probe {
			uint64_t flags, mode, resolve;
		} how = {0};
		if (syscall(SYS_openat2, AT_FDCWD, "/", &how, sizeof how) >= 0 || errno != ENOSYS)
			_exit(98); /* the filter does not hold */
		_exit(beneath_failures() ? 1 : 0);
	}
	int status = 0;
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* A file `length` long with `data` bytes written every `every` bytes (0: only at its start). */
static int holey(const char *name, uint64_t length, size_t data, uint64_t every)
{
	int fd = open(at(name), O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	if (fd < 0)
		return -1;
	char *b = malloc(data);
	memset(b, 'x', data);
	for (uint64_t off = 0; off < length; off += every ? every : length)
		CHECK(pwrite(fd, b, data, (off_t)off) == (ssize_t)data);
	free(b);
	CHECK(ftruncate(fd, (off_t)length) == 0);
	return fd;
}

static void test_sparse(void)
{
	struct stat st;
	uint64_t stored = 0;
	int fd = holey("sparse", 1ull << 30, 65536, 0); /* 1 GiB storing 64 KiB */
	if (fd >= 0) {
		CHECK(fstat(fd, &st) == 0);
		CHECK(regfile_is_sparse(fd, &st, &stored) == 1);
		CHECK(stored >= 65536 && stored < (1u << 20));
		CHECK(regfile_stored_bytes(fd, &st) == stored);
		close(fd);
	}
	/* cp of an experiment: the first page of each 64 KiB block kept, the rest holes (16 to 1) */
	fd = holey("copied", 64ull << 20, 4096, 65536);
	if (fd >= 0) {
		CHECK(fstat(fd, &st) == 0);
		CHECK(regfile_is_sparse(fd, &st, NULL) == 0);
		CHECK(regfile_stored_bytes(fd, &st) >= (4ull << 20));
		close(fd);
	}
	/* short files are never sparse, however empty */
	fd = holey("short", REGFILE_SPARSE_MIN_BYTES, 1, 0);
	if (fd >= 0) {
		CHECK(fstat(fd, &st) == 0);
		CHECK(regfile_is_sparse(fd, &st, NULL) == 0);
		close(fd);
	}
	/* just under the ratio: 1 byte in 100 is sparse, 1 in 50 is not */
	fd = holey("r100", 400ull << 20, 4096, 409600);
	if (fd >= 0) {
		CHECK(fstat(fd, &st) == 0);
		CHECK(regfile_is_sparse(fd, &st, NULL) == 1);
		close(fd);
	}
	fd = holey("r50", 400ull << 20, 8192, 409600);
	if (fd >= 0) {
		CHECK(fstat(fd, &st) == 0);
		CHECK(regfile_is_sparse(fd, &st, NULL) == 0);
		close(fd);
	}
	CHECK_EQ_STR(regfile_strerror(-REGFILE_ESPARSE), "a sparse file (its length is mostly holes)");
}

static void test_sizes(void)
{
	static const struct {
		uint64_t n;
		const char *text;
	} cases[] = {
		{0, "0 bytes"},           {1, "1 byte"},         {1023, "1023 bytes"},
		{1024, "1 KiB"},          {8192, "8 KiB"},       {1536, "1.5 KiB"},
		{4ull << 30, "4 GiB"},    {1ull << 40, "1 TiB"}, {(1ull << 20) + (1ull << 19), "1.5 MiB"},
		{UINT64_MAX, "16.0 EiB"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct strbuf b;
		strbuf_init(&b, 0);
		strbuf_add_size(&b, cases[i].n);
		CHECK_EQ_STR(strbuf_str(&b), cases[i].text);
		strbuf_release(&b);
	}
}

int main(void)
{
	snprintf(dir, sizeof dir, "/tmp/test_regfile.XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	signal(SIGALRM, on_alarm);
	alarm(60);
	test_regular();
	test_not_regular();
	test_links();
	CHECK(beneath_failures() == 0);
	test_no_openat2();
	test_sparse();
	test_sizes();
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		return 1;
	return check_done();
}
