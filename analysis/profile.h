/*
 * profile.h - what er_print and the analyzer query: one or more experiments
 * aggregated, their events symbolized into functions and load objects, the
 * current thread selection, and the metrics computed over the selected events.
 *
 * Functions are merged across experiments by (load object path, function
 * address); pseudo-functions are <Total> (id PROFILE_FUNC_TOTAL), <Unknown>
 * (a PC outside every load object, or a stack that could not be read) and
 * <Truncated-stack> (the outermost frame of a stack cut by the depth limit or
 * an unwalkable frame), and one "@plt (<object>)" per load object for time in
 * the dynamic loader's lazy binding of that object's calls (a leaf PC inside
 * a PLT stub is dropped instead, charging the call instruction).  Each PC
 * resolves once (memoized per experiment).
 *
 * Metrics are vectors of the profile's registered metrics (see the metrics
 * registry below).  Values are integers: nanoseconds for times, counts, bytes.
 * Not thread-safe.  Errors are negative errno with a malloc'd message.
 */
#ifndef ANALYSIS_PROFILE_H
#define ANALYSIS_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "analysis/experiment.h"
#include "analysis/metrics.h"

struct profile;

/* METRIC_UNIT_RATIO: a value x METRIC_RATIO_SCALE, shown with 3 decimals and no percentage. */
enum metric_unit { METRIC_UNIT_TIME, METRIC_UNIT_COUNT, METRIC_UNIT_BYTES, METRIC_UNIT_RATIO };
#define METRIC_RATIO_SCALE 1000

/* How a metric may be shown (mspec flavors e, i, a). */
#define METRIC_FLAVOR_EXCL 0x1u
#define METRIC_FLAVOR_INCL 0x2u
#define METRIC_FLAVOR_ATTR 0x4u
#define METRIC_FLAVORS_ALL (METRIC_FLAVOR_EXCL | METRIC_FLAVOR_INCL | METRIC_FLAVOR_ATTR)

struct metric_def {
	const char *keyword;   /* "totalcpu" */
	const char *username;  /* "Total CPU Time" */
	const char *abbrev;    /* header words after "Excl."/"Incl."/"Attr.": "Total CPU" */
	enum metric_unit unit; /* values are integers: nanoseconds, counts, bytes */
	unsigned flavors;      /* METRIC_FLAVOR_* it can be shown as */
	const char *data_file; /* the experiment file whose reader provides it: "profile", "heaptrace" */
	int at_end;            /* 1: a state at the end of the run (leaks), charged as no event */
	/*
	 * A derived metric (unit METRIC_UNIT_RATIO): never charged; after the
	 * engines are filled each vector's element is ratio_num x
	 * METRIC_RATIO_SCALE / ratio_den (0 when that is 0), metrics of the
	 * registry named by keyword.  NULL for the charged metrics.  A ratio
	 * does not add up along stacks: sums outside the engines (exports,
	 * flame graphs, timelines) must refuse it.
	 */
	const char *ratio_num, *ratio_den;
};

/* ------------------------------------------------------------ metrics registry
 * The metrics of a profile are not fixed at compile time: each kind of data
 * registers a metric source (its metric definitions and how to charge their
 * values to call stacks), and a source's metrics join the profile's registry
 * when an experiment that has its data is added.  Metric k of the registry
 * is element k of every metric vector (profile_metrics, the PC, line and
 * object engines, profile_foreach_stack), sized from the registry when
 * profile_compute runs.  Indices never change once given: the registry
 * only grows, in order of first appearance (experiment by experiment, the
 * sources in the order they were registered).
 *
 * Built in (registered by profile_new, in this order):
 *   clock profiling ("profile" file): totalcpu, present in every experiment
 *     (every report's default list names it; 0 without clock data), hence
 *     always metric 0 once an experiment is added: PROFILE_METRIC_TOTALCPU;
 *   its user/system split (profile_cpusplit.c): user, system, only when
 *     some experiment has it (format 1.10, experiment.has_cpu_split);
 *   heap tracing ("heaptrace", collect -H on; semantics in profile_heap.h):
 *     heapalloccnt, heapallocbytes, heapleakcnt, heapleakbytes, only when
 *     some experiment has heap data.
 */
enum { PROFILE_METRIC_TOTALCPU = 0 };

/*
 * One charge of a source's metrics: values (one per metric of the source,
 * in the order of its defs) to a recorded stack of experiment x, made by a
 * thread.  event 1: an event at ts_ns (a clock sample, an allocation);
 * event 0: a state at the end of the experiment (a leak), not on a timeline.
 */
struct profile_charge {
	uint32_t stack;  /* index into the experiment's stacks */
	uint32_t thread; /* index into its threads */
	uint64_t ts_ns;  /* on the experiment's clock (exp_event.ts_ns); 0 when event is 0 */
	int event;
	const uint64_t *values;
};
typedef int (*profile_charge_fn)(void *arg, const struct profile_charge *c);

struct profile_metric_source {
	const char *needs; /* what collecting its data takes, for messages: "heap data (collect -H on)" */
	const struct metric_def *defs;
	size_t ndefs;
	/* 1 if experiment x of p has this source's data (its metrics join the registry). */
	int (*present)(const struct profile *p, size_t x, void *arg);
	/*
	 * Charge the data of selected experiment x that the current thread
	 * selection keeps (profile_thread_selected), calling fn once per charge
	 * (a charge whose values are all 0 may be skipped).  Returns 0, a
	 * negative errno, or fn's non-zero return.  Must not change the
	 * selection nor call profile_compute.
	 */
	int (*charge)(struct profile *p, size_t x, profile_charge_fn fn, void *fn_arg, void *arg);
	/*
	 * Optional, for profile_compute (NULL: charge is summed): add the same
	 * figures per stack, into sums[stack * stride + cols[k]] for metric k
	 * of the source.  0 or a negative errno.
	 */
	int (*sum)(struct profile *p, size_t x, uint64_t *sums, size_t stride, const size_t *cols, void *arg);
	void *arg;
};

/*
 * Register a metric source: its metrics join the registry now if an
 * experiment already added has its data, else when one is added.  src is
 * copied; src->defs (and their strings) and arg must stay valid as long as
 * the profile.  Returns 0; -EEXIST if a keyword is already some source's;
 * -EINVAL for a source without metrics, keyword, present or charge; -ENOMEM.
 */
int profile_metric_register(struct profile *p, const struct profile_metric_source *src);

/*
 * The registry: *ret_count metrics, indexed as the metric vectors.  Valid
 * until the next profile_add_experiment or profile_metric_register.
 */
const struct metric_def *profile_metric_defs(const struct profile *p, size_t *ret_count);

/* The index of the metric named keyword, or -1. */
long profile_metric_find(const struct profile *p, const char *keyword);

/*
 * For a keyword that a registered source defines but no experiment of p
 * provides (heapalloccnt without heap data): that source's `needs` text;
 * else NULL.  For messages: "heapalloccnt needs heap data (collect -H on)".
 */
const char *profile_metric_needs(const struct profile *p, const char *keyword);

enum pfunc_kind {
	/*
	 * A named frame with no object and no code: <Total>, <Unknown>,
	 * <Truncated-stack>, <Collector-overhead> (samples taken as the
	 * collector's own code returned), <Process-start> (a new image's CPU
	 * time before the collector could sample it), <Process-exit> (a
	 * process's CPU time after its collector's end), ids PROFILE_FUNC_TOTAL
	 * to PROFILE_FUNC_EXIT; and a runtime's states (<OMP-idle>,
	 * profile_pseudo_func).
	 */
	PFUNC_PSEUDO,
	PFUNC_SYMBOL,
	PFUNC_SYNTH,
	PFUNC_NOSYM,
	PFUNC_PLT,
	PFUNC_INLINE, /* a function inlined somewhere: no code of its own; addr/size 0 */
	PFUNC_OBJECT, /* a hidden load object's code as one function, "<libc.so.6>" */
};

#define PROFILE_FUNC_TOTAL 0u
#define PROFILE_FUNC_UNKNOWN 1u
#define PROFILE_FUNC_TRUNCATED 2u
#define PROFILE_FUNC_COLLECTOR 3u
#define PROFILE_FUNC_STARTUP 4u
#define PROFILE_FUNC_EXIT 5u
#define PROFILE_NO_OBJECT UINT32_MAX

struct pfunc {
	uint32_t id;
	enum pfunc_kind kind;
	const char *name;    /* long display name, e.g. "ns::C::f(int)", "<static>@0x271c1 (<libc.so.6>)" */
	const char *mangled; /* "" when none */
	/*
	 * The symbol version of a PFUNC_SYMBOL, "@@GLIBC_2.34" or "@GLIBC_2.2.5"
	 * (analysis/symver.h), else "": name and mangled never carry it.
	 * show_version: 1 when the last profile_compute found another function
	 * with data of the same name but another version, so that reports must
	 * show name + version to tell them apart.
	 */
	const char *version;
	int show_version;
	uint32_t obj;        /* PROFILE_NO_OBJECT for pseudo-functions */
	uint64_t addr, size; /* ELF virtual address in obj */
};

/* A PC: an instruction address in a load object (or a raw address). */
struct ppc {
	uint32_t id;
	uint32_t obj;   /* PROFILE_NO_OBJECT: vaddr is the raw run-time address */
	uint64_t vaddr; /* ELF virtual address in obj */
	uint32_t func;  /* the (outer, real) function containing it */
	uint32_t line;  /* its source line (id), as a call site for return addresses */
};

/* A source line of a function, or a function's code without line information. */
struct pline {
	uint32_t id;
	uint32_t func;    /* the function the line's code belongs to (inlined function in inline mode) */
	const char *file; /* NULL: instructions without line numbers */
	uint32_t line;
};

struct pobject {
	uint32_t id;
	const char *name;        /* basename, "[vdso]" */
	const char *path;        /* as recorded */
	const char *read_path;   /* the file its code is read from: path, or its copy in an archive */
	const char *symbol_file; /* where symbols came from, or NULL */
	const char *error;       /* why symbols could not be read, or NULL */
};

int profile_new(struct profile **ret);
void profile_free(struct profile *p);

/*
 * Read and add an experiment and, for a founder, the subexperiments of its
 * descendant processes (collect -F), each an experiment of its own, after
 * it in the order the processes started.  -errno and *ret_err (malloc'd)
 * when the experiment itself cannot be read; a descendant that cannot be
 * read becomes a problem of the founder (its header says so).
 */
int profile_add_experiment(struct profile *p, const char *path, char **ret_err);

/*
 * Which descendants profile_add_experiment reads (Oracle's en_desc): "on"
 * (every one, the default), "off" (none), or "=REGEX": those whose program's
 * file name (its path's last part, from the founder's processes.xml, else the
 * descendant's log.xml) matches the POSIX extended regular expression
 * anywhere.  It applies to the experiments added after it.  0, or -EINVAL
 * with *ret_err (malloc'd) and the mode unchanged.
 */
int profile_set_descendants(struct profile *p, const char *mode, char **ret_err);
size_t profile_experiment_count(const struct profile *p);
const struct experiment *profile_experiment(const struct profile *p, size_t i);

/* The index of experiment i's founder (i itself for a founder). */
size_t profile_experiment_founder(const struct profile *p, size_t i);
/* The index of the experiment of i's parent process, or -1 (a founder, or a parent not recorded). */
long profile_experiment_parent(const struct profile *p, size_t i);
/*
 * The shared time base of the loaded experiments: experiment i's start in ns
 * after the earliest start of them all (0 for that one, and for a single
 * experiment).  A descendant's start is its founder's wall-clock start
 * (log.xml <start realtime_ns>) plus the difference of their monotonic
 * starts (<start tstamp_ns>, one clock within a collect run); founders
 * compare by their wall-clock starts.  0 for an index out of range.
 */
uint64_t profile_experiment_offset_ns(const struct profile *p, size_t i);

/*
 * Experiment selection in the Oracle list syntax ("all", "1,3-5"), as
 * experiment_select: only the events of selected experiments count.
 * Returns 0, or -EINVAL with a message.
 */
int profile_select_experiments(struct profile *p, const char *spec, char **ret_err);
int profile_experiment_selected(const struct profile *p, size_t i);
/* The current experiment selection as text, "all" when everything is selected. */
const char *profile_experiment_selection(const struct profile *p);

/*
 * Thread selection in the Oracle syntax: "all", or a list of thread numbers
 * and ranges "1,3-5", optionally prefixed by experiment numbers and a colon
 * ("2:1-3", "1-2:4").  Returns 0, or -EINVAL with a message.
 */
int profile_select_threads(struct profile *p, const char *spec, char **ret_err);
/* 1 if the thread is selected and so is its experiment. */
int profile_thread_selected(const struct profile *p, size_t exp, size_t thread_index);
/* The current selection as text, "all" when everything is selected. */
const char *profile_thread_selection(const struct profile *p);

/*
 * Samples (collect -S, -l, -y, the collector API): sample k (from 1) of
 * experiment x is the interval from its sample point k-1 to point k; when
 * the last point does not end the collection (the process was killed), one
 * more sample runs from it to the experiment's end.  An experiment without
 * points has none.
 */
struct profile_sample {
	size_t number;                        /* k */
	uint64_t t0_ns, t1_ns;                /* relative to the experiment's start */
	const struct exp_sample_point *start; /* point k-1 */
	const struct exp_sample_point *end;   /* point k, NULL: the experiment's end */
	int paused;                           /* recording was paused from its start (a pause point, or -y) */
};
size_t profile_sample_count(const struct profile *p, size_t x);
/* Sample k of experiment x into *ret: 0, or -ENOENT. */
int profile_sample_get(const struct profile *p, size_t x, size_t k, struct profile_sample *ret);
/*
 * sample_select in the Oracle list syntax: "all", "1,3-5", or "EXPS:LIST"
 * for the experiments EXPS only (the others keep every sample).  Only the
 * events inside selected samples count, in every report; combined with the
 * other selections.  0, or -EINVAL with *ret_err (malloc'd) and the
 * selection unchanged.
 */
int profile_select_samples(struct profile *p, const char *spec, char **ret_err);
/* The current sample selection as given, "all" when there is none. */
const char *profile_sample_selection(const struct profile *p);
/* 1 if sample k of experiment x is selected. */
int profile_sample_selected(const struct profile *p, size_t x, size_t k);

/*
 * Time selection: only the events at times in [t0_ns, t1_ns) count, times
 * relative to each experiment's start (as report_rel_ns); t1_ns UINT64_MAX
 * has no end, and (0, UINT64_MAX), the default, selects every event.  It
 * filters what the metric sources charge: clock samples by their time, heap
 * allocations by the time of the call, leaks and temporary allocations by
 * the time of their allocation (the heap's live memory and peak stay those
 * of the whole run).  Combined with the experiment and thread selections.
 * Returns 0, or -EINVAL when t0_ns >= t1_ns (the selection is unchanged).
 * Recomputes on the next profile_compute.
 */
int profile_select_time(struct profile *p, uint64_t t0_ns, uint64_t t1_ns);
/*
 * Where the time selection's times count from: 0 (the default) each
 * experiment's own start, as above; 1 the shared time base, the earliest
 * experiment's start (profile_experiment_offset_ns), so that one range
 * [t0_ns, t1_ns) is the same wall-clock interval in every process.
 * Recomputes on the next profile_compute.
 */
void profile_set_time_shared(struct profile *p, int on);
/* The time selection into *t0_ns, *t1_ns; 1 if it is restricted, 0 for every event. */
int profile_time_selection(const struct profile *p, uint64_t *t0_ns, uint64_t *t1_ns);
/* 1 if time ts_ns (on experiment x's clock, as exp_event.ts_ns) is in the time selection (either base). */
int profile_time_selected(const struct profile *p, size_t x, uint64_t ts_ns);

/*
 * CPU selection (cpu_select) in the Oracle list syntax over CPU numbers as
 * recorded (from 0): "all", "0,2-3", or "EXPS:LIST" for the experiments
 * EXPS only.  Only clock-profiling events carry a CPU: while an
 * experiment's selection is other than "all" (even one naming every CPU
 * seen), its events without one (heap, synchronization, I/O, counter data)
 * are not counted, as with a filter naming CPU (filter.h).  CPU
 * numbers from PROFILE_MAX_CPU up are counted only under "all".  0, or
 * -EINVAL with *ret_err (malloc'd) and the selection unchanged.
 */
#define PROFILE_MAX_CPU 65536
int profile_select_cpus(struct profile *p, const char *spec, char **ret_err);
/* The current CPU selection as given, "all" when there is none. */
const char *profile_cpu_selection(const struct profile *p);
/* 1 if CPU cpu of experiment x is selected. */
int profile_cpu_selected(const struct profile *p, size_t x, uint32_t cpu);
/*
 * The CPUs experiment x's clock events were recorded on, ascending, with
 * their event counts, into *ret_cpus and *ret_counts (malloc'd, NULL for
 * none): their number, or -ENOMEM.
 */
ssize_t profile_cpus_seen(const struct profile *p, size_t x, uint32_t **ret_cpus, uint64_t **ret_counts);

/*
 * The filter expression (er_print `filters`, the language of filter.h):
 * only the events it passes count, in every report, combined with every
 * selection above.  "1", "all" or NULL clears it.  0, or -EINVAL with
 * *ret_err (malloc'd, naming the column) and the filter unchanged, or
 * -ENOMEM.
 */
int profile_set_filter(struct profile *p, const char *expr, char **ret_err);
/* The filter as given, or NULL when there is none. */
const char *profile_filter(const struct profile *p);

/*
 * THE event predicate of every metric source and report: 1 if an event of
 * experiment x, thread index `thread`, recorded on CPU cpu (PROFILE_NO_CPU
 * for data without one) at ts_ns (exp_event.ts_ns's clock) counts under
 * the experiment, thread, sample, CPU and time selections and the filter.
 * No allocation; cheap when nothing is selected away.
 */
#define PROFILE_NO_CPU UINT32_MAX
int profile_event_selected(const struct profile *p, size_t x, uint32_t thread, uint32_t cpu, uint64_t ts_ns);

/*
 * Inlined functions: 1 (default) shows each inlined call as a function of
 * its own, called from its call site; 0 folds inlined code into the function
 * it was inlined into.  Recomputes on the next profile_compute.
 */
void profile_set_inline(struct profile *p, int on);
int profile_inline(const struct profile *p);

/*
 * Load objects shown (their functions listed) or hidden (all their code is
 * one function named "<object>"), as er_print's object_show/object_hide.
 * Recomputes on the next profile_compute.
 */
void profile_set_object_shown(struct profile *p, uint32_t obj, int shown);
int profile_object_shown(const struct profile *p, uint32_t obj);

/*
 * (Re)compute the metrics if the selection changed.  0 or -ENOMEM.  The
 * engines it fills are flat (exclusive and inclusive values only).
 */
int profile_compute(struct profile *p);
const struct metrics *profile_metrics(const struct profile *p); /* function-level */
/*
 * The function-level engine with attributed edges and the call tree
 * (metrics_callers, metrics_tree_node), built on the first call after
 * profile_compute (which it runs): the lists do not pay for it.  Its
 * exclusive and inclusive values are profile_metrics'.  NULL with *err set
 * (negative errno) on failure.
 */
const struct metrics *profile_call_metrics(struct profile *p, int *err);
const struct metrics *profile_object_metrics(const struct profile *p); /* by load object id */

/* By PC and by line: the engine's id k + 1 is PC (line) k; 0 is <Total>. */
const struct metrics *profile_pc_metrics(const struct profile *p);
const struct metrics *profile_line_metrics(const struct profile *p);

size_t profile_pc_count(const struct profile *p);
const struct ppc *profile_pc(const struct profile *p, uint32_t id);
size_t profile_line_count(const struct profile *p);
const struct pline *profile_line(const struct profile *p, uint32_t id);

/* The id of the PC at ELF address vaddr of obj, if it was seen; else -1. */
int64_t profile_find_pc(const struct profile *p, uint32_t obj, uint64_t vaddr);

/* The symbols and the DWARF lines of an object (opened on first use; NULL if unreadable). */
struct symtab *profile_object_symtab(struct profile *p, uint32_t obj);
struct lines *profile_object_lines(struct profile *p, uint32_t obj);

size_t profile_func_count(const struct profile *p);
const struct pfunc *profile_func(const struct profile *p, uint32_t id);
size_t profile_object_count(const struct profile *p);
const struct pobject *profile_object(const struct profile *p, uint32_t id);

/*
 * Functions whose long name, or name without the parameter list, or mangled
 * name equals `name`, in id order; returns the count (may exceed max).  A
 * function is found by its name without the symbol version (every version
 * of it), or by name + version ("memcpy@@GLIBC_2.14": that version only).
 */
size_t profile_find_funcs(const struct profile *p, const char *name, uint32_t *ret_ids, size_t max);

/*
 * The function at run-time address pc of experiment `exp` at time ts_ns
 * (with the mapping in force then; e.g. a thread's start routine), resolved
 * like a leaf PC; NULL if the address is in no load object or memory ran out.
 */
const struct pfunc *profile_func_at(struct profile *p, size_t exp, uint64_t pc, uint64_t ts_ns);

/* 1 if some experiment traced the heap (has a heaptrace file). */
int profile_has_heap(const struct profile *p);

/* Selected events and their total weight (after the thread selection). */
uint64_t profile_selected_events(const struct profile *p);

/* ------------------------------------------------------------ call stacks
 * The seam for exporters (folded stacks now; pprof, speedscope, Firefox
 * Profiler, Chrome trace later): the recorded call stacks of the current
 * selection with their metrics, in analysis/profile_stacks.c.
 *
 * What is iterated: every call stack with a non-zero metric after the
 * current experiment and thread selection, resolved exactly as
 * profile_compute resolves it (inline setting, hidden objects, PLT rules,
 * the collector's own frames dropped, <Truncated-stack> outermost on a cut
 * stack, <Unknown> alone for a stack with no frame), as function ids of
 * profile_func.  A stack always has at least one frame.
 *
 * Frames are ROOT FIRST: frames[0] is the outermost function (main, or
 * <Truncated-stack>), frames[nframes - 1] the leaf, where the time was
 * spent or the allocation made.  Recursion repeats ids.
 *
 * Modes (struct profile_stacks_options.flags):
 *   0 (aggregate): one call per distinct frame sequence; recorded stacks of
 *     any experiment or thread that resolve to the same functions are
 *     merged (metrics summed).  exp = SIZE_MAX, thread = UINT32_MAX.
 *   PROFILE_STACKS_BY_THREAD: one call per distinct (experiment, thread,
 *     frame sequence); exp and thread (an index into that experiment's
 *     threads) are set.  Heap metrics go to the allocating thread.
 *   PROFILE_STACKS_BY_EVENT: one call per event, for timelines: each
 *     charge of a metric source that is an event (profile_charge.event),
 *     its values in the metric vector and the other metrics 0: a clock
 *     sample (totalcpu = its weight) or a heap allocation (heapalloccnt 1,
 *     heapallocbytes its size); exp, thread and ts_ns (on the experiment's
 *     clock, as exp_event.ts_ns) are set.  A leak is not an event (it is
 *     the state at the end): leak metrics are 0 here, use an aggregate mode
 *     for them.  Order: experiment by experiment; in each, source by source
 *     in registration order (the clock samples in time order, then the heap
 *     allocations in the order they were made).  Not one timeline: sort by
 *     ts_ns if needed.
 * In the aggregate modes the sum of metrics over all calls equals
 * metrics_total(profile_metrics(p)) for every registered metric; in
 * PROFILE_STACKS_BY_EVENT for the metrics charged as events (totalcpu,
 * heapalloccnt and heapallocbytes).
 *
 * Order (aggregate modes): by first occurrence: experiment index, then
 * recorded stack id, then thread index; deterministic for the same input
 * and settings.  Callers wanting another order sort.
 *
 * The callback gets a struct valid only during the call (copy what you
 * keep).  It may call the read-only queries (profile_func, profile_object,
 * profile_experiment, profile_metrics ...) but must not change the
 * selection, the inline mode or the objects shown, nor call
 * profile_compute.  A non-zero return stops the iteration and is returned.
 *
 * Returns 0 after the last call, the callback's non-zero return,
 * -EINVAL for an unknown flag or both split flags, -ENOMEM.  Calls
 * profile_compute first (its errors are returned).  No state is kept.
 */
struct profile_stack {
	const uint32_t *frames;  /* function ids, root first */
	size_t nframes;          /* >= 1 */
	const uint64_t *metrics; /* one value per registered metric (ns, counts, bytes) */
	size_t exp;              /* experiment index, or SIZE_MAX (aggregate) */
	uint32_t thread;         /* thread index in exp's threads, or UINT32_MAX (aggregate) */
	uint64_t ts_ns;          /* the event's time (PROFILE_STACKS_BY_EVENT), else 0 */
};

#define PROFILE_STACKS_BY_THREAD 0x1u
#define PROFILE_STACKS_BY_EVENT 0x2u

struct profile_stacks_options {
	unsigned flags; /* 0 or one PROFILE_STACKS_* */
};

typedef int (*profile_stack_fn)(const struct profile_stack *s, void *arg);

/* opts may be NULL (aggregate).  See above. */
int profile_foreach_stack(struct profile *p, const struct profile_stacks_options *opts, profile_stack_fn fn,
			  void *arg);

#endif
