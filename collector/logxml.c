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

#include "collector/collector.h"

static char logxml_path[PATH_MAX];

int logxml_init(const char *dir)
{
	size_t n = strlen(dir);
	if (n + sizeof "/log.xml" > sizeof logxml_path)
		return -ENAMETOOLONG;
	memcpy(logxml_path, dir, n);
	memcpy(logxml_path + n, "/log.xml", sizeof "/log.xml");
	return 0;
}

void logxml_append_to(const char *path, const char *text, size_t bytes)
{
	int saved = errno;
	int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd >= 0) {
		(void)syscall(SYS_write, fd, text, bytes);
		syscall(SYS_close, fd);
	}
	errno = saved;
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
