/*
 * show_json.c - `printmode json` for the reports whose text layouts are
 * sentences rather than tables: header, statistics, experiment_list,
 * thread_list, leaks, allocs and synclocks, as typed JSON (times in ns, counts,
 * bytes), from the experiments and the library's statistics and heap
 * models.  One object per report, on one
 * line, like every report in json mode (printmode.c).
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/experiment.h"
#include "analysis/profile_heap.h"
#include "analysis/report_heap.h"
#include "analysis/report_info.h"
#include "analysis/report_io.h"
#include "analysis/report_stats.h"
#include "analysis/report_sync.h"
#include "common/jsonw.h"
#include "er_print/erp.h"
#include "er_print/show.h"
#include "experiment/record.h"

static void key_str_opt(struct jsonw *w, const char *key, const char *s)
{
	if (s)
		jsonw_key_string(w, key, s);
}

static void begin(struct jsonw *w, struct erp *e, const char *name, const char *arg)
{
	jsonw_init(w, e->out, NULL, 0);
	jsonw_object_begin(w);
	jsonw_key_string(w, "report", name);
	jsonw_key(w, "arg");
	jsonw_string(w, arg);
}

static void end(struct jsonw *w)
{
	jsonw_object_end(w);
	jsonw_finish(w);
}

/* How the process ended (report_ending_of): {"how": ..., "status"|"signal"|"program": ...}. */
static void header_exit(struct jsonw *w, const struct experiment *x)
{
	static const char *const how[] = {
		[REPORT_END_SIGNAL] = "signal", [REPORT_END_EXIT] = "exit",
		[REPORT_END_EXEC] = "exec",     [REPORT_END_UNSEEN] = "unseen",
		[REPORT_END_ENDED] = "ended",   [REPORT_END_UNFINISHED] = "unfinished",
	};
	struct report_ending r;
	report_ending_of(x, &r);
	jsonw_key(w, "ending");
	jsonw_object_begin(w);
	jsonw_key_string(w, "how", how[r.kind]);
	if (r.kind == REPORT_END_EXIT)
		jsonw_key_int(w, "status", r.code);
	if (r.kind == REPORT_END_SIGNAL) {
		jsonw_key_int(w, "signal", r.code);
		key_str_opt(w, "signame", r.name);
		jsonw_key_bool(w, "core_dumped", experiment_log(x)->core_dumped);
	}
	if (r.kind == REPORT_END_EXEC)
		key_str_opt(w, "program", r.name);
	jsonw_object_end(w);
	struct report_header_warnings hw;
	report_header_warnings(x, &hw);
	jsonw_key_uint(w, "unprofiled_processes", hw.unprofiled);
	jsonw_key_bool(w, "exec_not_followed", hw.exec_lost);
}

static void header_one(struct jsonw *w, const struct experiment *x)
{
	struct exp_header h;
	experiment_header(x, &h);
	const struct exp_log *l = experiment_log(x);
	jsonw_object_begin(w);
	jsonw_key_string(w, "experiment", experiment_path(x));
	jsonw_key_strings(w, "errors", h.errors, h.nerrors);
	jsonw_key_strings(w, "warnings", h.warnings, h.nwarnings);
	jsonw_key_strings(w, "problems", h.problems, h.nproblems);
	key_str_opt(w, "target", l->target_path);
	jsonw_key_strings(w, "argv", l->argv, l->argc);
	jsonw_key_uint(w, "pid", l->pid);
	jsonw_key_uint(w, "ppid", l->ppid);
	key_str_opt(w, "lineage", l->lineage);
	key_str_opt(w, "cwd", l->cwd);
	key_str_opt(w, "collector_version", l->collector_version);
	key_str_opt(w, "host", l->host);
	key_str_opt(w, "os", l->os);
	key_str_opt(w, "release", l->release);
	key_str_opt(w, "arch", l->arch);
	jsonw_key_uint(w, "cpus", l->cpus);
	jsonw_key_uint(w, "clock_mhz", l->clock_mhz);
	jsonw_key_uint(w, "memory_bytes", l->pages * l->pagesize);
	key_str_opt(w, "clock_profiling", l->clock_mode);
	jsonw_key_uint(w, "clock_interval_us", l->clock_interval_us);
	jsonw_key_uint(w, "effective_interval_us", l->effective_interval_us);
	key_str_opt(w, "mechanism", l->mechanism);
	jsonw_key_uint(w, "depth_limit", l->depth_limit);
	jsonw_key_bool(w, "heap_tracing", h.has_heap);
	jsonw_key_bool(w, "io_tracing", h.has_io);
	jsonw_key_bool(w, "sync_tracing", l->sync_on);
	jsonw_key(w, "counters"); /* collect -h: name, interval, unit */
	jsonw_array_begin(w);
	for (size_t k = 0; h.has_hwc && k < l->nhwc; k++) {
		jsonw_object_begin(w);
		jsonw_key_string(w, "name", l->hwc[k].name);
		jsonw_key_uint(w, "interval", l->hwc[k].interval);
		jsonw_key_string(w, "unit", l->hwc[k].time_ns ? "ns" : "events");
		jsonw_object_end(w);
	}
	jsonw_array_end(w);
	if (l->sync_on) {
		jsonw_key_uint(w, "sync_threshold_ns", l->sync_threshold_ns);
		key_str_opt(w, "sync_threshold_mode", l->sync_mode);
	}
	key_str_opt(w, "follow", l->follow);
	jsonw_key_strings(w, "comments", l->comments, l->ncomments);
	jsonw_key_uint(w, "start_realtime_ns", l->realtime_ns);
	jsonw_key_uint(w, "duration_ns", experiment_duration_ns(x));
	header_exit(w, x);
	jsonw_key_strings(w, "exec", l->exec_paths, l->nexecs);
	jsonw_key_bool(w, "complete", l->complete);
	jsonw_object_end(w);
}

static int json_header(struct erp *e, const char *arg)
{
	size_t lo, hi;
	if (show_exp_range(e, "header", arg, &lo, &hi) < 0)
		return -1;
	struct jsonw w;
	begin(&w, e, "header", arg);
	jsonw_key(&w, "experiments");
	jsonw_array_begin(&w);
	for (size_t i = lo; i < hi; i++)
		header_one(&w, profile_experiment(e->prof, i));
	jsonw_array_end(&w);
	end(&w);
	return 0;
}

static const char *usage_name(enum report_usage_source u)
{
	switch (u) {
	case REPORT_USAGE_RUSAGE: return "rusage";
	case REPORT_USAGE_SAMPLE: return "last_sample";
	case REPORT_USAGE_OWN: return "own_samples";
	default: return "none";
	}
}

static void stats_object(struct jsonw *w, const struct report_stats *s)
{
	jsonw_key_uint(w, "duration_ns", s->duration_ns);
	jsonw_key_uint(w, "thread_ns", s->thread_ns);
	jsonw_key_uint(w, "user_cpu_ns", s->user_ns);
	jsonw_key_uint(w, "system_cpu_ns", s->sys_ns);
	jsonw_key_uint(w, "user_lock_ns", s->lock_ns);
	if (s->has_wait)
		jsonw_key_uint(w, "wait_cpu_ns", s->wait_ns);
	jsonw_key_uint(w, "sleep_ns", report_stats_sleep_ns(s));
	jsonw_key_uint(w, "cpu_recorded_ns", s->cpu_recorded_ns);
	jsonw_key_uint(w, "samples_recorded", s->samples_recorded);
	jsonw_key_uint(w, "samples_dropped", s->samples_dropped);
	jsonw_key_string(w, "usage_source", usage_name(s->usage));
	const char *labels[REPORT_STATS_COUNTS];
	uint64_t vals[REPORT_STATS_COUNTS];
	size_t n = report_stats_counts(s, labels, vals);
	jsonw_key(w, "counters");
	jsonw_object_begin(w);
	for (size_t i = 0; i < n; i++) { /* "Minor Page Faults" -> "minor_page_faults" */
		char key[64];
		size_t k = 0;
		for (const char *q = labels[i]; *q && k + 1 < sizeof key; q++)
			key[k++] = *q == ' ' ? '_' : (char)(*q >= 'A' && *q <= 'Z' ? *q - 'A' + 'a' : *q);
		key[k] = 0;
		jsonw_key_uint(w, key, vals[i]);
	}
	jsonw_object_end(w);
	if (s->note[0])
		jsonw_key_string(w, "note", s->note);
}

static int json_statistics(struct erp *e, const char *arg)
{
	size_t lo, n;
	struct report_stats *st, sum;
	if (show_stats_range(e, arg, &st, &lo, &n, &sum) < 0)
		return -1;
	struct jsonw w;
	begin(&w, e, "statistics", arg);
	jsonw_key(&w, "experiments");
	jsonw_array_begin(&w);
	for (size_t i = 0; i < n; i++) {
		jsonw_object_begin(&w);
		jsonw_key_string(&w, "experiment", experiment_path(profile_experiment(e->prof, lo + i)));
		jsonw_key_bool(&w, "selected", profile_experiment_selected(e->prof, lo + i));
		stats_object(&w, &st[i]);
		jsonw_object_end(&w);
	}
	jsonw_array_end(&w);
	jsonw_key(&w, "sum");
	jsonw_object_begin(&w);
	stats_object(&w, &sum);
	jsonw_object_end(&w);
	end(&w);
	free(st);
	return 0;
}

static int json_experiment_list(struct erp *e, const char *arg)
{
	struct jsonw w;
	begin(&w, e, "experiment_list", arg);
	jsonw_key(&w, "experiments");
	jsonw_array_begin(&w);
	for (size_t i = 0; i < profile_experiment_count(e->prof); i++) {
		const struct experiment *x = profile_experiment(e->prof, i);
		jsonw_object_begin(&w);
		jsonw_key_uint(&w, "id", i + 1);
		jsonw_key_string(&w, "experiment", experiment_path(x));
		jsonw_key_bool(&w, "selected", profile_experiment_selected(e->prof, i));
		jsonw_key_uint(&w, "pid", experiment_log(x)->pid);
		jsonw_key_uint(&w, "ppid", experiment_log(x)->ppid);
		long parent = profile_experiment_parent(e->prof, i);
		jsonw_key(&w, "parent_id");
		if (parent >= 0)
			jsonw_uint(&w, (uint64_t)parent + 1);
		else
			jsonw_null(&w);
		key_str_opt(&w, "lineage", experiment_log(x)->lineage);
		key_str_opt(&w, "origin", experiment_log(x)->origin);
		jsonw_key_strings(&w, "argv", experiment_log(x)->argv, experiment_log(x)->argc);
		jsonw_object_end(&w);
	}
	jsonw_array_end(&w);
	end(&w);
	return 0;
}

static void thread_object(struct jsonw *w, struct erp *e, size_t xi, const struct report_thread *r)
{
	static const char *const routine[] = {[REPORT_ROUTINE_UNKNOWN] = "unknown",
					      [REPORT_ROUTINE_MAIN] = "main",
					      [REPORT_ROUTINE_FUNC] = "function",
					      [REPORT_ROUTINE_ADDRESS] = "address"};
	jsonw_object_begin(w);
	jsonw_key_uint(w, "experiment_id", xi + 1);
	jsonw_key_uint(w, "thread", r->t->number);
	jsonw_key_uint(w, "tid", r->t->tid);
	jsonw_key_uint(w, "creator_tid", r->t->creator_tid);
	jsonw_key_bool(w, "selected", r->selected);
	jsonw_key_string(w, "routine", routine[r->routine]);
	if (r->routine == REPORT_ROUTINE_FUNC && r->func) {
		char name[4096];
		jsonw_key_string(w, "function", erp_func_name(e, r->func, name, sizeof name));
	}
	if (r->t->has_start)
		jsonw_key_uint(w, "start_ns", r->start_ns);
	if (r->t->has_end)
		jsonw_key_uint(w, "end_ns", r->end_ns);
	jsonw_key_uint(w, "cpu_ns", r->cpu_ns);
	jsonw_key_bool(w, "cpu_from_samples", r->cpu_sampled);
	if (r->has_wait) { /* Wait CPU and Sleep, per thread only */
		jsonw_key_uint(w, "wait_cpu_ns", r->wait_ns);
		jsonw_key_uint(w, "sleep_ns", r->sleep_ns);
	}
	jsonw_key_uint(w, "samples", r->t->samples);
	jsonw_object_end(w);
}

static int json_thread_list(struct erp *e, const char *arg)
{
	if (show_prepare(e) < 0)
		return -1;
	struct jsonw w;
	begin(&w, e, "thread_list", arg);
	jsonw_key(&w, "threads");
	jsonw_array_begin(&w);
	int r = 0;
	for (size_t i = 0; i < profile_experiment_count(e->prof) && r == 0; i++) {
		struct report_thread *v;
		ssize_t n = report_threads(e->prof, i, &v);
		if (n < 0) {
			r = -1;
			break;
		}
		for (ssize_t k = 0; k < n; k++)
			thread_object(&w, e, i, &v[k]);
		free(v);
	}
	jsonw_array_end(&w);
	end(&w);
	if (r < 0)
		erp_error(e, "out of memory");
	return r;
}

/* A stack's frames, leaf first: function, object offset, and line where known. */
static void json_frames(struct jsonw *w, struct erp *e, size_t x, uint32_t s)
{
	const uint32_t *pcs;
	int n = profile_stack_pcs(e->prof, x, s, &pcs);
	jsonw_key(w, "frames");
	jsonw_array_begin(w);
	for (int i = 0; i < n; i++) {
		const struct ppc *pc = profile_pc(e->prof, pcs[i]);
		const struct pfunc *f = profile_func(e->prof, pc->func);
		char name[4096];
		jsonw_object_begin(w);
		jsonw_key_string(w, "function", erp_func_name(e, f, name, sizeof name));
		jsonw_key_uint(w, "offset",
			       f->obj == pc->obj && pc->vaddr >= f->addr ? pc->vaddr - f->addr : pc->vaddr);
		const struct pline *l = profile_line(e->prof, pc->line);
		if (l && l->file && l->line) {
			jsonw_key_string(w, "file", l->file);
			jsonw_key_uint(w, "line", l->line);
		}
		jsonw_object_end(w);
	}
	jsonw_array_end(w);
}

/* leaks and allocs: the totals, then each stack with its count and bytes, largest first. */
static int json_heap_blocks(struct erp *e, const char *name, const char *arg, enum report_heap_key key)
{
	struct report_heap_item *v;
	ssize_t got = show_heap_stacks(e, key, &v);
	if (got < 0)
		return -1;
	const struct heap_summary *h = profile_heap_summary(e->prof);
	int leaks = key == REPORT_HEAP_LEAK;
	struct jsonw w;
	begin(&w, e, name, arg);
	jsonw_key_uint(&w, "distinct_stacks", (uint64_t)got);
	jsonw_key_uint(&w, "count", leaks ? h->leak_count : h->alloc_count);
	jsonw_key_uint(&w, "bytes", leaks ? h->leak_bytes : h->alloc_bytes);
	jsonw_key(&w, "stacks");
	jsonw_array_begin(&w);
	size_t n = e->limit > 0 && (size_t)e->limit < (size_t)got ? (size_t)e->limit : (size_t)got;
	for (size_t i = 0; i < n; i++) {
		jsonw_object_begin(&w);
		jsonw_key_uint(&w, "count", v[i].count);
		jsonw_key_uint(&w, "bytes", v[i].bytes);
		json_frames(&w, e, v[i].exp, v[i].stack);
		jsonw_object_end(&w);
	}
	jsonw_array_end(&w);
	end(&w);
	free(v);
	return 0;
}

static int json_leaks(struct erp *e, const char *arg)
{
	return json_heap_blocks(e, "leaks", arg, REPORT_HEAP_LEAK);
}

static int json_allocs(struct erp *e, const char *arg)
{
	return json_heap_blocks(e, "allocs", arg, REPORT_HEAP_ALLOC);
}

/* A synclocks object's acquisitions: its count (when counted) and its top sampled stacks. */
static void json_acquirers(struct jsonw *w, struct erp *e, const struct report_sync_object *o)
{
	if (o->sample_every) {
		jsonw_key_uint(w, "acquisitions", o->acquisitions);
		jsonw_key_uint(w, "acq_sample_every", o->sample_every);
	}
	jsonw_key_uint(w, "acq_samples", o->acq_samples);
	jsonw_key_uint(w, "acq_stacks", o->nacquirers);
	jsonw_key(w, "acquired_at");
	jsonw_array_begin(w);
	for (size_t k = 0; k < o->nacquirers && k < REPORT_SYNC_TOP_ACQUIRERS; k++) {
		jsonw_object_begin(w);
		jsonw_key_uint(w, "samples", o->acquirers[k].samples);
		json_frames(w, e, o->exp, o->acquirers[k].stack);
		jsonw_object_end(w);
	}
	jsonw_array_end(w);
}

/* synclocks: each object with its totals, the stacks that waited on it and those that took it. */
static int json_synclocks(struct erp *e, const char *arg)
{
	struct report_sync_object *v;
	ssize_t got = show_sync_list(e, &v);
	if (got < 0)
		return -1;
	struct jsonw w;
	begin(&w, e, "synclocks", arg);
	jsonw_key_uint(&w, "objects", (uint64_t)got);
	jsonw_key(&w, "list");
	jsonw_array_begin(&w);
	size_t n = e->limit > 0 && (size_t)e->limit < (size_t)got ? (size_t)e->limit : (size_t)got;
	for (size_t i = 0; i < n; i++) {
		jsonw_object_begin(&w);
		jsonw_key_uint(&w, "object", v[i].object);
		jsonw_key_string(&w, "function", record_sync_func_name(v[i].func));
		jsonw_key_string(&w, "experiment", experiment_name(profile_experiment(e->prof, v[i].exp)));
		jsonw_key_uint(&w, "wait_ns", v[i].wait_ns);
		jsonw_key_uint(&w, "waits", v[i].waits);
		jsonw_key(&w, "stacks");
		jsonw_array_begin(&w);
		for (size_t k = 0; k < v[i].nstacks; k++) {
			jsonw_object_begin(&w);
			jsonw_key_uint(&w, "wait_ns", v[i].stacks[k].wait_ns);
			jsonw_key_uint(&w, "waits", v[i].stacks[k].waits);
			json_frames(&w, e, v[i].exp, v[i].stacks[k].stack);
			jsonw_object_end(&w);
		}
		jsonw_array_end(&w);
		json_acquirers(&w, e, &v[i]);
		jsonw_object_end(&w);
	}
	jsonw_array_end(&w);
	end(&w);
	report_sync_objects_free(v, (size_t)got);
	return 0;
}

/* iocallstack: the totals, then each stack with its figures, the most I/O time first. */
static int json_iocallstack(struct erp *e, const char *arg)
{
	struct report_io_row *v;
	ssize_t got = show_io_stacks(e, &v);
	if (got < 0)
		return -1;
	struct jsonw w;
	begin(&w, e, "iocallstack", arg);
	jsonw_key_uint(&w, "distinct_stacks", (uint64_t)got - 1);
	jsonw_key(&w, "total");
	jsonw_object_begin(&w);
	report_io_row_json(&w, &v[0]);
	jsonw_object_end(&w);
	jsonw_key(&w, "stacks");
	jsonw_array_begin(&w);
	size_t n = (size_t)got - 1;
	if (e->limit > 0 && (size_t)e->limit < n)
		n = (size_t)e->limit;
	for (size_t i = 1; i <= n; i++) {
		jsonw_object_begin(&w);
		jsonw_key_string(&w, "experiment", experiment_name(profile_experiment(e->prof, v[i].exp)));
		report_io_row_json(&w, &v[i]);
		json_frames(&w, e, v[i].exp, v[i].stack);
		jsonw_object_end(&w);
	}
	jsonw_array_end(&w);
	end(&w);
	free(v);
	return 0;
}

static int json_iostat(struct erp *e, const char *arg)
{
	if (show_io_prepare(e) < 0)
		return -1;
	struct report_io_stat s;
	report_io_stat(e->prof, &s);
	struct jsonw w;
	begin(&w, e, "iostat", arg);
	report_io_stat_json(&w, &s);
	end(&w);
	return 0;
}

static const struct {
	const char *name;
	int (*fn)(struct erp *e, const char *arg);
} json_reports[] = {
	{"iocallstack", json_iocallstack}, {"iostat", json_iostat},
	{"synclocks", json_synclocks},     {"leaks", json_leaks},
	{"allocs", json_allocs},           {"header", json_header},
	{"statistics", json_statistics},   {"experiment_list", json_experiment_list},
	{"thread_list", json_thread_list}, {"sample_list", show_sample_list_json},
};

int (*show_json_of(const char *name))(struct erp *, const char *)
{
	for (size_t i = 0; i < sizeof json_reports / sizeof json_reports[0]; i++)
		if (strcmp(json_reports[i].name, name) == 0)
			return json_reports[i].fn;
	return NULL;
}
