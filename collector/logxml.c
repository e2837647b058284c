/*
 * logxml.c - log.xml appends (see logxml.h).
 */
#include "collector/logxml.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collector/fdkeep.h"
#include "collector/fsize.h"
#include "collector/state.h"
#include "experiment/format.h"

static char logxml_path[PATH_MAX];
/*
 * The files (FSIZE_MAP, ...) whose file_size_limit warning this recording
 * wrote, and those it owes: met before the recording began (the lineage's
 * processes.xml line), written by logxml_init.
 */
enum { FSIZE_MAP = 1, FSIZE_PROCESSES = 2, FSIZE_OTHER = 4 };
static _Atomic int fsize_noted, fsize_owed;

static void note_fsize(int file);

int logxml_init(const char *dir)
{
	size_t n = strlen(dir);
	if (n + sizeof "/log.xml" > sizeof logxml_path)
		return -ENAMETOOLONG;
	memcpy(logxml_path, dir, n);
	memcpy(logxml_path + n, "/log.xml", sizeof "/log.xml");
	atomic_store(&fsize_noted, 0);
	(void)fdkeep_add(logxml_path, O_WRONLY | O_APPEND); /* without one: no fallback */
	int owed = atomic_exchange(&fsize_owed, 0);
	for (int file = FSIZE_MAP; file <= FSIZE_OTHER; file <<= 1)
		if (owed & file)
			note_fsize(file);
	return 0;
}

/* The limit as `ulimit -f` counts it ("ulimit -f 64 KiB"), or in bytes, as text. SIGNAL_SAFE. */
static void limit_text(struct xmlw *w, uint64_t limit)
{
	char digits[24], *p = digits + sizeof digits;
	int kib = limit % 1024 == 0;
	uint64_t v = kib ? limit / 1024 : limit;
	*--p = 0;
	do
		*--p = (char)('0' + v % 10);
	while ((v /= 10) && p > digits);
	xmlw_text(w, kib ? "ulimit -f " : "");
	xmlw_text(w, p);
	xmlw_text(w, kib ? " KiB" : " bytes");
}

/* Which file of the experiment path is, for its file_size_limit warning; 0 for log.xml. */
static int fsize_file(const char *path)
{
	const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
	if (strcmp(name, EXP_FILE_NAME_LOG) == 0)
		return 0; /* no room for the warning either */
	return strcmp(name, EXP_FILE_NAME_MAP) == 0         ? FSIZE_MAP
	       : strcmp(name, EXP_FILE_NAME_PROCESSES) == 0 ? FSIZE_PROCESSES
							    : FSIZE_OTHER;
}

/*
 * Once per recording and file: say in log.xml that the file is at the file
 * size limit, and what that costs.  SIGNAL_SAFE.
 */
static void note_fsize(int file)
{
	if (atomic_fetch_or(&fsize_noted, file) & file)
		return;
	const char *name = file == FSIZE_MAP         ? EXP_FILE_NAME_MAP
			   : file == FSIZE_PROCESSES ? EXP_FILE_NAME_PROCESSES
						     : NULL;
	uint64_t limit = fsize_limit_bytes();
	char buf[640];
	struct xmlw w;
	xmlw_init(&w, buf, sizeof buf);
	xmlw_raw(&w, "  <warning id=\"file_size_limit\"");
	xmlw_attr_u64(&w, "tstamp_ns", col_now_ns());
	if (name)
		xmlw_attr(&w, "file", name);
	xmlw_attr_u64(&w, "fsize_limit_bytes", limit);
	xmlw_raw(&w, ">");
	xmlw_text(&w, name ? name : "a file of the experiment");
	xmlw_text(&w, " reached the file size limit (");
	limit_text(&w, limit);
	xmlw_text(&w,
		  file == FSIZE_MAP ? "): load objects mapped from now on are not in it (their functions "
				      "cannot be named)"
		  : file == FSIZE_PROCESSES
			  ? "): this process, and those started after it, may be missing from it and from "
			    "collect's count of descendants"
			  : "): what the collector would append to it is left out");
	xmlw_raw(&w, "</warning>\n");
	logxml_append(&w);
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
	struct stat st;
	uint64_t size = syscall(SYS_fstat, fd, &st) == 0 ? (uint64_t)st.st_size : UINT64_MAX;
	if (!fsize_allows_append(size, bytes)) {
		/* the write would reach the limit: one that starts there gets the target SIGXFSZ */
		fdkeep_done(fd, kept);
		atomic_fetch_add(&col_counters()->fsize_dropped, 1);
		int file = fsize_file(path);
		if (file && col_active())
			note_fsize(file);
		else if (file) /* this process's recording has not begun: its log.xml may not exist */
			atomic_fetch_or(&fsize_owed, file);
		errno = saved;
		return -EFBIG;
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
