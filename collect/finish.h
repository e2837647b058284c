/*
 * finish.h - what collect does to an experiment once its founder process has
 * ended: close the subexperiments of descendants that ended without closing
 * their own (killed, crashed), compress the data files of every experiment
 * whose process has ended, and sum up the process tree for one line of
 * output.  A descendant still running (a daemon that outlived the founder)
 * is left as it is: it goes on writing, and readers accept an open experiment.
 *
 * Library-style: returns -errno, prints nothing.  Not thread-safe.
 */
#ifndef COLLECT_FINISH_H
#define COLLECT_FINISH_H

#include <stddef.h>
#include <stdint.h>

#define FINISH_NOTES_MAX 8

struct finish_summary {
	unsigned processes;    /* <process> lines in processes.xml (descendants) */
	unsigned followed;     /* ... with a subexperiment */
	unsigned not_followed; /* ... -F off or no match */
	unsigned unprofilable; /* ... programs the collector cannot enter */
	unsigned closed;       /* subexperiments collect closed (their process ended unseen) */
	unsigned running;      /* subexperiments whose process still runs */
	unsigned alive;        /* processes of the run still running (<running> lines written) */
	/* the first unprofilable programs: "path (reason)" */
	char notes[FINISH_NOTES_MAX][512];
	unsigned nnotes;
};

/*
 * Close what ended unseen, note each process of the run still running (one
 * whose environment names EXP, found in /proc: a daemon that outlived the
 * target, followed or not, made by our interposers or not) as a <running>
 * line of processes.xml with its CPU time so far, and fill *ret from
 * EXP/processes.xml.  founder_pid: the target, which has ended.  0 or
 * -errno (an unreadable experiment directory).
 */
int finish_descendants(const char *exp, unsigned founder_pid, struct finish_summary *ret);

/* What the processes of the run could not record once their data files stopped. */
struct finish_losses {
	unsigned processes;         /* processes whose recording stopped (disk full, quota, ...) */
	unsigned uncounted;         /* ... of which ended unseen: what they lost is not known */
	uint64_t first_ns;          /* the earliest stop, CLOCK_MONOTONIC */
	char errno_name[16];        /* why (the earliest stop's): "ENOSPC", "EDQUOT", "EFBIG", ... */
	uint64_t fsize_limit_bytes; /* EFBIG at the file size limit: that limit; else 0 */
	uint64_t samples, sample_ns, heap, sync, records;
	int sync_on; /* some process traced synchronization waits (collect -s) */
};

/* Sum the losses in EXP's log.xml and its subexperiments'.  0 or -errno. */
int finish_losses(const char *exp, struct finish_losses *ret);

/*
 * The processes of the run whose collection was off from their start, and
 * those whose XML files reached the file size limit.
 */
struct finish_off {
	unsigned processes;     /* collection off: their count */
	char why[512];          /* the first one's reason, the collector's words (no data files: ...) */
	unsigned xml_processes; /* an XML file at the file size limit: their count */
	char xml_why[512];      /* the first one's words (which file, what it misses) */
};

/*
 * Fill *ret from the <error id="data_files"> of EXP's log.xml and its
 * subexperiments' (the collector could not make its data files: a full disk,
 * a file size limit below what one needs) and their <warning
 * id="file_size_limit">.  0 or -errno.
 */
int finish_collection_off(const char *exp, struct finish_off *ret);

/*
 * 1 if EXP's own log.xml shows the collector started in the founder process
 * but never wrote its <collector_end> (the process ended by a raw exit_group
 * or execve system call, or left it no descriptor), 2 if so and the process
 * ran the Go runtime (which exits by the raw system call), else 0.
 */
int finish_founder_unended(const char *exp);

/*
 * Compress the binary data files (profile, stacks, overview, heaptrace) of
 * EXP and of every closed subexperiment in it (collect/compress.h), unless
 * PA_COMPRESS=off.  Calls warn(path, -errno) for each file that stays raw.
 */
void finish_compress(const char *exp, void (*warn)(const char *path, int err));

#endif
