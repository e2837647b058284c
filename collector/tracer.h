/*
 * tracer.h - what a tracing data type is to the collector: heap tracing
 * (heaptrace.c), synchronization wait tracing (synctrace.c), I/O tracing
 * (iotrace.c) and hardware counters (hwc.c) today, MPI tracing next.  A tracer
 * is one module exporting one `const struct col_tracer`, listed in
 * collector.c's tracers[] table; nothing else in the collector names it.
 *
 * collector.c runs every tracer's life cycle:
 *   - `param` is the tracer's key in PA_PARAMS (experiment/params.h names
 *     it: EXP_PARAMS_HEAP is "H=", the letter of collect's option -H);
 *   - when recording starts (the founder, or a followed descendant), it
 *     creates the tracer's data file `file_name` of kind `file_kind` in the
 *     experiment and calls start(file, params), params the decoded
 *     PA_PARAMS (its own keys: the sync threshold, the counters); a
 *     tracer never started (off, or the file could not be created)
 *     records nothing;
 *   - fork_child runs first in every fork or clone child, followed or not:
 *     forget the parent's cursors and counters (start follows if followed);
 *   - thread_end runs on the calling thread as it ends (its key destructor,
 *     under the collector's guard): give back its thread-local cursors;
 *   - stop runs once when collection stops (the process exits or execs),
 *     under the collector's guard, before log_end: write the records that
 *     sum up the run (synctrace's acquisition counts);
 *   - log_start adds attributes to <collector_start> after `<name>="on"`;
 *     log_more, when not NULL, then appends elements of its own;
 *     lost counts records lost after the data files stopped
 *     (`lost_<name>` in <collector_end>); log_end adds the tracer's counters
 *     to <collector_end>.  Both may run in a signal handler (SIGNAL_SAFE).
 * The recording entry points (heaptrace_record, synctrace_record) are the module's own,
 * called from its interposers; they record only while the tracer is
 * started and col_collecting(), under threads_guard_enter/leave, and take
 * call stacks with threads_trace_stack.
 */
#ifndef COLLECTOR_TRACER_H
#define COLLECTOR_TRACER_H

#include <stdint.h>

#include "collector/blockw.h"
#include "experiment/params.h"
#include "experiment/xmlw.h"

struct col_tracer {
	const char *name;             /* "heap": <collector_start heap="on|off">, lost_heap */
	enum exp_params_tracer param; /* its PA_PARAMS key: EXP_PARAMS_HEAP */
	const char *file_name;        /* its data file in the experiment: EXP_FILE_NAME_HEAP */
	uint32_t file_kind;           /* that file's kind: EXP_FILE_HEAP */
	void (*start)(struct blockw_file *file, const struct exp_params *params);
	void (*fork_child)(void);
	void (*thread_end)(void);
	void (*stop)(void);
	void (*log_start)(struct xmlw *w);
	void (*log_more)(void); /* optional: elements of its own after <collector_start> (logxml_append) */
	uint64_t (*lost)(void);
	void (*log_end)(struct xmlw *w);
};

#endif
