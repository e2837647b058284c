/*
 * regfile.c - open untrusted files for reading: stat, open O_NONBLOCK,
 * fstat, regular files only; inside a directory, resolved beneath it
 * (contract in regfile.h).
 */
#include "common/regfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define OPEN_FLAGS (O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)

/* -REGFILE_E* for a file of mode m that is not a regular file (0 for one that is). */
static int kind_refusal(mode_t m)
{
	if (S_ISREG(m))
		return 0;
	if (S_ISFIFO(m))
		return -REGFILE_EFIFO;
	if (S_ISCHR(m))
		return -REGFILE_ECHR;
	if (S_ISBLK(m))
		return -REGFILE_EBLK;
	if (S_ISSOCK(m))
		return -REGFILE_ESOCK;
	if (S_ISDIR(m))
		return -REGFILE_EDIR;
	return -REGFILE_ELINK;
}

/* The descriptor opened as fd, checked with fstat and made blocking again; fd is closed on failure. */
static int finish_open(int fd, struct stat *ret_st)
{
	struct stat st;
	if (fd < 0)
		return -errno;
	int r = fstat(fd, &st) < 0 ? -errno : kind_refusal(st.st_mode);
	int fl = r == 0 ? fcntl(fd, F_GETFL) : -1;
	if (r == 0 && (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0))
		r = -errno;
	if (r < 0) {
		close(fd);
		return r;
	}
	if (ret_st)
		*ret_st = st;
	return fd;
}

int regfile_open_at(int dirfd, const char *name, int flags, struct stat *ret_st)
{
	struct stat st;
	int nofollow = flags & REGFILE_NOFOLLOW;
	if (fstatat(dirfd, name, &st, nofollow ? AT_SYMLINK_NOFOLLOW : 0) < 0)
		return -errno;
	if (S_ISLNK(st.st_mode))
		return -REGFILE_ELINK;
	int r = kind_refusal(st.st_mode);
	if (r < 0)
		return r; /* never opened */
	int fd = openat(dirfd, name, OPEN_FLAGS | (nofollow ? O_NOFOLLOW : 0));
	if (fd < 0 && errno == ELOOP && nofollow)
		return -REGFILE_ELINK; /* made a link after the stat */
	return finish_open(fd, ret_st);
}

int regfile_open(const char *path, struct stat *ret_st)
{
	return regfile_open_at(AT_FDCWD, path, 0, ret_st);
}

/* Without openat2: does dir/name resolve (realpath) to a path inside dir?  0, or a negative code. */
static int check_beneath(const char *dir, const char *name)
{
	char rd[PATH_MAX], rp[PATH_MAX], joined[PATH_MAX];
	if ((size_t)snprintf(joined, sizeof joined, "%s/%s", dir, name) >= sizeof joined)
		return -ENAMETOOLONG;
	if (!realpath(dir, rd) || !realpath(joined, rp))
		return -errno;
	size_t n = strlen(rd);
	if (n == 1)
		return 0; /* dir is "/" */
	return strncmp(rp, rd, n) == 0 && rp[n] == '/' ? 0 : -REGFILE_EOUTSIDE;
}

int regfile_open_in(const char *dir, const char *name, struct stat *ret_st)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	struct stat st;
	int r = 0;
	if (name[0] == '/')
		r = -REGFILE_EOUTSIDE;
	else if (fstatat(dfd, name, &st, 0) < 0)
		r = -errno;
	else
		r = kind_refusal(st.st_mode); /* a FIFO or a device is never opened */
	if (r < 0) {
		close(dfd);
		return r;
	}
	struct open_how how = {.flags = OPEN_FLAGS, .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS};
	int fd = (int)syscall(SYS_openat2, dfd, name, &how, sizeof how);
	if (fd < 0 && errno == EXDEV) {
		r = -REGFILE_EOUTSIDE;
	} else if (fd < 0 && (errno == ENOSYS || errno == EPERM || errno == E2BIG)) {
		/* no openat2 (an old kernel, or a seccomp filter that refuses it) */
		r = check_beneath(dir, name);
		if (r == 0)
			fd = openat(dfd, name, OPEN_FLAGS);
	}
	if (r == 0)
		r = finish_open(fd, ret_st);
	close(dfd);
	return r;
}

const char *regfile_strerror(int err)
{
	switch (-err) {
	case REGFILE_EFIFO: return "not a regular file (a FIFO)";
	case REGFILE_ECHR: return "not a regular file (a character device)";
	case REGFILE_EBLK: return "not a regular file (a block device)";
	case REGFILE_ESOCK: return "not a regular file (a socket)";
	case REGFILE_EDIR: return "not a regular file (a directory)";
	case REGFILE_ELINK: return "a symbolic link";
	case REGFILE_EOUTSIDE: return "a symbolic link that leads out of the experiment";
	case REGFILE_ESPARSE: return "a sparse file (its length is mostly holes)";
	default: return strerror(err < 0 ? -err : err);
	}
}

/* The bytes of fd's data extents, stopping once `enough` are found. */
static uint64_t data_extent_bytes(int fd, uint64_t length, uint64_t enough)
{
	uint64_t data = 0;
	off_t pos = 0;
	while ((uint64_t)pos < length && data < enough) {
		off_t d = lseek(fd, pos, SEEK_DATA);
		if (d < 0)
			break; /* ENXIO: no data after pos */
		off_t h = lseek(fd, d, SEEK_HOLE);
		if (h <= d)
			break;
		data += (uint64_t)(h - d);
		pos = h;
	}
	return data;
}

uint64_t regfile_stored_bytes(int fd, const struct stat *st)
{
	uint64_t length = st->st_size > 0 ? (uint64_t)st->st_size : 0;
	uint64_t blocks = st->st_blocks > 0 ? (uint64_t)st->st_blocks * 512 : 0;
	uint64_t data = data_extent_bytes(fd, length, length);
	return blocks > data ? blocks : data;
}

int regfile_is_sparse(int fd, const struct stat *st, uint64_t *ret_stored)
{
	uint64_t length = st->st_size > 0 ? (uint64_t)st->st_size : 0;
	if (length <= REGFILE_SPARSE_MIN_BYTES)
		return 0;
	uint64_t need = length / REGFILE_SPARSE_RATIO;
	uint64_t blocks = st->st_blocks > 0 ? (uint64_t)st->st_blocks * 512 : 0;
	if (blocks >= need)
		return 0; /* the cheap test; the extents only when it fails (ZFS counts compressed blocks) */
	uint64_t data = data_extent_bytes(fd, length, need);
	if (data >= need)
		return 0;
	if (ret_stored)
		*ret_stored = blocks > data ? blocks : data;
	return 1;
}
