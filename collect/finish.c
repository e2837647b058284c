/*
 * finish.c - after the founder ended: subexperiments, compression, the
 * process tree's summary (see finish.h).  Reads only what the collector
 * wrote (log.xml, processes.xml), line by line, with bounded buffers.
 */
#include "collect/finish.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collect/compress.h"
#include "collect/fsize.h"
#include "experiment/format.h"
#include "experiment/loghead.h"
#include "experiment/xmlw.h"

#define LINE_MAX_BYTES 65536

/* The XML text from p up to stop (a character, or the end), unescaped, into dst (room > 0). */
static void unescape(const char *p, char stop, char *dst, size_t room)
{
	size_t n = 0;
	while (*p && *p != stop && n + 1 < room) {
		static const struct {
			const char *ent;
			char c;
		} ents[] = {{"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
		size_t k, e = sizeof ents / sizeof ents[0];
		for (k = 0; k < e; k++)
			if (strncmp(p, ents[k].ent, strlen(ents[k].ent)) == 0)
				break;
		if (k < e) {
			dst[n++] = ents[k].c;
			p += strlen(ents[k].ent);
		} else {
			dst[n++] = *p++;
		}
	}
	dst[n] = '\0';
}

/* The value of attribute name="..." in line, unescaped, into dst; 0 if absent. */
static int attr_of(const char *line, const char *name, char *dst, size_t room)
{
	char key[64];
	snprintf(key, sizeof key, " %s=\"", name);
	const char *p = strstr(line, key);
	if (!p || !room)
		return 0;
	unescape(p + strlen(key), '"', dst, room);
	return 1;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int append(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t n = strlen(text);
	off_t start = lseek(fd, 0, SEEK_END);
	ssize_t w = write(fd, text, n);
	int r = w == (ssize_t)n ? 0
		: w < 0         ? -errno
				: -fsize_short_write_errno((uint64_t)(start >= 0 ? start : 0) + (uint64_t)w);
	if (w > 0 && r < 0 && start >= 0)
		(void)!ftruncate(fd, start); /* whole elements only */
	if (close(fd) < 0 && r == 0)
		r = -errno;
	return r;
}

/* 1 if the file's last line is `last` (after trailing NULs and newlines). */
static int ends_with(const char *path, const char *last)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	char tail[256];
	long n = (long)sizeof tail - 1;
	if (fseek(f, -n, SEEK_END) != 0)
		rewind(f);
	size_t got = fread(tail, 1, sizeof tail - 1, f);
	fclose(f);
	tail[got] = '\0';
	size_t len = strlen(tail); /* stops at a NUL */
	while (len && (tail[len - 1] == '\n' || tail[len - 1] == ' '))
		len--;
	size_t k = strlen(last);
	return len >= k && strncmp(tail + len - k, last, k) == 0;
}

/*
 * Is the process that writes log (an open subexperiment) still running?
 * Its pid and program are in the log; a pid now running another program is
 * not it.
 */
static int writer_alive(const char *log)
{
	FILE *f = fopen(log, "re");
	if (!f)
		return 0;
	char *line = malloc(LINE_MAX_BYTES), pid[32] = "", target[PATH_MAX] = "";
	while (line && fgets(line, LINE_MAX_BYTES, f)) {
		if (strstr(line, "<target "))
			attr_of(line, "path", target, sizeof target);
		if (strstr(line, "<collector_start "))
			attr_of(line, "pid", pid, sizeof pid);
	}
	free(line);
	fclose(f);
	long p = strtol(pid, NULL, 10);
	if (p <= 0 || (kill((pid_t)p, 0) < 0 && errno == ESRCH))
		return 0;
	char link[64], exe[PATH_MAX];
	snprintf(link, sizeof link, "/proc/%ld/exe", p);
	ssize_t n = readlink(link, exe, sizeof exe - 1);
	if (n < 0)
		return 1; /* not ours to look at: assume it runs */
	exe[n] = '\0';
	return strcmp(exe, target) == 0;
}

/* Close sub's log.xml and map.xml for a process that ended without doing it. */
static int close_unseen(const char *sub)
{
	char log[PATH_MAX + 16], map[PATH_MAX + 16], buf[1024];
	snprintf(log, sizeof log, "%s/%s", sub, EXP_FILE_NAME_LOG);
	snprintf(map, sizeof map, "%s/%s", sub, EXP_FILE_NAME_MAP);
	struct xmlw w;
	xmlw_init(&w, buf, sizeof buf);
	xmlw_raw(&w, "  <warning id=\"ended_unseen\"");
	xmlw_attr_u64(&w, "tstamp_ns", mono_ns());
	xmlw_raw(&w, ">the process ended without its collector seeing the end (killed by a signal, "
		     "crashed, or ended by a raw exit_group system call as the Go runtime does); its data "
		     "up to then is complete</warning>\n");
	loghead_end(&w, mono_ns());
	int r = append(log, buf);
	if (!ends_with(map, "</map>"))
		append(map, loghead_map_tail);
	return r;
}

/* Subexperiment directory names: "_" ... ".er". */
static int is_subexp(const char *name)
{
	size_t n = strlen(name);
	return name[0] == '_' && n > 4 && strcmp(name + n - 3, ".er") == 0;
}

static void summarize(const char *exp, struct finish_summary *s)
{
	char path[PATH_MAX + 32];
	snprintf(path, sizeof path, "%s/%s", exp, EXP_FILE_NAME_PROCESSES);
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	char *line = malloc(LINE_MAX_BYTES);
	while (line && fgets(line, LINE_MAX_BYTES, f)) {
		char followed[8] = "", reason[256] = "", prog[PATH_MAX] = "";
		if (!strstr(line, "<process ") || !attr_of(line, "followed", followed, sizeof followed))
			continue;
		s->processes++;
		if (strcmp(followed, "1") == 0) {
			s->followed++;
			continue;
		}
		attr_of(line, "reason", reason, sizeof reason);
		if (strncmp(reason, "not followed", 12) == 0) {
			s->not_followed++;
			continue;
		}
		s->unprofilable++;
		if (s->nnotes < FINISH_NOTES_MAX) {
			attr_of(line, "path", prog, sizeof prog);
			snprintf(s->notes[s->nnotes++], sizeof s->notes[0], "%.300s (%.200s)", prog, reason);
		}
	}
	free(line);
	fclose(f);
}

/* Call fn(subexperiment dir, its log.xml, ctx) for each subexperiment of exp.  0 or -errno. */
static int each_subexp(const char *exp, void (*fn)(const char *sub, const char *log, void *ctx), void *ctx)
{
	DIR *d = opendir(exp);
	if (!d)
		return -errno;
	struct dirent *de;
	while ((de = readdir(d))) {
		char sub[PATH_MAX], log[PATH_MAX + 16];
		if (!is_subexp(de->d_name) ||
		    (size_t)snprintf(sub, sizeof sub, "%s/%s", exp, de->d_name) >= sizeof sub)
			continue;
		snprintf(log, sizeof log, "%s/%s", sub, EXP_FILE_NAME_LOG);
		fn(sub, log, ctx);
	}
	closedir(d);
	return 0;
}

static void close_if_unseen(const char *sub, const char *log, void *ctx)
{
	struct finish_summary *s = ctx;
	if (access(log, F_OK) < 0 || ends_with(log, "</experiment>"))
		return;
	if (writer_alive(log))
		s->running++;
	else if (close_unseen(sub) == 0)
		s->closed++;
}

/* The first `room` bytes of /proc/PID/NAME (NUL-terminated): the count, or -1. */
static ssize_t proc_read(const char *pid, const char *name, char *buf, size_t room)
{
	char path[640];
	snprintf(path, sizeof path, "/proc/%s/%s", pid, name);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t n = 0;
	ssize_t k;
	while (n + 1 < room && (k = read(fd, buf + n, room - 1 - n)) > 0)
		n += (size_t)k;
	close(fd);
	buf[n] = '\0';
	return (ssize_t)n;
}

/* 1 if process pid's environment has PA_EXPERIMENT=exp (it belongs to this run). */
static int of_this_run(const char *pid, const char *exp)
{
	static char env[1 << 18];
	ssize_t n = proc_read(pid, "environ", env, sizeof env);
	char want[PATH_MAX + 32];
	int w = snprintf(want, sizeof want, "PA_EXPERIMENT=%s", exp);
	for (ssize_t i = 0; n > 0 && w > 0 && i < n; i += (ssize_t)strlen(env + i) + 1)
		if (strcmp(env + i, want) == 0)
			return 1;
	return 0;
}

/* Process pid's CPU time so far: its threads' run times (schedstat), else its stat's ticks. */
static uint64_t proc_cpu_ns(const char *pid)
{
	char dir[300], buf[512];
	uint64_t sum = 0;
	int any = 0;
	snprintf(dir, sizeof dir, "/proc/%s/task", pid);
	DIR *d = opendir(dir);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		char name[300];
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(name, sizeof name, "task/%s/schedstat", de->d_name);
		if (proc_read(pid, name, buf, sizeof buf) > 0) {
			sum += strtoull(buf, NULL, 10);
			any = 1;
		}
	}
	if (d)
		closedir(d);
	if (any || proc_read(pid, "stat", buf, sizeof buf) <= 0)
		return sum;
	/* after "(comm)": state ppid ... utime (14th field) stime (15th) */
	const char *p = strrchr(buf, ')');
	unsigned long long ut = 0, st = 0;
	long hz = sysconf(_SC_CLK_TCK);
	if (p && sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) == 2 &&
	    hz > 0)
		sum = (ut + st) * (1000000000ull / (uint64_t)hz);
	return sum;
}

/* A <running> line for each process of the run still running, but the founder and collect. */
static unsigned note_running(const char *exp, unsigned founder_pid)
{
	DIR *d = opendir("/proc");
	if (!d)
		return 0;
	char procs[PATH_MAX + 32];
	snprintf(procs, sizeof procs, "%s/%s", exp, EXP_FILE_NAME_PROCESSES);
	unsigned n = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		unsigned long pid = strtoul(de->d_name, NULL, 10);
		char stat[512], exe[PATH_MAX] = "", line[PATH_MAX * 6 + 256];
		if (!pid || pid == founder_pid || pid == (unsigned long)getpid() ||
		    !of_this_run(de->d_name, exp) || proc_read(de->d_name, "stat", stat, sizeof stat) <= 0)
			continue;
		const char *p = strrchr(stat, ')');
		int ppid = 0;
		char state = '?';
		if (!p || sscanf(p + 1, " %c %d", &state, &ppid) != 2 || state == 'Z' || state == 'X')
			continue; /* a zombie has ended: its parent will reap it (or nobody) */
		char link[300];
		snprintf(link, sizeof link, "/proc/%s/exe", de->d_name);
		ssize_t k = readlink(link, exe, sizeof exe - 1);
		exe[k > 0 ? k : 0] = '\0';
		struct xmlw w;
		xmlw_init(&w, line, sizeof line);
		xmlw_raw(&w, "<running");
		xmlw_attr_u64(&w, "pid", pid);
		xmlw_attr_u64(&w, "ppid", (uint64_t)ppid);
		xmlw_attr_u64(&w, "cpu_ns", proc_cpu_ns(de->d_name));
		xmlw_attr_u64(&w, "tstamp_ns", mono_ns());
		xmlw_attr_utf8(&w, "path", exe);
		xmlw_raw(&w, "/>\n");
		int fd =
			n ? -1 : open(procs, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644); /* none yet? */
		if (fd >= 0)
			close(fd);
		if (xmlw_ok(&w) && append(procs, line) == 0)
			n++;
	}
	closedir(d);
	return n;
}

int finish_descendants(const char *exp, unsigned founder_pid, struct finish_summary *ret)
{
	memset(ret, 0, sizeof *ret);
	ret->alive = note_running(exp, founder_pid);
	int r = each_subexp(exp, close_if_unseen, ret);
	if (r < 0)
		return r;
	summarize(exp, ret);
	return 0;
}

/* Why one process stopped recording, from its log.xml. */
struct stop {
	int stopped, counted;
	uint64_t since_ns;
	char errno_name[16];
	uint64_t fsize_limit_bytes;
};

/* The stop's time, errno and file size limit from a data_lost warning or collector_end (prefix lost_). */
static void stop_read(struct stop *st, const char *line, const char *prefix)
{
	char key[48], v[64];
	st->stopped = 1;
	snprintf(key, sizeof key, "%s", *prefix ? "lost_since_ns" : "tstamp_ns");
	if (attr_of(line, key, v, sizeof v))
		st->since_ns = strtoull(v, NULL, 10);
	snprintf(key, sizeof key, "%serrno", prefix);
	if (attr_of(line, key, v, sizeof v) && !st->errno_name[0])
		snprintf(st->errno_name, sizeof st->errno_name, "%.15s", v);
	snprintf(key, sizeof key, "%sfsize_limit_bytes", prefix);
	if (attr_of(line, key, v, sizeof v) && !st->fsize_limit_bytes)
		st->fsize_limit_bytes = strtoull(v, NULL, 10);
}

/* Add what log says was lost (data_lost warning, collector_end lost_*) to ctx. */
static void add_losses(const char *sub, const char *log, void *ctx)
{
	(void)sub;
	struct finish_losses *x = ctx;
	FILE *f = fopen(log, "re");
	if (!f)
		return;
	char *line = malloc(LINE_MAX_BYTES), v[64];
	struct stop st = {0};
	while (line && fgets(line, LINE_MAX_BYTES, f)) {
		if (strstr(line, "<collector_start ") && strstr(line, " sync=\"on\""))
			x->sync_on = 1;
		if (strstr(line, "<warning id=\"data_lost\"") && !st.stopped) {
			stop_read(&st, line, "");
		} else if (strstr(line, "<collector_end ") && attr_of(line, "lost_since_ns", v, sizeof v)) {
			stop_read(&st, line, "lost_");
			st.counted = 1;
			if (attr_of(line, "lost_samples", v, sizeof v))
				x->samples += strtoull(v, NULL, 10);
			if (attr_of(line, "lost_sample_ns", v, sizeof v))
				x->sample_ns += strtoull(v, NULL, 10);
			if (attr_of(line, "lost_heap", v, sizeof v))
				x->heap += strtoull(v, NULL, 10);
			if (attr_of(line, "lost_sync", v, sizeof v))
				x->sync += strtoull(v, NULL, 10);
			if (attr_of(line, "lost_records", v, sizeof v))
				x->records += strtoull(v, NULL, 10);
		}
	}
	free(line);
	fclose(f);
	if (!st.stopped)
		return;
	x->processes++;
	x->uncounted += !st.counted;
	if (x->processes == 1 || st.since_ns < x->first_ns) {
		/* why: the earliest stop's */
		x->first_ns = st.since_ns;
		memcpy(x->errno_name, st.errno_name, sizeof x->errno_name);
		x->fsize_limit_bytes = st.fsize_limit_bytes;
	}
}

/*
 * A process whose collection was off from the start, or whose XML files met
 * the file size limit: count it, keep the first one's words.
 */
static void add_off(const char *sub, const char *log, void *ctx)
{
	(void)sub;
	struct finish_off *x = ctx;
	FILE *f = fopen(log, "re");
	if (!f)
		return;
	char *line = malloc(LINE_MAX_BYTES);
	int off = 0, limited = 0;
	while (line && fgets(line, LINE_MAX_BYTES, f)) {
		const char *p = strstr(line, "<error id=\"data_files\"");
		const char *text = p ? strchr(p, '>') : NULL;
		if (text && !off++ && x->processes++ == 0)
			unescape(text + 1, '<', x->why, sizeof x->why);
		p = strstr(line, "<warning id=\"file_size_limit\"");
		text = p ? strchr(p, '>') : NULL;
		if (text && !limited++ && x->xml_processes++ == 0)
			unescape(text + 1, '<', x->xml_why, sizeof x->xml_why);
	}
	free(line);
	fclose(f);
}

int finish_collection_off(const char *exp, struct finish_off *ret)
{
	memset(ret, 0, sizeof *ret);
	char log[PATH_MAX + 16];
	snprintf(log, sizeof log, "%s/%s", exp, EXP_FILE_NAME_LOG);
	add_off(exp, log, ret);
	return each_subexp(exp, add_off, ret);
}

int finish_founder_unended(const char *exp)
{
	char log[PATH_MAX + 16];
	snprintf(log, sizeof log, "%s/%s", exp, EXP_FILE_NAME_LOG);
	FILE *f = fopen(log, "re");
	if (!f)
		return 0;
	char *line = malloc(LINE_MAX_BYTES);
	int started = 0, ended = 0, go = 0;
	while (line && fgets(line, LINE_MAX_BYTES, f)) {
		if (strstr(line, "<collector_start ")) {
			started = 1;
			go |= strstr(line, " runtime=\"go\"") != NULL;
		}
		ended |= strstr(line, "<collector_end ") != NULL;
	}
	free(line);
	fclose(f);
	return started && !ended ? 1 + go : 0;
}

int finish_losses(const char *exp, struct finish_losses *ret)
{
	memset(ret, 0, sizeof *ret);
	char log[PATH_MAX + 16];
	snprintf(log, sizeof log, "%s/%s", exp, EXP_FILE_NAME_LOG);
	add_losses(exp, log, ret);
	return each_subexp(exp, add_losses, ret);
}

static void compress_dir(const char *dir, void (*warn)(const char *, int))
{
	static const char *const files[] = {
		EXP_FILE_NAME_PROFILE, EXP_FILE_NAME_STACKS, EXP_FILE_NAME_OVERVIEW, EXP_FILE_NAME_HEAP,
		EXP_FILE_NAME_SYNC,    EXP_FILE_NAME_IO,     EXP_FILE_NAME_HWC};
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		char path[PATH_MAX + 32];
		if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, files[i]) >= sizeof path)
			continue;
		int r = compress_data_file(path);
		if (r < 0 && r != -ENOENT && warn)
			warn(path, r);
	}
}

static void compress_if_ended(const char *sub, const char *log, void *ctx)
{
	void (**warn)(const char *, int) = ctx;
	if (ends_with(log, "</experiment>")) /* its process has ended */
		compress_dir(sub, *warn);
}

void finish_compress(const char *exp, void (*warn)(const char *path, int err))
{
	const char *off = getenv("PA_COMPRESS");
	if (off && strcmp(off, "off") == 0)
		return;
	compress_dir(exp, warn);
	each_subexp(exp, compress_if_ended, &warn);
}
