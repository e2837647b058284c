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
 * Metrics are vectors of PROFILE_METRIC_COUNT base metrics (see metric_def).
 * Values are integers: nanoseconds for times, counts, bytes.
 * Not thread-safe.  Errors are negative errno with a malloc'd message.
 */
#ifndef ANALYSIS_PROFILE_H
#define ANALYSIS_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/experiment.h"
#include "analysis/metrics.h"

enum metric_unit { METRIC_UNIT_TIME, METRIC_UNIT_COUNT, METRIC_UNIT_BYTES };

struct metric_def {
	const char *keyword;  /* "totalcpu" */
	const char *username; /* "Total CPU Time" */
	const char *abbrev;   /* header words after "Excl."/"Incl."/"Attr.": "Total CPU" */
	enum metric_unit unit;
};

enum { PROFILE_METRIC_TOTALCPU = 0, PROFILE_METRIC_COUNT = 1 };

/* The base metrics, indexed by PROFILE_METRIC_*. */
const struct metric_def *profile_metric_defs(size_t *ret_count);

enum pfunc_kind { PFUNC_TOTAL, PFUNC_UNKNOWN, PFUNC_TRUNCATED, PFUNC_SYMBOL, PFUNC_SYNTH, PFUNC_NOSYM, PFUNC_PLT };

#define PROFILE_FUNC_TOTAL 0u
#define PROFILE_FUNC_UNKNOWN 1u
#define PROFILE_FUNC_TRUNCATED 2u
#define PROFILE_NO_OBJECT UINT32_MAX

struct pfunc {
	uint32_t id;
	enum pfunc_kind kind;
	const char *name;    /* long display name, e.g. "ns::C::f(int)", "<static>@0x271c1 (<libc.so.6>)" */
	const char *mangled; /* "" when none */
	uint32_t obj;        /* PROFILE_NO_OBJECT for pseudo-functions */
	uint64_t addr, size; /* ELF virtual address in obj */
};

struct pobject {
	uint32_t id;
	const char *name; /* basename, "[vdso]" */
	const char *path;
	const char *symbol_file; /* where symbols came from, or NULL */
	const char *error;       /* why symbols could not be read, or NULL */
};

struct profile;

int profile_new(struct profile **ret);
void profile_free(struct profile *p);

/* Read and add an experiment; -errno and *ret_err (malloc'd) on failure. */
int profile_add_experiment(struct profile *p, const char *path, char **ret_err);
size_t profile_experiment_count(const struct profile *p);
const struct experiment *profile_experiment(const struct profile *p, size_t i);

/*
 * Thread selection in the Oracle syntax: "all", or a list of thread numbers
 * and ranges "1,3-5", optionally prefixed by experiment numbers and a colon
 * ("2:1-3", "1-2:4").  Returns 0, or -EINVAL with a message.
 */
int profile_select_threads(struct profile *p, const char *spec, char **ret_err);
int profile_thread_selected(const struct profile *p, size_t exp, size_t thread_index);
/* The current selection as text, "all" when everything is selected. */
const char *profile_thread_selection(const struct profile *p);

/* (Re)compute the metrics if the selection changed.  0 or -ENOMEM. */
int profile_compute(struct profile *p);
const struct metrics *profile_metrics(const struct profile *p);        /* function-level */
const struct metrics *profile_object_metrics(const struct profile *p); /* by load object id */

size_t profile_func_count(const struct profile *p);
const struct pfunc *profile_func(const struct profile *p, uint32_t id);
size_t profile_object_count(const struct profile *p);
const struct pobject *profile_object(const struct profile *p, uint32_t id);

/*
 * Functions whose long name, or name without the parameter list, or mangled
 * name equals `name`, in id order; returns the count (may exceed max).
 */
size_t profile_find_funcs(const struct profile *p, const char *name, uint32_t *ret_ids, size_t max);

/*
 * The function at run-time address pc of experiment `exp` (e.g. a thread's
 * start routine), resolved like a leaf PC; NULL if the address is in no
 * load object or memory ran out.
 */
const struct pfunc *profile_func_at(struct profile *p, size_t exp, uint64_t pc);

/* Selected events and their total weight (after the thread selection). */
uint64_t profile_selected_events(const struct profile *p);

#endif
