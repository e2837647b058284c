/*
 * json_schema.c - the library's models as JSON (see json_schema.h and
 * docs/json-schema.md): one writer per model, shared by er_print's
 * `printmode json` and the analyzer's API.
 */
#include "analysis/json_schema.h"

#include <stdio.h>

#include "analysis/experiment.h"
#include "analysis/profile_heap.h"
#include "analysis/report_heap.h"
#include "common/jsonw.h"

static void key_str_opt(struct jsonw *w, const char *key, const char *s)
{
	if (s)
		jsonw_key_string(w, key, s);
}

const char *json_func_name(const struct pfunc *f, char *buf, size_t room)
{
	snprintf(buf, room, "%s%s", f->name, f->show_version ? f->version : "");
	return buf;
}

static const char *func_name(const struct json_names *n, const struct pfunc *f, char *buf, size_t room)
{
	return n && n->func ? n->func(n->ctx, f, buf, room) : json_func_name(f, buf, room);
}

void json_ending_fields(struct jsonw *w, const struct experiment *x)
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

/* collect -h's counters: name, interval, unit. */
static void header_counters(struct jsonw *w, const struct exp_log *l, int has_hwc)
{
	jsonw_key(w, "counters");
	jsonw_array_begin(w);
	for (size_t k = 0; has_hwc && k < l->nhwc; k++) {
		jsonw_object_begin(w);
		jsonw_key_string(w, "name", l->hwc[k].name);
		jsonw_key_uint(w, "interval", l->hwc[k].interval);
		jsonw_key_string(w, "unit", l->hwc[k].time_ns ? "ns" : "events");
		jsonw_object_end(w);
	}
	jsonw_array_end(w);
}

void json_header_fields(struct jsonw *w, const struct experiment *x)
{
	struct exp_header h;
	experiment_header(x, &h);
	const struct exp_log *l = experiment_log(x);
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
	header_counters(w, l, h.has_hwc);
	if (l->sync_on) {
		jsonw_key_uint(w, "sync_threshold_ns", l->sync_threshold_ns);
		key_str_opt(w, "sync_threshold_mode", l->sync_mode);
	}
	key_str_opt(w, "follow", l->follow);
	jsonw_key_strings(w, "comments", l->comments, l->ncomments);
	jsonw_key_uint(w, "start_realtime_ns", l->realtime_ns);
	jsonw_key_uint(w, "duration_ns", experiment_duration_ns(x));
	json_ending_fields(w, x);
	jsonw_key_strings(w, "exec", l->exec_paths, l->nexecs);
	jsonw_key_bool(w, "complete", l->complete);
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

void json_stats_fields(struct jsonw *w, const struct report_stats *s)
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

void json_experiment_fields(struct jsonw *w, const struct profile *p, size_t i)
{
	const struct experiment *x = profile_experiment(p, i);
	const struct exp_log *l = experiment_log(x);
	jsonw_key_uint(w, "id", i + 1);
	jsonw_key_string(w, "experiment", experiment_path(x));
	jsonw_key_bool(w, "selected", profile_experiment_selected(p, i));
	jsonw_key_uint(w, "pid", l->pid);
	jsonw_key_uint(w, "ppid", l->ppid);
	long parent = profile_experiment_parent(p, i);
	jsonw_key(w, "parent_id");
	if (parent >= 0)
		jsonw_uint(w, (uint64_t)parent + 1);
	else
		jsonw_null(w);
	key_str_opt(w, "lineage", l->lineage);
	key_str_opt(w, "origin", l->origin);
	jsonw_key_strings(w, "argv", l->argv, l->argc);
}

void json_thread(struct jsonw *w, size_t xi, const struct report_thread *r, const struct json_names *names)
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
		jsonw_key_string(w, "function", func_name(names, r->func, name, sizeof name));
	}
	if (r->routine == REPORT_ROUTINE_ADDRESS) {
		char pc[24];
		snprintf(pc, sizeof pc, "0x%llx", (unsigned long long)r->t->start_pc);
		jsonw_key_string(w, "start_pc", pc);
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

int json_frames(struct jsonw *w, struct profile *p, size_t x, uint32_t s, const struct json_names *names,
		int with_ids)
{
	const uint32_t *pcs;
	int n = profile_stack_pcs(p, x, s, &pcs);
	jsonw_key(w, "frames");
	jsonw_array_begin(w);
	for (int i = 0; i < n; i++) {
		const struct ppc *pc = profile_pc(p, pcs[i]);
		const struct pfunc *f = profile_func(p, pc->func);
		char name[4096];
		jsonw_object_begin(w);
		if (with_ids)
			jsonw_key_uint(w, "func", pc->func);
		jsonw_key_string(w, "function", func_name(names, f, name, sizeof name));
		jsonw_key_uint(w, "offset",
			       f->obj == pc->obj && pc->vaddr >= f->addr ? pc->vaddr - f->addr : pc->vaddr);
		const struct pline *l = profile_line(p, pc->line);
		if (l && l->file && l->line) {
			jsonw_key_string(w, "file", l->file);
			jsonw_key_uint(w, "line", l->line);
		}
		jsonw_object_end(w);
	}
	jsonw_array_end(w);
	return n < 0 ? n : 0;
}

/* ------------------------------------------------------------ heap */

int json_heap_stack(struct jsonw *w, struct profile *p, const struct report_heap_item *it,
		    const struct json_names *names, int with_ids)
{
	jsonw_key_uint(w, "count", it->count);
	jsonw_key_uint(w, "bytes", it->bytes);
	return json_frames(w, p, it->exp, it->stack, names, with_ids);
}

static void key_classes(struct jsonw *w, const char *key, const uint64_t *classes)
{
	jsonw_key(w, key);
	jsonw_array_begin(w);
	for (size_t c = 0; c < HEAP_SIZE_CLASSES; c++) {
		if (!classes[c])
			continue;
		jsonw_object_begin(w);
		jsonw_key_string(w, "range", heap_size_class_label(c));
		jsonw_key_uint(w, "count", classes[c]);
		jsonw_object_end(w);
	}
	jsonw_array_end(w);
}

void json_heap_summary_fields(struct jsonw *w, const struct heap_summary *h)
{
	jsonw_key_uint(w, "alloc_count", h->alloc_count);
	jsonw_key_uint(w, "alloc_bytes", h->alloc_bytes);
	jsonw_key_uint(w, "leak_count", h->leak_count);
	jsonw_key_uint(w, "leak_bytes", h->leak_bytes);
	jsonw_key_uint(w, "temp_count", h->temp_count);
	jsonw_key_uint(w, "temp_bytes", h->temp_bytes);
	jsonw_key_uint(w, "free_count", h->free_count);
	jsonw_key_uint(w, "unknown_free_count", h->unknown_free_count);
	jsonw_key_uint(w, "reused_count", h->reused_count);
	jsonw_key_uint(w, "failed_count", h->failed_count);
	jsonw_key_uint(w, "alloc_min_bytes", h->alloc_min_bytes);
	jsonw_key_uint(w, "alloc_max_bytes", h->alloc_max_bytes);
	jsonw_key_uint(w, "leak_min_bytes", h->leak_min_bytes);
	jsonw_key_uint(w, "leak_max_bytes", h->leak_max_bytes);
	key_classes(w, "alloc_classes", h->alloc_classes);
	key_classes(w, "leak_classes", h->leak_classes);
}

void json_heap_peak(struct jsonw *w, const struct heap_summary *h)
{
	jsonw_key(w, "peak");
	if (h->peak_exp == SIZE_MAX || h->peak_bytes == 0) {
		jsonw_null(w);
		return;
	}
	jsonw_object_begin(w);
	jsonw_key_uint(w, "experiment_id", h->peak_exp + 1);
	jsonw_key_uint(w, "pid", h->peak_pid);
	jsonw_key_uint(w, "bytes", h->peak_bytes);
	jsonw_key_uint(w, "t_ns", h->peak_ns);
	jsonw_object_end(w);
}

/* ------------------------------------------------------------ metric tables */

const char *json_unit_name(enum metric_unit u)
{
	if (u == METRIC_UNIT_RATIO)
		return "ratio_x1000"; /* IPC 1.375 is 1375 */
	return u == METRIC_UNIT_TIME ? "ns" : u == METRIC_UNIT_BYTES ? "bytes" : "count";
}

const char *json_col_key(const struct json_col *c, char *buf, size_t room)
{
	if (!c->keyword || !c->flavor)
		return c->title;
	if (c->side)
		snprintf(buf, room, "%c.%s#%d", c->flavor, c->keyword, c->side);
	else
		snprintf(buf, room, "%c.%s", c->flavor, c->keyword);
	return buf;
}

static char flavor_char(enum mspec_flavor f)
{
	return f == MSPEC_EXCL ? 'e' : f == MSPEC_INCL ? 'i' : 'a';
}

void json_list_col(const struct profile *p, const struct mspec_item *c, uint64_t total,
		   const struct mspec_item *sort, struct json_col *ret, char *title, size_t room)
{
	*ret = (struct json_col){.title = title};
	if (c->kind != MSPEC_METRIC) {
		snprintf(title, room, "%s", c->kind == MSPEC_SIZE ? "Size" : "PC Addr.");
		return;
	}
	size_t nd;
	const struct metric_def *d = &profile_metric_defs(p, &nd)[c->metric];
	snprintf(title, room, "%s %s",
		 c->flavor == MSPEC_EXCL   ? "Excl."
		 : c->flavor == MSPEC_INCL ? "Incl."
					   : "Attr.",
		 d->abbrev);
	ret->keyword = d->keyword;
	ret->flavor = flavor_char(c->flavor);
	ret->unit = d->unit;
	ret->show_percent = c->show_percent;
	ret->total = total;
	ret->sort =
		sort && sort->kind == MSPEC_METRIC && sort->metric == c->metric && sort->flavor == c->flavor;
}

void json_attr_col(const struct profile *p, int m, uint64_t total, int sort, struct json_col *ret,
		   char *title, size_t room)
{
	size_t nd;
	const struct metric_def *d = &profile_metric_defs(p, &nd)[m];
	snprintf(title, room, "Attr. %s", d->abbrev);
	*ret = (struct json_col){.title = title,
				 .keyword = d->keyword,
				 .flavor = 'a',
				 .unit = d->unit,
				 .show_percent = 1,
				 .total = total,
				 .sort = sort};
}

void json_columns(struct jsonw *w, const struct json_col *cols, size_t n,
		  void (*extra)(struct jsonw *w, size_t c, void *ctx), void *ctx)
{
	jsonw_key(w, "columns");
	jsonw_array_begin(w);
	for (size_t c = 0; c < n; c++) {
		const struct json_col *col = &cols[c];
		char key[96];
		jsonw_object_begin(w);
		jsonw_key_string(w, "key", json_col_key(col, key, sizeof key));
		jsonw_key_string(w, "title", col->title);
		if (col->keyword) {
			jsonw_key_string(w, "unit", json_unit_name(col->unit));
			if (col->show_percent)
				jsonw_key_uint(w, "total", col->total);
		} else {
			jsonw_key_string(w, "unit", "text");
		}
		if (col->sort)
			jsonw_key_bool(w, "sort", 1);
		if (col->group) {
			jsonw_key_string(w, "experiment", col->group);
			jsonw_key_uint(w, "side", (uint64_t)col->side);
			if (col->compare)
				jsonw_key_string(w, "compare", col->compare == 'd' ? "delta" : "ratio");
		}
		if (extra)
			extra(w, c, ctx);
		jsonw_object_end(w);
	}
	jsonw_array_end(w);
}

void json_cells(struct jsonw *w, const struct json_col *cols, size_t n, const uint64_t *vals,
		const char *const *texts)
{
	for (size_t c = 0; c < n; c++) {
		char key[96];
		if (!cols[c].keyword) {
			const char *s = texts ? texts[c] : NULL;
			while (s && *s == ' ')
				s++;
			jsonw_key_string(w, json_col_key(&cols[c], key, sizeof key), s);
		} else {
			jsonw_key_uint(w, json_col_key(&cols[c], key, sizeof key), vals[c]);
		}
	}
}

void json_row_fields(struct jsonw *w, const struct json_col *cols, size_t n, const struct json_row *r)
{
	key_str_opt(w, "section", r->section);
	if (!r->blank)
		json_cells(w, cols, n, r->vals, r->texts);
	if (r->marker && r->marker != ' ')
		jsonw_key_string(w, "marker", (char[2]){r->marker, 0});
	if (r->hot)
		jsonw_key_bool(w, "hot", 1);
	jsonw_key_string(w, "name", r->name);
}
