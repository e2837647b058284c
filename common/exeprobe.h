/*
 * exeprobe.h - can a preloaded library enter the program a path names?
 *
 * The dynamic loader preloads LD_PRELOAD libraries only into dynamically
 * linked programs (those with a PT_INTERP program header), and ignores
 * LD_PRELOAD in secure-execution mode: a set-user-ID or set-group-ID program
 * that changes the credentials, or one with file capabilities.  A "#!" script
 * runs its interpreter, which is what the loader sees; only the direct
 * interpreter is checked (it may exec others, which are checked then).
 *
 * Reads at most a few KiB with open/pread; no allocation, no stdio, no locks:
 * usable in a fork or vfork-like child before exec.  Thread-safe.
 */
#ifndef COMMON_EXEPROBE_H
#define COMMON_EXEPROBE_H

enum exeprobe_verdict {
	EXEPROBE_OK,      /* a dynamically linked 64-bit program: preloading works */
	EXEPROBE_NOENTRY, /* the loader will not preload: static, secure-execution, 32-bit */
	EXEPROBE_UNKNOWN, /* cannot tell (unreadable, not ELF: exec will decide) */
};

struct exeprobe {
	enum exeprobe_verdict verdict;
	const char *reason; /* NOENTRY: static text, e.g. "statically linked"; else "" */
	int script;         /* 1: path is a "#!" script; the verdict is its interpreter's */
};

/*
 * Probe `path` as execve would run it for a process with effective ids
 * euid/egid.  Returns 0 with *ret filled, or -errno when path cannot be
 * opened (*ret is then UNKNOWN).
 */
int exeprobe_path(const char *path, unsigned euid, unsigned egid, struct exeprobe *ret);

#endif
