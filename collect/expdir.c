/*
 * expdir.c - create an experiment directory and write the head and tail of
 * log.xml and map.xml, and notes (see expdir.h and
 * docs/experiment-format.md).  Each of head and tail is built in memory with
 * the bounded XML builder and written with one write(2) to an O_APPEND file,
 * so it never interleaves with the collector's elements.
 */
#include "collect/expdir.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collect/fsize.h"
#include "common/io.h"
#include "experiment/format.h"
#include "experiment/loghead.h"

void expdir_init(struct expdir *e)
{
	memset(e, 0, sizeof *e);
	e->log_fd = -1;
	e->map_fd = -1;
}

static int set_failed(struct expdir *e, const char *file, int err)
{
	if (file)
		snprintf(e->failed, sizeof e->failed, "%s/%s", e->path ? e->path : "", file);
	else
		snprintf(e->failed, sizeof e->failed, "%s", e->path ? e->path : "");
	return -err;
}

/*
 * Append n bytes with one write, all or nothing: a part that a full disk
 * (or the file size limit: EFBIG) took is cut off again, so the file keeps
 * whole elements.
 */
static int append_whole(int fd, const char *p, size_t n)
{
	off_t start = lseek(fd, 0, SEEK_END);
	ssize_t w;
	do
		w = write(fd, p, n);
	while (w < 0 && errno == EINTR);
	if (w == (ssize_t)n)
		return 0;
	int err = w < 0 ? errno : fsize_short_write_errno((uint64_t)(start >= 0 ? start : 0) + (uint64_t)w);
	if (w > 0 && start >= 0)
		(void)!ftruncate(fd, start);
	return -err;
}

static int reserve_path(const struct expdir *e, char *dst, size_t room)
{
	int n = snprintf(dst, room, "%s/%s", e->path, EXP_FILE_NAME_RESERVE);
	return n > 0 && (size_t)n < room ? 0 : -ENAMETOOLONG;
}

int expdir_reserve(struct expdir *e)
{
	char p[PATH_MAX + 32];
	if (reserve_path(e, p, sizeof p) < 0)
		return -ENAMETOOLONG;
	int fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	int r = posix_fallocate(fd, 0, EXP_RESERVE_BYTES);
	close(fd);
	if (r != 0) {
		unlink(p);
		return -r;
	}
	e->reserved = 1;
	return 0;
}

void expdir_unreserve(struct expdir *e)
{
	char p[PATH_MAX + 32];
	if (e->reserved && reserve_path(e, p, sizeof p) == 0)
		unlink(p);
	e->reserved = 0;
}

/* Append a tail; on a full disk, give the reserve back and try once more. */
static int append_tail(struct expdir *e, int fd, const char *p, size_t n)
{
	int rc = append_whole(fd, p, n);
	if ((rc == -ENOSPC || rc == -EDQUOT) && e->reserved) {
		expdir_unreserve(e);
		rc = append_whole(fd, p, n);
	}
	return rc;
}

static int open_in(struct expdir *e, const char *file)
{
	char p[PATH_MAX + 32];

	snprintf(p, sizeof p, "%s/%s", e->path, file);
	return open(p, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
}

int expdir_create(struct expdir *e, const char *path)
{
	if (strlen(path) > PATH_MAX - 32) {
		snprintf(e->failed, sizeof e->failed, "%s", path);
		return -ENAMETOOLONG;
	}
	if (mkdir(path, 0755) < 0) {
		int err = errno;
		if (err != EEXIST)
			snprintf(e->failed, sizeof e->failed, "%s", path);
		return -err;
	}
	free(e->path);
	e->path = strdup(path);
	if (!e->path) {
		rmdir(path);
		snprintf(e->failed, sizeof e->failed, "%s", path);
		return -ENOMEM;
	}
	e->created = 1;
	e->log_fd = open_in(e, "log.xml");
	if (e->log_fd < 0)
		return set_failed(e, "log.xml", errno);
	e->map_fd = open_in(e, "map.xml");
	if (e->map_fd < 0)
		return set_failed(e, "map.xml", errno);
	return 0;
}

static int write_notes(struct expdir *e, const struct loghead *h)
{
	int fd, rc = 0;

	if (h->comment_count == 0)
		return 0;
	fd = open_in(e, "notes");
	if (fd < 0)
		return set_failed(e, "notes", errno);
	for (int i = 0; i < h->comment_count && rc == 0; i++) {
		char *line = strdup(h->comments[i]);
		if (!line) {
			rc = -ENOMEM;
			break;
		}
		for (char *p = line; *p; p++)
			if (*p == '\n' || *p == '\r')
				*p = ' ';
		rc = io_write_all(fd, line, strlen(line));
		if (rc == 0)
			rc = io_write_all(fd, "\n", 1);
		free(line);
	}
	if (close(fd) < 0 && rc == 0)
		rc = -errno;
	if (rc < 0)
		return set_failed(e, "notes", -rc);
	return 0;
}

int expdir_write_head(struct expdir *e, const struct loghead *h)
{
	size_t room = loghead_room(h);
	char *buf = malloc(room);
	struct xmlw w;
	int rc;

	if (!buf)
		return set_failed(e, "log.xml", ENOMEM);
	xmlw_init(&w, buf, room);
	loghead_format(&w, h);
	if (!xmlw_ok(&w)) {
		free(buf);
		return set_failed(e, "log.xml", ENOBUFS);
	}
	rc = io_write_all(e->log_fd, buf, w.len);
	free(buf);
	if (rc < 0)
		return set_failed(e, "log.xml", -rc);
	rc = io_write_all(e->map_fd, loghead_map_head, strlen(loghead_map_head));
	if (rc < 0)
		return set_failed(e, "map.xml", -rc);
	return write_notes(e, h);
}

int expdir_write_warning(struct expdir *e, const char *id, const char *text)
{
	char buf[8192];
	struct xmlw w;
	xmlw_init(&w, buf, sizeof buf);
	xmlw_raw(&w, "  <warning");
	xmlw_attr(&w, "id", id);
	xmlw_raw(&w, ">");
	xmlw_text_utf8(&w, text);
	xmlw_raw(&w, "</warning>\n");
	if (!xmlw_ok(&w))
		return set_failed(e, "log.xml", ENOBUFS);
	int rc = io_write_all(e->log_fd, buf, w.len);
	return rc < 0 ? set_failed(e, "log.xml", -rc) : 0;
}

int expdir_write_tail(struct expdir *e, const struct expdir_tail *t)
{
	char buf[1024];
	struct xmlw w;
	int rc, rc2;

	xmlw_init(&w, buf, sizeof buf);
	loghead_exit(&w, t->exit_ns, t->wait_status);
	loghead_rusage(&w, "rusage", &t->rusage);
	loghead_end(&w, t->end_ns);
	if (!xmlw_ok(&w))
		return set_failed(e, "log.xml", ENOBUFS);
	rc = append_tail(e, e->log_fd, buf, w.len);
	if (close(e->log_fd) < 0 && rc == 0)
		rc = -errno;
	e->log_fd = -1;
	rc2 = append_tail(e, e->map_fd, loghead_map_tail, strlen(loghead_map_tail));
	if (close(e->map_fd) < 0 && rc2 == 0)
		rc2 = -errno;
	e->map_fd = -1;
	if (rc < 0)
		return set_failed(e, "log.xml", -rc);
	if (rc2 < 0)
		return set_failed(e, "map.xml", -rc2);
	return 0;
}

static void close_files(struct expdir *e)
{
	if (e->log_fd >= 0)
		close(e->log_fd);
	if (e->map_fd >= 0)
		close(e->map_fd);
	e->log_fd = e->map_fd = -1;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

void expdir_remove(struct expdir *e)
{
	close_files(e);
	if (e->created && e->path)
		nftw(e->path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	e->created = 0;
}

void expdir_release(struct expdir *e)
{
	if (!e)
		return;
	close_files(e);
	free(e->path);
	e->path = NULL;
}
