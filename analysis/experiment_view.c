/*
 * experiment_view.c - the accessors of the opaque struct experiment
 * (experiment.h): read-only views of what experiment_open read.
 */
#include "analysis/experiment_internal.h"

void experiment_header(const struct experiment *x, struct exp_header *ret)
{
	*ret = (struct exp_header){
		.path = x->path,
		.name = x->name,
		.notes = x->notes,
		.warnings = x->warnings,
		.nwarnings = x->nwarnings,
		.problems = x->problems,
		.nproblems = x->nproblems,
		.errors = x->errors,
		.nerrors = x->nerrors,
		.format_major = x->format_major,
		.format_minor = x->format_minor,
		.duration_ns = x->duration_ns,
		.has_heap = EXP_PRESENT(x, HEAP),
		.has_sync = EXP_PRESENT(x, SYNC),
		.has_io = EXP_PRESENT(x, IO),
		.has_hwc = EXP_PRESENT(x, HWC),
		.has_cpu_split = x->has_cpu_split,
	};
}

const struct exp_log *experiment_log(const struct experiment *x)
{
	return &x->log;
}

const struct exp_thread *experiment_threads(const struct experiment *x, size_t *ret_n)
{
	*ret_n = x->nthreads;
	return x->threads;
}

const struct exp_loadobj *experiment_objects(const struct experiment *x, size_t *ret_n)
{
	*ret_n = x->nobjs;
	return x->objs;
}

const struct exp_callstack *experiment_stacks(const struct experiment *x, size_t *ret_n)
{
	*ret_n = x->nstacks;
	return x->stacks;
}

const struct exp_sample_point *experiment_sample_points(const struct experiment *x, size_t *ret_n)
{
	*ret_n = EXP_COUNT(x, SAMPLES);
	return EXP_ROWS(x, SAMPLES);
}

const struct exp_process *experiment_processes(const struct experiment *x, size_t *ret_n)
{
	*ret_n = x->nprocs;
	return x->procs;
}

const char *experiment_path(const struct experiment *x)
{
	return x->path;
}

const char *experiment_name(const struct experiment *x)
{
	return x->name;
}

uint64_t experiment_duration_ns(const struct experiment *x)
{
	return x->duration_ns;
}

size_t experiment_thread_count(const struct experiment *x)
{
	return x->nthreads;
}

const struct exp_thread *experiment_thread(const struct experiment *x, size_t i)
{
	return &x->threads[i];
}

size_t experiment_stack_count(const struct experiment *x)
{
	return x->nstacks;
}

const struct exp_callstack *experiment_stack(const struct experiment *x, size_t i)
{
	return &x->stacks[i];
}

const struct exp_sample_ctx *experiment_contexts(const struct experiment *x, size_t *ret_n)
{
	*ret_n = EXP_COUNT(x, CONTEXTS);
	return EXP_ROWS(x, CONTEXTS);
}

const struct exp_table *experiment_table(const struct experiment *x, int id)
{
	return id >= 0 && id < EXP_TABLE_MAX ? &x->tables[id] : NULL;
}
