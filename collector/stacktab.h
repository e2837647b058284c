/*
 * stacktab.h - process-wide set of stack ids already written to the stacks
 * file, so each distinct stack is written once.
 *
 * A fixed open-addressing table of u64 ids in mmap'd memory, filled with
 * compare-and-swap and bounded probing: lock-free and SIGNAL_SAFE.  When the
 * table is full or the probe bound is hit, callers simply write the stack
 * again (the reader deduplicates by id).
 */
#ifndef COLLECTOR_STACKTAB_H
#define COLLECTOR_STACKTAB_H

#include <stdint.h>

/* Map the table (2^log2_slots ids).  Returns 0 or -errno.  Not signal-safe. */
int stacktab_init(unsigned log2_slots);

/* 1 if id is in the table. SIGNAL_SAFE. */
int stacktab_contains(uint64_t id);

/* Add id (non-zero).  Returns 1 added, 0 already there, -ENOSPC full. SIGNAL_SAFE. */
int stacktab_insert(uint64_t id);

#endif
