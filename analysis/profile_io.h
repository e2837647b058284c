/*
 * profile_io.h - the figures of I/O calls (collect -i on), shared by the I/O
 * metrics (profile_io.c) and the I/O reports (report_io.h): each call
 * counts as a read, a write, both (a copy in the kernel: sendfile,
 * copy_file_range), an other call, or an error.
 */
#ifndef ANALYSIS_PROFILE_IO_H
#define ANALYSIS_PROFILE_IO_H

#include <stdint.h>

#include "analysis/experiment.h"

struct exp_io_event; /* experiment_internal.h */

/* In the order of the I/O metrics (ioreadbytes, ioreadcnt, ioreadtime, ...). */
enum profile_io_fig {
	PROFILE_IO_READ_BYTES,
	PROFILE_IO_READ_CNT,
	PROFILE_IO_READ_TIME,
	PROFILE_IO_WRITE_BYTES,
	PROFILE_IO_WRITE_CNT,
	PROFILE_IO_WRITE_TIME,
	PROFILE_IO_OTHER_CNT,
	PROFILE_IO_OTHER_TIME,
	PROFILE_IO_ERROR_CNT,
	PROFILE_IO_ERROR_TIME,
	PROFILE_IO_FIGS
};

/*
 * A call's figures into v: a successful read its bytes, 1 and its duration
 * under READ_*, a write likewise under WRITE_*, a copy in the kernel the
 * bytes and a count under both and its duration once, as write time; any
 * other successful call OTHER_*; a failed call, whatever it was, ERROR_*.
 */
void profile_io_values(const struct exp_io_event *y, uint64_t v[PROFILE_IO_FIGS]);

#endif
