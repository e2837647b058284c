/*
 * trace_api.h - the one door from libcollector-heap.so and
 * libcollector-sync.so and libcollector-io.so (and any later tracing library) into libcollector.so: pa_collector_trace_api() returns a
 * table of functions.  The tracing library looks the function up with
 * dlsym(RTLD_DEFAULT) and calls nothing else of libcollector.so.
 *
 * The functions are cheap, never allocate and never call what they could be
 * called from (malloc, free, mmap, ...).  heap_record and heap_stamp are
 * SIGNAL_SAFE; heap_active and sync_active are too once the collector has
 * started (before, they start it: a library constructor that allocates or
 * locks before ours has run).  sync_record is SIGNAL_SAFE.
 */
#ifndef COLLECTOR_TRACE_API_H
#define COLLECTOR_TRACE_API_H

#include <stdint.h>

#include "experiment/record.h"

/*
 * A tracing library uses the table only when its version is exactly this one
 * (a library of another build traces nothing rather than misread a table):
 * any change of the table or of struct pa_io_call increments it.  6: the
 * close race (io_vfd, pa_io_call's vfd); 7: context_set.
 */
#define PA_TRACE_API_VERSION 7u

/* One I/O call made by the program (collect -i), as libcollector-io.so saw it. */
struct pa_io_call {
	unsigned func;     /* enum exp_io_func */
	int fd;            /* the descriptor (an open's, socket's, accept's or dup's result); -1 for none */
	int fd2;           /* pipe, socketpair: the second end; dup, dup2, dup3: the original; else -1 */
	int err;           /* errno when the call failed, else 0 */
	int failed;        /* the call failed */
	uint64_t bytes;    /* a read's or write's result, else 0 */
	uint64_t start_ns; /* CLOCK_MONOTONIC */
	uint64_t dur_ns;
	uint64_t leaf_pc; /* the libc function called */
	const char *path; /* an open's path as given, else NULL */
	/*
	 * close, fclose: fd's virtual id before the real call (io_vfd), so that
	 * the record ends that id and not one another thread's open gave the
	 * same number in between; 0: not known (then the id at record time).
	 */
	uint32_t vfd;
};

struct pa_trace_api {
	uint32_t version; /* PA_TRACE_API_VERSION */
	/* 1 while this process collects with heap tracing on (collect -H on). */
	int (*heap_active)(void);
	/*
	 * Record one heap call that succeeded: op (enum exp_heap_op), size in
	 * bytes, the block's address, realloc's old address (else 0).  Frees and
	 * munmaps carry no stack; the others get the calling thread's stack.
	 * Calls made while the collector itself runs on this thread are ignored.
	 * stamp: the call's place in the process-wide order (heap_stamp()), or
	 * 0 to take it now.
	 */
	void (*heap_record)(unsigned op, uint64_t size, uint64_t addr, uint64_t old_addr, uint64_t stamp);
	/*
	 * The next place in the process-wide order of heap calls: a call that
	 * gives a block back (realloc, munmap) takes it before the real call,
	 * so that no other thread's record of the same address can come first.
	 */
	uint64_t (*heap_stamp)(void);
	/* 1 while this process collects with synchronization wait tracing on (collect -s). */
	int (*sync_active)(void);
	/*
	 * One call that blocked: func (enum exp_sync_func) on object, from
	 * start_ns (CLOCK_MONOTONIC) for wait_ns; leaf_pc: the libc function
	 * that waited.  Recorded with the calling thread's stack when the wait
	 * reaches the threshold; counted in any case.  Keeps errno.  Returns 1
	 * when object is watched (from its first recorded wait on, its
	 * acquisitions are counted: call sync_acquired for each), else 0.
	 */
	int (*sync_record)(unsigned func, uint64_t object, uint64_t start_ns, uint64_t wait_ns,
			   uint64_t leaf_pc);
	/*
	 * func took object (returned 0), with or without a wait; leaf_pc: the
	 * libc function that took it.  Counted when object is watched, and 1
	 * in EXP_SYNC_ACQ_SAMPLE_EVERY of a thread's such calls recorded with
	 * the stack.  Cheap when it is not watched.  Keeps errno.
	 * SIGNAL_SAFE.
	 */
	void (*sync_acquired)(unsigned func, uint64_t object, uint64_t leaf_pc);
	/* 1 while this process collects with I/O tracing on (collect -i on). */
	int (*io_active)(void);
	/* Record one I/O call (successful or not) with the calling thread's stack.  Keeps errno. */
	void (*io_record)(const struct pa_io_call *c);
	/*
	 * fd's virtual id now (one is made, named by /proc/self/fd, for a
	 * descriptor not met before), 0 when none can be (not tracing, a
	 * descriptor out of the table, the collector's own call).  Keeps errno.
	 */
	uint32_t (*io_vfd)(int fd);
	/*
	 * The calling thread's sample context from now on (collector/context.h):
	 * a runtime library (OpenMP, MPI, Java support) says what the thread is
	 * doing, and each clock sample it takes carries that; NULL or runtime
	 * EXP_RUNTIME_NONE: none.  SIGNAL_SAFE.
	 */
	void (*context_set)(const struct exp_sample_ctx *c);
};

/* Exported by libcollector.so (collector/libcollector.map). */
const struct pa_trace_api *pa_collector_trace_api(void);

#endif
