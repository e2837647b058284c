/*
 * experiment_internal.h - what is behind the opaque struct experiment
 * (experiment.h): its members and the event structs of each data type.
 * Internal to libanalysis: the readers (exp_read.h) fill it, the metric
 * sources and report models read it; no front end includes it
 * (scripts/layers-check.sh).
 */
#ifndef ANALYSIS_EXPERIMENT_INTERNAL_H
#define ANALYSIS_EXPERIMENT_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/experiment.h"
#include "experiment/format.h"

enum exp_event_kind {
	EXP_EV_CLOCK = 0, /* a clock-profiling sample */
	EXP_EV_TAIL = 1,  /* CPU time after the thread's last sample, charged to that sample's stack */
};

struct exp_event {
	uint64_t ts_ns;
	uint64_t weight_ns;
	/*
	 * Of the weight, the time in user mode (format 1.10, when the
	 * experiment has_cpu_split; the rest is system time).  A TAIL's is
	 * its thread's sampled user share of the tail, rounded.
	 */
	uint64_t user_ns;
	uint32_t thread; /* index into threads */
	uint32_t stack;  /* index into stacks */
	uint32_t cpu;
	uint32_t kind; /* enum exp_event_kind */
	uint32_t ctx;  /* its runtime context: index + 1 into the CONTEXTS table, 0: none */
};

/*
 * A heap call (collect -H), from the heaptrace file.  `stack` is the stack
 * index of an allocating call (the "unknown" stack, the last one, when the
 * record named none or a stack the stacks file lacks), EXP_HEAP_NO_STACK for
 * a free/munmap.  op is enum exp_heap_op (experiment/format.h); addr 0 on an
 * allocating op is a failed call.  For realloc, old_addr is the block given
 * back (0: none) and addr/size the new block.
 */
#define EXP_HEAP_NO_STACK UINT32_MAX

struct exp_heap_event {
	uint64_t ts_ns; /* at most the writer's step (heap_time_step_ns) before the call */
	uint64_t seq;   /* the process-wide order of heap calls */
	uint64_t size_bytes;
	uint64_t addr, old_addr;
	uint32_t thread; /* index into threads */
	uint32_t stack;  /* index into stacks, or EXP_HEAP_NO_STACK */
	uint8_t op;
};

/*
 * A synchronization wait (collect -s), from the synctrace file: a call to
 * func (enum exp_sync_func) that began at ts_ns and waited wait_ns on the
 * object at `object` (the thread's handle for a join).  `stack` is the
 * stack index (the "unknown" stack when the record named one the stacks
 * file lacks); its leaf is the libc function that waited.
 */
struct exp_sync_event {
	uint64_t ts_ns;
	uint64_t wait_ns;
	uint64_t object;
	uint32_t thread; /* index into threads */
	uint32_t stack;  /* index into stacks */
	uint32_t func;
};

/*
 * A sampled acquisition (format 1.4): func took the watched object `object`
 * (one that had a recorded wait) at ts_ns, from stack (leaf: the libc
 * function).  1 in a watched object's sample_every of each thread's
 * acquisitions is sampled.
 */
struct exp_sync_acq_event {
	uint64_t ts_ns;
	uint64_t object;
	uint32_t thread; /* index into threads */
	uint32_t stack;  /* index into stacks */
	uint32_t func;
};

/* A watched object's exact acquisitions from its first recorded wait to the end (SYNC_COUNT). */
struct exp_sync_watch {
	uint64_t object;
	uint64_t acquisitions;
	uint64_t sample_every;
};

/*
 * An I/O call (collect -i on), from the iotrace file: func (enum exp_io_func)
 * began at ts_ns and lasted dur_ns; bytes a read or write transferred; err
 * the errno of a failed call (0: succeeded).  vfd: the descriptor's virtual
 * id (0 for none).
 */
struct exp_io_event {
	uint64_t ts_ns;
	uint64_t dur_ns;
	uint64_t bytes;
	uint32_t thread; /* index into threads */
	uint32_t stack;  /* index into stacks */
	uint32_t vfd;
	uint32_t err;
	uint16_t func;
	int32_t fd;
};

/*
 * A descriptor's life as the process saw it (an IO_FILE record): virtual id
 * vfd (1, 2, ... per process; a number reused after a close gets a new one),
 * the descriptor number (-1 for a failed open), how it came to be (enum
 * exp_io_how), the original of a duplicate (origin, else 0), and its name:
 * the path as opened, "<pipe>", "<socket>", an inherited descriptor's
 * /proc/self/fd link; a duplicate's is its origin's (resolved on reading).
 */
struct exp_io_fd {
	uint32_t vfd;
	int32_t fd;
	uint32_t origin;
	uint32_t how;
	char *name; /* never NULL; "" when unknown */
};

/* Overflows of a counter (collect -h), from the hwctrace file. */
struct exp_hwc_event {
	uint64_t ts_ns;
	uint64_t overflows; /* >= 1, each worth the counter's interval */
	uint32_t thread;    /* index into threads */
	uint32_t stack;     /* index into stacks */
	uint32_t counter;   /* index into log.hwc */
};

/*
 * The per-type data of an experiment: one table per kind of row (clock
 * samples, sample points, heap calls, synchronization waits, ...), filled
 * by the kind's reader (exp_read.h: exp_read_take_rows) and read by its
 * metric source and report models (EXP_ROWS, EXP_COUNT).  A table owns its
 * rows (one malloc'd array of `count` rows of `stride` bytes) and frees
 * them at experiment_free with `release` (what each row owns) and free,
 * so experiment_free is a loop over the tables and a data type is a table
 * id, not new members.
 */
enum exp_table_id {
	EXP_TABLE_CLOCK,    /* struct exp_event: clock samples and tails, sorted by time */
	EXP_TABLE_SAMPLES,  /* struct exp_sample_point: sample points, by time */
	EXP_TABLE_HEAP,     /* a struct exp_heap_pack (heap_pack.h): the calls, by seq (the order made in) */
	EXP_TABLE_SYNC,     /* struct exp_sync_event, by time */
	EXP_TABLE_SYNC_ACQ, /* struct exp_sync_acq_event, by time */
	EXP_TABLE_SYNC_WATCH, /* struct exp_sync_watch, by object; none when the process did not end normally */
	EXP_TABLE_IO,         /* struct exp_io_event, by time */
	EXP_TABLE_IO_FDS,     /* struct exp_io_fd, by vfd, one each */
	EXP_TABLE_HWC,        /* struct exp_hwc_event, by time */
	EXP_TABLE_CONTEXTS,   /* struct exp_sample_ctx: the clock samples' runtime contexts, each once */
	EXP_TABLE_BUILTIN,    /* the first id of a plugged-in reader's table (exp_read_register) */
	EXP_TABLE_MAX = EXP_TABLE_BUILTIN + 8,
};

struct exp_heap_pack;

/* The row type of each built-in table, for EXP_ROWS. */
typedef struct exp_event exp_table_row_CLOCK;
typedef struct exp_sample_point exp_table_row_SAMPLES;
typedef struct exp_heap_pack exp_table_row_HEAP; /* one, not rows: heap_pack.h */
typedef struct exp_sync_event exp_table_row_SYNC;
typedef struct exp_sync_acq_event exp_table_row_SYNC_ACQ;
typedef struct exp_sync_watch exp_table_row_SYNC_WATCH;
typedef struct exp_io_event exp_table_row_IO;
typedef struct exp_io_fd exp_table_row_IO_FDS;
typedef struct exp_hwc_event exp_table_row_HWC;
typedef struct exp_sample_ctx exp_table_row_CONTEXTS;

struct exp_table {
	void *rows; /* count rows of stride bytes, or NULL */
	size_t count;
	size_t stride;
	void (*release)(void *rows, size_t count); /* frees what the rows own (NULL: nothing) */
	int present; /* the data behind it was recorded (its data file is there, even damaged) */
};

/* Experiment x's rows of built-in table NAME (CLOCK, HEAP, ...), typed; their count; whether present. */
#define EXP_ROWS(x, NAME) ((exp_table_row_##NAME *)(x)->tables[EXP_TABLE_##NAME].rows)
#define EXP_COUNT(x, NAME) ((x)->tables[EXP_TABLE_##NAME].count)
#define EXP_PRESENT(x, NAME) ((x)->tables[EXP_TABLE_##NAME].present)

struct experiment {
	char *path; /* as given */
	char *name; /* basename, e.g. "test.1.er" */
	struct exp_log log;
	char **warnings; /* the collector's <warning>s from log.xml */
	size_t nwarnings;
	char **problems; /* what the reader found damaged or missing (and worked around) */
	size_t nproblems;
	char **errors; /* collector errors */
	size_t nerrors;
	char *notes; /* contents of notes, or NULL */
	struct exp_loadobj *objs;
	size_t nobjs;
	struct exp_thread *threads; /* sorted by number */
	size_t nthreads;
	struct exp_callstack *stacks;
	size_t nstacks;
	/*
	 * Two stacks the reader adds after the file's (no frames): "unknown",
	 * for events whose stack is missing, and "process exit", for the CPU
	 * time a process used after its collector's end (profile_process_ends):
	 * their indexes (nstacks when absent).
	 */
	uint32_t unknown_stack, exit_stack;
	struct exp_process *procs; /* the founder's processes.xml (none in a subexperiment) */
	size_t nprocs;
	uint16_t format_major,
		format_minor; /* the newest of its data files' format versions (0.0: none read) */
	struct exp_table tables[EXP_TABLE_MAX]; /* the per-type rows, by enum exp_table_id */
	uint64_t duration_ns;                   /* end (or last event) minus start */
	/*
	 * The clock samples carry their user/system split (format 1.10,
	 * <collector_start cpu_split="rusage_thread">, or a CLOCK record with
	 * user_ns).  0: only their total CPU time is known.
	 */
	int has_cpu_split;
};

/* Experiment x's table `id` (enum exp_table_id, or an id exp_read_register gave); NULL past EXP_TABLE_MAX. */
const struct exp_table *experiment_table(const struct experiment *x, int id);

/*
 * experiment.c, for exp_open.c: a new experiment for directory path
 * (trailing slashes dropped), 0 or -errno with *ret_err; its log.xml,
 * map.xml, processes.xml and notes file read into it, 0 or -errno with
 * *ret_err; *ret_err = "PATH: text" when the caller wants it (ret_err not
 * NULL); a problem (exp->problems), formatted.
 */
int experiment_new(const char *path, struct experiment **ret, char **ret_err);
int experiment_read_xml(struct experiment *exp, char **ret_err);
void experiment_set_err(char **ret_err, const char *path, const char *text);
void experiment_vwarnf(struct experiment *exp, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
void experiment_warnf(struct experiment *exp, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The descriptor whose virtual id is vfd (I/O tracing), or NULL if none. */
const struct exp_io_fd *experiment_io_fd(const struct experiment *exp, uint32_t vfd);

#endif
