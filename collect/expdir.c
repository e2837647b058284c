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

#include "experiment/format.h"
#include "experiment/sysinfo.h"
#include "experiment/xmlw.h"

#define STR_(x) #x
#define STR(x) STR_(x)
#define FORMAT_VERSION STR(EXP_FORMAT_VERSION_MAJOR) "." STR(EXP_FORMAT_VERSION_MINOR)

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

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (w == 0)
			return -ENOSPC;
		p += w;
		n -= (size_t)w;
	}
	return 0;
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

/* A copy of S with each byte of an invalid UTF-8 sequence (and of U+FFFE,
 * U+FFFF, which XML forbids) replaced by '?'.  NULL on ENOMEM. */
static char *utf8_clean(const char *s)
{
	size_t n = strlen(s), i = 0;
	char *out = malloc(n + 1);
	const unsigned char *u = (const unsigned char *)s;

	if (!out)
		return NULL;
	memcpy(out, s, n + 1);
	while (i < n) {
		unsigned c = u[i];
		size_t len = 0;
		unsigned lo = 0x80, hi = 0xbf;

		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			len = 2;
		else if (c >= 0xe0 && c <= 0xef) {
			len = 3;
			if (c == 0xe0)
				lo = 0xa0;
			if (c == 0xed)
				hi = 0x9f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			len = 4;
			if (c == 0xf0)
				lo = 0x90;
			if (c == 0xf4)
				hi = 0x8f;
		}
		int ok = len != 0 && i + len <= n;
		for (size_t k = 1; ok && k < len; k++) {
			unsigned b = u[i + k];
			if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xbf))
				ok = 0;
		}
		if (ok && len == 3 && c == 0xef && u[i + 1] == 0xbf && (u[i + 2] & 0xfe) == 0xbe)
			ok = 0;
		if (!ok) {
			out[i++] = '?';
			continue;
		}
		i += len;
	}
	return out;
}

/* xmlw_attr / xmlw_text on a UTF-8-clean copy; an allocation failure marks
 * the builder as overflowed. */
static void attr(struct xmlw *w, const char *name, const char *v)
{
	char *c = utf8_clean(v ? v : "");
	if (!c) {
		w->overflow = 1;
		return;
	}
	xmlw_attr(w, name, c);
	free(c);
}

static void text(struct xmlw *w, const char *v)
{
	char *c = utf8_clean(v ? v : "");
	if (!c) {
		w->overflow = 1;
		return;
	}
	xmlw_text(w, c);
	free(c);
}

static size_t head_room(const struct expdir_head *h)
{
	size_t n = strlen(h->target_path) + strlen(h->cwd) + strlen(h->descriptor) + strlen(h->duration) +
		   (h->sample ? strlen(h->sample) : 0) + 1024;

	for (char *const *a = h->argv; *a; a++)
		n += strlen(*a) + 16;
	for (int i = 0; i < h->comment_count; i++)
		n += strlen(h->comments[i]) + 32;
	return n * 6 + 4096; /* worst case: every byte escaped as &quot; */
}

static int write_notes(struct expdir *e, const struct expdir_head *h)
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
		rc = write_all(fd, line, strlen(line));
		if (rc == 0)
			rc = write_all(fd, "\n", 1);
		free(line);
	}
	if (close(fd) < 0 && rc == 0)
		rc = -errno;
	if (rc < 0)
		return set_failed(e, "notes", -rc);
	return 0;
}

int expdir_write_head(struct expdir *e, const struct expdir_head *h)
{
	static const char map_head[] = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
				       "<map version=\"" FORMAT_VERSION "\">\n";
	size_t room = head_room(h);
	char *buf = malloc(room);
	struct xmlw w;
	int rc;

	if (!buf)
		return set_failed(e, "log.xml", ENOMEM);
	xmlw_init(&w, buf, room);
	xmlw_raw(&w, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	xmlw_raw(&w, "<experiment version=\"" FORMAT_VERSION "\">\n");
	xmlw_raw(&w, "  <collector");
	xmlw_attr(&w, "version", PA_VERSION);
	xmlw_raw(&w, "/>\n  <target");
	attr(&w, "path", h->target_path);
	xmlw_raw(&w, ">");
	for (char *const *a = h->argv; *a; a++) {
		xmlw_raw(&w, "<arg>");
		text(&w, *a);
		xmlw_raw(&w, "</arg>");
	}
	xmlw_raw(&w, "</target>\n  <host");
	attr(&w, "name", h->host->nodename);
	attr(&w, "os", h->host->sysname);
	attr(&w, "release", h->host->release);
	attr(&w, "arch", h->host->machine);
	xmlw_attr_i64(&w, "cpus", h->host->cpus_count);
	xmlw_attr_i64(&w, "pagesize", h->host->pagesize_bytes);
	xmlw_attr_i64(&w, "pages", h->host->pages_count);
	xmlw_attr_i64(&w, "clock_mhz", h->host->clock_mhz);
	xmlw_raw(&w, "/>\n  <process");
	attr(&w, "cwd", h->cwd);
	xmlw_attr_u64(&w, "wordsize", sizeof(void *) * 8);
	xmlw_raw(&w, "/>\n  <params");
	xmlw_attr(&w, "clock", h->clock_on ? "on" : "off");
	xmlw_attr_i64(&w, "clock_interval_us", h->clock_on ? h->clock_interval_us : 0);
	attr(&w, "duration", h->duration);
	xmlw_attr_i64(&w, "depth_limit", h->depth_limit);
	attr(&w, "descriptor", h->descriptor);
	if (h->sample)
		attr(&w, "sample", h->sample);
	if (h->heap_on)
		attr(&w, "heap", "on");
	xmlw_raw(&w, "/>\n");
	for (int i = 0; i < h->comment_count; i++) {
		xmlw_raw(&w, "  <comment>");
		text(&w, h->comments[i]);
		xmlw_raw(&w, "</comment>\n");
	}
	xmlw_raw(&w, "  <start");
	xmlw_attr_u64(&w, "tstamp_ns", h->start_ns);
	xmlw_attr_u64(&w, "realtime_ns", h->start_realtime_ns);
	xmlw_raw(&w, "/>\n");
	if (!xmlw_ok(&w)) {
		free(buf);
		return set_failed(e, "log.xml", ENOBUFS);
	}
	rc = write_all(e->log_fd, buf, w.len);
	free(buf);
	if (rc < 0)
		return set_failed(e, "log.xml", -rc);
	rc = write_all(e->map_fd, map_head, sizeof map_head - 1);
	if (rc < 0)
		return set_failed(e, "map.xml", -rc);
	return write_notes(e, h);
}

static uint64_t tv_ns(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000000u + (uint64_t)tv.tv_usec * 1000u;
}

int expdir_write_tail(struct expdir *e, const struct expdir_tail *t)
{
	static const char map_tail[] = "</map>\n";
	char buf[1024];
	struct xmlw w;
	int st = t->wait_status, rc, rc2;

	xmlw_init(&w, buf, sizeof buf);
	xmlw_raw(&w, "  <exit");
	xmlw_attr_u64(&w, "tstamp_ns", t->exit_ns);
	if (WIFSIGNALED(st)) {
		const char *abbrev = sigabbrev_np(WTERMSIG(st));
		char name[32];
		snprintf(name, sizeof name, "SIG%s", abbrev ? abbrev : "UNKNOWN");
		xmlw_attr_i64(&w, "signal", WTERMSIG(st));
		xmlw_attr(&w, "signame", name);
		xmlw_attr_i64(&w, "core", WCOREDUMP(st) ? 1 : 0);
	} else {
		xmlw_attr_i64(&w, "status", WIFEXITED(st) ? WEXITSTATUS(st) : st);
	}
	xmlw_raw(&w, "/>\n  <rusage");
	xmlw_attr_u64(&w, "utime_ns", tv_ns(t->rusage.ru_utime));
	xmlw_attr_u64(&w, "stime_ns", tv_ns(t->rusage.ru_stime));
	xmlw_attr_i64(&w, "maxrss_kb", t->rusage.ru_maxrss);
	xmlw_attr_i64(&w, "minflt", t->rusage.ru_minflt);
	xmlw_attr_i64(&w, "majflt", t->rusage.ru_majflt);
	xmlw_attr_i64(&w, "inblock", t->rusage.ru_inblock);
	xmlw_attr_i64(&w, "oublock", t->rusage.ru_oublock);
	xmlw_attr_i64(&w, "nvcsw", t->rusage.ru_nvcsw);
	xmlw_attr_i64(&w, "nivcsw", t->rusage.ru_nivcsw);
	xmlw_raw(&w, "/>\n  <end");
	xmlw_attr_u64(&w, "tstamp_ns", t->end_ns);
	xmlw_raw(&w, "/>\n</experiment>\n");
	if (!xmlw_ok(&w))
		return set_failed(e, "log.xml", ENOBUFS);
	rc = write_all(e->log_fd, buf, w.len);
	if (close(e->log_fd) < 0 && rc == 0)
		rc = -errno;
	e->log_fd = -1;
	rc2 = write_all(e->map_fd, map_tail, sizeof map_tail - 1);
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
