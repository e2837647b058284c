/*
 * experiment.h - one experiment directory read into memory: what log.xml,
 * map.xml and the binary data files say, checked and normalised.  The
 * public face of the experiment, for front ends (er_print, the analyzer)
 * and the rest of libanalysis.
 *
 * experiment_open never trusts its input: a missing or corrupt file gives a
 * negative errno and a message in *ret_err (-EPERM for a log.xml or map.xml
 * that declares entities or names an external DTD: see xmlsafe.h, which
 * every XML file goes through); damage that leaves the rest usable
 * (unclosed XML of a collection that did not finish, torn or bad blocks,
 * malformed records, events naming unknown stacks) becomes a message in
 * the header's problems and the rest is used.  Every file of the experiment is
 * opened with common/regfile.h's regfile_open_in: a regular file inside the
 * directory only (a FIFO, a device or a link out of it is refused, without
 * blocking), no longer than its ceiling and not sparse (log.xml, map.xml,
 * processes.xml 256 MiB, notes 1 MiB, data files zdata.h's); a refused
 * log.xml or map.xml ends the read, a refused data file, notes or
 * processes.xml is a message in the problems.  Not thread-safe.
 *
 * `struct experiment` is opaque, as sqlite3.h's and libbpf.h's handles
 * are: a front end reads it through the accessors below, which return
 * read-only views owned by the experiment (valid until experiment_free):
 * its log (what log.xml says, struct exp_log), the header model (what
 * er_print -header prints beyond the log: name, notes, the collector's
 * warnings and errors, the reader's problems, the format version, which
 * data it holds), its threads, load objects, call stacks, sample points and
 * the founder's processes.  The events of each data type (clock samples,
 * heap, synchronization, I/O and counter events) are not part of this
 * header: they are rows of per-type tables (experiment_internal.h, read
 * by the metric sources and report models inside libanalysis), so adding a
 * data type adds a reader, a table and a metric source and changes no
 * struct here.  experiment_internal.h and exp_read.h are libanalysis's
 * alone (scripts/layers-check.sh keeps front ends out of them).
 */
#ifndef ANALYSIS_EXPERIMENT_H
#define ANALYSIS_EXPERIMENT_H

#include <stddef.h>
#include <stdint.h>

#include "experiment/format.h"

struct exp_sample_ctx; /* experiment/record.h */

enum exp_obj_kind { EXP_OBJ_EXE, EXP_OBJ_LIB, EXP_OBJ_VDSO };

struct exp_segment {
	uint64_t vaddr, memsz, foffset;
	char prot[4];
};

struct exp_loadobj {
	uint32_t id;
	enum exp_obj_kind kind;
	char *path;                  /* absolute; for the vDSO, the image inside the experiment */
	char *name;                  /* basename of the recorded path, e.g. "libc.so.6" or "[vdso]" */
	char *build_id;              /* hex, or NULL */
	uint64_t base;               /* load bias: ELF vaddr = pc - base */
	uint64_t load_ns, unload_ns; /* unload_ns 0 = still loaded at the end */
	struct exp_segment *segs;
	size_t nsegs;
};

struct exp_thread {
	uint32_t tid;
	uint32_t number;      /* 1, 2, ... in order of start (main thread first) */
	uint32_t creator_tid; /* 0 for the main thread */
	uint64_t start_pc;
	uint64_t start_ns, end_ns; /* end_ns 0 = no end recorded */
	uint64_t cpu_ns;           /* measured CPU time, valid if has_end */
	uint64_t wait_ns;          /* time runnable, waiting for a CPU (run queue), valid if has_wait */
	uint64_t sampled_ns;       /* sum of sample weights */
	uint64_t sampled_user_ns;  /* ... their user-mode parts (has_cpu_split) */
	uint64_t samples;
	unsigned has_start : 1, has_end : 1, has_wait : 1;
};

struct exp_callstack {
	uint64_t id;
	uint32_t flags; /* EXP_STACK_* */
	uint32_t nframes;
	uint64_t *pcs; /* leaf first */
	/*
	 * Per frame, the load object (index into objs) in force at the time of
	 * the events that use this stack, for frames whose address more than one
	 * object covered during the run (one unloaded, another loaded there);
	 * EXP_OBJ_BY_PC elsewhere.  NULL when no frame needs it.  Events of the
	 * same recorded stack at times when different objects were mapped use
	 * different copies of the stack (same id).
	 */
	uint32_t *objs;
	/*
	 * 0 for a recorded stack.  A view copy (analysis/profile_view.h): the
	 * copy of a recorded stack (same id, frames and objs) that the clock
	 * samples taken there with one runtime context use, so that a viewmode
	 * can show them apart; that context, as an index + 1 into
	 * experiment_contexts.
	 */
	uint32_t ctx;
};

#define EXP_OBJ_BY_PC UINT32_MAX

/* A sample point: the process's rusage then, why it was taken and its label. */
struct exp_sample_point {
	uint64_t ts_ns, number;
	uint64_t utime_ns, stime_ns, minflt, majflt, nswap, inblock, oublock;
	uint64_t msgsnd, msgrcv, nsignals, nvcsw, nivcsw, maxrss_kb;
	uint32_t reason;                      /* enum exp_sample_reason */
	char label[EXP_SAMPLE_LABEL_MAX + 1]; /* NUL-terminated; "" for none (format 1.6 and before) */
};

/*
 * A counter of counter overflow profiling (collect -h), from log.xml's
 * <hwcounter>: each overflow stands for `interval` events.
 */
struct exp_hwc_counter {
	char *name;        /* as given to collect: "page-faults", "insts", "perf::CS" */
	uint64_t interval; /* events per overflow */
	uint32_t type;     /* perf_event_attr type and config */
	uint64_t config;
	int time_ns; /* it counts nanoseconds (task-clock, cpu-clock): shown as time */
};

struct exp_rusage {
	int valid;
	uint64_t utime_ns, stime_ns, maxrss_kb, minflt, majflt, inblock, oublock, nvcsw, nivcsw;
};

/* A line of the founder's processes.xml: one process of the run. */
/* How a process of processes.xml ended, as others saw it (format 1.11). */
enum exp_proc_end {
	EXP_PROC_END_NONE,
	EXP_PROC_END_REAPED,  /* <reaped>: its parent waited for it (status, CPU time) */
	EXP_PROC_END_RUNNING, /* <running>: still running when the target ended (CPU time so far) */
};

struct exp_process {
	uint32_t pid, ppid;
	char *lineage; /* "" for the founder, "_f1_x1", ... ("_x?" when not known) */
	char *origin;  /* fork, exec, clone, spawn, raw clone; "unrecorded" (no collector saw it) */
	int followed;  /* 1: it has a subexperiment */
	char *reason;  /* why not, or NULL */
	char *path;    /* its program */
	char *command; /* its arguments joined by spaces (cut when long) */
	uint64_t tstamp_ns;
	enum exp_proc_end end;
	int wait_status; /* EXP_PROC_END_REAPED: as wait(2) gave it */
	uint64_t cpu_ns; /* user + system: at its end (with the children it reaped), or so far */
	uint64_t end_tstamp_ns;
};

struct exp_log {
	char *collector_version;
	char *target_path;
	char **argv;
	size_t argc;
	char *host, *os, *release, *arch;
	uint32_t cpus, clock_mhz;
	uint64_t pagesize, pages;
	char *cwd;
	uint32_t wordsize;
	char *lineage;      /* <process lineage>: NULL for a founder, "_f1_x1" for a descendant */
	char *origin;       /* how a descendant began: fork, exec, clone, spawn */
	char *follow;       /* <params follow>: -F as given, NULL when not recorded */
	char *first_expiry; /* <collector_start first_expiry>: "uniform", or NULL (older collectors) */
	int sync_on;        /* <collector_start sync="on">: synchronization wait tracing (collect -s) */
	uint64_t sync_threshold_ns;      /* the least wait recorded */
	char *sync_mode;                 /* "calibrated", "fixed", "all", or NULL */
	uint64_t sync_waits, sync_calls; /* <collector_end>: waits recorded, calls that blocked */
	struct exp_hwc_counter hwc[EXP_HWC_MAX_COUNTERS]; /* <hwcounter id=k>, k < nhwc */
	size_t nhwc;
	uint64_t hwc_overflows, hwc_lost, hwc_open_failures; /* <collector_end hwc_*> */
	char *clock_mode;                                    /* "on", "off", "hi", "lo", "5", ... */
	uint64_t clock_interval_us;
	uint64_t effective_interval_us;
	char *duration;
	uint32_t depth_limit;
	char *descriptor;
	char *mechanism;
	char *cpu_split; /* <collector_start cpu_split>: "rusage_thread", "none", or NULL (before 1.10) */
	char **comments;
	size_t ncomments;
	uint64_t start_ns, realtime_ns; /* <start> */
	uint32_t pid, ppid;
	uint64_t samples_recorded, samples_dropped;
	uint64_t signals; /* sampling signals the collector handled (0: not reported) */
	/* The data files stopped (disk full, quota, ...): <warning id="data_lost">, <collector_end lost_*> */
	struct exp_loss {
		int stopped;        /* recording stopped at since_ns */
		int counted;        /* the counts below are known (the collector ended normally) */
		uint64_t since_ns;  /* CLOCK_MONOTONIC, as start_ns */
		char *errno_name;   /* "ENOSPC", "EDQUOT", ... */
		uint64_t samples;   /* clock samples not recorded */
		uint64_t sample_ns; /* ... and the CPU time they stood for */
		uint64_t heap;      /* heap calls not recorded */
		uint64_t sync;      /* synchronization waits not recorded */
		uint64_t records;   /* thread and sample-point records not recorded */

		/* errno_name EFBIG at the file size limit (RLIMIT_FSIZE): that limit; else 0 */
		uint64_t fsize_limit_bytes;
	} lost;
	int has_exit;
	int exit_status; /* valid if has_exit and exit_signal == 0 */
	int exit_signal; /* 0 = exited normally */
	char *exit_signame;
	int core_dumped;
	uint64_t exit_ns, end_ns;
	struct exp_rusage rusage;
	char **exec_paths; /* <exec path>: the program this image exec'd into */
	size_t nexecs;
	int ended_unseen;   /* collect closed it: the process ended without its collector seeing it */
	int exit_by_parent; /* has_exit from its parent's wait (the founder's processes.xml), not its own log */
	int complete;       /* </experiment> was seen */
};

/* The experiment handle (experiment_internal.h); read it through the functions below. */
struct experiment;

/* What -header prints beside the log (experiment_header).  Strings owned by the experiment. */
struct exp_header {
	const char *path;      /* as given to experiment_open */
	const char *name;      /* basename, e.g. "test.1.er" */
	const char *notes;     /* contents of the notes file, or NULL */
	char *const *warnings; /* the collector's <warning>s from log.xml */
	size_t nwarnings;
	char *const *problems; /* what the reader found damaged or missing (and worked around) */
	size_t nproblems;
	char *const *errors; /* collector errors */
	size_t nerrors;
	uint16_t format_major,
		format_minor; /* the newest of its data files' format versions (0.0: none read) */
	uint64_t duration_ns; /* end (or last event) minus start */
	int has_heap, has_sync, has_io,
		has_hwc;   /* its heaptrace, synctrace, iotrace, hwctrace file was present */
	int has_cpu_split; /* the clock samples carry their user/system split (format 1.10) */
};

/* Fill *ret with x's header model. */
void experiment_header(const struct experiment *x, struct exp_header *ret);

/* What x's log.xml says. */
const struct exp_log *experiment_log(const struct experiment *x);

/* Its path as given to experiment_open, its name (the basename), its duration (end or last event minus start). */
const char *experiment_path(const struct experiment *x);
const char *experiment_name(const struct experiment *x);
uint64_t experiment_duration_ns(const struct experiment *x);

/* How many threads it has, and thread i (< that count) of them. */
size_t experiment_thread_count(const struct experiment *x);
const struct exp_thread *experiment_thread(const struct experiment *x, size_t i);

/* The experiment's threads, sorted by number (index i is thread number i + 1); their count in *ret_n. */
const struct exp_thread *experiment_threads(const struct experiment *x, size_t *ret_n);

/* Its load objects (stacks' objs index them); their count in *ret_n. */
const struct exp_loadobj *experiment_objects(const struct experiment *x, size_t *ret_n);

/*
 * Its call stacks, indexed as events name them, the reader's "unknown" and
 * "process exit" stacks last (experiment_open); their count in *ret_n.
 */
const struct exp_callstack *experiment_stacks(const struct experiment *x, size_t *ret_n);

/* How many call stacks it has, and stack i (< that count) of them. */
size_t experiment_stack_count(const struct experiment *x);
const struct exp_callstack *experiment_stack(const struct experiment *x, size_t i);

/*
 * The runtime contexts its clock samples were taken in (EXP_REC_CLOCK_CTX:
 * what an OpenMP, MPI or Java runtime said of the thread), each once;
 * their count in *ret_n.  A sample's or a view copy's ctx k > 0 is
 * element k - 1.
 */
const struct exp_sample_ctx *experiment_contexts(const struct experiment *x, size_t *ret_n);

/* Its sample points, in time order; their count in *ret_n. */
const struct exp_sample_point *experiment_sample_points(const struct experiment *x, size_t *ret_n);

/* The founder's processes.xml lines (none in a subexperiment); their count in *ret_n. */
const struct exp_process *experiment_processes(const struct experiment *x, size_t *ret_n);

/*
 * Read the experiment directory at `path`.  On failure returns -errno and,
 * if ret_err is not NULL, a malloc'd message naming the file and the problem.
 */
int experiment_open(const char *path, struct experiment **ret, char **ret_err);

/*
 * As experiment_open, reading log.xml, map.xml and processes.xml only (no
 * threads, events, stacks or heap calls): what er_archive needs, in
 * milliseconds even for an experiment of millions of heap calls.
 */
int experiment_open_maps(const char *path, struct experiment **ret, char **ret_err);

/*
 * As experiment_open_maps, plus the stacks file (exp->stacks: every call
 * stack a clock sample or a heap call recorded, sorted by id, without the
 * "unknown" stack experiment_open adds); no threads, events, samples or heap
 * calls are read.  The stacks file holds each distinct stack once, so this
 * stays cheap however many events there were: what er_archive needs to know
 * which load objects the reports will read (experiment_used_objects).
 */
int experiment_open_stacks(const char *path, struct experiment **ret, char **ret_err);

/*
 * Mark in ret_used[0..exp->nobjs) every load object that a frame of one of
 * exp's stacks lies in, as reports resolve frames: the leaf at its PC, a
 * return address at PC - 1, in the object the frame is pinned to
 * (exp_callstack.objs) or else in every object that covered the address
 * during the run (one unless a library was unloaded and another loaded
 * over it; after experiment_open_stacks, which reads no event times, a frame
 * there marks each of them).  Returns the number of objects marked, or -ENOMEM.
 */
long experiment_used_objects(const struct experiment *exp, uint8_t *ret_used);

/* 1 if lo is the collector's own library (libcollector*.so), whose frames reports drop. */
int experiment_is_collector_object(const struct exp_loadobj *lo);

/*
 * The subexperiments of descendant processes inside the founder experiment
 * at `path` (its "_*.er" directories that hold a log.xml; a symbolic link
 * to a directory elsewhere is not one of them), as malloc'd paths
 * in *ret (free each and the array); sorted by name.  Returns their count
 * (0 for an experiment that is itself a subexperiment) or -errno.
 */
int experiment_descendants(const char *path, char ***ret);

/*
 * When exp's data files stopped early (disk full, quota, ...): write one
 * line saying when, why and what was not recorded into buf and return 1;
 * else return 0.
 */
int experiment_loss_line(const struct experiment *exp, char *buf, size_t room);

/* 1 if the directory name is a subexperiment's ("_" LINEAGE ".er"). */
int experiment_is_subexp_name(const char *name);

/* The lineage of a subexperiment's parent process: "_f1" for "_f1_x1", "" for "_f1". */
void experiment_parent_lineage(const char *lineage, char *ret, size_t room);
void experiment_free(struct experiment *exp);

/*
 * The load object covering run-time address pc, or NULL; where objects
 * loaded one after the other covered it, the latest.  Prefer
 * experiment_frame_object for a frame of a stack.
 */
const struct exp_loadobj *experiment_find_object(const struct experiment *exp, uint64_t pc);

/* The load object covering pc at time ts_ns (the one in force then, else the nearest in time), or NULL. */
const struct exp_loadobj *experiment_find_object_at(const struct experiment *exp, uint64_t pc,
						    uint64_t ts_ns);

/* The load object of frame i of stack cs at address pc (pc or pc - 1 of cs->pcs[i]), or NULL. */
const struct exp_loadobj *experiment_frame_object(const struct experiment *exp,
						  const struct exp_callstack *cs, size_t i, uint64_t pc);

#endif
