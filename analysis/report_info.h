/*
 * report_info.h - the information reports' model (er_print `header`,
 * `experiment_list`, `thread_list`; any other front end): what a header
 * warns about, how each process ended, the founder's process tree with the
 * experiments recorded for it, and per thread its times, CPU time, whether
 * it is selected and its start routine.  Everything copes with an
 * experiment that did not finish (a missing exit, end, or thread end is
 * said so, never made up).  Times are relative to the experiment's start.
 * Renderers print it; nothing here prints.
 */
#ifndef ANALYSIS_REPORT_INFO_H
#define ANALYSIS_REPORT_INFO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "analysis/experiment.h"
#include "analysis/profile.h"

/* A time of experiment x relative to its start (0 before it or unknown). */
uint64_t report_rel_ns(const struct experiment *x, uint64_t t);

/*
 * The CPU time clock profiling recorded for x, all threads: every sample's
 * weight and, for a thread that ended, its measured CPU time after its last
 * sample (EXP_EV_TAIL).
 */
uint64_t report_recorded_ns(const struct experiment *x);

/* How experiment x's process (image) ended. */
enum report_ending_kind {
	REPORT_END_SIGNAL,     /* killed by signal `code` (`name`, or NULL) */
	REPORT_END_EXIT,       /* exit status `code` */
	REPORT_END_EXEC,       /* exec'd `name` (the last program it exec'd into) */
	REPORT_END_UNSEEN,     /* ended without its collector seeing it (killed or crashed) */
	REPORT_END_ENDED,      /* the experiment was closed, no exit recorded */
	REPORT_END_UNFINISHED, /* the data just stops */
};
struct report_ending {
	enum report_ending_kind kind;
	int code;
	const char *name; /* owned by the experiment */
};
void report_ending_of(const struct experiment *x, struct report_ending *ret);

/* What x's header warns about beyond its collector's warnings and the reader's problems. */
struct report_header_warnings {
	size_t unprofiled; /* processes of its tree that ran without a subexperiment, or still ran at its end */
	int exec_lost;     /* it exec'd and what ran after was not followed (-F off, older experiments) */
	int none; /* no warning at all: no collector warning, problem, lost exec nor unprofiled process */
};
void report_header_warnings(const struct experiment *x, struct report_header_warnings *ret);

/* One process of a founder's tree (processes.xml). */
struct report_process {
	const struct exp_process *proc; /* owned by the founder's experiment */
	size_t depth;                   /* 1 for the founder's children */
	long exp;                       /* the loaded experiment of its subexperiment, or -1 */
};

/*
 * The process tree of founder experiment xi: every descendant under its
 * parent (by lineage), children in the order they started, depth first (at
 * most 64 generations).  Returns the count with *ret malloc'd (NULL when 0),
 * or -ENOMEM.
 */
ssize_t report_process_tree(const struct profile *p, size_t xi, struct report_process **ret);

/* 1 if some loaded experiment is part of a process tree (a descendant, or a founder with processes.xml). */
int report_experiments_are_tree(const struct profile *p);

/* The selected threads of experiment xi as "all", "none" or "1,3-5" (malloc'd), or NULL (out of memory). */
char *report_thread_selection(const struct profile *p, size_t xi);

enum report_routine_kind {
	REPORT_ROUTINE_UNKNOWN, /* the thread's start was not recorded */
	REPORT_ROUTINE_MAIN,    /* the main thread */
	REPORT_ROUTINE_FUNC,    /* func: the start routine's function */
	REPORT_ROUTINE_ADDRESS, /* the start routine's address, in no function known (start_pc) */
};

struct report_thread {
	const struct exp_thread *t; /* owned by the experiment */
	int selected;
	uint64_t start_ns, end_ns; /* relative; valid with t->has_start, t->has_end */
	uint64_t cpu_ns;           /* measured at its end, or (cpu_sampled) its samples' weights */
	int cpu_sampled;           /* the thread had not ended when the data ends */
	/*
	 * Wait CPU (its whole life's run-queue wait, schedstat) and Sleep (its
	 * life minus its CPU and that wait, at least 0), valid with has_wait:
	 * it ended with the wait recorded (format 1.9, not under collect -t)
	 * and its start is known.  Per thread only: Linux cannot say which
	 * function a thread was in while it waited or slept without
	 * scheduler tracing.
	 */
	uint64_t wait_ns, sleep_ns;
	int has_wait;
	enum report_routine_kind routine;
	const struct pfunc *func; /* REPORT_ROUTINE_FUNC */
};

/* The threads of experiment xi in number order.  Returns the count with *ret malloc'd (NULL when 0), or -ENOMEM. */
ssize_t report_threads(struct profile *p, size_t xi, struct report_thread **ret);

#endif
