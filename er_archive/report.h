/*
 * report.h - what er_archive tells its user as it goes: warnings (an object
 * that is not archived, on stderr, unless -q), errors (a write into the
 * experiment that failed: on stderr, and the run's exit status becomes 1),
 * and -n's plans (on stdout).  While errors are muted (trying the per-user
 * cache, whose failure is not the experiment's) they are counted instead.
 * One run at a time: the state is the program's.
 */
#ifndef ER_ARCHIVE_REPORT_H
#define ER_ARCHIVE_REPORT_H

/* Start reporting: quiet (-q) silences the warnings. */
void ar_report_init(int quiet);

void ar_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ar_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* -n: "WHAT FROM -> TO". */
void ar_plan(const char *what, const char *from, const char *to);

/* The run failed (an error was reported, or ar_fail was called); ar_fail says so silently. */
int ar_failed(void);
void ar_fail(void);
/* A new experiment of a group: nothing failed yet. */
void ar_report_reset(void);

/* Count errors instead of reporting them, until ar_unmute_errors, which returns how many. */
void ar_mute_errors(void);
int ar_unmute_errors(void);

#endif
