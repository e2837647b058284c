/*
 * heaptrace.h - heap tracing (collect -H on) as a collector tracer
 * (tracer.h): each heap call that libcollector-heap.so reports through
 * trace_api.h becomes an event of the heaptrace file (experiment/heapstream.h),
 * with the calling thread's stack named by its stack-table slot.  Each
 * thread appends through its own TLS cursor; after a thread's end each of its
 * records gets a block of its own.
 */
#ifndef COLLECTOR_HEAPTRACE_H
#define COLLECTOR_HEAPTRACE_H

#include <stdint.h>

#include "collector/tracer.h"

extern const struct col_tracer heaptrace_tracer;

/* 1 while this process collects heap calls, paused too (frees are recorded then). SIGNAL_SAFE. */
int heaptrace_active(void);

/*
 * Record one heap call that succeeded (trace_api.h's heap_record): dropped
 * while the collector runs on this thread, counted when no block can be
 * claimed.  stamp 0: take one now.  Keeps errno.  SIGNAL_SAFE.
 */
void heaptrace_record(unsigned op, uint64_t size, uint64_t addr, uint64_t old_addr, uint64_t stamp);

/* The next number of the process-wide order of heap calls (1, 2, ...). SIGNAL_SAFE. */
uint64_t heaptrace_stamp(void);

#endif
