/*
 * report_sync.h - the synclocks report's model (er_print `synclocks`): the
 * synchronization objects of the selected experiments ranked by the time
 * threads waited on them (collect -s), each with the call stacks that
 * waited, largest wait first: mutrace's lock ranking, with stacks.  An
 * object is an address in one process (experiment); a join's object is the
 * thread joined.  Only waits at least the threshold long were recorded, so
 * a call that took the object without waiting is in no wait figure; but
 * from its first recorded wait on an object is watched (format 1.4): each
 * object then has its exact acquisition count and the sampled stacks that
 * took it, most frequent first.  Renderers print it; nothing here prints.
 */
#ifndef ANALYSIS_REPORT_SYNC_H
#define ANALYSIS_REPORT_SYNC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "analysis/profile.h"

/* One call stack's waits on an object. */
struct report_sync_waiter {
	uint32_t stack; /* stack index in the object's experiment */
	uint64_t wait_ns, waits;
};

/* How many acquiring stacks er_print shows per object (text and JSON). */
#define REPORT_SYNC_TOP_ACQUIRERS 3

/* One call stack's sampled acquisitions of an object. */
struct report_sync_acquirer {
	uint32_t stack; /* stack index in the object's experiment */
	uint64_t samples;
};

struct report_sync_object {
	size_t exp;      /* experiment index */
	uint64_t object; /* its address in that process */
	unsigned func;   /* enum exp_sync_func of its waits (the most frequent, if several) */
	uint64_t wait_ns, waits;
	struct report_sync_waiter *stacks; /* by wait_ns, then waits (largest first), then stack */
	size_t nstacks;
	/*
	 * Watched (its SYNC_COUNT record): acquisitions since its first
	 * recorded wait, in the whole process whatever the selection, and 1 in
	 * sample_every of each thread's sampled; else both 0.
	 */
	uint64_t acquisitions, sample_every;
	/* the sampled acquisitions of the selected threads and time, by stack: most first, then stack */
	struct report_sync_acquirer *acquirers;
	size_t nacquirers;
	uint64_t acq_samples; /* their sum */
};

/*
 * The objects waited on by the selected threads in the selected time, by
 * wait_ns, then waits (largest first), then experiment and address.
 * Returns their number with *ret malloc'd (NULL when 0; free with
 * report_sync_objects_free), or -ENOMEM.
 */
ssize_t report_sync_objects(const struct profile *p, struct report_sync_object **ret);
void report_sync_objects_free(struct report_sync_object *v, size_t n);

#endif
