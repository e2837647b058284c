/*
 * heap_pack.h - an experiment's heap calls held packed in memory, in the
 * order they were made (the HEAP table, experiment_internal.h), and read
 * back one by one.
 *
 * A heap experiment holds millions of calls (sqlite3's 300,000-row
 * workload: 7.6M); as 56-byte structs they took 425 MB and most of a
 * report's time went to zeroing that memory and sorting it.  Packed, a
 * call takes 7-10 bytes: a head byte (op, and whether the thread, the
 * time and the seq step are those of the previous call), then what is
 * not: varint thread, varint seq step, zigzag varint time step, varint
 * size, zigzag varint address step, for a realloc the zigzag varint of
 * old_addr - addr, and for an allocating call its stack index as 4
 * little-endian bytes, which exp_heap_iter_set_stack may rewrite in place
 * (the time-map's pinning, exp_timemap.c).
 *
 * The bytes are a sequence of runs, each coded from zero values (its
 * first head byte says so; heap_pack_restart starts one): the reader packs each heaptrace block
 * as it comes, then merges the runs by seq (read_heap.c).  Thread
 * indices are stored as read; thread_map (set when the threads are
 * numbered) gives the final ones.
 *
 * Not thread-safe; iterators over one pack may run side by side.
 */
#ifndef ANALYSIS_HEAP_PACK_H
#define ANALYSIS_HEAP_PACK_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/experiment_internal.h"

struct exp_heap_pack {
	uint8_t *bytes;
	size_t nbytes, cap;
	size_t count;               /* calls */
	const uint32_t *thread_map; /* stored index -> thread index, nthreads of them; NULL: as stored */
	size_t nthreads;
	struct exp_heap_event prev; /* the encoder's: the last call appended in this run */
	int restart;                /* the next call appended starts a run */
};

/* Append e, coded against the run's previous call.  0 or -ENOMEM. */
int heap_pack_append(struct exp_heap_pack *p, const struct exp_heap_event *e);

/* The next call appended starts a run: coded against zero values. */
void heap_pack_restart(struct exp_heap_pack *p);

/* Free what p holds (its thread_map included) and empty it. */
void heap_pack_release(struct exp_heap_pack *p);

struct exp_heap_iter {
	const struct exp_heap_pack *p;
	size_t pos;                 /* the next call's first byte */
	size_t left;                /* calls still to read */
	size_t stack_pos;           /* the last call's stack bytes, or SIZE_MAX */
	struct exp_heap_event prev; /* the last call read, stored thread index */
};

/* Iterate over all of p's calls (p may be NULL: none). */
void exp_heap_iter_begin(struct exp_heap_iter *it, const struct exp_heap_pack *p);

/* Iterate over one run: count calls from byte pos, where a run starts. */
void exp_heap_iter_run(struct exp_heap_iter *it, const struct exp_heap_pack *p, size_t pos, size_t count);

/* The next call into *ev: 1, or 0 at the end (bytes that end early end it too). */
int exp_heap_iter_next(struct exp_heap_iter *it, struct exp_heap_event *ev);

/* Rewrite the stack index of the call last read (an allocating one; else nothing). */
void exp_heap_iter_set_stack(struct exp_heap_iter *it, uint32_t stack);

#endif
