/*
 * api.c - the analyzer's JSON endpoints over the report models: overview
 * (headers, statistics, the metric registry), functions (report_list.h),
 * callers (report_calls.h), threads and experiments (report_info.h), source
 * and disasm (report_source.h); flame and timeline are in api_stacks.c.
 */
#include "analyzer/api.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/experiment.h"
#include "analysis/filter.h"
#include "analysis/json_schema.h"
#include "analysis/profile_view.h"
#include "analysis/profile_heap.h"
#include "analysis/report_calls.h"
#include "analysis/report_info.h"
#include "analysis/report_list.h"
#include "analysis/report_source.h"
#include "analysis/report_stats.h"
#include "analyzer/api_internal.h"
#include "common/regfile.h"

/* Hot-line threshold of source and disassembly (er_print's sthresh/dthresh default). */
#define API_HOT_PERCENT 75u
/* A source file larger than this is not shown (its annotation still is). */
#define API_MAX_SOURCE (16u << 20)

int api_fail(struct api_req *r, int status, const char *fmt, ...)
{
	if (r->status == 200) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(r->error, sizeof r->error, fmt, ap);
		va_end(ap);
		r->status = status;
	}
	return -1;
}

const char *api_arg(const struct api_req *r, const char *key)
{
	return r->q && r->q->get ? r->q->get(r->q->ctx, key) : NULL;
}

int api_func_arg(struct api_req *r, uint32_t *ret)
{
	const char *s = api_arg(r, "func");
	if (!s || !*s)
		return api_fail(r, 400, "missing argument func (a function id)");
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (*end || errno || s[0] == '-')
		return api_fail(r, 400, "func '%s' is not a function id", s);
	if (v >= profile_func_count(r->p))
		return api_fail(r, 404, "no function %s", s);
	*ret = (uint32_t)v;
	return 0;
}

long api_metric_arg(struct api_req *r, const char *key, const char *def)
{
	const char *s = api_arg(r, key);
	if (!s || !*s)
		s = def;
	long m = profile_metric_find(r->p, s);
	if (m >= 0)
		return m;
	const char *needs = profile_metric_needs(r->p, s);
	if (needs)
		return api_fail(r, 400, "metric '%s' needs %s", s, needs);
	return api_fail(r, 400, "unknown metric '%s'", s);
}

const char *api_func_name(const struct profile *p, uint32_t f, char *buf, size_t room)
{
	return json_func_name(profile_func(p, f), buf, room);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* A line and a PC named as er_print names them (compare matches items by these names). */
static const char *line_name(const struct profile *p, uint32_t id, char *buf, size_t room)
{
	const struct pline *l = profile_line(p, id);
	char fn[4096];
	api_func_name(p, l->func, fn, sizeof fn);
	if (l->file)
		snprintf(buf, room, "%s, line %u in \"%s\"", fn, l->line, base_name(l->file));
	else
		snprintf(buf, room, "<Function: %s, instructions without line numbers>", fn);
	return buf;
}

static const char *pc_name(const struct profile *p, uint32_t id, char *buf, size_t room)
{
	const struct ppc *pc = profile_pc(p, id);
	const struct pfunc *f = profile_func(p, pc->func);
	const struct pline *l = profile_line(p, pc->line);
	char fn[4096];
	api_func_name(p, pc->func, fn, sizeof fn);
	uint64_t off = f->kind == PFUNC_SYMBOL || f->kind == PFUNC_SYNTH ? pc->vaddr - f->addr : pc->vaddr;
	int n = snprintf(buf, room, "%s + 0x%08llx", fn, (unsigned long long)off);
	if (l && l->file && n > 0 && (size_t)n < room)
		snprintf(buf + n, room - (size_t)n, ", line %u in \"%s\"", l->line, base_name(l->file));
	return buf;
}

const char *api_entity_name(void *arg, enum report_what what, uint32_t id, char *buf, size_t room)
{
	switch (what) {
	case REPORT_LINES: return line_name(arg, id, buf, room);
	case REPORT_PCS: return pc_name(arg, id, buf, room);
	case REPORT_OBJECTS: snprintf(buf, room, "<%s>", profile_object(arg, id)->name); return buf;
	default: return api_func_name(arg, id, buf, room);
	}
}

static void key_str_opt(struct jsonw *w, const char *key, const char *s)
{
	if (s)
		jsonw_key_string(w, key, s);
}

static void metric_registry(struct api_req *r)
{
	size_t n;
	const struct metric_def *d = profile_metric_defs(r->p, &n);
	jsonw_key(&r->w, "metrics");
	jsonw_array_begin(&r->w);
	for (size_t i = 0; i < n; i++) {
		jsonw_object_begin(&r->w);
		jsonw_key_string(&r->w, "keyword", d[i].keyword);
		jsonw_key_string(&r->w, "name", d[i].username);
		jsonw_key_string(&r->w, "abbrev", d[i].abbrev);
		jsonw_key_string(&r->w, "unit", json_unit_name(d[i].unit));
		char fl[4];
		size_t k = 0;
		if (d[i].flavors & METRIC_FLAVOR_EXCL)
			fl[k++] = 'e';
		if (d[i].flavors & METRIC_FLAVOR_INCL)
			fl[k++] = 'i';
		if (d[i].flavors & METRIC_FLAVOR_ATTR)
			fl[k++] = 'a';
		fl[k] = 0;
		jsonw_key_string(&r->w, "flavors", fl);
		jsonw_key_bool(&r->w, "at_end", d[i].at_end);
		jsonw_object_end(&r->w);
	}
	jsonw_array_end(&r->w);
}

static int api_overview(struct api_req *r)
{
	if (profile_compute(r->p) < 0)
		return api_fail(r, 500, "out of memory");
	struct jsonw *w = &r->w;
	struct report_stats sum;
	memset(&sum, 0, sizeof sum);
	jsonw_key_string(w, "schema", JSON_SCHEMA_VERSION);
	jsonw_key(w, "experiments");
	jsonw_array_begin(w);
	for (size_t i = 0; i < profile_experiment_count(r->p); i++) {
		struct report_stats s;
		report_stats_of(r->p, i, &s);
		report_stats_add(&sum, &s);
		jsonw_object_begin(w);
		jsonw_key_uint(w, "id", i + 1);
		json_header_fields(w, profile_experiment(r->p, i));
		jsonw_key(w, "statistics");
		jsonw_object_begin(w);
		json_stats_fields(w, &s);
		jsonw_object_end(w);
		jsonw_object_end(w);
	}
	jsonw_array_end(w);
	jsonw_key(w, "statistics");
	jsonw_object_begin(w);
	json_stats_fields(w, &sum);
	jsonw_object_end(w);
	metric_registry(r);
	jsonw_key_string(w, "default_metrics", mspec_default_metrics(r->p));
	jsonw_key_string(w, "default_sort", mspec_default_sort(r->p));
	jsonw_key_uint(w, "functions", profile_func_count(r->p));
	jsonw_key(w, "filter_properties");
	jsonw_array_begin(w);
	for (int k = 0; k < FILTER_NPROPS; k++) {
		jsonw_object_begin(w);
		jsonw_key_string(w, "name", filter_property_name((enum filter_prop)k));
		jsonw_key_string(w, "help", filter_property_help((enum filter_prop)k));
		jsonw_object_end(w);
	}
	jsonw_array_end(w);
	jsonw_key(w, "sides"); /* compare's */
	jsonw_array_begin(w);
	for (size_t i = 0; i < r->d->nsides; i++) {
		jsonw_object_begin(w);
		jsonw_key_string(w, "name", r->d->sides[i].name);
		jsonw_key_uint(w, "first", r->d->sides[i].first + 1);
		jsonw_key_uint(w, "count", r->d->sides[i].count);
		jsonw_object_end(w);
	}
	jsonw_array_end(w);
	return 0;
}

/* Parse argument key as a metric list (sort: a sort spec) into *ret, def when absent. */
static int spec_arg(struct api_req *r, const char *key, const char *def, int sort, struct mspec *ret)
{
	const char *s = api_arg(r, key);
	if (!s || !*s)
		s = def;
	char err[256];
	if (mspec_parse(r->p, s, sort, ret, err, sizeof err) < 0)
		return api_fail(r, 400, "%s: %s", key, err);
	return 0;
}

int api_sort_arg(struct api_req *r, struct mspec *ret)
{
	return spec_arg(r, "sort", mspec_default_sort(r->p), 1, ret);
}

static int default_spec(struct api_req *r, struct mspec *spec, struct mspec *sort)
{
	const char *def = mspec_default_metrics(r->p);
	if (spec_arg(r, "metrics", def, 0, spec) < 0)
		return -1;
	return sort ? api_sort_arg(r, sort) : 0;
}

struct column_ctx {
	const struct mspec_item *items;
	const struct api_cols *cols;
	const struct profile *p;
};

/* "name": the registry's name of metric m (the page's headings say it). */
static void metric_name(struct jsonw *w, const struct profile *p, int m)
{
	size_t nd;
	jsonw_key_string(w, "name", profile_metric_defs(p, &nd)[m].username);
}

/* The analyzer's key of a callers-callees block's column c, the attributed column of metric c. */
static void attr_extra(struct jsonw *w, size_t c, void *p)
{
	metric_name(w, p, (int)c);
}

/* The analyzer's keys of a column (api_internal.h). */
static void column_extra(struct jsonw *w, size_t c, void *arg)
{
	const struct column_ctx *x = arg;
	const struct mspec_item *it = &x->items[c];
	jsonw_key_bool(w, "value", it->kind != MSPEC_METRIC || it->show_value);
	char key[96];
	jsonw_key_string(w, "spec",
			 it->kind == MSPEC_SIZE      ? "size"
			 : it->kind == MSPEC_ADDRESS ? "address"
						     : json_col_key(&x->cols->c[c], key, sizeof key));
	if (it->kind == MSPEC_METRIC)
		metric_name(w, x->p, it->metric);
}

void api_columns(struct api_req *r, const struct mspec_item *items, size_t n, const uint64_t *base,
		 const struct mspec_item *sort, struct api_cols *ret)
{
	ret->n = n < MSPEC_MAX ? n : MSPEC_MAX;
	for (size_t c = 0; c < ret->n; c++)
		json_list_col(r->p, &items[c], base ? base[c] : 0, sort, &ret->c[c], ret->titles[c],
			      sizeof ret->titles[c]);
	struct column_ctx x = {items, ret, r->p};
	json_columns(&r->w, ret->c, ret->n, column_extra, &x);
}

static int api_functions(struct api_req *r)
{
	struct mspec spec, sort;
	if (default_spec(r, &spec, &sort) < 0)
		return -1;
	struct report_list *l;
	if (report_list_new(r->p, REPORT_FUNCTIONS, &spec, &sort.items[0], api_entity_name, r->p, &l) < 0)
		return api_fail(r, 500, "out of memory");
	char text[1024];
	mspec_format(r->p, &spec, text, sizeof text);
	jsonw_key_string(&r->w, "metrics", text);
	mspec_format(r->p, &sort, text, sizeof text);
	jsonw_key_string(&r->w, "sort", text);
	struct api_cols cols;
	api_columns(r, l->cols, l->ncols, l->percent_base, &sort.items[0], &cols);
	jsonw_key(&r->w, "rows");
	jsonw_array_begin(&r->w);
	for (size_t i = 0; i < l->nrows; i++) {
		char texts[MSPEC_MAX][32];
		const char *tp[MSPEC_MAX];
		for (size_t c = 0; c < cols.n; c++)
			tp[c] = report_list_text(r->p, l, i, c, texts[c], sizeof texts[c]);
		struct json_row row = {.vals = l->values + i * l->ncols, .texts = tp, .name = l->names[i]};
		jsonw_object_begin(&r->w);
		jsonw_key_uint(&r->w, "id", l->ids[i]);
		json_row_fields(&r->w, cols.c, cols.n, &row);
		jsonw_object_end(&r->w);
	}
	jsonw_array_end(&r->w);
	report_list_free(l);
	return 0;
}

/* The rows of one section of a callers-callees block: each function with its attributed values. */
static void edges(struct api_req *r, const struct api_cols *cols, const char *section,
		  const struct report_edge *e, size_t n)
{
	char name[4096];
	for (size_t i = 0; i < n; i++) {
		uint64_t vals[MSPEC_MAX];
		for (size_t c = 0; c < cols->n; c++)
			vals[c] = e[i].values[c];
		struct json_row row = {.section = section,
				       .vals = vals,
				       .name = api_func_name(r->p, e[i].func, name, sizeof name)};
		jsonw_object_begin(&r->w);
		jsonw_key_uint(&r->w, "id", e[i].func);
		json_row_fields(&r->w, cols->c, cols->n, &row);
		jsonw_object_end(&r->w);
	}
}

/*
 * One function's callers-callees block as er_print's csingle has it: an
 * attributed column for every metric (its 100%: the function's inclusive
 * value), and rows in sections "Callers", "Stack Fragment" (the function,
 * with its exclusive values) and "Callees".
 */
static int api_callers(struct api_req *r)
{
	uint32_t f;
	struct mspec sort;
	if (api_func_arg(r, &f) < 0 || api_sort_arg(r, &sort) < 0)
		return -1;
	if (profile_compute(r->p) < 0)
		return api_fail(r, 500, "out of memory");
	struct report_calls rc;
	int sm = report_sort_metric(&sort.items[0]);
	int e = report_calls_of(r->p, f, sm, api_entity_name, r->p, &rc);
	if (e < 0)
		return e == -EINVAL ? api_fail(r, 404, "no function %u", f)
				    : api_fail(r, 500, "out of memory");
	size_t nd;
	profile_metric_defs(r->p, &nd);
	struct api_cols cols = {.n = nd < MSPEC_MAX ? nd : MSPEC_MAX};
	for (size_t m = 0; m < cols.n; m++)
		json_attr_col(r->p, (int)m, rc.base[m], (int)m == sm, &cols.c[m], cols.titles[m],
			      sizeof cols.titles[m]);
	char name[4096];
	jsonw_key(&r->w, "function");
	jsonw_object_begin(&r->w);
	jsonw_key_uint(&r->w, "id", f);
	jsonw_key_string(&r->w, "name", api_func_name(r->p, f, name, sizeof name));
	jsonw_object_end(&r->w);
	json_columns(&r->w, cols.c, cols.n, attr_extra, r->p);
	jsonw_key(&r->w, "rows");
	jsonw_array_begin(&r->w);
	edges(r, &cols, "Callers", rc.callers, rc.ncallers);
	struct report_edge self = {.func = f, .values = rc.exclusive};
	edges(r, &cols, "Stack Fragment", &self, 1);
	edges(r, &cols, "Callees", rc.callees, rc.ncallees);
	jsonw_array_end(&r->w);
	report_calls_release(&rc);
	return 0;
}

static int api_threads(struct api_req *r)
{
	struct jsonw *w = &r->w;
	jsonw_key(w, "threads");
	jsonw_array_begin(w);
	for (size_t i = 0; i < profile_experiment_count(r->p); i++) {
		struct report_thread *v;
		ssize_t n = report_threads(r->p, i, &v);
		if (n < 0)
			return api_fail(r, 500, "out of memory");
		for (ssize_t k = 0; k < n; k++)
			json_thread(w, i, &v[k], NULL);
		free(v);
	}
	jsonw_array_end(w);
	return 0;
}

/* "processes": founder xi's descendants (processes.xml), depth first, children in start order. */
static int process_tree(struct api_req *r, size_t xi)
{
	struct report_process *v;
	ssize_t n = report_process_tree(r->p, xi, &v);
	if (n < 0)
		return api_fail(r, 500, "out of memory");
	struct jsonw *w = &r->w;
	jsonw_key(w, "processes");
	jsonw_array_begin(w);
	for (ssize_t k = 0; k < n; k++) {
		const struct exp_process *pr = v[k].proc;
		jsonw_object_begin(w);
		jsonw_key_uint(w, "pid", pr->pid);
		jsonw_key_uint(w, "ppid", pr->ppid);
		jsonw_key_uint(w, "depth", v[k].depth);
		key_str_opt(w, "lineage", pr->lineage);
		key_str_opt(w, "origin", pr->origin);
		key_str_opt(w, "command", pr->command && *pr->command ? pr->command : pr->path);
		jsonw_key_bool(w, "followed", pr->followed);
		key_str_opt(w, "reason", pr->reason);
		jsonw_key(w, "experiment_id");
		if (v[k].exp >= 0)
			jsonw_uint(w, (uint64_t)v[k].exp + 1);
		else
			jsonw_null(w);
		jsonw_object_end(w);
	}
	jsonw_array_end(w);
	free(v);
	return 0;
}

static int api_experiments(struct api_req *r)
{
	struct jsonw *w = &r->w;
	jsonw_key(w, "experiments");
	jsonw_array_begin(w);
	for (size_t i = 0; i < profile_experiment_count(r->p); i++) {
		const struct experiment *x = profile_experiment(r->p, i);
		jsonw_object_begin(w);
		json_experiment_fields(w, r->p, i);
		jsonw_key_uint(w, "founder", profile_experiment_founder(r->p, i) + 1);
		jsonw_key_uint(w, "threads", experiment_thread_count(x));
		jsonw_key_uint(w, "start_offset_ns", profile_experiment_offset_ns(r->p, i));
		jsonw_key_uint(w, "duration_ns", experiment_duration_ns(x));
		json_ending_fields(w, x);
		jsonw_key_uint(w, "cpu_recorded_ns", report_recorded_ns(x));
		if (profile_experiment_founder(r->p, i) == i && process_tree(r, i) < 0)
			return -1;
		jsonw_object_end(w);
	}
	jsonw_array_end(w);
	return 0;
}

/* The text of a source file, or NULL (unreadable or too large); *ret_lines its line count. */
static char *read_source(const char *path, size_t *ret_lines)
{
	struct stat st;
	int fd = regfile_open(path, &st); /* a regular file only, opened without blocking */
	if (fd >= 0 && st.st_size > API_MAX_SOURCE) {
		close(fd);
		return NULL; /* too large to show */
	}
	FILE *f = fd >= 0 ? fdopen(fd, "re") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	struct strbuf b;
	strbuf_init(&b, API_MAX_SOURCE);
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		strbuf_add(&b, buf, n);
	int bad = ferror(f) || b.failed;
	fclose(f);
	if (bad) {
		strbuf_release(&b);
		return NULL;
	}
	char *s = strbuf_detach(&b);
	if (!s)
		s = strdup("");
	size_t lines = 0;
	for (const char *q = s; q && *q; q++)
		lines += *q == '\n';
	if (s && *s && s[strlen(s) - 1] != '\n')
		lines++;
	*ret_lines = lines;
	return s;
}

static void source_lines(struct api_req *r, const struct report_source *s, const struct api_cols *cols,
			 char *text)
{
	char *line = text;
	jsonw_key(&r->w, "lines");
	jsonw_array_begin(&r->w);
	for (size_t ln = 1; ln < s->nlines; ln++) {
		char *nl = line ? strchr(line, '\n') : NULL;
		if (nl)
			*nl = 0;
		jsonw_object_begin(&r->w);
		jsonw_key_uint(&r->w, "line", ln);
		jsonw_key_string(&r->w, "text", line && *line ? line : line ? "" : NULL);
		jsonw_key_bool(&r->w, "hot", s->lines[ln].hot);
		if (s->lines[ln].func != UINT32_MAX)
			jsonw_key_uint(&r->w, "func", s->lines[ln].func);
		if (s->lines[ln].has)
			json_cells(&r->w, cols->c, cols->n, s->values + ln * s->ncols, NULL);
		jsonw_object_end(&r->w);
		line = nl ? nl + 1 : NULL;
	}
	jsonw_array_end(&r->w);
}

static int api_source(struct api_req *r)
{
	uint32_t f;
	struct mspec spec, sort;
	if (api_func_arg(r, &f) < 0 || default_spec(r, &spec, &sort) < 0)
		return -1;
	if (profile_compute(r->p) < 0)
		return api_fail(r, 500, "out of memory");
	struct line_loc loc;
	if (!report_func_position(r->p, profile_func(r->p, f), &loc))
		return api_fail(r, 404, "function %u has no source line information", f);
	const char *file = report_find_source_file(r->p, loc.file);
	if (!file)
		file = loc.file;
	size_t text_lines = 0;
	char *text = read_source(file, &text_lines);
	struct report_source *s;
	if (report_source_new(r->p, file, &spec, &sort.items[0], API_HOT_PERCENT, text_lines, &s) < 0) {
		free(text);
		return api_fail(r, 500, "out of memory");
	}
	jsonw_key_string(&r->w, "file", file);
	jsonw_key_uint(&r->w, "entry_line", loc.line);
	jsonw_key_bool(&r->w, "text_found", text != NULL);
	struct api_cols cols;
	api_columns(r, s->cols, s->ncols, s->percent_base, &sort.items[0], &cols);
	source_lines(r, s, &cols, text);
	report_source_free(s);
	free(text);
	return 0;
}

static int api_disasm(struct api_req *r)
{
	uint32_t f;
	struct mspec spec;
	if (api_func_arg(r, &f) < 0 || default_spec(r, &spec, NULL) < 0)
		return -1;
	if (profile_compute(r->p) < 0)
		return api_fail(r, 500, "out of memory");
	struct report_disasm *d;
	int e = report_disasm_new(r->p, f, &spec, API_HOT_PERCENT, &d);
	if (e == -EINVAL)
		return api_fail(r, 404, "function %u has no code of its own", f);
	if (e < 0)
		return api_fail(r, e == -ENOMEM ? 500 : 404, "cannot disassemble function %u: %s", f,
				strerror(-e));
	key_str_opt(&r->w, "entry_file", d->entry_file);
	struct api_cols cols;
	api_columns(r, d->cols, d->ncols, d->percent_base, NULL, &cols);
	jsonw_key(&r->w, "rows");
	jsonw_array_begin(&r->w);
	for (size_t i = 0; i < d->nrows; i++) {
		const struct report_disasm_row *row = &d->rows[i];
		jsonw_object_begin(&r->w);
		if (row->kind == REPORT_DISASM_SOURCE) {
			jsonw_key_string(&r->w, "kind", "source");
			key_str_opt(&r->w, "file", row->file);
			jsonw_key_uint(&r->w, "line", row->line);
		} else {
			jsonw_key_string(&r->w, "kind", "insn");
			jsonw_key_uint(&r->w, "addr", row->addr);
			jsonw_key_string(&r->w, "text", row->text);
			jsonw_key_uint(&r->w, "line", row->line);
			jsonw_key_bool(&r->w, "hot", row->hot);
			json_cells(&r->w, cols.c, cols.n, d->values + i * d->ncols, NULL);
		}
		jsonw_object_end(&r->w);
	}
	jsonw_array_end(&r->w);
	report_disasm_free(d);
	return 0;
}

/* Argument key as an unsigned decimal into *v: 0 when absent (or empty), 1 when read, -1 when not a number. */
static int uint_arg(const struct api_req *r, const char *key, unsigned long long *v)
{
	const char *s = api_arg(r, key);
	if (!s || !*s)
		return 0;
	char *end;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return *end || errno || !isdigit((unsigned char)s[0]) ? -1 : 1;
}

int api_ns_arg(struct api_req *r, const char *key, uint64_t def, uint64_t *ret)
{
	unsigned long long v = def;
	int got = uint_arg(r, key, &v);
	if (got < 0)
		return api_fail(r, 400, "%s '%s' is not a time in ns", key, api_arg(r, key));
	*ret = got ? v : def;
	return 0;
}

int api_frames(struct api_req *r, size_t x, uint32_t s)
{
	return json_frames(&r->w, r->p, x, s, NULL, 1);
}

int api_count_arg(struct api_req *r, const char *key, size_t def, size_t max, size_t *ret)
{
	unsigned long long v = def;
	int got = uint_arg(r, key, &v);
	if (got < 0 || (got && v > max))
		return api_fail(r, 400, "%s '%s' is not a count from 0 to %zu", key, api_arg(r, key), max);
	*ret = got ? (size_t)v : def;
	return 0;
}

static const struct {
	const char *name;
	int (*fn)(struct api_req *r);
} endpoints[] = {
	{"overview", api_overview}, {"functions", api_functions}, {"callers", api_callers},
	{"calltree", api_calltree}, {"flame", api_flame},         {"heap", api_heap},
	{"timeline", api_timeline}, {"threads", api_threads},     {"experiments", api_experiments},
	{"source", api_source},     {"disasm", api_disasm},       {"io", api_io},
	{"compare", api_compare},
};

/* t0 and t1: the time selection of every endpoint (none: every event), on the shared time base. */
static int time_args(struct api_req *r)
{
	uint64_t t0, t1;
	if (api_ns_arg(r, "t0", 0, &t0) < 0 || api_ns_arg(r, "t1", UINT64_MAX, &t1) < 0)
		return -1;
	profile_set_time_shared(r->p, 1);
	if (profile_select_time(r->p, t0, t1) < 0)
		return api_fail(r, 400, "the time range t0 %llu to t1 %llu is empty", (unsigned long long)t0,
				(unsigned long long)t1);
	return 0;
}

/*
 * filter, threads and cpus: the filter, thread and CPU selections of this
 * request (absent: none).  Each is set only when it differs from the
 * previous request's, since a change makes the next profile_compute redo
 * the metrics.
 */
/* Argument "view": the viewmode (user when absent, er_print's default). 0, or -1 after api_fail. */
static int view_arg(struct api_req *r)
{
	static const char *const modes[] = {"user", "expert", "machine"}; /* enum profile_viewmode's order */
	const char *v = api_arg(r, "view");
	size_t m = 0;
	while (v && *v && m < 3 && strcmp(v, modes[m]) != 0)
		m++;
	if (m == 3)
		return api_fail(r, 400, "view '%s' is not user, expert or machine", v);
	profile_set_viewmode(r->p, (enum profile_viewmode)m);
	return 0;
}

static int selection_args(struct api_req *r)
{
	const char *f = api_arg(r, "filter");
	if (f && (!*f || strcmp(f, "1") == 0 || strcmp(f, "all") == 0))
		f = NULL;
	const char *cur = profile_filter(r->p);
	char *err = NULL;
	int e = 0;
	if ((f == NULL) != (cur == NULL) || (f && strcmp(f, cur) != 0)) {
		e = profile_set_filter(r->p, f, &err);
		if (e < 0) {
			api_fail(r, e == -ENOMEM ? 500 : 400, "filter '%s': %s", f,
				 err ? err : "out of memory");
			free(err);
			return -1;
		}
	}
	static const struct {
		const char *key;
		int (*set)(struct profile *, const char *, char **);
		const char *(*get)(const struct profile *);
	} sel[] = {{"threads", profile_select_threads, profile_thread_selection},
		   {"cpus", profile_select_cpus, profile_cpu_selection}};
	if (view_arg(r) < 0)
		return -1;
	for (size_t i = 0; i < sizeof sel / sizeof sel[0]; i++) {
		const char *v = api_arg(r, sel[i].key);
		if (!v || !*v)
			v = "all";
		if (strcmp(v, sel[i].get(r->p)) == 0)
			continue;
		e = sel[i].set(r->p, v, &err);
		if (e < 0) {
			api_fail(r, e == -ENOMEM ? 500 : 400, "%s '%s': %s", sel[i].key, v,
				 err ? err : "out of memory");
			free(err);
			return -1;
		}
	}
	return 0;
}

int api_answer(const struct api_data *d, const char *name, const struct api_query *q, struct strbuf *out)
{
	struct api_req r = {.p = d->p, .d = d, .q = q, .status = 200};
	size_t i = 0;
	while (i < sizeof endpoints / sizeof endpoints[0] && strcmp(endpoints[i].name, name) != 0)
		i++;
	strbuf_reset(out);
	jsonw_init(&r.w, NULL, out, 0);
	jsonw_object_begin(&r.w);
	if (i == sizeof endpoints / sizeof endpoints[0])
		api_fail(&r, 404, "no endpoint /api/%s", name);
	else if (time_args(&r) == 0 && selection_args(&r) == 0)
		endpoints[i].fn(&r);
	jsonw_object_end(&r.w);
	if (jsonw_finish(&r.w) < 0 && r.status == 200)
		api_fail(&r, 500, "out of memory");
	if (r.status != 200) { /* the error alone */
		strbuf_reset(out);
		jsonw_init(&r.w, NULL, out, 0);
		jsonw_object_begin(&r.w);
		jsonw_key_string(&r.w, "error", r.error);
		jsonw_object_end(&r.w);
		jsonw_finish(&r.w);
	}
	return out->failed ? 500 : r.status;
}
