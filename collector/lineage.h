/*
 * lineage.h - who this process is in the tree of processes collect runs,
 * whether it is followed (collect -F), and where it records.
 *
 * The founder (the process collect started) records into PA_EXPERIMENT.
 * Every descendant that is followed records into a subexperiment of the
 * founder named by its lineage (the manual's Subexperiments rules):
 * PA_EXPERIMENT/_f2.er for the founder's second fork, _f2_x1.er for the image
 * that fork child exec'd, _C1.er for a child of clone(2) without CLONE_VM, and
 * _c1.er for a descendant made without our interposers (posix_spawn, system,
 * popen: they fork and exec inside libc).  f and C are numbered by the
 * parent's counter (every fork counts, followed or not); x and c by the new
 * process, which claims the lowest free number with mkdir(2).
 *
 * How a new image learns who it is: every process keeps PA_LINEAGE=PID:NAME
 * in its environment (its own pid and lineage name); the exec interposers
 * pass PID.CPU:NAME, CPU the exec'ing thread's CPU clock (ns), from which
 * the new image's recording counts (what came before is the old image's).  An image that finds its
 * own pid there was exec'd by that process (x); a different pid means a
 * descendant of it (c).  The founder starts with PA_LINEAGE empty and its pid
 * equal to PA_TARGET_PID.  The exec interposers (descend.c) put the current
 * values of every PA_* variable and LD_PRELOAD back into an environment the
 * program passes, so a child's custom environment cannot lose them.
 *
 * -F (PA_PARAMS F=0 off, 1 on, 2 regex in PA_FOLLOW): a process that is not
 * followed stays dormant (collects nothing) but keeps its lineage, so its own
 * descendants can still be followed and named.  Every process with the
 * collector loaded, followed or not, adds one <process> line to the founder's
 * processes.xml; a parent that execs a program the collector cannot enter
 * (exeprobe.h) adds that program's line itself.
 *
 * Not signal-safe.  lineage_fork_child runs in a fork child before fork
 * returns (glibc has reset malloc and stdio locks there) or in a clone child;
 * it uses no locks of its own.
 */
#ifndef COLLECTOR_LINEAGE_H
#define COLLECTOR_LINEAGE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#define LINEAGE_NAME_MAX 200 /* bytes of a lineage name: a subexperiment is NAME.er */

/*
 * LINEAGE_RAW: a child made by the raw clone or clone3 system call (no
 * interposer saw it), found out at its first call into the collector; named
 * with 'c' and the lowest free number, as a descendant made inside libc.
 */
enum lineage_origin {
	LINEAGE_FOUNDER,
	LINEAGE_FORK,
	LINEAGE_EXEC,
	LINEAGE_CLONE,
	LINEAGE_SPAWN,
	LINEAGE_RAW
};

enum lineage_follow { LINEAGE_FOLLOW_OFF = 0, LINEAGE_FOLLOW_ON = 1, LINEAGE_FOLLOW_REGEX = 2 };

/* This process, as decided at start (and again in a fork or clone child). */
struct lineage_self {
	int known;    /* 0: no experiment in the environment: everything stays dormant */
	int followed; /* 1: this process records (into dir) */
	uint32_t pid;
	enum lineage_origin origin;
	char name[LINEAGE_NAME_MAX + 1]; /* "" for the founder */
	uint64_t origin_cpu_ns;          /* LINEAGE_EXEC: the exec'ing thread's CPU clock at the exec */
	char dir[PATH_MAX - 64];         /* where this process records, when followed */
	const char *why_not;             /* when not followed: why (static text) */
};

/*
 * Decide who this newly started image is, from the environment, and claim
 * and create its subexperiment (log.xml head, map.xml head) if it is a
 * followed descendant.  params: PA_PARAMS already parsed by the caller:
 * follow mode and the rest of the head's parameters.
 */
struct lineage_params {
	enum lineage_follow follow;
	uint32_t interval_us, depth_limit;
	uint64_t window_start_s, window_end_s;
	int heap_on;
};
const struct lineage_self *lineage_init(const struct lineage_params *params);

const struct lineage_self *lineage_self(void);

/* The founder's experiment directory (PA_EXPERIMENT), "" when there is none. */
const char *lineage_experiment(void);

/* The number of this process's next fork ('f') or clone ('C') child, from 1. */
unsigned lineage_next_index(char letter);

/*
 * In the child of a fork (letter 'f', number n from lineage_next_index in
 * the parent) or of a clone without CLONE_VM ('C'), or of the raw system
 * call ('c', n 0: the lowest number free): become that descendant.  Creates
 * the subexperiment when it is followed.
 */
const struct lineage_self *lineage_fork_child(char letter, unsigned n);

/*
 * For exec: a copy of envp (NULL = environ) with PA_EXPERIMENT,
 * PA_TARGET_PID, PA_PARAMS, PA_FOLLOW, PA_LINEAGE and LD_PRELOAD set to this
 * process's values.  Built in `buf` (`bytes` bytes: pointers, then strings);
 * returns the new envp, or NULL if it does not fit (the caller then uses
 * envp unchanged).  No allocation: usable in a vfork-like child.
 */
char **lineage_exec_env(char *const *envp, void *buf, size_t bytes);
/* Bytes lineage_exec_env needs for envp. */
size_t lineage_exec_env_bytes(char *const *envp);

/*
 * A program this process is about to exec (or spawn) that the collector
 * cannot enter: add its <process> line (followed="0", the reason) to the
 * founder's processes.xml.  pid: the process that will run it (this one for
 * exec, 0 if not known yet).
 */
void lineage_note_unprofilable(const char *path, char *const *argv, uint32_t pid, int is_exec,
			       const char *reason);

/*
 * A child this process waited for and reaped (wait, waitpid, wait3, wait4,
 * waitid): its wait status and CPU time (its own and that of the children
 * it reaped), as a <reaped> line of the founder's processes.xml.  The
 * reader names with it a process no collector recorded (the raw clone or
 * clone3 system call), and the end of one whose collector did not see it.
 */
void lineage_note_reaped(uint32_t pid, int status, uint64_t utime_ns, uint64_t stime_ns);

#endif
