/*
 * launch.c - resolve, start and wait for collect's target (see launch.h).
 * The child tells the parent why execve failed through a close-on-exec pipe:
 * EOF means the exec succeeded.  Between fork and exec the child only calls
 * async-signal-safe functions.
 */
#include "collect/launch.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define DEFAULT_PATH "/bin:/usr/bin"
#define PID_ENV "PA_TARGET_PID="

static volatile sig_atomic_t forward_pid;

static void forward_signal(int sig)
{
	int saved = errno;
	if (forward_pid > 0)
		kill((pid_t)forward_pid, sig);
	errno = saved;
}

/* 0 if P is an executable regular file, else -errno. */
static int check_exec(const char *p)
{
	struct stat st;

	if (stat(p, &st) < 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (!S_ISREG(st.st_mode) || access(p, X_OK) < 0)
		return -EACCES;
	return 0;
}

/* Make P (a path relative to the current directory or absolute) absolute. */
static int make_absolute(const char *p, char *ret, size_t room)
{
	char cwd[PATH_MAX];
	size_t n;

	if (p[0] == '/') {
		if (strlen(p) + 1 > room)
			return -ENAMETOOLONG;
		strcpy(ret, p);
		return 0;
	}
	if (!getcwd(cwd, sizeof cwd))
		return -errno;
	while (p[0] == '.' && p[1] == '/')
		p += 2;
	n = strlen(cwd);
	if (n + 1 + strlen(p) + 1 > room)
		return -ENAMETOOLONG;
	memcpy(ret, cwd, n);
	ret[n] = '/';
	strcpy(ret + n + 1, p);
	return 0;
}

int launch_resolve(const char *word, char *ret_path, size_t room)
{
	const char *path, *p;
	int first_err = -ENOENT;
	char cand[PATH_MAX];

	if (!*word)
		return -ENOENT;
	if (strchr(word, '/')) {
		int rc = check_exec(word);
		return rc < 0 ? rc : make_absolute(word, ret_path, room);
	}
	path = getenv("PATH");
	if (!path)
		path = DEFAULT_PATH;
	for (p = path;; p++) {
		const char *end = strchr(p, ':');
		size_t dn = end ? (size_t)(end - p) : strlen(p);
		int rc;

		if (dn + 1 + strlen(word) + 1 <= sizeof cand) {
			if (dn == 0) {
				strcpy(cand, word);
			} else {
				memcpy(cand, p, dn);
				cand[dn] = '/';
				strcpy(cand + dn + 1, word);
			}
			rc = check_exec(cand);
			if (rc == 0)
				return make_absolute(cand, ret_path, room);
			/* like execvp: remember "found but not executable" */
			if (rc != -ENOENT && rc != -ENOTDIR && first_err == -ENOENT)
				first_err = rc == -EISDIR ? -EACCES : rc;
		}
		if (!end)
			break;
		p = end;
	}
	return first_err;
}

static void fmt_pid(char *buf, const char *prefix, long v)
{
	char tmp[24];
	int n = 0;
	size_t k = strlen(prefix);

	memcpy(buf, prefix, k);
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		buf[k++] = tmp[--n];
	buf[k] = '\0';
}

static void restore_parent(struct launch *l)
{
	sigaction(SIGINT, &l->old_int, NULL);
	sigaction(SIGQUIT, &l->old_quit, NULL);
	sigaction(SIGTERM, &l->old_term, NULL);
	sigaction(SIGHUP, &l->old_hup, NULL);
	sigprocmask(SIG_SETMASK, &l->old_mask, NULL);
	forward_pid = 0;
}

int launch_start(struct launch *l, const char *path, char *const argv[], char **envp)
{
	struct sigaction ign, fwd;
	sigset_t block;
	size_t argc = 0;
	char **sh_argv;
	int fds[2], err = 0;
	ssize_t n;
	pid_t pid;

	memset(l, 0, sizeof *l);
	while (argv[argc])
		argc++;
	/* for a script without "#!": /bin/sh PATH ARGS... */
	sh_argv = calloc(argc + 2, sizeof *sh_argv);
	if (!sh_argv)
		return -ENOMEM;
	sh_argv[0] = (char *)"sh";
	sh_argv[1] = (char *)path;
	for (size_t i = 1; i < argc; i++)
		sh_argv[i + 1] = argv[i];
	if (pipe2(fds, O_CLOEXEC) < 0) {
		err = errno;
		free(sh_argv);
		return -err;
	}

	memset(&ign, 0, sizeof ign);
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGINT, &ign, &l->old_int);
	sigaction(SIGQUIT, &ign, &l->old_quit);
	sigaction(SIGTERM, NULL, &l->old_term);
	sigaction(SIGHUP, NULL, &l->old_hup);
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &l->old_mask);

	pid = fork();
	if (pid == 0) {
		char pidbuf[sizeof PID_ENV + 24];
		int e;

		sigaction(SIGINT, &l->old_int, NULL);
		sigaction(SIGQUIT, &l->old_quit, NULL);
		sigprocmask(SIG_SETMASK, &l->old_mask, NULL);
		close(fds[0]);
		fmt_pid(pidbuf, PID_ENV, (long)getpid());
		for (char **e2 = envp; *e2; e2++)
			if (strcmp(*e2, PID_ENV) == 0)
				*e2 = pidbuf;
		execve(path, argv, envp);
		e = errno;
		if (e == ENOEXEC) {
			execve("/bin/sh", sh_argv, envp);
			e = errno;
		}
		while (write(fds[1], &e, sizeof e) < 0 && errno == EINTR)
			;
		_exit(127);
	}
	if (pid < 0) {
		err = errno;
		close(fds[0]);
		close(fds[1]);
		restore_parent(l);
		free(sh_argv);
		return -err;
	}
	free(sh_argv);
	close(fds[1]);
	l->pid = pid;
	l->started = 1;
	forward_pid = pid;
	memset(&fwd, 0, sizeof fwd);
	fwd.sa_handler = forward_signal;
	fwd.sa_flags = SA_RESTART;
	sigemptyset(&fwd.sa_mask);
	sigaction(SIGTERM, &fwd, NULL);
	sigaction(SIGHUP, &fwd, NULL);
	sigprocmask(SIG_UNBLOCK, &block, NULL);
	do {
		n = read(fds[0], &err, sizeof err);
	} while (n < 0 && errno == EINTR);
	close(fds[0]);
	if (n == (ssize_t)sizeof err) {
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		l->started = 0;
		restore_parent(l);
		return -(err ? err : ENOEXEC);
	}
	return 0;
}

int launch_wait(struct launch *l, int *ret_status, struct rusage *ret_rusage)
{
	int status = 0, err = 0;
	pid_t r;

	if (!l->started)
		return -ECHILD;
	do {
		r = wait4(l->pid, &status, 0, ret_rusage);
	} while (r < 0 && errno == EINTR);
	if (r < 0)
		err = errno;
	l->started = 0;
	restore_parent(l);
	if (err)
		return -err;
	*ret_status = status;
	return 0;
}
