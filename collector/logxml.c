/*
 * logxml.c - log.xml appends (see logxml.h).
 */
#include "collector/logxml.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collector/fdkeep.h"
#include "collector/state.h"

static char logxml_path[PATH_MAX];

int logxml_init(const char *dir)
{
	size_t n = strlen(dir);
	if (n + sizeof "/log.xml" > sizeof logxml_path)
		return -ENAMETOOLONG;
	memcpy(logxml_path, dir, n);
	memcpy(logxml_path + n, "/log.xml", sizeof "/log.xml");
	(void)fdkeep_add(logxml_path, O_WRONLY | O_APPEND); /* without one: no fallback */
	return 0;
}

int logxml_append_whole(const char *path, const char *text, size_t bytes, int create)
{
	int saved = errno, r = 0;
	int kept;
	int fd = fdkeep_open(path, O_WRONLY | O_APPEND | (create ? O_CREAT : 0), &kept);
	if (fd < 0) {
		errno = saved;
		return fd;
	}
	long n = syscall(SYS_write, fd, text, bytes);
	if (n < 0) {
		r = -errno;
	} else if ((size_t)n < bytes) {
		/*
		 * A full disk took part of it: take the part back, so that the
		 * file keeps whole lines (the write ended at our offset).
		 */
		long end = syscall(SYS_lseek, fd, 0L, SEEK_CUR);
		if (end >= n)
			syscall(SYS_ftruncate, fd, end - n);
		r = -ENOSPC;
	}
	fdkeep_done(fd, kept);
	errno = saved;
	return r;
}

void logxml_append_to(const char *path, const char *text, size_t bytes)
{
	(void)logxml_append_whole(path, text, bytes, 0);
}

void logxml_append(const struct xmlw *w)
{
	if (logxml_path[0] && xmlw_ok(w))
		logxml_append_to(logxml_path, w->buf, w->len);
}

void logxml_note(const char *element, const char *id, const char *text)
{
	char buf[1024];
	struct xmlw w;
	xmlw_init(&w, buf, sizeof buf);
	xmlw_raw(&w, "  <");
	xmlw_raw(&w, element);
	xmlw_attr(&w, "id", id);
	xmlw_attr_u64(&w, "tstamp_ns", col_now_ns());
	xmlw_raw(&w, ">");
	xmlw_text(&w, text);
	xmlw_raw(&w, "</");
	xmlw_raw(&w, element);
	xmlw_raw(&w, ">\n");
	logxml_append(&w);
}
