/*
 * report_io.h - the I/O reports' model (er_print `ioactivity`, `iodetail`,
 * `iocallstack`, `iostat`; `printmode json`): the I/O calls of the
 * selected threads and time (collect -i on) grouped by file name, by
 * descriptor (its virtual id: one life of a descriptor number, from the
 * call that made it to its close), or by call stack, each group with the
 * ten figures of profile_io.h; and the size histograms and extremes of
 * the reads and writes.  Renderers print them; nothing here prints.
 */
#ifndef ANALYSIS_REPORT_IO_H
#define ANALYSIS_REPORT_IO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "analysis/profile.h"
#include "analysis/profile_heap.h"
#include "analysis/profile_io.h"

enum report_io_by {
	REPORT_IO_BY_FILE,  /* ioactivity: every descriptor of that name, in every experiment */
	REPORT_IO_BY_VFD,   /* iodetail: one descriptor's life in one experiment */
	REPORT_IO_BY_STACK, /* iocallstack: one call stack of one experiment */
};

/* The name of calls on no known descriptor (a number beyond the collector's table, a failed pipe). */
#define REPORT_IO_UNKNOWN_FILE "<unknown descriptor>"

struct report_io_row {
	/* BY_FILE, BY_VFD: the file name ("<Total>" in row 0); owned by the experiment or static */
	const char *name;
	size_t exp;     /* BY_VFD, BY_STACK: the experiment index */
	uint32_t vfd;   /* BY_VFD: the virtual id (0: calls on no known descriptor) */
	int32_t fd;     /* BY_VFD: the descriptor number, -1 for a failed open or none */
	uint32_t stack; /* BY_STACK: the stack index in the experiment */
	uint64_t calls; /* the calls in the group */
	uint64_t v[PROFILE_IO_FIGS];
};

/* Sort by the sum of the four times (read, write, other, error) rather than one figure. */
#define REPORT_IO_SORT_TIME (-1)

/*
 * Row 0 is <Total> (every selected call); then a row per group with at
 * least one selected call, sorted by figure `sort` (enum profile_io_fig,
 * or REPORT_IO_SORT_TIME), largest first, then by name, experiment, vfd
 * and stack.  After profile_compute is not needed.  Returns the number of
 * rows with *ret malloc'd (the caller frees it), or -ENOMEM, -EINVAL for
 * a bad `by` or `sort`.
 */
ssize_t report_io_rows(const struct profile *p, enum report_io_by by, int sort, struct report_io_row **ret);

/* The reads' or the writes' size statistics (iostat). */
struct report_io_sizes {
	uint64_t calls, bytes, time_ns;
	uint64_t classes[HEAP_SIZE_CLASSES]; /* calls by size class (heap_size_class) */
	uint64_t longest_ns;                 /* the longest single call */
	/* the fewest and most bytes of one call; like gprofng, the smallest
	 * leaves out calls of 0 bytes (a read at end of file); 0 if none */
	uint64_t min_bytes, max_bytes;
};

struct report_io_stat {
	struct report_io_sizes read, write; /* a copy in the kernel is in both, its time in write */
	uint64_t other_calls, other_ns;
	uint64_t error_calls, error_ns;
};

/* iostat's figures over the selected calls into *ret. */
void report_io_stat(const struct profile *p, struct report_io_stat *ret);

struct jsonw;
/*
 * A row's "calls" and ten figures as members of w's open object, under the
 * metric keywords, times in ns: "ioreadbytes", "ioreadcnt", "ioreadtime_ns",
 * "iowritebytes", ..., "ioerrortime_ns" (er_print's JSON and the analyzer's).
 */
void report_io_row_json(struct jsonw *w, const struct report_io_row *r);
/*
 * iostat's figures as members of w's open object: "write" and "read"
 * {calls, bytes, time_ns, longest_ns, smallest_bytes, largest_bytes,
 * sizes: [{range, calls}] (the classes with calls)}, "other" and "error"
 * {calls, time_ns}.
 */
void report_io_stat_json(struct jsonw *w, const struct report_io_stat *s);

/* 1 if some loaded experiment traced I/O. */
int report_io_present(const struct profile *p);

#endif
