/*
 * launch.h - find and run collect's target: PATH search before anything is
 * created, fork + execve with exec failure reported to the parent through a
 * close-on-exec pipe, and a wait that behaves like system(3) for SIGINT and
 * SIGQUIT (ignored in collect, default in the target) while SIGTERM and
 * SIGHUP sent to collect are forwarded to the target.
 *
 * Errors are -errno.  Not thread-safe (changes signal dispositions); collect
 * is single-threaded.  No printing.
 */
#ifndef COLLECT_LAUNCH_H
#define COLLECT_LAUNCH_H

#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>

/*
 * Resolve WORD like execvp: with a '/' it is a path, otherwise it is looked
 * up in $PATH (default "/bin:/usr/bin"; an empty entry is the current
 * directory).  Copies an absolute path to RET_PATH (ROOM bytes).  Returns 0,
 * -ENOENT (not found), -EACCES (found but not executable), -EISDIR (a
 * directory), -ENAMETOOLONG, or another -errno from stat.
 */
int launch_resolve(const char *word, char *ret_path, size_t room);

#include <signal.h>

struct launch {
	pid_t pid; /* the target, once started */
	int started;
	struct sigaction old_int, old_quit, old_term, old_hup; /* collect's own */
	sigset_t old_mask;
};

/*
 * Start PATH with ARGV and ENVP (both NULL-terminated; an entry of ENVP that
 * is exactly "PA_TARGET_PID=" is replaced, in the child, by one with the
 * child's pid).
 * Returns 0 once the target has been exec'd, or -errno: of fork, or the
 * errno with which execve failed in the child (the child has then been
 * reaped).  A script without "#!" is run with /bin/sh, as execvp does.
 */
int launch_start(struct launch *l, const char *path, char *const argv[], char **envp);

/*
 * Wait for the target.  Stores its wait status and resource usage.
 * Returns 0 or -errno of wait4.  Restores collect's signal dispositions.
 */
int launch_wait(struct launch *l, int *ret_status, struct rusage *ret_rusage);

#endif
