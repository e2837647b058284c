/*
 * expdir.h - the parts of an experiment directory that collect writes:
 * the directory itself, the head and tail of log.xml and map.xml (see
 * docs/experiment-format.md), and notes.  The collector appends to log.xml
 * and map.xml between head and tail; every file is opened O_APPEND.
 *
 * Errors are -errno; e->failed then names the path that failed.
 * The text is experiment/loghead.h's.
 * Not thread-safe.
 */
#ifndef COLLECT_EXPDIR_H
#define COLLECT_EXPDIR_H

#include <limits.h>
#include <stdint.h>
#include <sys/resource.h>

struct loghead;

struct expdir {
	char *path;                 /* absolute path of the experiment directory (owned) */
	int log_fd;                 /* log.xml, -1 when closed */
	int map_fd;                 /* map.xml, -1 when closed */
	int created;                /* 1 once the directory exists and is ours to remove */
	int reserved;               /* 1 while EXP_FILE_NAME_RESERVE holds space for the logs' tails */
	char failed[PATH_MAX + 32]; /* the path of the last failure */
};

/* How the target ended. */
struct expdir_tail {
	uint64_t exit_ns;
	int wait_status; /* from wait4 */
	struct rusage rusage;
	uint64_t end_ns;
};

/*
 * Set EXP_RESERVE_BYTES aside in the experiment (EXP_FILE_NAME_RESERVE, with
 * fallocate): the collectors stop their data files once it is gone, and it
 * gives the logs' last lines room on a full disk.  0 or -errno (no reserve:
 * the run goes on without one).
 */
int expdir_reserve(struct expdir *e);

/* Give the reserved space back (delete the file). */
void expdir_unreserve(struct expdir *e);

/* Prepare E (no files). */
void expdir_init(struct expdir *e);

/*
 * Create directory PATH (absolute, mode 0755; not its parents) and open
 * log.xml and map.xml in it, exclusive.  -EEXIST when PATH exists (E is then
 * untouched, so the caller can pick another name); other -errno.
 */
int expdir_create(struct expdir *e, const char *path);

/* Write log.xml's head (up to <start/>), map.xml's root start tag, and
 * notes (one line per comment, only when there are comments). */
int expdir_write_head(struct expdir *e, const struct loghead *h);

/* Append <warning id="ID">TEXT</warning> to log.xml (after the head). */
int expdir_write_warning(struct expdir *e, const char *id, const char *text);

/* Append <exit>, <rusage>, <end> and </experiment> to log.xml and </map>
 * to map.xml, then close them. */
int expdir_write_tail(struct expdir *e, const struct expdir_tail *t);

/* Close the files and, if E created the directory, delete it with
 * everything in it. */
void expdir_remove(struct expdir *e);

/* Close the files and free E's memory (the directory stays). NULL-safe. */
void expdir_release(struct expdir *e);

#endif
