/*
 * export_stacks.c - the pieces the JSON exports share (export_stacks.h):
 * stacks copied out of profile_foreach_stack into one frame pool, the
 * metrics carried, function ids numbered densely as frames, and thread and
 * process names.  Not thread-safe, like the profile it reads.
 */
#include "er_print/export_stacks.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/experiment.h"
#include "er_print/export.h"

static int copy_stack(const struct profile_stack *s, void *arg)
{
	struct xstacks *x = arg;
	struct xstack c = {.exp = s->exp,
			   .thread = s->thread,
			   .ts_ns = s->ts_ns,
			   .off = x->frames.n,
			   .n = s->nframes,
			   .moff = x->vals.n};
	for (size_t k = 0; k < x->nm; k++)
		if (VEC_PUSH(&x->vals, s->metrics[k]) < 0)
			return -ENOMEM;
	for (size_t i = 0; i < s->nframes; i++)
		if (VEC_PUSH(&x->frames, s->frames[i]) < 0)
			return -ENOMEM;
	return VEC_PUSH(&x->v, c) < 0 ? -ENOMEM : 0;
}

static int cmp_thread_time(const void *pa, const void *pb)
{
	const struct xstack *a = pa, *b = pb;
	if (a->exp != b->exp)
		return a->exp < b->exp ? -1 : 1;
	if (a->thread != b->thread)
		return a->thread < b->thread ? -1 : 1;
	if (a->ts_ns != b->ts_ns)
		return a->ts_ns < b->ts_ns ? -1 : 1;
	/* stable: the frame pool grows in callback order */
	return a->off < b->off ? -1 : a->off > b->off;
}

int xstacks_collect(struct erp *e, unsigned flags, int sort_by_thread, struct xstacks *ret)
{
	memset(ret, 0, sizeof *ret);
	struct profile_stacks_options o = {.flags = flags};
	profile_metric_defs(e->prof, &ret->nm);
	int r = profile_foreach_stack(e->prof, &o, copy_stack, ret);
	if (r < 0) {
		erp_error(e, "export: %s", strerror(-r));
		xstacks_release(ret);
		return -1;
	}
	for (size_t i = 0; i < ret->v.n; i++) /* the pool moved no more */
		ret->v.v[i].m = ret->vals.v + ret->v.v[i].moff;
	if (sort_by_thread && ret->v.n)
		qsort(ret->v.v, ret->v.n, sizeof *ret->v.v, cmp_thread_time);
	return 0;
}

void xstacks_release(struct xstacks *s)
{
	free(s->v.v);
	free(s->frames.v);
	free(s->vals.v);
	memset(s, 0, sizeof *s);
}

void export_metric_ids(struct erp *e, struct xmetric_ids *ret)
{
	static const char *const kw[] = {"totalcpu", "heapalloccnt", "heapallocbytes", "heapleakcnt",
					 "heapleakbytes"};
	size_t *id[] = {&ret->cpu, &ret->alloccnt, &ret->allocbytes, &ret->leakcnt, &ret->leakbytes};
	for (size_t i = 0; i < sizeof kw / sizeof kw[0]; i++) {
		long k = profile_metric_find(e->prof, kw[i]);
		*id[i] = k < 0 ? SIZE_MAX : (size_t)k;
	}
}

size_t export_metrics(struct erp *e, size_t metric, size_t **ret)
{
	size_t nd;
	const struct metric_def *d = profile_metric_defs(e->prof, &nd);
	if (!(*ret = malloc((nd ? nd : 1) * sizeof **ret))) {
		erp_error(e, "export: %s", strerror(ENOMEM));
		return 0;
	}
	if (metric != EXPORT_METRIC_ALL) {
		(*ret)[0] = metric;
		return 1;
	}
	size_t n = 0;
	for (size_t i = 0; i < nd; i++)
		if (d[i].unit != METRIC_UNIT_RATIO) /* computed (IPC), not carried by stacks */
			(*ret)[n++] = i;
	return n;
}

int export_metric_in(const size_t *metrics, size_t n, size_t m)
{
	if (m == SIZE_MAX)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (metrics[i] == m)
			return 1;
	return 0;
}

int export_metric_is_leak(struct erp *e, size_t m)
{
	size_t n;
	const struct metric_def *d = profile_metric_defs(e->prof, &n);
	return m < n && d[m].at_end;
}

int export_json_finish(struct erp *e, struct jsonw *w, int err)
{
	if (!err)
		err = jsonw_finish(w);
	if (!err || err == -EIO)
		return 0;
	if (err == -ENOMEM)
		erp_error(e, "export: %s", strerror(ENOMEM));
	else
		erp_error(e, "export: internal error writing JSON: %s", strerror(-err));
	return -1;
}

int xframes_init(struct xframes *x, struct erp *e)
{
	memset(x, 0, sizeof *x);
	x->index = calloc(profile_func_count(e->prof) + 1, sizeof *x->index);
	return x->index ? 0 : -ENOMEM;
}

long xframes_get(struct xframes *x, uint32_t func)
{
	if (!x->index[func]) {
		if (VEC_PUSH(&x->funcs, func) < 0)
			return -ENOMEM;
		x->index[func] = (uint32_t)x->funcs.n;
	}
	return (long)x->index[func] - 1;
}

void xframes_release(struct xframes *x)
{
	free(x->index);
	free(x->funcs.v);
	memset(x, 0, sizeof *x);
}

void export_thread_name(struct erp *e, size_t exp, uint32_t thread, int with_tid, char *buf, size_t room)
{
	const struct experiment *x = profile_experiment(e->prof, exp);
	const struct exp_thread *t = experiment_thread(x, thread);
	char tid[32] = "";
	if (with_tid)
		snprintf(tid, sizeof tid, " (tid %" PRIu32 ")", t->tid);
	snprintf(buf, room, "%s%sThread %" PRIu32 "%s",
		 profile_experiment_count(e->prof) > 1 ? experiment_name(x) : "",
		 profile_experiment_count(e->prof) > 1 ? " " : "", t->number, tid);
}

const char *export_process_name(struct erp *e, size_t exp)
{
	const struct experiment *x = profile_experiment(e->prof, exp);
	const char *p = experiment_log(x)->target_path;
	if (!p || !*p)
		return experiment_name(x);
	const char *slash = strrchr(p, '/');
	return slash && slash[1] ? slash + 1 : p;
}

uint64_t export_time_origin_ns(struct erp *e)
{
	uint64_t t = UINT64_MAX;
	for (size_t i = 0; i < profile_experiment_count(e->prof); i++) {
		uint64_t s = experiment_log(profile_experiment(e->prof, i))->start_ns;
		if (s && s < t)
			t = s;
	}
	return t == UINT64_MAX ? 0 : t;
}
