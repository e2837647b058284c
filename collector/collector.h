/*
 * collector.h - libcollector.so's life cycle: lazy idempotent
 * initialisation, the PA_* environment contract, and the end of collection.
 * The state it fills is in state.h, at the bottom of the collector's
 * modules; this is the top, included only by the interposers.
 *
 * Environment (set by `collect` for the target):
 *   PA_EXPERIMENT=/abs/dir.er   the experiment directory (unset: dormant)
 *   PA_TARGET_PID=<pid>         only this pid collects; others stay dormant
 *   PA_PARAMS=p=<us>;d=<depth>;...  the collection parameters: their one
 *                               definition is experiment/params.h
 *   PA_FOLLOW=<regex>            (F=2: which descendants to follow)
 *   PA_LINEAGE=<pid>:<lineage>   (kept by every process: lineage.h)
 * In a dormant process every interposer passes straight through.
 *
 * col_init may be called from any interposer and from the constructor; it is
 * not signal-safe.
 */
#ifndef COLLECTOR_COLLECTOR_H
#define COLLECTOR_COLLECTOR_H

/* Initialise once (any thread; recursion-safe). */
void col_init(void);

/* 1 once col_init has completed. SIGNAL_SAFE. */
int col_init_done(void);

/* End collection: stop sampling, thread ends, <collector_end>. Idempotent. */
void col_finish(void);

/*
 * The process is about to exec path: end this image's recording (its
 * experiment is closed; the new image records in a subexperiment of its
 * own).  A path that cannot be executed changes nothing.
 */
void col_before_exec(const char *path);

/* In the child of clone(2) without CLONE_VM: start over as a descendant (_C<n>). */
void col_clone_child(void);

/* That child's function returned status (glibc's clone then exits the process). */
void col_clone_child_exit(int status);

#endif
