/*
 * fdkeep.c - kept descriptors of the experiment's files (see fdkeep.h).
 */
#include "collector/fdkeep.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

struct kept {
	char path[PATH_MAX];
	int flags;
	int fd;
	dev_t dev;
	ino_t ino;
};

static struct kept kept[FDKEEP_MAX];
static _Atomic int nkept; /* entries [0, nkept) are complete */

int fdkeep_floor(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
		return 512;
	if (rl.rlim_cur / 2 > 512)
		return (int)(rl.rlim_cur / 2);
	if (rl.rlim_cur > 512 + 64)
		return 512;
	/* a low limit: the top of the range, below the limit */
	return rl.rlim_cur > 2 * FDKEEP_MAX + 3 ? (int)rl.rlim_cur - 2 * FDKEEP_MAX : 3;
}

/* 1 if fd is open on the file of k. SIGNAL_SAFE. */
static int still_ours(const struct kept *k)
{
	struct stat st;
	if (k->fd < 0 || syscall(SYS_fstat, k->fd, &st) != 0)
		return 0;
	return st.st_dev == k->dev && st.st_ino == k->ino;
}

int fdkeep_add(const char *path, int flags)
{
	int n = atomic_load(&nkept);
	size_t len = strlen(path);
	if (n >= FDKEEP_MAX)
		return -ENOSPC;
	if (len >= sizeof kept[n].path)
		return -ENAMETOOLONG;
	int fd = open(path, flags | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int high = fcntl(fd, F_DUPFD_CLOEXEC, fdkeep_floor());
	int e = errno;
	close(fd);
	if (high < 0)
		return -e;
	struct stat st;
	if (fstat(high, &st) != 0) {
		e = errno;
		close(high);
		return -e;
	}
	struct kept *k = &kept[n];
	memcpy(k->path, path, len + 1);
	k->flags = flags & ~(O_CREAT | O_CLOEXEC);
	k->fd = high;
	k->dev = st.st_dev;
	k->ino = st.st_ino;
	atomic_store(&nkept, n + 1);
	return 0;
}

void fdkeep_reset(void)
{
	int n = atomic_exchange(&nkept, 0);
	for (int i = 0; i < n; i++) {
		if (still_ours(&kept[i]))
			close(kept[i].fd);
		kept[i].fd = -1;
	}
}

int fdkeep_open(const char *path, int flags, int *kept_ret)
{
	*kept_ret = 0;
	int fd = (int)syscall(SYS_openat, AT_FDCWD, path, flags | O_CLOEXEC, 0644);
	if (fd >= 0)
		return fd;
	int e = errno;
	if (e != EMFILE && e != ENFILE)
		return -e;
	int n = atomic_load(&nkept);
	for (int i = 0; i < n; i++) {
		const struct kept *k = &kept[i];
		if (k->flags == (flags & ~(O_CREAT | O_CLOEXEC)) && strcmp(k->path, path) == 0 &&
		    still_ours(k)) {
			*kept_ret = 1;
			return k->fd;
		}
	}
	return -e;
}

void fdkeep_done(int fd, int kept_fd)
{
	if (fd >= 0 && !kept_fd)
		syscall(SYS_close, fd);
}
