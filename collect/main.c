/*
 * main.c - the collect launcher: parse options, resolve the target, choose
 * and create the experiment directory, write the head of log.xml/map.xml,
 * run the target with libcollector.so preloaded, then write the tail.
 *
 * Everything that can be checked is checked before anything is created; on
 * any failure after creation the experiment directory is removed.  Messages
 * go to stderr, one line each; stdout is used only for -n, -V, -h, --help
 * and the no-argument summary.  Exit status: the target's, 128+N when it is
 * killed by signal N, 1 when the experiment cannot be written, 2 for a usage
 * error, 126/127 when the target cannot be executed / is not found.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collect/finish.h"
#include "collect/fsize.h"
#include "collect/hwc.h"
#include "experiment/format.h"
#include "collect/expdir.h"
#include "collect/launch.h"
#include "collect/options.h"
#include "collect/probe.h"
#include "common/exeprobe.h"
#include "experiment/expgroup.h"
#include "experiment/expname.h"
#include "experiment/loghead.h"
#include "experiment/params.h"
#include "experiment/sysinfo.h"

#ifndef PA_PREFIX
#define PA_PREFIX "/usr/local"
#endif

#define EXIT_USAGE 2
#define EXIT_NOEXEC 126
#define EXIT_NOTFOUND 127
#define NAME_RETRIES 100
#define ENV_ADDED 5 /* PA_EXPERIMENT, PA_PARAMS, PA_TARGET_PID, LD_PRELOAD, PA_FOLLOW */

extern char **environ;

static const char usage_text[] =
	"Usage: collect [OPTIONS] TARGET [TARGET-ARGUMENTS]\n"
	"       collect\n"
	"       collect -V\n"
	"       collect -h [list]\n"
	"Run TARGET with the Performance Analyzer collector preloaded and record an\n"
	"experiment directory NAME.er for er_print.\n"
	"\n"
	"Options:\n"
	"  -p on|off|lo|hi|INTERVAL  clock profiling: on = 10.007 ms (default),\n"
	"                            hi = 0.997 ms, lo = 100.003 ms, off; INTERVAL in\n"
	"                            milliseconds (suffix m = ms, u = microseconds),\n"
	"                            0.5 to 1000 ms\n"
	"  -t DURATION|START-END     collect only for DURATION seconds, or from START to\n"
	"                            END (suffix s or m; END 0 = until the target ends)\n"
	"  -S on|off|SECONDS         periodic sample points: process resource usage\n"
	"                            every SECONDS of a run that uses CPU (on = 1, the\n"
	"                            default; off: only at start, end and the -l, -y\n"
	"                            and API points)\n"
	"  -l SIGNAL                 record a sample point when SIGNAL is sent to the\n"
	"                            target with kill (USR1, PROF, a number, ...)\n"
	"  -y SIGNAL[,r]             pause and resume recording each time SIGNAL is\n"
	"                            sent with kill; start paused unless ,r\n"
	"  -H on|off                 heap tracing: record every malloc, calloc, realloc,\n"
	"                            free, memalign-family call and anonymous mmap and\n"
	"                            munmap with its call stack (default off)\n"
	"  -i on|off                 I/O tracing: record every open, close, read, write,\n"
	"                            seek, sync, dup, pipe and socket call with its bytes,\n"
	"                            time, errno, file name and call stack (default off)\n"
	"  -s on|off|calibrate|all|USECS  synchronization wait tracing: record each\n"
	"                            mutex, condition variable, rwlock, barrier,\n"
	"                            semaphore, spin lock and join wait at least the\n"
	"                            threshold long, with its call stack: on =\n"
	"                            calibrate = a threshold measured at start, all =\n"
	"                            every wait, or the threshold in microseconds\n"
	"                            (default off)\n"
	"  -F on|off|all|=REGEX      follow descendant processes (fork, vfork, clone,\n"
	"                            exec, posix_spawn, system, popen): on (default) and\n"
	"                            all record each one in a subexperiment NAME.er/_f1.er,\n"
	"                            _f1_x1.er, ...; =REGEX only those whose lineage\n"
	"                            (_f1_x1), program path or name, or argv[0] matches\n"
	"                            REGEX entirely (extended regular expression)\n"
	"  -A on|off|copy            archive the load objects at the end (er_archive):\n"
	"                            on (default) links them from the per-user cache,\n"
	"                            copy puts copies in the experiment (portable to\n"
	"                            another machine), off archives nothing\n"
	"  -o NAME.er                experiment name (default test.1.er; a name\n"
	"                            STEM.N.er in use becomes STEM.M.er, M = highest + 1)\n"
	"  -d DIR                    create the experiment in directory DIR\n"
	"  -g GROUP.erg              add the experiment to the experiment group file\n"
	"                            GROUP.erg (created if absent); the default name\n"
	"                            becomes GROUP.1.er\n"
	"  -C COMMENT                add a comment to the experiment (up to 10)\n"
	"  -n                        dry run: print the collection parameters, run nothing\n"
	"  -v                        verbose: report what is created and what is executed\n"
	"  -V                        print the version and exit\n"
	"  -h COUNTER[,INTERVAL][,COUNTER2[,INTERVAL2]]...  counter overflow profiling:\n"
	"                            record the call stack every INTERVAL events of each\n"
	"                            COUNTER (up to 8; INTERVAL on, hi, lo or a number;\n"
	"                            COUNTER:p or :pp for precise events); clock\n"
	"                            profiling is then off unless -p is given; -h off\n"
	"  -h [list]                 list the counters available on this system\n"
	"  --help                    print this help and exit\n"
	"  --                        end of options\n"
	"\n"
	"Not supported yet: -M, -m, -j, -J, -a,\n"
	"-L, -O, -P, -c, -I, -N, -r, -x, -R.\n"
	"\n"
	"Environment: PA_MAX_CALL_STACK_DEPTH=N sets the call stack depth limit\n"
	"(1 to 6000 frames, default 4096); deeper stacks are cut and marked truncated.\n"
	"\n"
	"Exit status: the target's; 128+N if the target was killed by signal N; 1 if\n"
	"the experiment could not be written; 2 for a usage error; 126 if TARGET\n"
	"cannot be executed; 127 if it is not found.\n";

/* The call stack depth limit: PA_MAX_CALL_STACK_DEPTH or the default. */
static int depth_limit = (int)EXP_PARAMS_DEPTH_DEFAULT;

static void read_depth_limit(void)
{
	const char *v = getenv("PA_MAX_CALL_STACK_DEPTH");
	if (!v || !*v)
		return;
	char *end;
	errno = 0;
	long n = strtol(v, &end, 10);
	if (errno || *end || n < 1 || n > (long)EXP_PARAMS_DEPTH_MAX) {
		fprintf(stderr,
			"collect: PA_MAX_CALL_STACK_DEPTH: invalid value '%s' (expected 1 to %u frames)\n", v,
			EXP_PARAMS_DEPTH_MAX);
		exit(EXIT_USAGE);
	}
	depth_limit = (int)n;
}

static void die_usage(const char *msg)
{
	fprintf(stderr, "collect: %s\n", msg);
	exit(EXIT_USAGE);
}

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---------------------------------------------------------------- informational modes */

/* The sampler clock profiling will use here, and what limits it. */
static void print_hz(const struct probe_result *pr, const char *indent)
{
	int perf = strstr(pr->software, "task-clock") != NULL;
	if (perf)
		printf("%sclock sampler: a perf task-clock event per thread (any interval; -p hi gives about\n"
		       "%s  1000 samples/s of a thread's CPU time)\n",
		       indent, indent);
	if (pr->hz <= 0) {
		printf("%s%s CPU-timer limit: unknown (CONFIG_HZ not found)\n", indent,
		       perf ? "fallback (POSIX timers)" : "per-thread");
		return;
	}
	printf("%s%s CPU-timer limit: %ld samples/s (kernel HZ=%ld, from %s);\n"
	       "%s  with it, clock-profiling intervals under %.3f ms give fewer samples\n",
	       indent, perf ? "fallback (POSIX timers)" : "per-thread", pr->hz, pr->hz, pr->hz_source, indent,
	       1000.0 / (double)pr->hz);
}

static int run_summary(void)
{
	struct sysinfo_host host;
	struct probe_result pr;
	char next[EXPNAME_MAX_BYTES + 1];

	sysinfo_host_read(&host);
	probe_perf(&pr);
	probe_hz(&pr, host.release);
	fputs(usage_text, stdout);
	printf("\nDefaults: clock profiling on, 10.007 ms interval; call stack depth limit %d\n"
	       "frames; experiment test.N.er in the current directory",
	       depth_limit);
	if (expname_next(".", NULL, next, sizeof next) == 0)
		printf(" (next: %s)", next);
	printf(".\n\nThis system (%s, %s %s %s):\n", host.nodename, host.sysname, host.release, host.machine);
	printf("  clock profiling: yes\n");
	if (pr.hwc_ok)
		printf("  hardware counters: yes (%s)\n", pr.hardware);
	else
		printf("  hardware counters: no (perf_event_open: %s)\n", strerror(pr.hwc_errno));
	printf("  software events: %s\n", pr.software[0] ? pr.software : "none");
	printf("  CPUs: %ld online\n", host.cpus_count);
	print_hz(&pr, "  ");
	printf("\n");
	hwc_print_list(stdout);
	return 0;
}

/* ---------------------------------------------------------------- collector library */

/* Find libcollector.so: $PA_COLLECTOR_LIB, <bindir>/../lib, PREFIX/lib.
 * Returns 0, or -ENOENT with the places tried in TRIED. */
static int find_collector(char *ret, size_t room, char *tried, size_t tried_room)
{
	const char *env = getenv("PA_COLLECTOR_LIB");
	char exe[PATH_MAX], cand[PATH_MAX + 32];
	ssize_t n;

	tried[0] = '\0';
	if (env && *env) {
		snprintf(tried, tried_room, "PA_COLLECTOR_LIB=%s", env);
		if (access(env, R_OK) == 0 && realpath(env, ret) && strlen(ret) < room)
			return 0;
		return -ENOENT;
	}
	n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		char *slash;
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			snprintf(cand, sizeof cand, "%s/../lib/libcollector.so", exe);
			if (access(cand, R_OK) == 0 && realpath(cand, ret))
				return 0;
			snprintf(tried, tried_room, "%s, ", cand);
		}
	}
	snprintf(cand, sizeof cand, "%s/lib/libcollector.so", PA_PREFIX);
	if (access(cand, R_OK) == 0 && realpath(cand, ret))
		return 0;
	size_t k = strlen(tried);
	snprintf(tried + k, tried_room - k, "%s", cand);
	return -ENOENT;
}

/* A tracing library NAME (libcollector-heap.so), next to libcollector.so LIB.  0 or -ENOENT. */
static int find_tracer_lib(const char *lib, const char *name, char *ret, size_t room)
{
	const char *slash = strrchr(lib, '/');
	int n = slash ? (int)(slash - lib) : 0;
	if ((size_t)snprintf(ret, room, "%.*s/%s", n, lib, name) >= room || access(ret, R_OK) < 0)
		return -ENOENT;
	return 0;
}

static void warn_compress(const char *path, int err)
{
	if (err == -EFBIG) {
		char limit[64];
		fsize_words(limit, sizeof limit, fsize_limit_bytes());
		fprintf(stderr,
			"collect: warning: could not compress %s: the compressed file would pass collect's file "
			"size limit (%s); the data stays uncompressed, complete\n",
			path, limit);
		return;
	}
	fprintf(stderr, "collect: warning: could not compress %s (%s); it stays uncompressed\n", path,
		strerror(-err));
}

/* What was not recorded: "N clock samples (S s of CPU), N heap calls[, N sync waits]". */
static void loss_counts(const struct finish_losses *x, char *buf, size_t room)
{
	int n = snprintf(buf, room, "%" PRIu64 " clock samples (%.3f s of CPU), %" PRIu64 " heap calls",
			 x->samples, (double)x->sample_ns / 1e9, x->heap);
	if (x->sync_on && n >= 0 && (size_t)n < room)
		snprintf(buf + n, room - (size_t)n, ", %" PRIu64 " sync waits", x->sync);
}

/* One line when data was lost: the disk filled up (or a quota, an I/O error, no descriptor). */
static void report_losses(const char *exp, const char *display, uint64_t start_ns)
{
	struct finish_losses x;
	if (finish_losses(exp, &x) < 0 || x.processes == 0)
		return;
	const char *name = x.errno_name[0] ? x.errno_name : "error";
	char counts[160];
	loss_counts(&x, counts, sizeof counts);
	double at = x.first_ns > start_ns ? (double)(x.first_ns - start_ns) / 1e9 : 0.0;
	if (strcmp(name, "EMFILE") == 0 || strcmp(name, "ENFILE") == 0) {
		/* nothing stopped: records were lost while no descriptor was free */
		fprintf(stderr,
			"collect: warning: %s: from %.3f s the program left no file descriptor free for the "
			"collector (%s) in %u process%s; not recorded: %s\n",
			display, at, name, x.processes, x.processes == 1 ? "" : "es", counts);
		return;
	}
	char limit[64] = "";
	if (x.fsize_limit_bytes)
		fsize_words(limit, sizeof limit, x.fsize_limit_bytes);
	const char *why = limit[0]                      ? limit
			  : strcmp(name, "ENOSPC") == 0 ? "no space left on device"
			  : strcmp(name, "EDQUOT") == 0 ? "disk quota exceeded"
			  : strcmp(name, "EFBIG") == 0  ? "file too large for its filesystem"
			  : strcmp(name, "ENOMEM") == 0 ? "out of memory"
							: "a write failed";
	fprintf(stderr,
		"collect: warning: %s: recording stopped at %.3f s%s (%s, %s) in %u process%s; not recorded: "
		"%s%s; the data before is complete\n",
		display, at, limit[0] ? " at the file size limit" : "", why, name, x.processes,
		x.processes == 1 ? "" : "es", counts,
		x.uncounted ? " and what processes that ended unseen lost" : "");
}

/*
 * One line when collection was off from the start (no data files: a full
 * disk, a file size limit), one when an XML file reached the file size limit.
 */
static void report_collection_off(const char *exp, const char *display)
{
	struct finish_off x;
	if (finish_collection_off(exp, &x) < 0)
		return;
	if (x.processes == 1)
		fprintf(stderr, "collect: warning: %s: %s\n", display, x.why);
	else if (x.processes)
		fprintf(stderr, "collect: warning: %s: in %u processes: %s (the first)\n", display,
			x.processes, x.why);
	if (x.xml_processes == 1)
		fprintf(stderr, "collect: warning: %s: %s\n", display, x.xml_why);
	else if (x.xml_processes)
		fprintf(stderr, "collect: warning: %s: in %u processes: %s (the first)\n", display,
			x.xml_processes, x.xml_why);
}

/* One line on the descendants, and one per program the collector could not enter; 1 if some still run. */
static int report_descendants(const char *exp, unsigned founder_pid, const char *display)
{
	struct finish_summary s;
	if (finish_descendants(exp, founder_pid, &s) < 0 || (s.processes == 0 && s.alive == 0))
		return 0;
	fprintf(stderr, "collect: %u descendant process%s: %u recorded in %s/_*.er", s.processes,
		s.processes == 1 ? "" : "es", s.followed, display);
	if (s.not_followed)
		fprintf(stderr, ", %u not followed (-F)", s.not_followed);
	if (s.unprofilable)
		fprintf(stderr, ", %u not profilable", s.unprofilable);
	if (s.running || s.alive)
		fprintf(stderr, ", %u still running", s.alive > s.running ? s.alive : s.running);
	fputs("\n", stderr);
	for (unsigned i = 0; i < s.nnotes; i++)
		fprintf(stderr, "collect: warning: not profiled: %s\n", s.notes[i]);
	return s.running > 0;
}

/* Run <bindir>/er_archive -q -A MODE EXP (docs/man/er_archive.1) unless -A off or
 * PA_ARCHIVE=off; warn if it is missing or fails: the experiment is complete without it. */
static void archive_experiment(const char *exp, const char *mode)
{
	const char *env = getenv("PA_ARCHIVE");
	char tool[PATH_MAX];
	int status = -1;

	if ((env && strcmp(env, "off") == 0) || strcmp(mode, "off") == 0)
		return;
	ssize_t n = readlink("/proc/self/exe", tool, sizeof tool - sizeof "/er_archive");
	char *slash = n > 0 ? memrchr(tool, '/', (size_t)n) : NULL;
	if (!slash) {
		fprintf(stderr, "collect: warning: cannot find er_archive; load objects were not archived\n");
		return;
	}
	strcpy(slash, "/er_archive");
	if (access(tool, X_OK) < 0) {
		fprintf(stderr, "collect: warning: cannot run %s: %s; load objects were not archived\n", tool,
			strerror(errno));
		return;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		execl(tool, "er_archive", "-q", "-A", mode, exp, (char *)NULL);
		_exit(127);
	}
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (pid > 0 && WIFSIGNALED(status) && WTERMSIG(status) == SIGXFSZ) {
		char limit[64];
		fsize_words(limit, sizeof limit, fsize_limit_bytes());
		fprintf(stderr,
			"collect: warning: %s passed the file size limit (%s) on %s; load objects were not "
			"archived\n",
			tool, limit, exp);
	} else if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fprintf(stderr, "collect: warning: %s failed on %s; load objects were not archived\n", tool,
			exp);
}

/* ---------------------------------------------------------------- the experiment's place */

struct place {
	char dir[PATH_MAX];     /* directory as the user named it ("." by default) */
	char abs_dir[PATH_MAX]; /* realpath of dir */
	char name[EXPNAME_MAX_BYTES + 1];
	char display[PATH_MAX + EXPNAME_MAX_BYTES + 2]; /* dir/name as the user would write it */
	char abs_path[PATH_MAX + EXPNAME_MAX_BYTES + 2];
	const char *want;                       /* requested basename, NULL = default */
	char group_name[EXPNAME_MAX_BYTES + 1]; /* with -g GROUP.erg and no -o: GROUP.1.er */
	int user_dir;                           /* the directory came from -d or -o */
};

static void place_set_display(struct place *pl)
{
	if (pl->user_dir)
		snprintf(pl->display, sizeof pl->display, "%s%s%s", pl->dir,
			 pl->dir[strlen(pl->dir) - 1] == '/' ? "" : "/", pl->name);
	else
		snprintf(pl->display, sizeof pl->display, "%s", pl->name);
	snprintf(pl->abs_path, sizeof pl->abs_path, "%s%s%s", pl->abs_dir,
		 strcmp(pl->abs_dir, "/") ? "/" : "", pl->name);
}

/* Work out directory and name from -d and -o; exits on errors. */
static void place_choose(struct place *pl, const struct collect_options *o)
{
	const char *name = o->name, *slash = name ? strrchr(name, '/') : NULL;
	struct stat st;
	int rc;

	memset(pl, 0, sizeof *pl);
	snprintf(pl->dir, sizeof pl->dir, "%s", o->dir ? o->dir : ".");
	pl->user_dir = o->dir != NULL;
	pl->want = name;
	if (!name && o->group) {
		const char *gb = strrchr(o->group, '/') ? strrchr(o->group, '/') + 1 : o->group;
		snprintf(pl->group_name, sizeof pl->group_name, "%.*s.1.er", (int)(strlen(gb) - 4), gb);
		if (expname_validate(pl->group_name) == 0)
			pl->want = pl->group_name;
	}
	if (slash) {
		int dn = (int)(slash - name);
		char tmp[PATH_MAX];
		if (name[0] == '/' || !o->dir)
			snprintf(tmp, sizeof tmp, "%.*s", dn ? dn : 1, name);
		else
			snprintf(tmp, sizeof tmp, "%s/%.*s", o->dir, dn, name);
		memcpy(pl->dir, tmp, sizeof tmp);
		pl->user_dir = 1;
		pl->want = slash + 1;
	}
	if (pl->user_dir) {
		const char *opt = o->dir && !(slash && name[0] == '/') ? "-d" : "-o";
		if (stat(pl->dir, &st) < 0) {
			fprintf(stderr, "collect: %s: directory '%s': %s\n", opt, pl->dir, strerror(errno));
			exit(EXIT_USAGE);
		}
		if (!S_ISDIR(st.st_mode)) {
			fprintf(stderr, "collect: %s: '%s' is not a directory\n", opt, pl->dir);
			exit(EXIT_USAGE);
		}
		if (access(pl->dir, W_OK | X_OK) < 0) {
			fprintf(stderr, "collect: %s: cannot create an experiment in '%s': %s\n", opt,
				pl->dir, strerror(errno));
			exit(EXIT_USAGE);
		}
	}
	if (!realpath(pl->dir, pl->abs_dir)) {
		fprintf(stderr, "collect: cannot use directory '%s': %s\n", pl->dir, strerror(errno));
		exit(1);
	}
	rc = expname_next(pl->dir, pl->want, pl->name, sizeof pl->name);
	if (rc == -EEXIST) {
		snprintf(pl->name, sizeof pl->name, "%s", pl->want);
		place_set_display(pl);
		fprintf(stderr, "collect: experiment %s already exists\n", pl->display);
		exit(EXIT_USAGE);
	}
	if (rc < 0) {
		fprintf(stderr, "collect: cannot choose an experiment name in '%s': %s\n", pl->dir,
			strerror(-rc));
		exit(1);
	}
	place_set_display(pl);
}

/* -g: a group file that exists must be a group (checked before anything is created). */
static void group_check(const char *group)
{
	struct expgroup g;
	char why[512];
	if (!group || access(group, F_OK) != 0)
		return;
	if (expgroup_read(group, &g, why, sizeof why) < 0) {
		fprintf(stderr, "collect: -g: %s: %s\n", group, why);
		exit(EXIT_USAGE);
	}
	expgroup_release(&g);
}

/* -g: add the experiment ABS_PATH to GROUP, relative to the group's directory when inside it. */
static void group_add(const char *group, const char *abs_path)
{
	char gdir[PATH_MAX], rdir[PATH_MAX];
	const char *slash = strrchr(group, '/'), *member = abs_path;
	snprintf(gdir, sizeof gdir, "%.*s", slash ? (slash == group ? 1 : (int)(slash - group)) : 1,
		 slash ? group : ".");
	size_t n = realpath(gdir, rdir) ? strlen(rdir) : 0;
	if (n && strncmp(abs_path, rdir, n) == 0 && abs_path[n] == '/')
		member = abs_path + n + 1;
	else if (n == 1 && rdir[0] == '/')
		member = abs_path + 1;
	int rc = expgroup_append(group, member);
	if (rc < 0)
		fprintf(stderr, "collect: warning: cannot add %s to the experiment group %s: %s\n", abs_path,
			group, rc == -EINVAL ? "it is not an experiment group" : strerror(-rc));
}

/* ---------------------------------------------------------------- run */

/* A malloc'd A B C D, or NULL. */
static char *concat(const char *a, const char *b, const char *c, const char *d)
{
	char *r;
	if (asprintf(&r, "%s%s%s%s", a, b, c, d) < 0)
		return NULL;
	return r;
}

/* Free the environment built by build_env: entries from OWN_FROM on are ours. */
static void free_env(char **env, size_t own_from)
{
	if (!env)
		return;
	for (size_t i = own_from; i < own_from + ENV_ADDED; i++)
		free(env[i]);
	free(env);
}

/* The target's environment: collect's, less any PA_* and LD_PRELOAD it has,
 * plus PA_EXPERIMENT, PA_PARAMS, PA_TARGET_PID (filled in by the child) and
 * LD_PRELOAD with the collector first.  *RET_OWN_FROM = index of the first
 * allocated entry.  NULL on ENOMEM. */
static char **build_env(const char *expdir, const char *params, const char *lib, const char *follow_regex,
			size_t *ret_own_from)
{
	static const char *const drop[] = {
		"PA_EXPERIMENT=", "PA_PARAMS=", "PA_TARGET_PID=", "LD_PRELOAD=", "PA_FOLLOW=", "PA_LINEAGE="};
	const char *old_preload = getenv("LD_PRELOAD");
	size_t n = 0, k = 0;
	char **env;

	while (environ[n])
		n++;
	env = calloc(n + ENV_ADDED + 1, sizeof *env);
	if (!env)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		int skip = 0;
		for (size_t d = 0; d < sizeof drop / sizeof drop[0]; d++)
			if (strncmp(environ[i], drop[d], strlen(drop[d])) == 0)
				skip = 1;
		if (!skip)
			env[k++] = environ[i];
	}
	*ret_own_from = k;
	env[k++] = concat("PA_EXPERIMENT=", expdir, "", "");
	env[k++] = concat("PA_PARAMS=", params, "", "");
	env[k++] = concat("PA_TARGET_PID=", "", "", "");
	env[k++] = concat("LD_PRELOAD=", lib, old_preload && *old_preload ? ":" : "",
			  old_preload ? old_preload : "");
	env[k++] = concat("PA_FOLLOW=", follow_regex ? follow_regex : "", "", "");
	for (size_t i = *ret_own_from; i < k; i++) {
		if (!env[i]) {
			free_env(env, *ret_own_from);
			return NULL;
		}
	}
	env[k] = NULL;
	return env;
}

/* The counters of -h (collect/hwc.h), probed before anything is created. */
static struct hwc_counter hwc[HWC_MAX_COUNTERS];
static size_t nhwc;

/* Parse and probe -h's counters: 0, or the exit status after a message naming the counter. */
static int hwc_setup(const struct collect_options *o)
{
	char err[512];
	if (!o->hwc_spec)
		return 0;
	int n = hwc_parse(o->hwc_spec, hwc, HWC_MAX_COUNTERS, err, sizeof err);
	if (n < 0) {
		fprintf(stderr, "collect: %s\n", err);
		return EXIT_USAGE;
	}
	nhwc = (size_t)n;
	for (size_t i = 0; i < nhwc; i++)
		if (hwc_probe(&hwc[i], err, sizeof err) < 0) {
			fprintf(stderr, "collect: %s\n", err);
			return EXIT_USAGE;
		}
	return 0;
}

static void dry_run(const struct collect_options *o, char **targv, const char *target_path,
		    const struct place *pl, const char *descriptor, const char *lib, const char *lib_tried)
{
	struct sysinfo_host host;
	struct probe_result pr;

	sysinfo_host_read(&host);
	probe_perf(&pr); /* which clock sampler the target will get */
	probe_hz(&pr, host.release);
	printf("Collection parameters:\n");
	printf("    experiment enabled\n");
	printf("\ttarget = %s", targv[0]);
	for (char **a = targv + 1; *a; a++)
		printf(" %s", *a);
	printf("\n\ttarget path = %s\n", target_path);
	printf("\texpt_name = %s\n", pl->display);
	printf("\texpt_dir = %s\n", pl->abs_path);
	if (o->clock_on)
		printf("\tclock profiling enabled, %.3f millisec.\n", o->clock_interval_us / 1000.0);
	else
		printf("\tclock profiling disabled\n");
	if (!o->duration_set)
		printf("\tdata-collection duration, unlimited\n");
	else if (o->duration_end_s == 0)
		printf("\tdata-collection duration, from %lu secs. to the end\n", o->duration_start_s);
	else if (o->duration_start_s == 0)
		printf("\tdata-collection duration, %lu secs.\n", o->duration_end_s);
	else
		printf("\tdata-collection duration, %lu-%lu secs.\n", o->duration_start_s, o->duration_end_s);
	printf("\tcall stack depth limit, %d frames\n", depth_limit);
	if (o->sample_period_s)
		printf("\tperiodic sampling, %ld secs.\n", o->sample_period_s);
	else
		printf("\tperiodic sampling disabled\n");
	if (o->sample_signal)
		printf("\tsample signal %d (%s)\n", o->sample_signal, strsignal(o->sample_signal));
	if (o->pause_signal)
		printf("\tpause-resume signal %d (%s), starting %s\n", o->pause_signal,
		       strsignal(o->pause_signal), o->pause_resumed ? "resumed" : "paused");
	if (o->heap_on)
		printf("\theap tracing enabled\n");
	if (o->io_on)
		printf("\tI/O tracing enabled\n");
	for (size_t i = 0; i < nhwc; i++)
		printf("\tcounter %s (%s) enabled, interval %llu%s%.*s\n", hwc[i].name, hwc[i].event,
		       (unsigned long long)hwc[i].interval, hwc[i].precise ? ", precise :" : "",
		       hwc[i].precise, "ppp");
	if (o->sync && o->sync_threshold_us < 0)
		printf("\tsynchronization tracing enabled, threshold: calibrate\n");
	else if (o->sync)
		printf("\tsynchronization tracing enabled, threshold: %ld microsecs.\n",
		       o->sync_threshold_us);
	if (o->follow == COLLECT_FOLLOW_OFF)
		printf("\tdescendant processes will not be followed\n");
	else if (o->follow == COLLECT_FOLLOW_REGEX)
		printf("\tdescendant processes matching '%s' will be followed\n", o->follow_regex);
	else
		printf("\tdescendant processes will be followed\n");
	for (int i = 0; i < o->comment_count; i++)
		printf("\tcomment: %s\n", o->comments[i]);
	printf("\tdata descriptor: \"%s\"\n", descriptor);
	if (lib[0])
		printf("\tcollector library = %s\n", lib);
	else
		printf("\tcollector library: not found (tried %s)\n", lib_tried);
	printf("\t\thost: `%s', ncpus = %ld, clock frequency %ld MHz.\n", host.nodename, host.cpus_count,
	       host.clock_mhz);
	printf("\t\tmemory:  %ld pages @ %ld bytes = %lld MB.\n", host.pages_count, host.pagesize_bytes,
	       (long long)host.pages_count * host.pagesize_bytes / (1024 * 1024));
	print_hz(&pr, "\t\t");
}

static void fail_experiment(struct expdir *e, int err)
{
	char limit[64] = "";
	if (err == EFBIG && fsize_limit_bytes() != UINT64_MAX)
		fsize_words(limit, sizeof limit, fsize_limit_bytes());
	fprintf(stderr, "collect: cannot write experiment %s: %s%s%s\n", e->failed[0] ? e->failed : e->path,
		limit[0] ? "the file size limit (" : strerror(err), limit, limit[0] ? ") is too small" : "");
	expdir_remove(e);
	expdir_release(e);
	exit(1);
}

/* ---------------------------------------------------------------- main's phases */

/* Run an informational mode (summary, help, version, -h list); its exit status, or -1 for a run. */
static int run_info_mode(enum collect_mode mode)
{
	switch (mode) {
	case COLLECT_MODE_SUMMARY: return run_summary();
	case COLLECT_MODE_HELP: fputs(usage_text, stdout); return 0;
	case COLLECT_MODE_VERSION:
		printf("collect (Performance Analyzer for Linux) %s\n", PA_VERSION);
		return 0;
	case COLLECT_MODE_HWC_LIST: hwc_print_list(stdout); return 0;
	case COLLECT_MODE_RUN: break;
	}
	return -1;
}

/* Resolve the target NAME into TARGET_PATH: 0, or the exit status after a message. */
static int resolve_target(const char *name, char *target_path, size_t room)
{
	int rc = launch_resolve(name, target_path, room);
	if (rc < 0) {
		fprintf(stderr, "collect: cannot execute '%s': %s\n", name, strerror(-rc));
		return rc == -ENOENT || rc == -ENOTDIR ? EXIT_NOTFOUND : EXIT_NOEXEC;
	}
	return 0;
}

/* A program the loader will not preload into: say so now, and keep the words in NOTE for the experiment. */
static void note_unprofilable(const char *target_path, char *note, size_t room)
{
	struct exeprobe probe;
	if (exeprobe_path(target_path, (unsigned)geteuid(), (unsigned)getegid(), &probe) == 0 &&
	    probe.verdict == EXEPROBE_NOENTRY) {
		snprintf(note, room,
			 "%s%s is %s: the collector cannot enter it, so the experiment records no profile "
			 "data, only the process's resource usage",
			 target_path, probe.script ? "'s interpreter" : "", probe.reason);
		fprintf(stderr, "collect: warning: %s\n", note);
	}
}

/* The data descriptor passed to the collector in PA_PARAMS, and log.xml's duration ("" if none). */
static void descriptor_build(const struct collect_options *o, char *descriptor, size_t room, char *duration,
			     size_t duration_room)
{
	struct exp_params p;
	params_init(&p);
	p.interval_us = o->clock_on ? (uint32_t)o->clock_interval_us : 0;
	p.depth_limit = (uint32_t)depth_limit;
	if (o->duration_set) {
		p.window_set = 1;
		p.window_start_s = o->duration_start_s;
		p.window_end_s = o->duration_end_s;
		snprintf(duration, duration_room, "%lu:%lu", o->duration_start_s, o->duration_end_s);
	}
	p.tracer[EXP_PARAMS_HEAP] = o->heap_on;
	p.tracer[EXP_PARAMS_IO] = o->io_on;
	p.tracer[EXP_PARAMS_SYNC] = o->sync != NULL;
	/* w=<us>: the threshold; without it the collector calibrates one */
	p.sync_threshold_set = o->sync && o->sync_threshold_us >= 0;
	p.sync_threshold_us = p.sync_threshold_set ? (uint64_t)o->sync_threshold_us : 0;
	p.sample_period_s = (uint32_t)o->sample_period_s;
	p.sample_signal = o->sample_signal;
	p.pause_signal = o->pause_signal;
	p.start_paused = !o->pause_resumed;
	p.follow = (enum exp_params_follow)o->follow;
	p.tracer[EXP_PARAMS_HWC] = nhwc != 0;
	p.hwc_count = nhwc;
	hwc_describe(hwc, nhwc, p.hwc);
	if (params_encode(&p, descriptor, room) < 0)
		die_usage(nhwc ? "-h: the counters' description is too long"
			       : "the collector's parameters are too long");
}

/* The collector libraries to preload. */
struct preload {
	char lib[PATH_MAX];            /* libcollector.so, "" when not found */
	char tried[2 * PATH_MAX + 64]; /* where it was looked for, when not found */
	char list[4 * PATH_MAX + 4];   /* LD_PRELOAD's entries: the tracers' (-H on, -s, -i on) first */
};

/* Put tracing library NAME (option OPT) before the others in P's list: 0, or 1 after a message. */
static int preload_tracer(struct preload *p, const char *name, const char *opt)
{
	char path[PATH_MAX], rest[sizeof p->list];
	if (find_tracer_lib(p->lib, name, path, sizeof path) < 0) {
		fprintf(stderr, "collect: %s: cannot find %s\n", opt, path);
		return 1;
	}
	memcpy(rest, p->list, sizeof rest);
	size_t n = strlen(path), m = strlen(rest);
	if (n + 1 + m + 1 > sizeof p->list)
		return 1; /* cannot happen: the list has room for four paths */
	memcpy(p->list, path, n);
	p->list[n] = ':';
	memcpy(p->list + n + 1, rest, m + 1);
	return 0;
}

/* Find the collector (and the tracing libraries of -H on and -s) to preload: 0, or 1 after a message. */
static int preload_choose(struct preload *p, const struct collect_options *o)
{
	int rc = find_collector(p->lib, sizeof p->lib, p->tried, sizeof p->tried);
	if (rc < 0)
		p->lib[0] = '\0';
	else if (strpbrk(p->lib, " :")) {
		fprintf(stderr,
			"collect: collector library path '%s' contains a space or ':', "
			"which LD_PRELOAD cannot hold\n",
			p->lib);
		return 1;
	}
	snprintf(p->list, sizeof p->list, "%s", p->lib);
	/* the interposers first, so that they come before libc's functions */
	if (p->lib[0] && o->sync && preload_tracer(p, "libcollector-sync.so", "-s") != 0)
		return 1;
	if (p->lib[0] && o->io_on && preload_tracer(p, "libcollector-io.so", "-i on") != 0)
		return 1;
	if (p->lib[0] && o->heap_on && preload_tracer(p, "libcollector-heap.so", "-H on") != 0)
		return 1;
	return 0;
}

/* Create the experiment directory; on a lost race for a numbered name, take the next.
 * 0, or EXIT_USAGE after a message; exits when the directory cannot be written. */
static int create_experiment(struct expdir *e, struct place *pl, int verbose)
{
	int rc;
	expdir_init(e);
	for (int tries = 0;; tries++) {
		rc = expdir_create(e, pl->abs_path);
		if (rc != -EEXIST)
			break;
		char taken[sizeof pl->name];
		memcpy(taken, pl->name, sizeof taken);
		if (tries == NAME_RETRIES || expname_parse(taken, NULL, NULL) != 1 ||
		    expname_next(pl->dir, taken, pl->name, sizeof pl->name) < 0) {
			fprintf(stderr, "collect: experiment %s already exists\n", pl->display);
			return EXIT_USAGE;
		}
		place_set_display(pl);
	}
	if (rc < 0)
		fail_experiment(e, -rc);
	if (verbose)
		fprintf(stderr, "collect: created experiment directory %s\n", e->path);
	return 0;
}

/* Write the head of log.xml and map.xml (and the unprofilable warning, if any); exits when it cannot. */
static void write_head(struct expdir *e, const struct loghead *head, const char *unprofilable,
		       const struct collect_options *o)
{
	int rc = expdir_write_head(e, head);
	if (rc == 0 && unprofilable[0])
		rc = expdir_write_warning(e, "unprofilable", unprofilable);
	if (rc < 0)
		fail_experiment(e, -rc);
	/* room for the logs' last lines if the disk fills up (none: the run goes on without) */
	(void)expdir_reserve(e);
	if (o->verbose)
		fprintf(stderr, "collect: wrote %s/log.xml, map.xml%s\n", e->path,
			o->comment_count ? ", notes" : "");
}

/* The exit status when the target could not be started (launch_start's RC), after a message;
 * the experiment is removed. */
static int start_failed(struct expdir *e, const char *name, int rc)
{
	int e2 = -rc;
	expdir_remove(e);
	expdir_release(e);
	if (e2 == EAGAIN || e2 == ENOMEM) {
		fprintf(stderr, "collect: cannot start '%s': %s\n", name, strerror(e2));
		return 1;
	}
	/* the file exists (it was resolved): ENOENT is about its interpreter */
	fprintf(stderr, "collect: cannot execute '%s': %s%s\n", name, strerror(e2),
		e2 == ENOENT ? " (is the interpreter in its #! line missing?)" : "");
	return e2 == ENOENT ? EXIT_NOTFOUND : EXIT_NOEXEC;
}

/*
 * The unwind tables the experiment's processes shared while it ran
 * (EXP/.unwind, collector/cfishare.h): a cache of the collection, not part
 * of the experiment.  Only regular files named *.cfi and their temporary
 * files are removed, then the directory if it is empty.
 */
static void remove_shared_tables(const char *exp)
{
	char dir[PATH_MAX], path[PATH_MAX];
	if (snprintf(dir, sizeof dir, "%s/.unwind", exp) >= (int)sizeof dir)
		return;
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!strstr(de->d_name, ".cfi") ||
		    snprintf(path, sizeof path, "%s/%s", dir, de->d_name) >= (int)sizeof path)
			continue;
		struct stat st;
		if (lstat(path, &st) == 0 && S_ISREG(st.st_mode))
			unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

/* Write the experiment's tail after the target ended with STATUS, then report on it,
 * compress and archive it. */
static void finish_experiment(struct expdir *e, struct expdir_tail *tail, int status, unsigned founder_pid,
			      const char *display, uint64_t start_ns, const char *archive)
{
	tail->wait_status = status;
	tail->end_ns = now_ns(CLOCK_MONOTONIC);
	int unended = WIFEXITED(status) ? finish_founder_unended(e->path) : 0;
	if (unended == 2)
		(void)expdir_write_warning(
			e, "end_unrecorded",
			"the Go runtime ended the process by the raw exit_group system call, which the collector "
			"does not see: no thread's end was recorded, so each thread's CPU time after its last "
			"sample is not known exactly (each sample stands for the interval: the recorded time is "
			"right in expectation)");
	else if (unended)
		(void)expdir_write_warning(
			e, "end_unrecorded",
			"the collector could not record the end of the process (it ended by a raw exit_group "
			"or execve system call, left the collector no file descriptor, or lowered its file size "
			"limit below the size of log.xml): what came after each thread's last sample is not "
			"known exactly");
	int rc = expdir_write_tail(e, tail);
	if (rc == -EFBIG) {
		/* the rest does not write to log.xml: it goes on */
		char limit[64];
		fsize_words(limit, sizeof limit, fsize_limit_bytes());
		fprintf(stderr,
			"collect: warning: %s reached collect's file size limit (%s): the experiment's end (exit "
			"status, resource usage) is not recorded\n",
			e->failed, limit);
	} else if (rc < 0) {
		fprintf(stderr, "collect: cannot finish experiment %s: %s\n", e->failed, strerror(-rc));
		return;
	}
	int running = report_descendants(e->path, founder_pid, display);
	if (!running)
		remove_shared_tables(e->path);
	report_collection_off(e->path, display);
	report_losses(e->path, display, start_ns);
	if (!running)
		expdir_unreserve(e); /* a descendant still running keeps watching it */
	finish_compress(e->path, warn_compress);
	archive_experiment(e->path, archive);
}

/* collect's exit status for the target's wait STATUS: its own, or 128+N when signal N killed it. */
static int exit_status(int status)
{
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		fprintf(stderr, "collect: target terminated by signal %d (%s)%s\n", sig, strsignal(sig),
			WCOREDUMP(status) ? " (core dumped)" : "");
		return 128 + sig;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(int argc, char **argv)
{
	struct collect_options o;
	char err[512], target_path[PATH_MAX];
	char descriptor[EXP_PARAMS_MAX_BYTES], duration[64] = "", cwd[PATH_MAX];
	char unprofilable[PATH_MAX + 512] = "";
	struct preload pre;
	struct place pl;
	struct expdir e;
	struct loghead head;
	struct expdir_tail tail;
	struct sysinfo_host host;
	struct launch l;
	char **targv, **env;
	size_t env_own_from = 0;
	int rc, status;

	fsize_guard(); /* collect's writes past `ulimit -f` fail, they do not kill it */
	if (collect_options_parse(&o, argc, argv, err, sizeof err) < 0)
		die_usage(err);
	read_depth_limit();
	if ((rc = run_info_mode(o.mode)) >= 0)
		return rc;
	targv = argv + o.target_index;

	if ((rc = resolve_target(targv[0], target_path, sizeof target_path)) != 0)
		return rc;
	if ((rc = hwc_setup(&o)) != 0)
		return rc;
	if (!o.clock_on && !nhwc)
		fprintf(stderr, "collect: warning: no function level data requested; "
				"only statistics will be collected\n");
	note_unprofilable(target_path, unprofilable, sizeof unprofilable);
	place_choose(&pl, &o);
	group_check(o.group);

	descriptor_build(&o, descriptor, sizeof descriptor, duration, sizeof duration);
	if (preload_choose(&pre, &o) != 0)
		return 1;
	if (o.dry_run) {
		dry_run(&o, targv, target_path, &pl, descriptor, pre.lib, pre.tried);
		return 0;
	}
	if (!pre.lib[0]) {
		fprintf(stderr, "collect: cannot find libcollector.so (tried %s); set PA_COLLECTOR_LIB\n",
			pre.tried);
		return 1;
	}
	if (!getcwd(cwd, sizeof cwd)) {
		fprintf(stderr, "collect: cannot get the current directory: %s\n", strerror(errno));
		return 1;
	}
	sysinfo_host_read(&host);

	if ((rc = create_experiment(&e, &pl, o.verbose)) != 0)
		return rc;

	memset(&head, 0, sizeof head);
	head.target_path = target_path;
	head.argv = targv;
	head.host = &host;
	head.cwd = cwd;
	head.clock_on = o.clock_on;
	head.clock_interval_us = o.clock_interval_us;
	head.duration = duration;
	head.depth_limit = depth_limit;
	head.descriptor = descriptor;
	head.sample = o.sample;
	head.heap_on = o.heap_on;
	head.io_on = o.io_on;
	head.follow = o.follow_spec;
	head.comments = o.comments;
	head.comment_count = o.comment_count;
	head.start_ns = now_ns(CLOCK_MONOTONIC);
	head.start_realtime_ns = now_ns(CLOCK_REALTIME);
	write_head(&e, &head, unprofilable, &o);

	env = build_env(e.path, descriptor, pre.list,
			o.follow == COLLECT_FOLLOW_REGEX ? o.follow_regex : NULL, &env_own_from);
	if (!env)
		fail_experiment(&e, ENOMEM);
	if (o.verbose) {
		fprintf(stderr, "collect: exec PA_EXPERIMENT=%s PA_PARAMS=%s LD_PRELOAD=%s %s", e.path,
			descriptor, pre.list, target_path);
		for (char **a = targv + 1; *a; a++)
			fprintf(stderr, " %s", *a);
		fputc('\n', stderr);
	}
	fflush(NULL);
	rc = launch_start(&l, target_path, targv, env);
	free_env(env, env_own_from);
	if (rc < 0)
		return start_failed(&e, targv[0], rc);
	fprintf(stderr, "Creating experiment directory %s (Process ID: %ld) ...\n", pl.display, (long)l.pid);

	memset(&tail, 0, sizeof tail);
	rc = launch_wait(&l, &status, &tail.rusage);
	tail.exit_ns = now_ns(CLOCK_MONOTONIC);
	if (rc < 0) {
		fprintf(stderr, "collect: waiting for the target failed: %s\n", strerror(-rc));
		expdir_release(&e);
		return 1;
	}
	finish_experiment(&e, &tail, status, (unsigned)l.pid, pl.display, head.start_ns, o.archive);
	if (o.group)
		group_add(o.group, e.path);
	expdir_release(&e);
	return exit_status(status);
}
