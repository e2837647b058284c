/*
 * copy.c - bounded, checked, atomic copies of untrusted files into an
 * archive (contract in copy.h).  One temporary name at most is pending at a
 * time; the signal handlers read it, so it is written before it is armed.
 */
#include "er_archive/copy.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/archive.h"
#include "common/why.h"
#include "common/fsops.h"
#include "common/regfile.h"
#include "common/strbuf.h"

static char pending[PATH_MAX];
static volatile sig_atomic_t pending_armed;

static void on_fatal_signal(int sig)
{
	if (pending_armed)
		unlink(pending);
	signal(sig, SIG_DFL);
	raise(sig);
}

void copy_cleanup_install(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE};
	/* past the file size limit (ulimit -f) a write fails with EFBIG, which is reported, and
	 * the temporary file removed, instead of the kernel's SIGXFSZ killing us */
	signal(SIGXFSZ, SIG_IGN);
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		struct sigaction sa = {.sa_handler = on_fatal_signal};
		sigemptyset(&sa.sa_mask);
		struct sigaction old;
		/* a signal ignored by whoever started us stays ignored */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
			sigaction(sigs[i], &sa, NULL);
	}
}

static void arm(const char *path)
{
	pending_armed = 0;
	snprintf(pending, sizeof pending, "%s", path);
	pending_armed = 1;
}

void copy_temp_done(void)
{
	pending_armed = 0;
}

/* DIR/.BASE.tmpXXXXXX for dst into ret (a mkstemp template). */
static int temp_name(const char *dst, char *ret, size_t room)
{
	const char *slash = strrchr(dst, '/');
	int dl = slash ? (int)(slash - dst) : 0;
	int n = snprintf(ret, room, "%.*s%s.%s.tmpXXXXXX", dl, dst, slash ? "/" : "",
			 slash ? slash + 1 : dst);
	return n < 0 || (size_t)n >= room ? -ENAMETOOLONG : 0;
}

int copy_temp_open(const char *dst, char *ret_tmp, size_t room)
{
	int r = temp_name(dst, ret_tmp, room);
	if (r < 0)
		return r;
	sigset_t all, old;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old); /* no signal between the file and its registration */
	int fd = mkstemp(ret_tmp);
	int e = errno;
	if (fd >= 0)
		arm(ret_tmp);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return fd < 0 ? -e : fd;
}

/* Is the open file fd what `want` asks for?  0, or -errno / -ENOEXEC / -ESTALE with why. */
static int check_elf(int fd, enum copy_want want, const char *expect_id, char *why, size_t room)
{
	if (want != COPY_ELF)
		return 0;
	char id[ARCHIVE_BUILD_ID_HEX_MAX + 1];
	int r = archive_read_build_id_fd(fd, id, sizeof id);
	if (r == -ENOEXEC)
		return why_set(why, room, r, "not an ELF file");
	if (r < 0)
		return why_set(why, room, r, "%s", regfile_strerror(r));
	if (expect_id && expect_id[0] && (r != 1 || strcmp(id, expect_id) != 0))
		return why_set(why, room, -ESTALE, "its build-id is not the one map.xml recorded");
	return 0;
}

/* Open src and check it: the descriptor with *st, or a negative code with why. */
static int open_source(const char *src, enum copy_want want, const char *expect_id, struct stat *st,
		       char *why, size_t room)
{
	int in = regfile_open(src, st);
	if (in < 0)
		return why_set(why, room, in, "%s", regfile_strerror(in));
	uint64_t stored;
	int r = 0;
	if (regfile_is_sparse(in, st, &stored)) {
		struct strbuf b;
		strbuf_init(&b, 0);
		strbuf_adds(&b, "a sparse file: ");
		strbuf_add_size(&b, (uint64_t)st->st_size);
		strbuf_adds(&b, " long, ");
		strbuf_add_size(&b, stored);
		strbuf_adds(&b, " stored");
		r = why_set(why, room, -REGFILE_ESPARSE, "%s", strbuf_str(&b));
		strbuf_release(&b);
	}
	if (r == 0)
		r = check_elf(in, want, expect_id, why, room);
	if (r < 0) {
		close(in);
		return r;
	}
	return in;
}

/* An unnamed file in dst's directory (O_TMPFILE), or -errno when the file system has none. */
static int anon_open(const char *dst)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(dst, '/');
	if ((size_t)snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - dst) : 1, slash ? dst : ".") >=
	    sizeof dir)
		return -ENAMETOOLONG;
	int fd = open(dir, O_RDWR | O_TMPFILE | O_CLOEXEC, 0600);
	return fd < 0 ? -errno : fd;
}

/* Give the unnamed file fd the name dst: linked under a hidden name, renamed over dst. */
static int anon_commit(int fd, const char *dst)
{
	char tmp[PATH_MAX], proc[64];
	int r = temp_name(dst, tmp, sizeof tmp);
	if (r < 0)
		return r;
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
	size_t n = strlen(tmp) - 6;
	for (int attempt = 0; attempt < 100; attempt++) {
		snprintf(tmp + n, 7, "%06x",
			 (unsigned)((getpid() * 131u + (unsigned)attempt * 7919u) & 0xffffff));
		sigset_t all, old;
		sigfillset(&all);
		sigprocmask(SIG_BLOCK, &all, &old);
		/* AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; /proc/self/fd does not */
		r = linkat(fd, "", AT_FDCWD, tmp, AT_EMPTY_PATH) == 0 ||
				    linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) == 0
			    ? 0
			    : -errno;
		if (r == 0)
			arm(tmp);
		sigprocmask(SIG_SETMASK, &old, NULL);
		if (r != -EEXIST)
			break;
	}
	if (r < 0)
		return r;
	if (rename(tmp, dst) < 0) {
		r = -errno;
		unlink(tmp);
	}
	copy_temp_done();
	return r;
}

/* Write in's bytes into a new file that becomes dst, checked as `want` says; why says what failed. */
static int copy_into(int in, const struct stat *st, const char *dst, enum copy_want want,
		     const char *expect_id, int *ret_src_failed, char *why, size_t room)
{
	char tmp[PATH_MAX];
	int named = 0, out = anon_open(dst);
	if (out < 0) {
		out = copy_temp_open(dst, tmp, sizeof tmp);
		named = 1;
	}
	if (out < 0)
		return why_set(why, room, out, "cannot create a file in the directory of %s: %s", dst,
			       strerror(-out));
	int r = fsops_copy_bytes(in, out, (uint64_t)st->st_size, ret_src_failed);
	if (r == 0 && fchmod(out, st->st_mode & 0755) < 0)
		r = -errno;
	if (r < 0 && !*ret_src_failed)
		why_set(why, room, r, "cannot write %s: %s", dst, strerror(-r));
	else if (r < 0)
		why_set(why, room, r, "%s", r == -ESTALE ? "it changed while it was copied" : strerror(-r));
	if (r == 0 && check_elf(out, want, expect_id, why, room) < 0) { /* the copy, by its descriptor */
		*ret_src_failed = 1;
		r = why_set(why, room, -ESTALE, "it changed while it was copied");
	}
	if (named) {
		if (close(out) < 0 && r == 0)
			r = why_set(why, room, -errno, "cannot write %s: %s", dst, strerror(errno));
		if (r == 0 && rename(tmp, dst) < 0)
			r = why_set(why, room, -errno, "cannot rename %s to %s: %s", tmp, dst,
				    strerror(errno));
		if (r < 0)
			unlink(tmp);
		copy_temp_done();
		return r;
	}
	if (r == 0 && (r = anon_commit(out, dst)) < 0)
		why_set(why, room, r, "cannot write %s: %s", dst, strerror(-r));
	close(out);
	return r;
}

int copy_file(const char *src, const char *dst, enum copy_want want, const char *expect_id,
	      uint64_t *ret_bytes, int *ret_src_failed, char *why, size_t room)
{
	struct stat st;
	*ret_src_failed = 0;
	int in = open_source(src, want, expect_id, &st, why, room);
	if (in < 0) {
		*ret_src_failed = 1;
		return in;
	}
	int r = copy_into(in, &st, dst, want, expect_id, ret_src_failed, why, room);
	close(in);
	if (r == 0 && ret_bytes)
		*ret_bytes = (uint64_t)st.st_size;
	return r;
}
