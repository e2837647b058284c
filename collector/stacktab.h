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

/* Forget every id (a fork child starts a stacks file of its own).  Single-threaded use only. */
void stacktab_reset(void);

/*
 * How many times the table was reset: a slot or id remembered under one
 * epoch names nothing under the next.  SIGNAL_SAFE.
 */
uint64_t stacktab_epoch(void);

/* 1 if id is in the table. SIGNAL_SAFE. */
int stacktab_contains(uint64_t id);

/* Add id (non-zero).  Returns 1 added, 0 already there, -ENOSPC full. SIGNAL_SAFE. */
int stacktab_insert(uint64_t id);

/*
 * The slot (table index) that holds id: stacktab_find_slot returns it or
 * -ENOENT; stacktab_insert_slot adds id if needed and returns its slot, or
 * -ENOSPC when the table is full.  A slot never changes its id, so it is the
 * process's compact name for the stack (heap records, EXP_REC_STACK_SLOT).
 * SIGNAL_SAFE.
 */
long stacktab_find_slot(uint64_t id);
long stacktab_insert_slot(uint64_t id);

/*
 * Claim the duty of writing slot's STACK_SLOT record: 1 for exactly one
 * caller per slot, 0 for every other.  stacktab_unclaim_slot gives the duty
 * back (the record could not be written).  SIGNAL_SAFE.
 */
int stacktab_claim_slot(uint32_t slot);
void stacktab_unclaim_slot(uint32_t slot);

#endif
