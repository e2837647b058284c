/*
 * exptree.c - copy and remove directory trees by descriptor (see exptree.h).
 * Every file is reached with *at() calls relative to its directory's open
 * descriptor and opened with O_NOFOLLOW, so a link is never followed and a
 * rename elsewhere cannot send the walk outside the tree.  A directory's
 * mode and times are set after its contents, which would change them.
 */
#include "er_manage/exptree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fsops.h"
#include "common/regfile.h"

struct walk {
	char path[PATH_MAX]; /* the file being worked on, for messages */
	size_t len;
	int flags;
	int depth;
};

static int walk_push(struct walk *w, const char *name, size_t *saved)
{
	*saved = w->len;
	int n = snprintf(w->path + w->len, sizeof w->path - w->len, "/%s", name);
	if (n < 0 || (size_t)n >= sizeof w->path - w->len)
		return -ENAMETOOLONG;
	w->len += (size_t)n;
	return 0;
}

static void walk_pop(struct walk *w, size_t saved)
{
	w->len = saved;
	w->path[saved] = '\0';
}

static void say_where(const struct walk *w, char *where, size_t room)
{
	if (room)
		snprintf(where, room, "%s", w->path);
}

static int set_times_mode(int fd, const struct stat *st)
{
	struct timespec ts[2] = {st->st_atim, st->st_mtim};
	if (fchmod(fd, st->st_mode & 07777) < 0 || futimens(fd, ts) < 0)
		return -errno;
	return 0;
}

static int copy_file(int sdir, int ddir, const char *name, const struct stat *st, int flags)
{
	struct stat ist;
	int in = regfile_open_at(sdir, name, REGFILE_NOFOLLOW, &ist); /* a regular file, never blocking */
	if (in < 0)
		return in;
	if (regfile_is_sparse(in, &ist, NULL)) {
		close(in);
		return -REGFILE_ESPARSE; /* its holes would be written out as zeros */
	}
	int out = openat(ddir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (out < 0) {
		int e = -errno;
		close(in);
		return e;
	}
	int src_failed;
	int rc = fsops_copy_bytes(in, out, FSOPS_TO_EOF, &src_failed);
	if (rc == 0 && (flags & EXPTREE_SYNC) && fsync(out) < 0)
		rc = -errno;
	if (rc == 0)
		rc = set_times_mode(out, st);
	if (close(out) < 0 && rc == 0)
		rc = -errno;
	close(in);
	return rc;
}

static int copy_link(int sdir, int ddir, const char *name, const struct stat *st)
{
	char target[PATH_MAX];
	ssize_t n = readlinkat(sdir, name, target, sizeof target - 1);
	if (n < 0)
		return -errno;
	if ((size_t)n >= sizeof target - 1)
		return -ENAMETOOLONG;
	target[n] = '\0';
	if (symlinkat(target, ddir, name) < 0)
		return -errno;
	struct timespec ts[2] = {st->st_atim, st->st_mtim};
	if (utimensat(ddir, name, ts, AT_SYMLINK_NOFOLLOW) < 0 && errno != EOPNOTSUPP)
		return -errno;
	return 0;
}

/* What to do with entry NAME of the open directory DFD; ARG is the walk's own. */
typedef int (*walk_fn)(struct walk *w, int dfd, const char *name, void *arg);

/*
 * Call FN on each entry of the open directory DFD (not "." and ".."), with
 * w->path naming it, until one fails: its error, w->path still naming it.
 */
static int walk_dir(struct walk *w, int dfd, walk_fn fn, void *arg)
{
	if (w->depth + 1 > EXPTREE_DEPTH_MAX)
		return -ELOOP;
	int fd = dup(dfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		int e = -errno;
		if (fd >= 0)
			close(fd);
		return e;
	}
	w->depth++;
	int rc = 0;
	struct dirent *de;
	errno = 0;
	while (rc == 0 && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		size_t saved;
		if ((rc = walk_push(w, de->d_name, &saved)) < 0)
			break;
		rc = fn(w, dfd, de->d_name, arg);
		if (rc == 0)
			walk_pop(w, saved);
		errno = 0;
	}
	if (rc == 0 && errno)
		rc = -errno;
	closedir(d);
	w->depth--;
	return rc;
}

static int copy_subdir(struct walk *w, int sdir, int ddir, const char *name, const struct stat *st);

/* Copy entry NAME of SDIR into the directory *(int *)ARG. */
static int copy_entry(struct walk *w, int sdir, const char *name, void *arg)
{
	int ddir = *(int *)arg;
	struct stat st;
	if (fstatat(sdir, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return copy_subdir(w, sdir, ddir, name, &st);
	if (S_ISREG(st.st_mode))
		return copy_file(sdir, ddir, name, &st, w->flags);
	if (S_ISLNK(st.st_mode))
		return copy_link(sdir, ddir, name, &st);
	/* a device, FIFO or socket has no place in an experiment */
	return S_ISFIFO(st.st_mode)  ? -REGFILE_EFIFO
	       : S_ISCHR(st.st_mode) ? -REGFILE_ECHR
	       : S_ISBLK(st.st_mode) ? -REGFILE_EBLK
				     : -REGFILE_ESOCK;
}

static int copy_subdir(struct walk *w, int sdir, int ddir, const char *name, const struct stat *st)
{
	if (mkdirat(ddir, name, 0700) < 0)
		return -errno;
	int s = openat(sdir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (s < 0)
		return -errno;
	int d = openat(ddir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (d < 0) {
		int e = -errno;
		close(s);
		return e;
	}
	int rc = walk_dir(w, s, copy_entry, &d);
	if (rc == 0 && (w->flags & EXPTREE_SYNC) && fsync(d) < 0)
		rc = -errno;
	if (rc == 0)
		rc = set_times_mode(d, st);
	close(d);
	close(s);
	return rc;
}

/* Remove entry NAME of DFD, a directory with everything in it. */
static int remove_entry(struct walk *w, int dfd, const char *name, void *arg)
{
	struct stat st;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(dfd, name, 0) < 0 && errno != ENOENT ? -errno : 0;
	int sub = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sub < 0)
		return -errno;
	if ((st.st_mode & 0700) != 0700 && fchmod(sub, st.st_mode | 0700) < 0) {
		int e = -errno;
		close(sub);
		return e;
	}
	int rc = walk_dir(w, sub, remove_entry, arg);
	close(sub);
	if (rc == 0 && unlinkat(dfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		rc = -errno;
	return rc;
}

static void walk_init(struct walk *w, const char *path, int flags)
{
	snprintf(w->path, sizeof w->path, "%s", path);
	w->len = strlen(w->path);
	w->flags = flags;
	w->depth = 0;
}

int exptree_remove(const char *path, char *where, size_t room)
{
	struct walk w;
	walk_init(&w, path, 0);
	int rc = remove_entry(&w, AT_FDCWD, path, NULL);
	if (rc < 0)
		say_where(&w, where, room);
	return rc;
}

int exptree_copy(const char *src, const char *dst, int flags, char *where, size_t room)
{
	struct walk w;
	struct stat st;
	walk_init(&w, src, flags);
	int s = open(src, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (s < 0 || fstat(s, &st) < 0) {
		int e = -errno;
		if (s >= 0)
			close(s);
		say_where(&w, where, room);
		return e;
	}
	if (mkdir(dst, 0700) < 0) {
		int e = -errno;
		close(s);
		walk_init(&w, dst, flags);
		say_where(&w, where, room);
		return e;
	}
	int d = open(dst, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int rc = d < 0 ? -errno : walk_dir(&w, s, copy_entry, &d);
	if (rc == 0 && (flags & EXPTREE_SYNC) && fsync(d) < 0)
		rc = -errno;
	if (rc == 0)
		rc = set_times_mode(d, &st);
	if (d >= 0)
		close(d);
	close(s);
	if (rc < 0) {
		say_where(&w, where, room);
		char ignored[8];
		(void)exptree_remove(dst, ignored, sizeof ignored); /* no half-made copy stays */
	}
	return rc;
}
