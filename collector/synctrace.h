/*
 * synctrace.h - synchronization wait tracing (collect -s) as a collector
 * tracer (tracer.h): each call to a synchronization function that blocked
 * at least the threshold, as libcollector-sync.so reports it through
 * trace_api.h, becomes an EXP_REC_SYNC record of the synctrace file (format
 * 1.3) with the calling thread's stack.  Each thread appends through its own
 * TLS cursor; after a thread's end each of its records gets a block of its
 * own.
 *
 * Watched objects: an object that took a recorded wait (a mutex, rwlock,
 * semaphore, spin lock or C11 mutex: the objects a call takes) is watched
 * from then on, in a fixed table of SYNC_WATCH_MAX objects per process
 * (lock-free open addressing; when it is full, further objects are not
 * watched and counted as such).  Every call that takes a watched object,
 * waiting or not, is counted exactly, and 1 in EXP_SYNC_ACQ_SAMPLE_EVERY of
 * each thread's such calls (the first, the 17th, ...) is recorded as a
 * SYNC_ACQ record with its stack.  When collection stops, a SYNC_COUNT
 * record gives each watched object's exact count.
 *
 * Threshold (PA_PARAMS w=<us>; without it, calibrated when tracing starts):
 * six times the mean time of an uncontended pthread_mutex_lock/unlock pair
 * with the two clock reads the slow path makes around a wait (the Oracle
 * manual's rule: the calls' own time times a factor of 6), rounded up to
 * whole microseconds and at least 1 us.
 */
#ifndef COLLECTOR_SYNCTRACE_H
#define COLLECTOR_SYNCTRACE_H

#include <stdint.h>

#include "collector/tracer.h"

extern const struct col_tracer synctrace_tracer;

/* 1 while this process records synchronization waits. SIGNAL_SAFE. */
int synctrace_active(void);

/*
 * One call that blocked: func (enum exp_sync_func) on object, from start_ns
 * (CLOCK_MONOTONIC) for wait_ns, leaf_pc the libc function that waited.
 * Counted; recorded when wait_ns >= the threshold, unless the collector
 * itself runs on this thread, and then object is watched if func takes it.
 * Returns 1 when object is watched.  Keeps errno.  SIGNAL_SAFE.
 */
int synctrace_record(unsigned func, uint64_t object, uint64_t start_ns, uint64_t wait_ns, uint64_t leaf_pc);

/* trace_api.h's sync_acquired.  SIGNAL_SAFE. */
void synctrace_acquired(unsigned func, uint64_t object, uint64_t leaf_pc);

#endif
