/*
 * descend.c - the interposers through which descendants are made: vfork,
 * clone, the exec family and posix_spawn (see lineage.h for what a new
 * process does with what they pass on).  fork itself needs none: the
 * pthread_atfork handlers of collector.c run in every fork glibc makes.
 *
 * - vfork runs fork instead: a vfork child shares its parent's memory and
 *   cannot record without corrupting the parent's collector state (the
 *   program sees the same results, as POSIX allows vfork to be fork).
 * - clone without CLONE_VM is a fork: the child starts over as _C<n> before
 *   the program's function runs; clone with CLONE_VM | CLONE_THREAD is a
 *   thread of the process, profiled like a pthread; other CLONE_VM children
 *   are left alone (they exec or exit).
 * - exec and posix_spawn get an environment with the collector's variables
 *   (lineage_exec_env), and a program the collector cannot enter (static,
 *   secure-execution) is noted in the founder's processes.xml first.
 *
 * The exec interposers may run in a vfork-like child (clone CLONE_VM): no
 * malloc, only the stack or mmap.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collector/collector.h"
#include "collector/lineage.h"
#include "collector/threads.h"
#include "common/exeprobe.h"

#define EXPORT __attribute__((visibility("default")))
#define STACK_ENV_BYTES (32u * 1024)
#define MAX_EXECL_ARGS 4096

extern char **environ;

static void *next_fn(const char *name)
{
	int g = threads_guard_enter(); /* dlsym's own allocations are not the program's */
	void *p = dlsym(RTLD_NEXT, name);
	threads_guard_leave(g);
	return p;
}

/* ------------------------------------------------------------ environment */

/* The environment to pass: built on the stack when small, else in an mmap'd block. */
struct newenv {
	char **envp;
	void *map;
	size_t map_bytes;
	char stack[STACK_ENV_BYTES];
};

static char *const *env_for(struct newenv *ne, char *const *envp)
{
	ne->map = NULL;
	ne->envp = NULL;
	size_t need = lineage_exec_env_bytes(envp);
	if (need <= sizeof ne->stack) {
		ne->envp = lineage_exec_env(envp, ne->stack, sizeof ne->stack);
	} else {
		void *m = mmap(NULL, need, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m != MAP_FAILED) {
			ne->map = m;
			ne->map_bytes = need;
			ne->envp = lineage_exec_env(envp, m, need);
		}
	}
	return ne->envp ? ne->envp : (envp ? envp : environ);
}

/* After a failed exec (the process goes on): give back what env_for mapped. */
static void env_done(struct newenv *ne)
{
	if (ne->map)
		munmap(ne->map, ne->map_bytes);
	ne->map = NULL;
}

/* ------------------------------------------------------------ programs the collector cannot enter */

/* Resolve file as execvp would (first executable regular file on PATH). */
static const char *find_in_path(const char *file, const char *path_env, char *buf, size_t room)
{
	if (strchr(file, '/'))
		return file;
	const char *p = path_env ? path_env : "/bin:/usr/bin";
	for (;;) {
		const char *end = strchr(p, ':');
		size_t dn = end ? (size_t)(end - p) : strlen(p);
		if ((size_t)snprintf(buf, room, "%.*s%s%s", (int)dn, p, dn ? "/" : "", file) < room &&
		    access(buf, X_OK) == 0)
			return buf;
		if (!end)
			return NULL;
		p = end + 1;
	}
}

static void check_target(const char *path, char *const argv[], int is_exec)
{
	if (!path || !lineage_self()->known)
		return;
	struct exeprobe pr;
	if (exeprobe_path(path, (unsigned)geteuid(), (unsigned)getegid(), &pr) == 0 &&
	    pr.verdict == EXEPROBE_NOENTRY)
		lineage_note_unprofilable(path, argv, is_exec ? (uint32_t)getpid() : 0, is_exec, pr.reason);
}

/*
 * Around every exec: note a program the collector cannot enter, close this
 * image's experiment, and give the environment for the real call (ours
 * restored in it).  exec_done gives back what that took, if the exec failed,
 * and returns its result with its errno.
 */
static char *const *exec_prepare(const char *path, char *const argv[], struct newenv *ne, char *const *envp)
{
	check_target(path, argv, 1);
	col_before_exec(path);
	return env_for(ne, envp);
}

static int exec_done(struct newenv *ne, int r)
{
	int e = errno;
	env_done(ne);
	errno = e;
	return r;
}

/* ------------------------------------------------------------ exec */

typedef int (*execve_fn)(const char *, char *const[], char *const[]);

EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	static execve_fn real;
	if (!real)
		real = (execve_fn)next_fn("execve");
	struct newenv ne;
	char *const *env = exec_prepare(path, argv, &ne, envp);
	return exec_done(&ne, real(path, argv, env));
}

EXPORT int execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	static execve_fn real;
	if (!real)
		real = (execve_fn)next_fn("execvpe");
	char buf[4096];
	const char *path = find_in_path(file, getenv("PATH"), buf, sizeof buf);
	struct newenv ne;
	char *const *env = exec_prepare(path, argv, &ne, envp);
	return exec_done(&ne, real(file, argv, env));
}

EXPORT int execvp(const char *file, char *const argv[])
{
	return execvpe(file, argv, environ);
}

EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	typedef int (*fexecve_fn)(int, char *const[], char *const[]);
	static fexecve_fn real;
	if (!real)
		real = (fexecve_fn)next_fn("fexecve");
	char self[64];
	snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
	struct newenv ne;
	char *const *env = exec_prepare(self, argv, &ne, envp);
	return exec_done(&ne, real(fd, argv, env));
}

/*
 * execveat (glibc 2.34): like execve, but the program is path relative to
 * the directory dirfd, or dirfd itself (AT_EMPTY_PATH and "").  Not
 * interposed, the exec would leave the samplers running through it (their
 * signals, queued during the exec, are discarded by the new image: see
 * sampler.h) and drop the collector's variables from the program's
 * environment.
 */
EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[], int flags)
{
	typedef int (*execveat_fn)(int, const char *, char *const[], char *const[], int);
	static execveat_fn real;
	if (!real)
		real = (execveat_fn)next_fn("execveat");
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	char where[PATH_MAX + 64];
	const char *probe = where; /* the program, for the checks before the exec */
	if (path[0] == '/' || (path[0] && dirfd == AT_FDCWD))
		probe = path;
	else if (!path[0] && (flags & AT_EMPTY_PATH))
		snprintf(where, sizeof where, "/proc/self/fd/%d", dirfd);
	else if ((size_t)snprintf(where, sizeof where, "/proc/self/fd/%d/%s", dirfd, path) >= sizeof where)
		probe = NULL;
	struct newenv ne;
	char *const *env = exec_prepare(probe, argv, &ne, envp);
	return exec_done(&ne, real(dirfd, path, argv, env, flags));
}

/* execl, execle, execlp: collect the variadic arguments into an array. */
static int gather(const char *arg0, va_list ap, char **argv, size_t max, char *const **ret_envp, int with_env)
{
	size_t n = 0;
	argv[n++] = (char *)arg0;
	while (arg0) {
		char *a = va_arg(ap, char *);
		if (n + 1 >= max) {
			errno = E2BIG;
			return -1;
		}
		argv[n++] = a;
		if (!a)
			break;
	}
	if (!arg0)
		argv[0] = NULL;
	if (with_env)
		*ret_envp = va_arg(ap, char *const *);
	return 0;
}

/* Room for execl's argument array: on the stack for the usual few, else mmap'd. */
struct argbuf {
	char *stack[256];
	char **v;
	size_t max;
	void *map;
};

static void argbuf_init(struct argbuf *b)
{
	b->v = b->stack;
	b->max = sizeof b->stack / sizeof b->stack[0];
	b->map = NULL;
}

static void argbuf_big(struct argbuf *b)
{
	void *m = mmap(NULL, MAX_EXECL_ARGS * sizeof(char *), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m != MAP_FAILED) {
		b->v = m;
		b->max = MAX_EXECL_ARGS;
		b->map = m;
	}
}

static void argbuf_done(struct argbuf *b)
{
	if (b->map)
		munmap(b->map, MAX_EXECL_ARGS * sizeof(char *));
}

#define EXECL_BODY(call, with_env)                                 \
	struct argbuf b;                                           \
	char *const *envp = environ;                               \
	argbuf_init(&b);                                           \
	va_list ap;                                                \
	va_start(ap, arg);                                         \
	int ok = gather(arg, ap, b.v, b.max, &envp, with_env);     \
	va_end(ap);                                                \
	if (ok < 0) {                                              \
		argbuf_big(&b);                                    \
		va_start(ap, arg);                                 \
		ok = gather(arg, ap, b.v, b.max, &envp, with_env); \
		va_end(ap);                                        \
	}                                                          \
	int r = ok < 0 ? -1 : (call);                              \
	int e = errno;                                             \
	argbuf_done(&b);                                           \
	errno = e;                                                 \
	return r

EXPORT int execl(const char *path, const char *arg, ...)
{
	EXECL_BODY(execve(path, b.v, envp), 0);
}

EXPORT int execle(const char *path, const char *arg, ...)
{
	EXECL_BODY(execve(path, b.v, envp), 1);
}

EXPORT int execlp(const char *file, const char *arg, ...)
{
	EXECL_BODY(execvpe(file, b.v, envp), 0);
}

/* ------------------------------------------------------------ posix_spawn */

typedef int (*spawn_fn)(pid_t *, const char *, const posix_spawn_file_actions_t *, const posix_spawnattr_t *,
			char *const[], char *const[]);

static int spawn(spawn_fn real, pid_t *pid, const char *path, const char *resolved,
		 const posix_spawn_file_actions_t *fa, const posix_spawnattr_t *attr, char *const argv[],
		 char *const envp[])
{
	check_target(resolved, argv, 0);
	struct newenv ne;
	int r = real(pid, path, fa, attr, argv, env_for(&ne, envp));
	env_done(&ne);
	return r;
}

EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
		       const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	static spawn_fn real;
	if (!real)
		real = (spawn_fn)dlvsym(RTLD_NEXT, "posix_spawn", "GLIBC_2.15");
	if (!real)
		real = (spawn_fn)next_fn("posix_spawn");
	return spawn(real, pid, path, path, fa, attr, argv, envp);
}

EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
			const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	static spawn_fn real;
	if (!real)
		real = (spawn_fn)dlvsym(RTLD_NEXT, "posix_spawnp", "GLIBC_2.15");
	if (!real)
		real = (spawn_fn)next_fn("posix_spawnp");
	char buf[4096]; /* posix_spawnp searches the caller's PATH, not envp's */
	return spawn(real, pid, file, find_in_path(file, getenv("PATH"), buf, sizeof buf), fa, attr, argv,
		     envp);
}

/* ------------------------------------------------------------ vfork, clone */

EXPORT pid_t vfork(void)
{
	return fork();
}

struct clone_child {
	int (*fn)(void *);
	void *arg;
};

/* The first function of a clone child without CLONE_VM (a copy of this memory). */
static int clone_child_start(void *p)
{
	struct clone_child c = *(struct clone_child *)p;
	col_clone_child();
	int r = c.fn(c.arg);
	col_clone_child_exit(r); /* glibc's clone exits with it, by the raw system call */
	return r;
}

EXPORT int clone(int (*fn)(void *), void *stack, int flags, void *arg, ...)
{
	typedef int (*clone_fn)(int (*)(void *), void *, int, void *, ...);
	static clone_fn real;
	if (!real)
		real = (clone_fn)next_fn("clone");
	va_list ap;
	va_start(ap, arg);
	pid_t *ptid = va_arg(ap, pid_t *);
	void *tls = va_arg(ap, void *);
	pid_t *ctid = va_arg(ap, pid_t *);
	va_end(ap);
	col_init();
	if ((flags & (CLONE_VM | CLONE_THREAD)) == (CLONE_VM | CLONE_THREAD)) {
		int (*wrap)(void *) = NULL;
		void *slot = threads_raw_prepare(fn, arg, stack, &wrap);
		if (!slot)
			return real(fn, stack, flags, arg, ptid, tls, ctid);
		int r = real(wrap, stack, flags, slot, ptid, tls, ctid);
		if (r < 0)
			threads_raw_cancel(slot);
		return r;
	}
	if (!(flags & CLONE_VM) && lineage_self()->known) {
		/* the child gets a copy of this frame's memory: c stays valid in it */
		struct clone_child c = {fn, arg};
		return real(clone_child_start, stack, flags, &c, ptid, tls, ctid);
	}
	return real(fn, stack, flags, arg, ptid, tls, ctid);
}

/* ------------------------------------------------------------ wait */

/*
 * The wait family: each child reaped (exited or killed) is noted in the
 * founder's processes.xml with its status and CPU time (lineage.h), so that
 * a child no collector saw (the raw clone system call) is named with its
 * pid and CPU time, and a child's end its collector missed is known.  Every
 * call goes to the real wait4 (or the waitid system call) with an rusage of
 * ours when the program passed none; what the program sees is unchanged.
 */
typedef pid_t (*wait4_fn)(pid_t, int *, int, struct rusage *);

static uint64_t tv_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000000u + (uint64_t)tv->tv_usec * 1000u;
}

static void note_reaped(pid_t pid, int status, const struct rusage *ru)
{
	if (pid > 0 && (WIFEXITED(status) || WIFSIGNALED(status)) && lineage_self()->known)
		lineage_note_reaped((uint32_t)pid, status, tv_ns(&ru->ru_utime), tv_ns(&ru->ru_stime));
}

static pid_t wait4_noted(pid_t pid, int *status, int options, struct rusage *ru)
{
	static wait4_fn real;
	if (!real)
		real = (wait4_fn)next_fn("wait4");
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	col_init();
	int st = 0;
	struct rusage mine;
	pid_t r = real(pid, &st, options, ru ? ru : &mine);
	if (r > 0) {
		int e = errno;
		note_reaped(r, st, ru ? ru : &mine);
		errno = e;
		if (status)
			*status = st;
	}
	return r;
}

EXPORT pid_t wait4(pid_t pid, int *status, int options, struct rusage *ru)
{
	return wait4_noted(pid, status, options, ru);
}

EXPORT pid_t wait3(int *status, int options, struct rusage *ru)
{
	return wait4_noted(-1, status, options, ru);
}

EXPORT pid_t waitpid(pid_t pid, int *status, int options)
{
	return wait4_noted(pid, status, options, NULL);
}

EXPORT pid_t wait(int *status)
{
	return wait4_noted(-1, status, 0, NULL);
}

EXPORT int waitid(idtype_t idtype, id_t id, siginfo_t *info, int options)
{
	col_init();
	struct rusage ru;
	/* the system call takes an rusage (glibc's waitid passes none) */
	long r = syscall(SYS_waitid, idtype, id, info, options, &ru);
	if (r == 0 && info && info->si_pid > 0 && !(options & WNOWAIT) &&
	    (info->si_code == CLD_EXITED || info->si_code == CLD_KILLED || info->si_code == CLD_DUMPED)) {
		int e = errno;
		int status = info->si_code == CLD_EXITED
				     ? (info->si_status & 0xff) << 8
				     : (info->si_status & 0x7f) | (info->si_code == CLD_DUMPED ? 0x80 : 0);
		note_reaped(info->si_pid, status, &ru);
		errno = e;
	}
	return (int)r;
}
