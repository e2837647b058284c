/*
 * exp_read.h - the readers of an experiment's binary data files, one per
 * file, behind a table (internal to libanalysis; exp_open.c drives them).
 *
 * experiment_open reads the files in table order (exp_open.c): the stacks
 * file first, since the others name its stacks.  Each reader owns a state
 * block of state_bytes (zeroed) and:
 *   read     walks its file (df NULL: the file is absent or unreadable, which
 *            exp_open.c has already reported) into its state, taking
 *            threads from exp_read_thread and stacks from the shared table;
 *            damage is a warning (exp_read_warnf, exp_read_damage);
 *   finish   runs once every file is read and the threads are numbered:
 *            re-points its events at thread_order[old index], adds to the
 *            numbered threads what it knows of them, sorts its events and
 *            moves them into the experiment's table (exp_read_finish_rows,
 *            which does all three, or exp_read_take_rows);
 *   release  frees whatever the state still holds (after finish, or on an
 *            error before it).
 * read and finish return 0 or -ENOMEM (a negative errno); a new data file is
 * one more reader in this table, its events one more table of struct
 * experiment (experiment_internal.h's enum exp_table_id).
 */
#ifndef ANALYSIS_EXP_READ_H
#define ANALYSIS_EXP_READ_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/experiment_internal.h"
#include "common/u64map.h"
#include "common/vec.h"
#include "experiment/datafile.h"
#include "experiment/format.h"

/* What the readers of one experiment share. */
struct exp_read {
	struct experiment *exp;
	VEC(struct exp_thread) threads; /* in order of first appearance, until numbered */
	/*
	 * The stacks file's stacks sorted by id, one copy of each, then one
	 * "unknown" stack at index nknown for events whose stack is missing;
	 * heap stack slots mapped to stack indexes.
	 */
	VEC(struct exp_callstack) stacks;
	size_t nknown;
	struct u64map slotmap;
};

/* The thread tid (added when new; NULL past the cap of 1,000,000 or on ENOMEM). */
struct exp_thread *exp_read_thread(struct exp_read *rd, uint32_t tid);

/* The index of the stack with this id among the known ones, else nknown ("unknown"). */
uint32_t exp_read_stack_index(const struct exp_read *rd, uint64_t id);

/*
 * Point each of n events at its stack: the uint32_t at byte `offset` of
 * event i (events `stride` bytes apart) becomes the index of stack ids[i]
 * (exp_read_stack_index); when some are not in the stacks file, one warning
 * "N <what> name a call stack that is not in the stacks file".
 */
void exp_read_set_stacks(struct exp_read *rd, const uint64_t *ids, size_t n, void *events, size_t stride,
			 size_t offset, const char *what);

/* A warning in the experiment's problems. */
void exp_read_warnf(struct exp_read *rd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Warn of df's torn bytes and damaged blocks and of bad_records malformed records. */
void exp_read_damage(struct exp_read *rd, const char *file, struct datafile *df, uint64_t bad_records);

/* 1 if the data file (as written, or compressed) exists, readable or not. */
int exp_read_present(const struct exp_read *rd, const char *file);

/*
 * Move the n rows at *rows (malloc'd, stride bytes each) into experiment
 * table id, which owns them from then on (release, or NULL, frees what each
 * row owns at experiment_free); *rows and *n become NULL and 0.
 */
void exp_read_take_rows(struct exp_read *rd, int id, void *rows, size_t *n, size_t stride,
			void (*release)(void *rows, size_t count));

/*
 * The readers' finishing: the uint32_t thread index at byte thread_offset of
 * each row becomes thread_order[that index], the rows are sorted with cmp
 * (NULL: kept in their order) and taken into table id (exp_read_take_rows).
 */
void exp_read_finish_rows(struct exp_read *rd, int id, void *rows, size_t *n, size_t stride,
			  size_t thread_offset, const uint32_t *thread_order,
			  int (*cmp)(const void *, const void *), void (*release)(void *rows, size_t count));

/* exp_read_finish_rows for a VEC of rows whose thread index is member `thread`. */
#define EXP_READ_FINISH_VEC(rd, id, vec, thread_order, cmp, release)             \
	exp_read_finish_rows((rd), (id), &(vec)->v, &(vec)->n, sizeof *(vec)->v, \
			     offsetof(__typeof__(*(vec)->v), thread), (thread_order), (cmp), (release))

struct exp_reader {
	const char *file; /* EXP_FILE_NAME_* */
	enum exp_file_kind kind;
	size_t state_bytes;
	int (*read)(struct exp_read *rd, void *st, struct datafile *df);
	int (*finish)(struct exp_read *rd, void *st, const uint32_t *thread_order);
	void (*release)(void *st);
};

/*
 * Plug in the reader of a data file that is not built in (a new data type,
 * from outside libanalysis): every experiment_open from then on runs it
 * after the built-in ones, in registration order, and its finish fills the
 * table whose id this returns (EXP_TABLE_BUILTIN and up; its present flag
 * is the reader's to set).  -EEXIST if a reader of that file is known,
 * -ENOSPC when every spare table is taken, -EINVAL without a file, read,
 * finish or release.  r must stay valid; not thread-safe.
 */
int exp_read_register(const struct exp_reader *r);

/* The stacks file's reader: fills rd->stacks and rd->slotmap; first in the table. */
extern const struct exp_reader exp_reader_stacks;
/* Clock samples and thread start/end records: table CLOCK, thread CPU times. */
extern const struct exp_reader exp_reader_profile;
/* Sample points (rusage snapshots): table SAMPLES. */
extern const struct exp_reader exp_reader_overview;
/* Heap calls (collect -H): table HEAP. */
extern const struct exp_reader exp_reader_heap;
/* Synchronization waits (collect -s): tables SYNC, SYNC_ACQ, SYNC_WATCH. */
extern const struct exp_reader exp_reader_sync;
/* I/O calls (collect -i on): tables IO, IO_FDS. */
extern const struct exp_reader exp_reader_io;
/* Counter overflows (collect -h): table HWC. */
extern const struct exp_reader exp_reader_hwc;

#endif
