/*
 * lineage.c - process identity, -F following, subexperiments and the
 * founder's processes.xml (see lineage.h).
 *
 * Buffers that depend on the program (its command line, an environment for
 * exec) are mmap'd or the caller's, never malloc'd: a clone child and a
 * vfork-like child must not touch the heap's locks.
 */
#include "collector/lineage.h"

#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "collector/fsize.h"
#include "collector/logxml.h"
#include "collector/state.h"
#include "common/io.h"
#include "experiment/format.h"
#include "experiment/loghead.h"
#include "experiment/params.h"
#include "experiment/sysinfo.h"
#include "experiment/xmlw.h"

#define CMDLINE_MAX_BYTES (256u * 1024)
#define JOURNAL_ARGS_MAX_BYTES 2048
#define CLAIM_MAX 100000

static struct lineage_self self;
static struct lineage_params params;

/* What the environment said at start; the exec interposers pass it on. */
static char env_experiment[PATH_MAX];
static char env_target_pid[32];
static char env_params[EXP_PARAMS_MAX_BYTES]; /* PA_PARAMS: as long as collect may write it */
static char env_follow[4096];
static char env_preload[2 * PATH_MAX];
/* "PA_LINEAGE=PID:NAME", the very string environ points to (putenv). */
static char env_lineage[sizeof "PA_LINEAGE=" + 24 + LINEAGE_NAME_MAX];

static regex_t follow_re;
static int follow_re_ok;
static _Atomic unsigned fork_count, clone_count;
static struct sysinfo_host host;

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Copy of getenv(name) into dst (empty if unset); 0 if it did not fit. */
static int save_env(const char *name, char *dst, size_t room)
{
	const char *v = getenv(name);
	dst[0] = '\0';
	if (!v)
		return 1;
	if (strlen(v) >= room)
		return 0;
	strcpy(dst, v);
	return 1;
}

const struct lineage_self *lineage_self(void)
{
	return &self;
}

unsigned lineage_next_index(char letter)
{
	return atomic_fetch_add(letter == 'C' ? &clone_count : &fork_count, 1) + 1;
}

/* 1 if s is a lineage name: "" or ("_" [fxcC] digits)... */
static int valid_name(const char *s)
{
	size_t n = strlen(s);
	if (n > LINEAGE_NAME_MAX)
		return 0;
	while (*s) {
		if (s[0] != '_' || !strchr("fxcC", s[1]) || !s[1] || s[2] < '0' || s[2] > '9')
			return 0;
		s += 2;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	return 1;
}

static void publish_env(void)
{
	snprintf(env_lineage, sizeof env_lineage, "PA_LINEAGE=%u:%s", (unsigned)self.pid, self.name);
}

/* ------------------------------------------------------------ the program */

/* This process's program and command line, in mmap'd memory. */
struct program {
	char exe[PATH_MAX];
	char *text;   /* /proc/self/cmdline, NUL-separated */
	char **argv;  /* into text, NULL-terminated */
	size_t bytes; /* of the mapping holding both */
};

static void program_read(struct program *pg)
{
	ssize_t k = readlink("/proc/self/exe", pg->exe, sizeof pg->exe - 1);
	pg->exe[k > 0 ? k : 0] = '\0';
	pg->text = NULL;
	pg->argv = NULL;
	pg->bytes = 0;
	void *m = mmap(NULL, CMDLINE_MAX_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return;
	pg->bytes = CMDLINE_MAX_BYTES;
	char *t = m;
	size_t got = 0;
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	while (fd >= 0 && got < CMDLINE_MAX_BYTES / 2) {
		ssize_t r = read(fd, t + got, CMDLINE_MAX_BYTES / 2 - got);
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	if (fd >= 0)
		close(fd);
	t[got] = '\0';
	/* the pointer array after the text, 8-aligned */
	size_t off = (got + 1 + 7) & ~(size_t)7, room = (CMDLINE_MAX_BYTES - off) / sizeof(char *) - 1;
	char **av = (char **)(void *)(t + off);
	size_t n = 0;
	for (size_t i = 0; i < got && n < room; n++) {
		av[n] = t + i;
		i += strlen(t + i) + 1;
	}
	av[n] = NULL;
	pg->text = t;
	pg->argv = av;
}

static void program_release(struct program *pg)
{
	if (pg->bytes)
		munmap(pg->text, pg->bytes);
	pg->bytes = 0;
}

static const char *base_of(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* ------------------------------------------------------------ following */

static int follow_match(const char *name, const struct program *pg)
{
	if (!follow_re_ok)
		return 0;
	const char *cands[5] = {name, pg->exe, base_of(pg->exe), NULL, NULL};
	if (pg->argv && pg->argv[0]) {
		cands[3] = pg->argv[0];
		cands[4] = base_of(pg->argv[0]);
	}
	for (size_t i = 0; i < 5; i++)
		if (cands[i] && cands[i][0] && regexec(&follow_re, cands[i], 0, NULL, 0) == 0)
			return 1;
	return 0;
}

/* Decide self.followed for a descendant named name. */
static void decide(const char *name, const struct program *pg)
{
	self.why_not = NULL;
	if (params.follow == LINEAGE_FOLLOW_ON)
		self.followed = 1;
	else if (params.follow == LINEAGE_FOLLOW_REGEX && follow_match(name, pg))
		self.followed = 1;
	else {
		self.followed = 0;
		self.why_not = params.follow == LINEAGE_FOLLOW_OFF ? "not followed (-F off)"
								   : "not followed (-F: no match)";
	}
	if (self.followed && strlen(name) > LINEAGE_NAME_MAX - 8) {
		self.followed = 0;
		self.why_not = "not followed (the lineage is too deep for a subexperiment name)";
	}
}

/* ------------------------------------------------------------ files */

/* One whole element appended to path (one write(2), O_APPEND; never half of one). */
static void append_file(const char *path, const char *text, size_t n)
{
	(void)logxml_append_whole(path, text, n, 1);
}

static const char *origin_word(enum lineage_origin o)
{
	switch (o) {
	case LINEAGE_FORK: return "fork";
	case LINEAGE_EXEC: return "exec";
	case LINEAGE_CLONE: return "clone";
	case LINEAGE_SPAWN: return "spawn";
	case LINEAGE_RAW: return "raw clone";
	case LINEAGE_FOUNDER: break;
	}
	return "founder";
}

/* A <process> line of processes.xml. */
static void journal(const char *name, enum lineage_origin origin, uint32_t pid, uint32_t ppid, int followed,
		    const char *reason, const char *exe, char *const *argv)
{
	char buf[JOURNAL_ARGS_MAX_BYTES * 6 + PATH_MAX * 6 + 1024], path[PATH_MAX + 32];
	struct xmlw w;
	xmlw_init(&w, buf, sizeof buf);
	xmlw_raw(&w, "<process");
	xmlw_attr_u64(&w, "pid", pid);
	xmlw_attr_u64(&w, "ppid", ppid);
	xmlw_attr(&w, "lineage", name);
	xmlw_attr(&w, "origin", origin_word(origin));
	xmlw_attr_u64(&w, "followed", (uint64_t)followed);
	xmlw_attr_u64(&w, "tstamp_ns", clock_ns(CLOCK_MONOTONIC));
	xmlw_attr_utf8(&w, "path", exe);
	if (reason)
		xmlw_attr(&w, "reason", reason);
	xmlw_raw(&w, ">");
	size_t used = 0;
	for (char *const *a = argv; a && *a && used < JOURNAL_ARGS_MAX_BYTES; a++) {
		xmlw_raw(&w, "<arg>");
		size_t n = strlen(*a);
		if (used + n > JOURNAL_ARGS_MAX_BYTES) { /* cut a long command line */
			char cut[JOURNAL_ARGS_MAX_BYTES + 4];
			n = JOURNAL_ARGS_MAX_BYTES - used;
			memcpy(cut, *a, n);
			strcpy(cut + n, "...");
			xmlw_text_utf8(&w, cut);
		} else {
			xmlw_text_utf8(&w, *a);
		}
		used += n;
		xmlw_raw(&w, "</arg>");
	}
	xmlw_raw(&w, "</process>\n");
	if (!xmlw_ok(&w) || (size_t)snprintf(path, sizeof path, "%s/%s", env_experiment,
					     EXP_FILE_NAME_PROCESSES) >= sizeof path)
		return;
	append_file(path, buf, w.len);
}

void lineage_note_reaped(uint32_t pid, int status, uint64_t utime_ns, uint64_t stime_ns)
{
	char buf[512], path[PATH_MAX + 32];
	if (!self.known || (size_t)snprintf(path, sizeof path, "%s/%s", env_experiment,
					    EXP_FILE_NAME_PROCESSES) >= sizeof path)
		return;
	struct xmlw w;
	xmlw_init(&w, buf, sizeof buf);
	xmlw_raw(&w, "<reaped");
	xmlw_attr_u64(&w, "pid", pid);
	xmlw_attr_u64(&w, "ppid", (uint64_t)syscall(SYS_getpid));
	xmlw_attr_u64(&w, "status", (uint64_t)(unsigned)status);
	xmlw_attr_u64(&w, "utime_ns", utime_ns);
	xmlw_attr_u64(&w, "stime_ns", stime_ns);
	xmlw_attr_u64(&w, "tstamp_ns", clock_ns(CLOCK_MONOTONIC));
	xmlw_raw(&w, "/>\n");
	if (xmlw_ok(&w))
		append_file(path, buf, w.len);
}

/* log.xml and map.xml of a new subexperiment dir (created by the caller). */
static int write_head(const struct program *pg)
{
	char cwd[PATH_MAX], duration[64] = "", follow[sizeof env_follow + 2], path[PATH_MAX];
	if (!getcwd(cwd, sizeof cwd))
		strcpy(cwd, "");
	if (params.window_start_s || params.window_end_s)
		snprintf(duration, sizeof duration, "%llu:%llu", (unsigned long long)params.window_start_s,
			 (unsigned long long)params.window_end_s);
	if (params.follow == LINEAGE_FOLLOW_REGEX)
		snprintf(follow, sizeof follow, "=%s", env_follow);
	else
		snprintf(follow, sizeof follow, "%s", params.follow == LINEAGE_FOLLOW_ON ? "on" : "off");
	struct loghead h = {
		.target_path = pg->exe,
		.argv = pg->argv,
		.host = &host,
		.cwd = cwd,
		.clock_on = params.interval_us != 0,
		.clock_interval_us = params.interval_us,
		.duration = duration,
		.depth_limit = (int)params.depth_limit,
		.descriptor = env_params,
		.heap_on = params.heap_on,
		.follow = follow,
		.lineage = self.name,
		.origin = origin_word(self.origin),
		.start_ns = clock_ns(CLOCK_MONOTONIC),
		.start_realtime_ns = clock_ns(CLOCK_REALTIME),
	};
	size_t room = loghead_room(&h);
	void *m = mmap(NULL, room, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return -ENOMEM;
	struct xmlw w;
	xmlw_init(&w, m, room);
	loghead_format(&w, &h);
	int r = -ENOBUFS;
	if (xmlw_ok(&w) && (!fsize_allows(w.len) || !fsize_allows(strlen(loghead_map_head)))) {
		r = -EFBIG; /* a write past the file size limit: SIGXFSZ for the program */
	} else if (xmlw_ok(&w)) {
		r = -EIO;
		snprintf(path, sizeof path, "%s/%s", self.dir, EXP_FILE_NAME_LOG);
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
		if (fd >= 0) {
			r = io_write_all(fd, m, w.len) < 0 ? -EIO : 0;
			close(fd);
		}
		snprintf(path, sizeof path, "%s/%s", self.dir, EXP_FILE_NAME_MAP);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
		if (fd < 0 || io_write_all(fd, loghead_map_head, strlen(loghead_map_head)) < 0)
			r = -EIO;
		if (fd >= 0)
			close(fd);
	}
	munmap(m, room);
	return r;
}

static int dir_of(const char *name, char *dst, size_t room)
{
	return (size_t)snprintf(dst, room, "%s/%s.er", env_experiment, name) < room ? 0 : -ENAMETOOLONG;
}

/*
 * Name self as parent + letter + a number: n, or (n == 0) the lowest number
 * free in the founder.  A followed process claims its name with mkdir and
 * writes its head; one that is not followed only takes the name.
 */
static void become(const char *parent, char letter, unsigned n, const struct program *pg)
{
	char name[LINEAGE_NAME_MAX + 32];
	for (unsigned k = n ? n : 1; k < CLAIM_MAX; k++) {
		snprintf(name, sizeof name, "%s_%c%u", parent, letter, k);
		if (k == (n ? n : 1U))
			decide(name, pg);
		if (strlen(name) > LINEAGE_NAME_MAX) {
			self.followed = 0;
			self.why_not = "not followed (the lineage is too deep for a subexperiment name)";
			snprintf(self.name, sizeof self.name, "%.*s", LINEAGE_NAME_MAX, name);
			return;
		}
		if (dir_of(name, self.dir, sizeof self.dir) < 0) {
			self.followed = 0;
			self.why_not = "not followed (the experiment's path is too long)";
			strcpy(self.name, name);
			return;
		}
		if (!self.followed) {
			struct stat st;
			if (n || stat(self.dir, &st) < 0)
				break;
			continue;
		}
		if (mkdir(self.dir, 0755) == 0) {
			strcpy(self.name, name);
			int r = write_head(pg);
			if (r < 0) {
				self.followed = 0;
				self.why_not =
					r == -EFBIG
						? "not followed (the file size limit is below its log.xml)"
						: "not followed (its subexperiment could not be written)";
			}
			return;
		}
		if (errno != EEXIST || n) {
			self.followed = 0;
			self.why_not = "not followed (its subexperiment could not be created)";
			break;
		}
	}
	if (self.followed) {
		self.followed = 0;
		self.why_not = "not followed (its subexperiment could not be created)";
	}
	strcpy(self.name, name);
}

/* ------------------------------------------------------------ start */

const char *lineage_experiment(void)
{
	return env_experiment;
}

const struct lineage_self *lineage_init(const struct lineage_params *p)
{
	params = *p;
	self.pid = (uint32_t)getpid();
	if (!save_env("PA_EXPERIMENT", env_experiment, sizeof env_experiment) || !env_experiment[0] ||
	    env_experiment[0] != '/' || !save_env("PA_TARGET_PID", env_target_pid, sizeof env_target_pid) ||
	    !save_env("PA_PARAMS", env_params, sizeof env_params) ||
	    !save_env("PA_FOLLOW", env_follow, sizeof env_follow) ||
	    !save_env("LD_PRELOAD", env_preload, sizeof env_preload))
		return &self; /* not known: dormant */
	const char *v = getenv("PA_LINEAGE");
	char parent[LINEAGE_NAME_MAX + 1] = "";
	unsigned long ppid = 0;
	int have = 0;
	if (v && *v) {
		char *colon;
		ppid = strtoul(v, &colon, 10);
		uint64_t cpu = 0;
		if (*colon == '.') /* PID.CPU:NAME: the thread CPU clock of that process's exec */
			cpu = strtoull(colon + 1, &colon, 10);
		if (*colon == ':' && valid_name(colon + 1)) {
			self.origin_cpu_ns = ppid == self.pid ? cpu : 0;
			snprintf(parent, sizeof parent, "%s", colon + 1);
			have = 1;
		}
	}
	/* neither the founder nor a descendant of it (a launcher before the founder): dormant */
	if (!have && strtoul(env_target_pid, NULL, 10) != self.pid)
		return &self;
	if (params.follow == LINEAGE_FOLLOW_REGEX) {
		char re[sizeof env_follow + 4];
		snprintf(re, sizeof re, "^(%s)$", env_follow);
		follow_re_ok = regcomp(&follow_re, re, REG_EXTENDED | REG_NOSUB) == 0;
	}
	sysinfo_host_read(&host);
	self.known = 1;

	struct program pg;
	program_read(&pg);
	if (!have && strtoul(env_target_pid, NULL, 10) == self.pid) {
		self.origin = LINEAGE_FOUNDER;
		self.followed = 1;
		self.name[0] = '\0';
		snprintf(self.dir, sizeof self.dir, "%s", env_experiment);
	} else if (have && ppid == self.pid) {
		self.origin = LINEAGE_EXEC; /* this process, recorded as parent, exec'd us */
		become(parent, 'x', 0, &pg);
		journal(self.name, self.origin, self.pid, (uint32_t)getppid(), self.followed, self.why_not,
			pg.exe, pg.argv);
	} else {
		/* a descendant made inside libc (posix_spawn, system, popen) */
		self.origin = LINEAGE_SPAWN;
		become(parent, 'c', 0, &pg);
		journal(self.name, self.origin, self.pid, (uint32_t)getppid(), self.followed, self.why_not,
			pg.exe, pg.argv);
	}
	program_release(&pg);
	publish_env();
	putenv(env_lineage);
	return &self;
}

const struct lineage_self *lineage_fork_child(char letter, unsigned n)
{
	if (!self.known)
		return &self;
	char parent[LINEAGE_NAME_MAX + 1];
	snprintf(parent, sizeof parent, "%s", self.name);
	self.pid = (uint32_t)syscall(SYS_getpid);
	self.origin = letter == 'C' ? LINEAGE_CLONE : letter == 'c' ? LINEAGE_RAW : LINEAGE_FORK;
	atomic_store(&fork_count, 0);
	atomic_store(&clone_count, 0);
	struct program pg;
	program_read(&pg);
	become(parent, letter, n, &pg);
	journal(self.name, self.origin, self.pid, (uint32_t)getppid(), self.followed, self.why_not, pg.exe,
		pg.argv);
	program_release(&pg);
	publish_env(); /* environ already points at env_lineage */
	return &self;
}

void lineage_note_unprofilable(const char *path, char *const *argv, uint32_t pid, int is_exec,
			       const char *reason)
{
	if (!self.known)
		return;
	char name[LINEAGE_NAME_MAX + 32];
	/* the number the new image would claim is not known here: "?" */
	snprintf(name, sizeof name, "%s_%c?", self.name, is_exec ? 'x' : 'c');
	journal(name, is_exec ? LINEAGE_EXEC : LINEAGE_SPAWN, pid, is_exec ? (uint32_t)getppid() : self.pid,
		0, reason, path, argv);
}

/* ------------------------------------------------------------ exec environment */

static const char *const our_keys[] = {
	"PA_EXPERIMENT=", "PA_TARGET_PID=", "PA_PARAMS=", "PA_FOLLOW=", "PA_LINEAGE=", "LD_PRELOAD="};
#define NKEYS (sizeof our_keys / sizeof our_keys[0])

static int is_ours(const char *e)
{
	for (size_t k = 0; k < NKEYS; k++)
		if (strncmp(e, our_keys[k], strlen(our_keys[k])) == 0)
			return 1;
	return 0;
}

size_t lineage_exec_env_bytes(char *const *envp)
{
	extern char **environ;
	size_t n = 0;
	const char *pre = NULL;
	for (char *const *e = envp ? envp : environ; e && *e; e++, n++)
		if (strncmp(*e, "LD_PRELOAD=", 11) == 0)
			pre = *e;
	return (n + NKEYS + 1) * sizeof(char *) + sizeof env_experiment + sizeof env_target_pid +
	       sizeof env_params + sizeof env_follow + sizeof env_lineage + sizeof env_preload +
	       (pre ? strlen(pre) : 0) + 128;
}

/* Append "KEY" "value" as one string at *p (room checked); returns it or NULL. */
static char *put_var(char **p, char *end, const char *key, const char *v1, const char *v2, const char *v3)
{
	size_t a = strlen(key), b = strlen(v1), c = strlen(v2), d = strlen(v3);
	if ((size_t)(end - *p) < a + b + c + d + 1)
		return NULL;
	char *s = *p;
	memcpy(s, key, a);
	memcpy(s + a, v1, b);
	memcpy(s + a + b, v2, c);
	memcpy(s + a + b + c, v3, d + 1);
	*p += a + b + c + d + 1;
	return s;
}

char **lineage_exec_env(char *const *envp, void *buf, size_t bytes)
{
	extern char **environ;
	if (!self.known)
		return NULL;
	if (!envp)
		envp = environ;
	size_t n = 0;
	const char *their_preload = NULL;
	for (char *const *e = envp; e && *e; e++, n++)
		if (strncmp(*e, "LD_PRELOAD=", 11) == 0)
			their_preload = *e + 11;
	size_t ptr_bytes = (n + NKEYS + 1) * sizeof(char *);
	if (bytes < ptr_bytes)
		return NULL;
	char **out = buf;
	char *p = (char *)buf + ptr_bytes, *end = (char *)buf + bytes;
	size_t k = 0;
	for (char *const *e = envp; e && *e; e++)
		if (!is_ours(*e))
			out[k++] = *e;
	char pid_name[48 + LINEAGE_NAME_MAX + 2];
	snprintf(pid_name, sizeof pid_name, "%u.%llu:%s", (unsigned)self.pid,
		 (unsigned long long)col_thread_cpu_ns(), self.name);
	/* the program's own preloads after ours, unless it kept ours */
	const char *sep = "", *theirs = "";
	if (their_preload && *their_preload && !strstr(their_preload, env_preload)) {
		sep = ":";
		theirs = their_preload;
	} else if (their_preload && *their_preload) {
		theirs = their_preload; /* already has ours: keep it as it is */
	}
	char *v[NKEYS] = {
		put_var(&p, end, "PA_EXPERIMENT=", env_experiment, "", ""),
		put_var(&p, end, "PA_TARGET_PID=", env_target_pid, "", ""),
		put_var(&p, end, "PA_PARAMS=", env_params, "", ""),
		env_follow[0] ? put_var(&p, end, "PA_FOLLOW=", env_follow, "", "") : NULL,
		put_var(&p, end, "PA_LINEAGE=", pid_name, "", ""),
		*sep || !*theirs ? put_var(&p, end, "LD_PRELOAD=", env_preload, sep, theirs)
				 : put_var(&p, end, "LD_PRELOAD=", theirs, "", ""),
	};
	for (size_t i = 0; i < NKEYS; i++) {
		if (!v[i] && !(i == 3 && !env_follow[0]))
			return NULL;
		if (v[i])
			out[k++] = v[i];
	}
	out[k] = NULL;
	return out;
}
