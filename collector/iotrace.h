/*
 * iotrace.h - I/O tracing (collect -i on) as a collector tracer (tracer.h):
 * each I/O call the program makes, as libcollector-io.so reports it through
 * trace_api.h, becomes an EXP_REC_IO record of the iotrace file (format 1.6)
 * with the calling thread's stack, preceded by an EXP_REC_IO_FILE record for
 * each descriptor the call brings to life (its virtual id and name).
 *
 * The descriptor table is a fixed array indexed by descriptor number (below
 * IOTRACE_FDS): each slot holds the current virtual id of that descriptor, 0
 * when none is known.  Ids come from one process-wide counter, so a number
 * reused after a close gets a new one.  A descriptor met before the program
 * opened it under tracing (stdin, an inherited one) gets an id and the
 * target of /proc/self/fd/N on first use.  Nothing allocates or locks.
 */
#ifndef COLLECTOR_IOTRACE_H
#define COLLECTOR_IOTRACE_H

#include "collector/trace_api.h"
#include "collector/tracer.h"

#define IOTRACE_FDS 65536

extern const struct col_tracer iotrace_tracer;

/* 1 while this process records I/O calls. SIGNAL_SAFE. */
int iotrace_active(void);

/*
 * Record one I/O call, unless the collector itself runs on this thread (its
 * own files).  Keeps errno.  SIGNAL_SAFE.
 */
void iotrace_record(const struct pa_io_call *c);

/*
 * fd's virtual id now, made (with its IO_FILE record) for a descriptor not
 * met before; 0 when not tracing, fd is out of the table or the collector
 * itself runs on this thread.  A close asks before the real call and passes
 * it as pa_io_call's vfd: the record then ends that id only, even if another
 * thread's open has been given the number since.  Keeps errno.  SIGNAL_SAFE.
 */
uint32_t iotrace_vfd(int fd);

#endif
