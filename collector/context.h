/*
 * context.h - a thread's sample context: what a runtime (OpenMP, MPI, Java;
 * through pa_trace_api's context_set) says the thread is doing, so that each
 * clock sample the thread takes carries it (an EXP_REC_CLOCK_CTX record).
 * With no context set, samples are CLOCK records as they always were.
 *
 * The writer is the thread itself and the reader its own sampling signal
 * handler, which may interrupt the writer: the context is double-buffered
 * (the writer fills the slot the reader does not use, then flips the index),
 * so a sample sees the old context or the new one, never half of each.
 * Both are SIGNAL_SAFE and take no lock.
 */
#ifndef COLLECTOR_CONTEXT_H
#define COLLECTOR_CONTEXT_H

#include "experiment/record.h"

/* The calling thread's context from now on; NULL or runtime EXP_RUNTIME_NONE: none. SIGNAL_SAFE. */
void col_context_set(const struct exp_sample_ctx *c);

/* The calling thread's context into *ret (runtime EXP_RUNTIME_NONE: none). SIGNAL_SAFE. */
void col_context_get(struct exp_sample_ctx *ret);

#endif
