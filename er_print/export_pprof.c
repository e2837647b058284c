/*
 * export_pprof.c - pprof's profile.proto (third_party/pprof, encoded by
 * protoc-c's generated code), gzipped, as `go tool pprof` reads it.
 *
 *  - sample_type: every base metric the experiments have, named by its
 *    er_print keyword, unit "nanoseconds", "count" or "bytes" (totalcpu;
 *    with heap data also the heap metrics); default_sample_type is the
 *    metric chosen.  Summed over the samples, each value is <Total>.
 *  - One Sample per distinct (experiment, thread, stack), leaf first, with a
 *    string label "thread": the thread number ("E:T", experiment and
 *    thread, when several experiments are loaded), as thread_select takes it.
 *  - One Function and one Location per function of the stacks: the name
 *    er_print shows (`name` setting), the mangled (else the same) name as
 *    system_name, the source file and first line when the line table has
 *    them.  Frames are functions, not PCs: Locations carry no address.
 *  - One Mapping per load object (an executable first), with its build id;
 *    has_functions, so pprof does not symbolize again.
 *  - period: the clock-profiling interval; time_nanos and duration_nanos:
 *    the span of the selected experiments.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "common/arena.h"
#include "common/u64map.h"
#include "common/vec.h"
#include "er_print/export.h"
#include "analysis/experiment.h"
#include "analysis/report_source.h"
#include "er_print/show.h"
#include "third_party/pprof/profile.pb-c.h"

/* Short names for protoc-c's generated message types. */
typedef Perftools__Profiles__Profile pp_profile;
typedef Perftools__Profiles__ValueType pp_value_type;
typedef Perftools__Profiles__Sample pp_sample;
typedef Perftools__Profiles__Label pp_label;
typedef Perftools__Profiles__Mapping pp_mapping;
typedef Perftools__Profiles__Location pp_location;
typedef Perftools__Profiles__Line pp_line;
typedef Perftools__Profiles__Function pp_function;

struct pp {
	struct erp *e;
	struct arena_chunk *arena; /* every message and copied string */
	VEC(char *) strings;       /* the string table; [0] = "" */
	struct u64map kept;        /* address of a string the profile owns -> its index */
	struct u64map threads;     /* (experiment << 32 | thread) -> index of its label text */
	VEC(pp_sample *) samples;
	VEC(pp_location *) locations;
	VEC(pp_function *) functions;
	VEC(pp_mapping *) mappings;
	uint32_t *func_loc;   /* function id -> location id, 0: none yet */
	pp_mapping **obj_map; /* object id -> its mapping, NULL: none yet */
	size_t *value_metric; /* sample value i is base metric value_metric[i] */
	size_t nvalues;
	int64_t thread_key;
	int main_first; /* mappings.v[0] is an executable */
	int failed;     /* out of memory: the result is discarded */
};

/* sizeof(type) zeroed bytes from the arena, or NULL with pp->failed set. */
static void *pp_new(struct pp *pp, size_t size)
{
	void *p = arena_alloc(&pp->arena, size);
	if (!p) {
		pp->failed = 1;
		return NULL;
	}
	return memset(p, 0, size);
}

static int64_t push_string(struct pp *pp, char *s)
{
	if (!s || VEC_PUSH(&pp->strings, s) < 0) {
		pp->failed = 1;
		return 0;
	}
	return (int64_t)pp->strings.n - 1;
}

/* The index of a copy of s (a string that dies before the export ends). */
static int64_t str_copy(struct pp *pp, const char *s)
{
	return push_string(pp, arena_strndup(&pp->arena, s, strlen(s)));
}

/* The index of s, which lives as long as the profile: one entry per address. */
static int64_t str_keep(struct pp *pp, const char *s)
{
	int64_t i = u64map_get(&pp->kept, (uintptr_t)s);
	if (i >= 0)
		return i;
	i = push_string(pp, (char *)s);
	if (!pp->failed && u64map_put(&pp->kept, (uintptr_t)s, (uint32_t)i) < 0)
		pp->failed = 1;
	return i;
}

/* The experiments' load object recorded at path, or NULL. */
static const struct exp_loadobj *find_loadobj(const struct profile *p, const char *path)
{
	for (size_t x = 0; x < profile_experiment_count(p); x++) {
		size_t n;
		const struct exp_loadobj *objs = experiment_objects(profile_experiment(p, x), &n);
		for (size_t i = 0; i < n; i++)
			if (strcmp(objs[i].path, path) == 0)
				return &objs[i];
	}
	return NULL;
}

/* The mapping id of load object obj (made on first use), 0 for none. */
static uint64_t mapping_id(struct pp *pp, uint32_t obj)
{
	if (obj == PROFILE_NO_OBJECT || obj >= profile_object_count(pp->e->prof))
		return 0;
	if (pp->obj_map[obj])
		return pp->obj_map[obj]->id;
	pp_mapping *m = pp_new(pp, sizeof *m);
	if (!m || VEC_PUSH(&pp->mappings, m) < 0) {
		pp->failed = 1;
		return 0;
	}
	*m = (pp_mapping)PERFTOOLS__PROFILES__MAPPING__INIT;
	const struct pobject *o = profile_object(pp->e->prof, obj);
	const struct exp_loadobj *lo = find_loadobj(pp->e->prof, o->path);
	m->id = pp->mappings.n;
	m->filename = str_keep(pp, o->path);
	if (lo && lo->build_id)
		m->build_id = str_keep(pp, lo->build_id);
	m->has_functions = 1;
	if (lo && lo->kind == EXP_OBJ_EXE && !pp->main_first) { /* pprof: mapping[0] is the main binary */
		pp->mappings.v[pp->mappings.n - 1] = pp->mappings.v[0];
		pp->mappings.v[0] = m;
		pp->main_first = 1;
	}
	pp->obj_map[obj] = m;
	return m->id;
}

/* A function's Function and Location (made on first use); its location id. */
static uint64_t location_id(struct pp *pp, uint32_t fid)
{
	if (pp->func_loc[fid])
		return pp->func_loc[fid];
	const struct pfunc *f = profile_func(pp->e->prof, fid);
	pp_function *fn = pp_new(pp, sizeof *fn);
	pp_line *ln = pp_new(pp, sizeof *ln);
	pp_location *loc = pp_new(pp, sizeof *loc);
	pp_line **lines = pp_new(pp, sizeof *lines);
	if (pp->failed || VEC_PUSH(&pp->functions, fn) < 0 || VEC_PUSH(&pp->locations, loc) < 0) {
		pp->failed = 1;
		return 0;
	}
	char name[4096];
	*fn = (pp_function)PERFTOOLS__PROFILES__FUNCTION__INIT;
	fn->id = pp->functions.n;
	fn->name = str_copy(pp, erp_func_name(pp->e, f, name, sizeof name));
	fn->system_name = str_keep(pp, f->mangled[0] ? f->mangled : f->name);
	*loc = (pp_location)PERFTOOLS__PROFILES__LOCATION__INIT;
	loc->id = pp->locations.n;
	loc->mapping_id = mapping_id(pp, f->obj);
	struct line_loc pos;
	if (report_func_position(pp->e->prof, f, &pos) && pos.file[0]) {
		fn->filename = str_keep(pp, pos.file);
		fn->start_line = pos.line;
		if (loc->mapping_id)
			pp->obj_map[f->obj]->has_filenames = 1;
	}
	*ln = (pp_line)PERFTOOLS__PROFILES__LINE__INIT;
	ln->function_id = fn->id;
	lines[0] = ln;
	loc->line = lines;
	loc->n_line = 1;
	pp->func_loc[fid] = (uint32_t)loc->id;
	return loc->id;
}

/* The "thread" label's text of (experiment, thread index): "T", or "E:T" with several experiments. */
static int64_t thread_text(struct pp *pp, size_t exp, uint32_t thread)
{
	uint64_t key = (uint64_t)exp << 32 | thread;
	int64_t i = u64map_get(&pp->threads, key);
	if (i >= 0)
		return i;
	const struct experiment *x = profile_experiment(pp->e->prof, exp);
	char t[48];
	if (profile_experiment_count(pp->e->prof) > 1)
		snprintf(t, sizeof t, "%zu:%" PRIu32, exp + 1, experiment_thread(x, thread)->number);
	else
		snprintf(t, sizeof t, "%" PRIu32, experiment_thread(x, thread)->number);
	i = str_copy(pp, t);
	if (!pp->failed && u64map_put(&pp->threads, key, (uint32_t)i) < 0)
		pp->failed = 1;
	return i;
}

static int add_sample(const struct profile_stack *s, void *arg)
{
	struct pp *pp = arg;
	pp_sample *sm = pp_new(pp, sizeof *sm);
	uint64_t *locs = pp_new(pp, s->nframes * sizeof *locs);
	int64_t *vals = pp_new(pp, pp->nvalues * sizeof *vals);
	pp_label *label = pp_new(pp, sizeof *label);
	pp_label **labels = pp_new(pp, sizeof *labels);
	if (pp->failed || VEC_PUSH(&pp->samples, sm) < 0)
		return -ENOMEM;
	*sm = (pp_sample)PERFTOOLS__PROFILES__SAMPLE__INIT;
	for (size_t i = 0; i < s->nframes; i++) /* pprof: leaf first */
		locs[i] = location_id(pp, s->frames[s->nframes - 1 - i]);
	sm->location_id = locs;
	sm->n_location_id = s->nframes;
	for (size_t i = 0; i < pp->nvalues; i++) {
		uint64_t v = s->metrics[pp->value_metric[i]];
		vals[i] = v > INT64_MAX ? INT64_MAX : (int64_t)v;
	}
	sm->value = vals;
	sm->n_value = pp->nvalues;
	*label = (pp_label)PERFTOOLS__PROFILES__LABEL__INIT;
	label->key = pp->thread_key;
	label->str = thread_text(pp, s->exp, s->thread);
	labels[0] = label;
	sm->label = labels;
	sm->n_label = 1;
	return pp->failed ? -ENOMEM : 0;
}

static const char *unit_name(enum metric_unit u)
{
	return u == METRIC_UNIT_TIME ? "nanoseconds" : u == METRIC_UNIT_BYTES ? "bytes" : "count";
}

/* sample_type: the metrics the experiments have (the registry); default_sample_type: `metric`. */
static void add_sample_types(struct pp *pp, pp_profile *pr, size_t metric)
{
	size_t n;
	const struct metric_def *d = profile_metric_defs(pp->e->prof, &n);
	pp->value_metric = calloc(n, sizeof *pp->value_metric);
	pr->sample_type = pp_new(pp, n * sizeof *pr->sample_type);
	if (!pp->value_metric || !pr->sample_type) {
		pp->failed = 1;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		pp_value_type *vt = pp_new(pp, sizeof *vt);
		if (!vt)
			return;
		*vt = (pp_value_type)PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
		vt->type = str_keep(pp, d[i].keyword);
		vt->unit = str_keep(pp, unit_name(d[i].unit));
		if (i == metric)
			pr->default_sample_type = vt->type;
		pr->sample_type[pp->nvalues] = vt;
		pp->value_metric[pp->nvalues++] = i;
	}
	pr->n_sample_type = pp->nvalues;
}

/* period: the first selected clock-profiling interval; time_nanos, duration_nanos: the span. */
static void add_times(struct pp *pp, pp_profile *pr)
{
	const struct profile *p = pp->e->prof;
	uint64_t first = UINT64_MAX, last = 0;
	for (size_t x = 0; x < profile_experiment_count(p); x++) {
		const struct experiment *exp = profile_experiment(p, x);
		const struct exp_log *l = experiment_log(exp);
		if (!profile_experiment_selected(p, x))
			continue;
		uint64_t us = l->effective_interval_us ? l->effective_interval_us : l->clock_interval_us;
		int clock_on = !l->clock_mode || strcmp(l->clock_mode, "off") != 0;
		if (!pr->period && clock_on && us && us <= INT64_MAX / 1000) {
			pr->period_type = pp_new(pp, sizeof *pr->period_type);
			if (!pr->period_type)
				return;
			*pr->period_type = (pp_value_type)PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
			pr->period_type->type = str_keep(pp, "totalcpu");
			pr->period_type->unit = str_keep(pp, "nanoseconds");
			pr->period = (int64_t)(us * 1000);
		}
		if (!l->realtime_ns)
			continue;
		if (l->realtime_ns < first)
			first = l->realtime_ns;
		if (l->realtime_ns + experiment_duration_ns(exp) > last)
			last = l->realtime_ns + experiment_duration_ns(exp);
	}
	if (first != UINT64_MAX && last <= INT64_MAX) {
		pr->time_nanos = (int64_t)first;
		pr->duration_nanos = (int64_t)(last - first);
	}
}

/* One comment per selected experiment: its path. */
static void add_comments(struct pp *pp, pp_profile *pr)
{
	const struct profile *p = pp->e->prof;
	size_t n = profile_experiment_count(p);
	pr->comment = pp_new(pp, n * sizeof *pr->comment);
	for (size_t x = 0; pr->comment && x < n; x++)
		if (profile_experiment_selected(p, x))
			pr->comment[pr->n_comment++] =
				str_keep(pp, experiment_path(profile_experiment(p, x)));
}

/* Write data[0..n) gzipped to f.  0, or -EIO from zlib (write errors are on f). */
static int write_gzip(FILE *f, const uint8_t *data, size_t n)
{
	z_stream z = {0};
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16 /* gzip */, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK)
		return -ENOMEM;
	unsigned char out[16384];
	size_t left = n;
	int r = 0;
	for (;;) {
		if (!z.avail_in && left) {
			z.next_in = (Bytef *)(data + (n - left));
			z.avail_in = left > UINT_MAX ? UINT_MAX : (uInt)left;
			left -= z.avail_in;
		}
		z.next_out = out;
		z.avail_out = sizeof out;
		int zr = deflate(&z, left || z.avail_in ? Z_NO_FLUSH : Z_FINISH);
		if (zr == Z_STREAM_ERROR) {
			r = -EIO;
			break;
		}
		size_t have = sizeof out - z.avail_out;
		if ((have && fwrite(out, 1, have, f) != have) || zr == Z_STREAM_END)
			break;
	}
	deflateEnd(&z);
	return r;
}

static int pack_and_write(struct pp *pp, pp_profile *pr, FILE *f)
{
	pr->string_table = pp->strings.v;
	pr->n_string_table = pp->strings.n;
	pr->sample = pp->samples.v;
	pr->n_sample = pp->samples.n;
	pr->mapping = pp->mappings.v;
	pr->n_mapping = pp->mappings.n;
	pr->location = pp->locations.v;
	pr->n_location = pp->locations.n;
	pr->function = pp->functions.v;
	pr->n_function = pp->functions.n;
	size_t size = perftools__profiles__profile__get_packed_size(pr);
	uint8_t *buf = malloc(size ? size : 1);
	if (!buf)
		return -ENOMEM;
	perftools__profiles__profile__pack(pr, buf);
	int r = write_gzip(f, buf, size);
	free(buf);
	return r;
}

int export_pprof(struct erp *e, FILE *f, size_t metric)
{
	struct profile *p = e->prof;
	struct pp pp = {.e = e};
	pp_profile pr = PERFTOOLS__PROFILES__PROFILE__INIT;
	u64map_init(&pp.kept);
	u64map_init(&pp.threads);
	pp.func_loc = calloc(profile_func_count(p) + 1, sizeof *pp.func_loc);
	pp.obj_map = calloc(profile_object_count(p) + 1, sizeof *pp.obj_map);
	if (!pp.func_loc || !pp.obj_map)
		pp.failed = 1;
	str_keep(&pp, ""); /* string_table[0] */
	pp.thread_key = str_keep(&pp, "thread");
	add_sample_types(&pp, &pr, metric == EXPORT_METRIC_ALL ? PROFILE_METRIC_TOTALCPU : metric);
	add_times(&pp, &pr);
	add_comments(&pp, &pr);
	struct profile_stacks_options opt = {.flags = PROFILE_STACKS_BY_THREAD};
	int r = pp.failed ? -ENOMEM : profile_foreach_stack(p, &opt, add_sample, &pp);
	if (r == 0)
		r = pp.failed ? -ENOMEM : pack_and_write(&pp, &pr, f);
	if (r < 0)
		erp_error(e, "export: %s", strerror(-r));
	free(pp.samples.v);
	free(pp.locations.v);
	free(pp.functions.v);
	free(pp.mappings.v);
	free(pp.strings.v);
	free(pp.func_loc);
	free(pp.obj_map);
	free(pp.value_metric);
	u64map_release(&pp.kept);
	u64map_release(&pp.threads);
	arena_free(pp.arena);
	return r < 0 ? -1 : 0;
}
