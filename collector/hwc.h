/*
 * hwc.h - counter overflow profiling (collect -h): per thread, one
 * perf_event_open(2) event per counter (pid 0's thread, cpu -1, no inherit)
 * with sample_period = the counter's interval, whose overflow signals
 * SAMPLER_SIGNAL to the thread itself (F_SETOWN_EX F_OWNER_TID, F_SETSIG,
 * O_ASYNC), so that the handler takes the stack of the thread that counted.
 * collect turned each counter name into perf_event_attr fields (libpfm4);
 * they come in PA_PARAMS (experiment/hwcdesc.h).  Only libc here.
 *
 * Each event has a ring buffer of its own (1 + 2 pages) in
 * which the kernel writes one header-only sample per overflow (or a LOST
 * record with the number it could not write): the handler counts the
 * records since its last visit, so overflows whose signals coalesced (a
 * standard signal is pending at most once; the clock sampler's is the same)
 * are still counted, each worth the interval.  The events are enabled for
 * good (PERF_EVENT_IOC_ENABLE, no refresh limit), so nothing needs re-arming
 * in the handler, and as with the clock sampler their descriptors are
 * closed once mapped: the mapping keeps each event, the signals keep the
 * number.
 *
 * threads.c calls hwc_thread_start/stop/forget with the clock sampler's,
 * and hwc_drain + hwc_record from its sampling-signal handler; the data
 * file, log.xml and collector_end counters are this module's tracer.
 */
#ifndef COLLECTOR_HWC_H
#define COLLECTOR_HWC_H

#include <signal.h>
#include <stdint.h>

#include "collector/blockw.h"
#include "collector/tracer.h"
#include "experiment/format.h"

struct hwc_thread {
	void *_Atomic ring[EXP_HWC_MAX_COUNTERS]; /* each counter's mapping, NULL: not open */
	int fd_num[EXP_HWC_MAX_COUNTERS];         /* the number its signals carry in si_fd, -1: none */
	int sig;                                  /* the signal they send (sampler_signal() at start) */
	/* the counters let go by hwc_thread_stop, whose signals may still come */
	int retired_fd[EXP_HWC_MAX_COUNTERS], retired_sig;
	struct blockw_cursor cur; /* this thread's hwctrace block */
};

/* 1 when this process records counters (the tracer is started). SIGNAL_SAFE. */
int hwc_active(void);

/*
 * Open and enable every counter for thread tid (the calling thread), their
 * overflows signalled with sampler_signal(); a counter that fails is
 * counted (hwc_open_failures) and the rest go on.  The descriptors stay
 * open until hwc_thread_started, so that the events the thread opens in
 * between (the clock sampler's) get other numbers: the number a signal
 * carries in si_fd is what tells whose it is.  SIGNAL_SAFE (the handler
 * moves a thread's counters to a new sampling signal: stop, then start).
 */
void hwc_thread_start(struct hwc_thread *h, uint32_t tid);
void hwc_thread_started(struct hwc_thread *h);

/* 1 if signal sig with si is the overflow signal of one of h's counters, or of one stopped. SIGNAL_SAFE. */
int hwc_owns(const struct hwc_thread *h, int sig, const siginfo_t *si);

/*
 * Count each counter's overflows since the last drain into counts[] (the
 * kernel's ring records, LOST ones included) and mark them read.  Returns
 * the total.  SIGNAL_SAFE.
 */
uint64_t hwc_drain(struct hwc_thread *h, uint64_t counts[EXP_HWC_MAX_COUNTERS]);

/*
 * Record counts[] (from hwc_drain) as HWC records of thread tid at
 * stack_id (0: counted as lost, no stack).  SIGNAL_SAFE.
 */
void hwc_record(struct hwc_thread *h, uint32_t tid, uint64_t now_ns, uint64_t stack_id,
		const uint64_t counts[EXP_HWC_MAX_COUNTERS]);

/*
 * Close the thread's counters (from any thread); overflows not yet drained
 * (the thread's last records' own, or a thread stopped by another) are
 * counted in hwc_at_end.  Their numbers stay known as retired.  SIGNAL_SAFE.
 */
void hwc_thread_stop(struct hwc_thread *h);

/* In a fork child: forget an inherited thread's counters (the child has no copy of them). */
void hwc_thread_forget(struct hwc_thread *h);

extern const struct col_tracer hwc_tracer;

#endif
