/*
 * options.h - collect's command line: parse argv into struct
 * collect_options, checking every value (intervals, durations, names) so
 * that nothing is created or run when an option is wrong.
 *
 * Options stop at the first word that is not an option (the target) or at
 * "--".  Values may be attached ("-p10") or the next word ("-p 10").
 * Pure: no printing, no file system access; errors come back as -EINVAL
 * with a one-line message (without the "collect: " prefix) in ERR.
 */
#ifndef COLLECT_OPTIONS_H
#define COLLECT_OPTIONS_H

#include <stddef.h>

#define COLLECT_COMMENTS_MAX 10

/* Clock-profiling intervals (microseconds); odd values avoid correlation
 * with the system clock, as in Oracle collect. */
#define COLLECT_CLOCK_ON_US 10007
#define COLLECT_CLOCK_HI_US 997
#define COLLECT_CLOCK_LO_US 100003
#define COLLECT_CLOCK_MIN_US 500
#define COLLECT_CLOCK_MAX_US 1000000

enum collect_mode {
	COLLECT_MODE_RUN,      /* run the target (or describe it with -n) */
	COLLECT_MODE_SUMMARY,  /* no arguments: usage, defaults, what this system supports */
	COLLECT_MODE_HELP,     /* --help */
	COLLECT_MODE_VERSION,  /* -V */
	COLLECT_MODE_HWC_LIST, /* -h or -h list */
};

enum collect_follow { COLLECT_FOLLOW_OFF = 0, COLLECT_FOLLOW_ON = 1, COLLECT_FOLLOW_REGEX = 2 };

struct collect_options {
	enum collect_mode mode;
	int dry_run;            /* -n */
	int verbose;            /* -v */
	int clock_on;           /* -p, default on (off when -h is given without -p, as Oracle's) */
	long clock_interval_us; /* valid when clock_on */
	int duration_set;       /* -t given */
	unsigned long duration_start_s;
	unsigned long duration_end_s; /* 0 = until the target exits */
	const char *hwc_spec;         /* -h COUNTERS as given (collect/hwc.h parses it), NULL: none */
	const char *sample;           /* -S value (on, off or seconds), NULL if not given */
	long sample_period_s;         /* -S: seconds between periodic sample points (default 1), 0 off */
	int sample_signal;            /* -l: a sample point on this signal, 0 none */
	int pause_signal;             /* -y: pause/resume toggle signal, 0 none */
	int pause_resumed;            /* -y SIGNAL,r: start resumed (else paused) */
	int heap_on;                  /* -H on (default off) */
	int io_on;                    /* -i on (default off) */
	const char *sync;             /* -s value as given (on, calibrate, all, MICROSECONDS), NULL: off */
	long sync_threshold_us;       /* -s: -1 calibrate (on), 0 all, else the threshold in us */
	enum collect_follow follow;   /* -F: descendants followed (default on; all = on) */
	const char *follow_spec;      /* the -F value as given ("on" by default) */
	const char *follow_regex;     /* -F =REGEX: REGEX (checked with regcomp) */
	const char *archive;          /* -A on (default), off, copy: how er_archive runs at the end */
	const char *name;             /* -o value, NULL = default; may hold a directory part */
	const char *dir;              /* -d value, NULL = current directory */
	const char *group; /* -g value (ends in .erg): the group file the experiment joins, or NULL */
	const char *comments[COLLECT_COMMENTS_MAX];
	int comment_count;
	int target_index; /* argv index of the target; 0 when there is none */
};

/*
 * Parse a -s value: on and calibrate (-1: calibrated at start), all (0),
 * off (*ret_on 0), or a threshold in microseconds (0 .. 10^9).  0 or -EINVAL.
 */
int collect_parse_sync(const char *s, int *ret_on, long *ret_threshold_us);

/* Parse a signal name (USR1, SIGUSR1) or number for -l and -y: 0 or -EINVAL. */
int collect_parse_signal(const char *s, int *ret_sig);

/*
 * Parse ARGV (ARGC words, argv[0] = "collect") into *RET.  Returns 0, or
 * -EINVAL with a message in ERR (ROOM bytes).  Pointers in *RET point into
 * ARGV.  In COLLECT_MODE_RUN a target is required.
 */
int collect_options_parse(struct collect_options *ret, int argc, char **argv, char *err, size_t room);

/*
 * Parse a -p value.  Sets *ret_on and, when on, *ret_interval_us.
 * Returns 0 or -EINVAL (bad syntax) or -ERANGE (outside 0.5 .. 1000 ms).
 */
int collect_parse_interval(const char *s, int *ret_on, long *ret_interval_us);

/*
 * Parse a -t value: "N", "Nm", "Ns", or "START-END" with each part so
 * suffixed; a single N means 0-N.  END 0 means open.  Returns 0 or -EINVAL
 * (bad syntax, zero duration, END not after START) or -ERANGE.
 */
int collect_parse_duration(const char *s, unsigned long *ret_start_s, unsigned long *ret_end_s);

#endif
