/*
 * show_json.c - `printmode json` for the reports whose text layouts are
 * sentences rather than tables: header, statistics, experiment_list,
 * thread_list, leaks, allocs and synclocks, as typed JSON (times in ns, counts,
 * bytes), from the experiments and the library's statistics and heap
 * models, in the schema of analysis/json_schema.h.  One object per report, on one
 * line, like every report in json mode (printmode.c).
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/experiment.h"
#include "analysis/json_schema.h"
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

static void header_one(struct jsonw *w, const struct experiment *x)
{
	jsonw_object_begin(w);
	json_header_fields(w, x);
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
		json_stats_fields(&w, &st[i]);
		jsonw_object_end(&w);
	}
	jsonw_array_end(&w);
	jsonw_key(&w, "sum");
	jsonw_object_begin(&w);
	json_stats_fields(&w, &sum);
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
		jsonw_object_begin(&w);
		json_experiment_fields(&w, e->prof, i);
		jsonw_object_end(&w);
	}
	jsonw_array_end(&w);
	end(&w);
	return 0;
}

/* er_print's names (name_style, soname) for the schema's writers. */
static const char *erp_namer(void *ctx, const struct pfunc *f, char *buf, size_t room)
{
	return erp_func_name(ctx, f, buf, room);
}

static struct json_names names_of(struct erp *e)
{
	return (struct json_names){.func = erp_namer, .ctx = e};
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
		struct json_names names = names_of(e);
		for (ssize_t k = 0; k < n; k++)
			json_thread(&w, i, &v[k], &names);
		free(v);
	}
	jsonw_array_end(&w);
	end(&w);
	if (r < 0)
		erp_error(e, "out of memory");
	return r;
}

/* A stack's frames, leaf first: function, object offset, and line where known. */
static void frames(struct jsonw *w, struct erp *e, size_t x, uint32_t s)
{
	struct json_names names = names_of(e);
	json_frames(w, e->prof, x, s, &names, 0);
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
	struct json_names names = names_of(e);
	for (size_t i = 0; i < n; i++) {
		jsonw_object_begin(&w);
		json_heap_stack(&w, e->prof, &v[i], &names, 0);
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
		frames(w, e, o->exp, o->acquirers[k].stack);
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
			frames(&w, e, v[i].exp, v[i].stacks[k].stack);
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
		frames(&w, e, v[i].exp, v[i].stack);
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
