/*
 * test_lineage.c - subexperiment naming (collector/lineage.h, linked from
 * libcollector-core.a), the manual's rules, in a temporary founder
 * experiment.  Each case runs in a child process of its own (the module
 * decides once per image, as a started program does), its environment set
 * as collect and the exec interposers set it:
 *   the founder (its pid is PA_TARGET_PID, no PA_LINEAGE): records into
 *   PA_EXPERIMENT, named "";
 *   its fork children _f1, _f2 (the parent's counter), each a directory
 *   with log.xml and map.xml, and a fork of _f1: _f1_f1;
 *   an image exec'd by _f1 (PA_LINEAGE=ITS_PID.CPU:_f1): _f1_x1, then _f1_x2
 *   (the lowest number free), with the exec's CPU time;
 *   a descendant made inside libc (another pid in PA_LINEAGE): _f1_c1;
 *   -F off: the name is taken, nothing is created, with the reason;
 *   a process that is neither the founder nor a descendant, or whose
 *   PA_LINEAGE is not a lineage name: dormant;
 *   and the environment an exec passes on (lineage_exec_env), also with
 *   the longest PA_PARAMS collect may write.
 * Every process adds its <process> line to the founder's processes.xml.
 */
#include "collector/lineage.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "experiment/params.h"
#include "tests/unit/check.h"

static char tmp[PATH_MAX / 2], exp_dir[PATH_MAX];

static const struct lineage_params follow_on = {.follow = LINEAGE_FOLLOW_ON, .interval_us = 10007};
static const struct lineage_params follow_off = {.follow = LINEAGE_FOLLOW_OFF, .interval_us = 10007};

static int exists(const char *sub, const char *file)
{
	char p[PATH_MAX * 2];
	struct stat st;
	snprintf(p, sizeof p, "%s/%s%s%s", exp_dir, sub, file ? "/" : "", file ? file : "");
	return stat(p, &st) == 0;
}

/* Run fn in a child process; the child's failed checks fail the test. */
static void in_child(void (*fn)(void))
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		check_failures = 0; /* the child's own */
		fn();
		fflush(NULL);
		_exit(check_failures ? 1 : 0);
	}
	int st = 0;
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
	CHECK_EQ_U64(st, 0);
}

static void set_env(const char *target_pid, const char *lineage)
{
	setenv("PA_EXPERIMENT", exp_dir, 1);
	setenv("PA_TARGET_PID", target_pid, 1);
	setenv("PA_PARAMS", "p=10007", 1);
	setenv("LD_PRELOAD", "/nonexistent/libcollector.so", 1);
	unsetenv("PA_FOLLOW");
	if (lineage)
		setenv("PA_LINEAGE", lineage, 1);
	else
		unsetenv("PA_LINEAGE");
}

static void founder_and_forks(void)
{
	char pid[32];
	snprintf(pid, sizeof pid, "%d", (int)getpid());
	set_env(pid, NULL);
	const struct lineage_self *s = lineage_init(&follow_on);
	CHECK(s->known && s->followed);
	CHECK_EQ_U64(s->origin, LINEAGE_FOUNDER);
	CHECK_EQ_STR(s->name, "");
	CHECK_EQ_STR(s->dir, exp_dir);
	char want[64];
	snprintf(want, sizeof want, "%s:", pid);
	CHECK_EQ_STR(getenv("PA_LINEAGE"), want);

	for (unsigned k = 1; k <= 2; k++) {
		unsigned n = lineage_next_index('f');
		CHECK_EQ_U64(n, k);
		fflush(NULL);
		pid_t c = fork();
		if (c == 0) {
			s = lineage_fork_child('f', n);
			int ok = s->followed && s->origin == LINEAGE_FORK && s->pid == (uint32_t)getpid() &&
				 strcmp(s->name, k == 1 ? "_f1" : "_f2") == 0;
			if (ok && k == 1) { /* and a fork of the fork: counted from 1 again */
				unsigned m = lineage_next_index('f');
				pid_t g = fork();
				if (g == 0)
					_exit(m == 1 && strcmp(lineage_fork_child('f', m)->name, "_f1_f1") ==
								      0
						      ? 0
						      : 1);
				int gs = 0;
				ok = waitpid(g, &gs, 0) == g && WIFEXITED(gs) && WEXITSTATUS(gs) == 0;
			}
			_exit(ok ? 0 : 1);
		}
		int st = 0;
		CHECK(c > 0 && waitpid(c, &st, 0) == c);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	CHECK(exists("_f1.er", "log.xml") && exists("_f1.er", "map.xml"));
	CHECK(exists("_f2.er", "log.xml") && exists("_f2.er", "map.xml"));
	CHECK(exists("_f1_f1.er", "log.xml"));
	CHECK(!exists("_f3.er", NULL));

	/* what an exec from here passes on: our variables, PA_LINEAGE with the CPU time */
	char *env[] = {"HOME=/h", "PA_LINEAGE=1:_f9", "LD_PRELOAD=/their.so", NULL};
	size_t bytes = lineage_exec_env_bytes(env);
	void *buf = malloc(bytes);
	char **out = lineage_exec_env(env, buf, bytes);
	CHECK(out != NULL);
	int home = 0, lineage = 0, preload = 0, expdir = 0;
	for (char **e = out; out && *e; e++) {
		home += strcmp(*e, "HOME=/h") == 0;
		expdir += strncmp(*e, "PA_EXPERIMENT=", 14) == 0 && strcmp(*e + 14, exp_dir) == 0;
		preload += strcmp(*e, "LD_PRELOAD=/nonexistent/libcollector.so:/their.so") == 0;
		if (strncmp(*e, "PA_LINEAGE=", 11) == 0) {
			char *dot;
			lineage += strtoul(*e + 11, &dot, 10) == (unsigned long)getpid() && *dot == '.' &&
				   strcmp(strchr(dot, ':'), ":") == 0;
		}
	}
	CHECK_EQ_U64(home, 1);
	CHECK_EQ_U64(expdir, 1);
	CHECK_EQ_U64(lineage, 1); /* ours, and only ours */
	CHECK_EQ_U64(preload, 1);
	CHECK(lineage_exec_env(env, buf, 16) == NULL); /* does not fit */
	free(buf);
}

/* An image exec'd by _f1: PA_LINEAGE names this very pid. */
static void exec_image(void)
{
	char v[64 + LINEAGE_NAME_MAX];
	snprintf(v, sizeof v, "%d.5000:_f1", (int)getpid());
	set_env("1", v);
	const struct lineage_self *s = lineage_init(&follow_on);
	CHECK(s->known && s->followed);
	CHECK_EQ_U64(s->origin, LINEAGE_EXEC);
	CHECK_EQ_U64(s->origin_cpu_ns, 5000);
	CHECK(strcmp(s->name, "_f1_x1") == 0 || strcmp(s->name, "_f1_x2") == 0);
	char dir[PATH_MAX * 2];
	snprintf(dir, sizeof dir, "%s/%s.er", exp_dir, s->name);
	CHECK_EQ_STR(s->dir, dir);
	snprintf(v, sizeof v, "%d:%s", (int)getpid(), s->name);
	CHECK_EQ_STR(getenv("PA_LINEAGE"), v);
}

/* A descendant made inside libc: PA_LINEAGE names its parent. */
static void spawned(void)
{
	char v[64];
	snprintf(v, sizeof v, "%d:_f1", (int)getppid());
	set_env("1", v);
	const struct lineage_self *s = lineage_init(&follow_on);
	CHECK(s->followed);
	CHECK_EQ_U64(s->origin, LINEAGE_SPAWN);
	CHECK_EQ_U64(s->origin_cpu_ns, 0);
	CHECK_EQ_STR(s->name, "_f1_c1");
}

static void not_followed(void)
{
	char v[64];
	snprintf(v, sizeof v, "%d:_f2", (int)getppid());
	set_env("1", v);
	const struct lineage_self *s = lineage_init(&follow_off);
	CHECK(s->known && !s->followed);
	CHECK_EQ_STR(s->name, "_f2_c1");
	CHECK_EQ_STR(s->why_not, "not followed (-F off)");
}

static void outsider(void)
{
	set_env("1", NULL); /* not the founder's pid, no lineage */
	CHECK(!lineage_init(&follow_on)->known);
}

static void bad_lineage(void)
{
	char v[64];
	snprintf(v, sizeof v, "%d:_q1", (int)getpid());
	set_env("1", v);
	CHECK(!lineage_init(&follow_on)->known);
}

static void relative_experiment(void)
{
	set_env("1", NULL);
	setenv("PA_EXPERIMENT", "test.1.er", 1); /* collect always passes an absolute path */
	CHECK(!lineage_init(&follow_on)->known);
}

/*
 * The founder with the longest PA_PARAMS collect may write (EXP_PARAMS_MAX_BYTES
 * with its NUL: eight counters with long names and fields): it records, and an
 * exec passes the whole string on (a 512-byte copy left the process dormant).
 */
static void long_params(void)
{
	char pid[32], params[EXP_PARAMS_MAX_BYTES];
	snprintf(pid, sizeof pid, "%d", (int)getpid());
	set_env(pid, NULL);
	memset(params, 'x', sizeof params - 1);
	memcpy(params, "p=10007;z=", 10); /* an unknown key: ignored by the decoder */
	params[sizeof params - 1] = '\0';
	setenv("PA_PARAMS", params, 1);
	const struct lineage_self *s = lineage_init(&follow_on);
	CHECK(s->known && s->followed);
	CHECK_EQ_U64(s->origin, LINEAGE_FOUNDER);
	char *const envp[] = {"HOME=/h", NULL};
	size_t bytes = lineage_exec_env_bytes(envp);
	void *buf = malloc(bytes);
	char **out = buf ? lineage_exec_env(envp, buf, bytes) : NULL;
	CHECK(out != NULL);
	int found = 0;
	for (char **e = out; out && *e; e++)
		found += strncmp(*e, "PA_PARAMS=", 10) == 0 && strcmp(*e + 10, params) == 0;
	CHECK_EQ_U64(found, 1);
	free(buf);
}

static size_t count_in(const char *path, const char *needle)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	char line[8192];
	size_t n = 0;
	while (fgets(line, sizeof line, f))
		n += strstr(line, needle) != NULL;
	fclose(f);
	return n;
}

int main(void)
{
	snprintf(tmp, sizeof tmp, "%s/test_lineage.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	CHECK(mkdtemp(tmp) != NULL);
	snprintf(exp_dir, sizeof exp_dir, "%s/test.1.er", tmp);
	CHECK(mkdir(exp_dir, 0755) == 0);

	in_child(founder_and_forks);
	in_child(exec_image);
	in_child(exec_image);
	CHECK(exists("_f1_x1.er", "log.xml") && exists("_f1_x2.er", "log.xml"));
	in_child(spawned);
	CHECK(exists("_f1_c1.er", "map.xml"));
	in_child(not_followed);
	CHECK(!exists("_f2_c1.er", NULL));
	in_child(outsider);
	in_child(bad_lineage);
	in_child(relative_experiment);
	in_child(long_params);

	char p[PATH_MAX * 2];
	snprintf(p, sizeof p, "%s/processes.xml", exp_dir);
	CHECK_EQ_U64(count_in(p, "<process "), 7); /* _f1 _f2 _f1_f1 _f1_x1 _f1_x2 _f1_c1 _f2_c1 */
	CHECK_EQ_U64(count_in(p, "lineage=\"_f1_x2\" origin=\"exec\" followed=\"1\""), 1);
	CHECK_EQ_U64(count_in(p, "lineage=\"_f2_c1\" origin=\"spawn\" followed=\"0\""), 1);

	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
	CHECK(system(cmd) == 0);
	return check_done();
}
