/*
 * report_sync.c - the synclocks model (see report_sync.h): each selected
 * experiment's waits sorted by object and stack, then grouped, each object
 * with its count and sampled acquisitions found by binary search.
 * O(n log n) in the waits and sampled acquisitions.
 */
#include "analysis/report_sync.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/experiment_internal.h"
#include "experiment/format.h"

struct wait_ref {
	uint64_t object;
	uint32_t stack, func;
	uint64_t wait_ns;
};

static int cmp_ref(const void *a, const void *b)
{
	const struct wait_ref *x = a, *y = b;
	if (x->object != y->object)
		return x->object < y->object ? -1 : 1;
	if (x->stack != y->stack)
		return x->stack < y->stack ? -1 : 1;
	return (x->func > y->func) - (x->func < y->func);
}

static int cmp_waiter(const void *a, const void *b)
{
	const struct report_sync_waiter *x = a, *y = b;
	if (x->wait_ns != y->wait_ns)
		return x->wait_ns > y->wait_ns ? -1 : 1;
	if (x->waits != y->waits)
		return x->waits > y->waits ? -1 : 1;
	return (x->stack > y->stack) - (x->stack < y->stack);
}

static int cmp_object(const void *a, const void *b)
{
	const struct report_sync_object *x = a, *y = b;
	if (x->wait_ns != y->wait_ns)
		return x->wait_ns > y->wait_ns ? -1 : 1;
	if (x->waits != y->waits)
		return x->waits > y->waits ? -1 : 1;
	if (x->exp != y->exp)
		return x->exp < y->exp ? -1 : 1;
	return (x->object > y->object) - (x->object < y->object);
}

/* The selected waits of experiment x, sorted by object and stack; their count or -ENOMEM. */
static ssize_t selected_waits(const struct profile *p, size_t x, struct wait_ref **ret)
{
	const struct experiment *exp = profile_experiment(p, x);
	*ret = NULL;
	if (!EXP_COUNT(exp, SYNC) || !profile_experiment_selected(p, x))
		return 0;
	struct wait_ref *v = malloc(EXP_COUNT(exp, SYNC) * sizeof *v);
	if (!v)
		return -ENOMEM;
	size_t n = 0;
	for (size_t i = 0; i < EXP_COUNT(exp, SYNC); i++) {
		const struct exp_sync_event *y = &EXP_ROWS(exp, SYNC)[i];
		if (profile_event_selected(p, x, y->thread, PROFILE_NO_CPU, y->ts_ns))
			v[n++] = (struct wait_ref){y->object, y->stack, y->func, y->wait_ns};
	}
	qsort(v, n, sizeof *v, cmp_ref);
	*ret = v;
	return (ssize_t)n;
}

struct acq_ref {
	uint64_t object;
	uint32_t stack;
};

static int cmp_acq_ref(const void *a, const void *b)
{
	const struct acq_ref *x = a, *y = b;
	if (x->object != y->object)
		return x->object < y->object ? -1 : 1;
	return (x->stack > y->stack) - (x->stack < y->stack);
}

static int cmp_acquirer(const void *a, const void *b)
{
	const struct report_sync_acquirer *x = a, *y = b;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return (x->stack > y->stack) - (x->stack < y->stack);
}

/* The selected sampled acquisitions of experiment x, sorted by object and stack; their count or -ENOMEM. */
static ssize_t selected_acqs(const struct profile *p, size_t x, struct acq_ref **ret)
{
	const struct experiment *exp = profile_experiment(p, x);
	*ret = NULL;
	if (!EXP_COUNT(exp, SYNC_ACQ))
		return 0;
	struct acq_ref *v = malloc(EXP_COUNT(exp, SYNC_ACQ) * sizeof *v);
	if (!v)
		return -ENOMEM;
	size_t n = 0;
	for (size_t i = 0; i < EXP_COUNT(exp, SYNC_ACQ); i++) {
		const struct exp_sync_acq_event *a = &EXP_ROWS(exp, SYNC_ACQ)[i];
		if (profile_event_selected(p, x, a->thread, PROFILE_NO_CPU, a->ts_ns))
			v[n++] = (struct acq_ref){a->object, a->stack};
	}
	qsort(v, n, sizeof *v, cmp_acq_ref);
	*ret = v;
	return (ssize_t)n;
}

/* o's count (exp's SYNC_COUNT) and its acquiring stacks from acq[0..nacq) (sorted by object).  0 or -ENOMEM. */
static int add_acquirers(const struct experiment *exp, const struct acq_ref *acq, size_t nacq,
			 struct report_sync_object *o)
{
	size_t lo = 0, hi = EXP_COUNT(exp, SYNC_WATCH);
	while (lo < hi) { /* the object's count */
		size_t mid = lo + (hi - lo) / 2;
		if (EXP_ROWS(exp, SYNC_WATCH)[mid].object < o->object)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < EXP_COUNT(exp, SYNC_WATCH) && EXP_ROWS(exp, SYNC_WATCH)[lo].object == o->object) {
		o->acquisitions = EXP_ROWS(exp, SYNC_WATCH)[lo].acquisitions;
		o->sample_every = EXP_ROWS(exp, SYNC_WATCH)[lo].sample_every;
	}
	for (lo = 0, hi = nacq; lo < hi;) { /* its first sampled acquisition */
		size_t mid = lo + (hi - lo) / 2;
		if (acq[mid].object < o->object)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t end = lo;
	while (end < nacq && acq[end].object == o->object)
		end++;
	if (end == lo)
		return 0;
	o->acquirers = malloc((end - lo) * sizeof *o->acquirers);
	if (!o->acquirers)
		return -ENOMEM;
	for (size_t i = lo; i < end; i++) {
		if (!o->nacquirers || o->acquirers[o->nacquirers - 1].stack != acq[i].stack)
			o->acquirers[o->nacquirers++] = (struct report_sync_acquirer){.stack = acq[i].stack};
		o->acquirers[o->nacquirers - 1].samples++;
		o->acq_samples++;
	}
	qsort(o->acquirers, o->nacquirers, sizeof *o->acquirers, cmp_acquirer);
	return 0;
}

/* Group v[0..n) (one object) into *o: its stacks and totals.  0 or -ENOMEM. */
static int group_object(size_t x, const struct wait_ref *v, size_t n, struct report_sync_object *o)
{
	memset(o, 0, sizeof *o);
	o->exp = x;
	o->object = v[0].object;
	o->stacks = malloc(n * sizeof *o->stacks);
	if (!o->stacks)
		return -ENOMEM;
	uint64_t by_func[EXP_SYNC_FUNC_LIMIT] = {0};
	for (size_t i = 0; i < n; i++) {
		if (!o->nstacks || o->stacks[o->nstacks - 1].stack != v[i].stack)
			o->stacks[o->nstacks++] = (struct report_sync_waiter){.stack = v[i].stack};
		struct report_sync_waiter *w = &o->stacks[o->nstacks - 1];
		w->wait_ns += v[i].wait_ns;
		w->waits++;
		o->wait_ns += v[i].wait_ns;
		o->waits++;
		if (v[i].func < EXP_SYNC_FUNC_LIMIT && ++by_func[v[i].func] > by_func[o->func])
			o->func = v[i].func;
	}
	qsort(o->stacks, o->nstacks, sizeof *o->stacks, cmp_waiter);
	return 0;
}

/* Append experiment x's objects to *objs (count *n, room *cap).  0 or -ENOMEM. */
static int add_experiment(const struct profile *p, size_t x, struct report_sync_object **objs, size_t *n,
			  size_t *cap)
{
	struct wait_ref *v;
	ssize_t m = selected_waits(p, x, &v);
	if (m < 0)
		return -ENOMEM;
	struct acq_ref *acq = NULL;
	ssize_t nacq = m ? selected_acqs(p, x, &acq) : 0;
	if (nacq < 0) {
		free(v);
		return -ENOMEM;
	}
	int r = 0;
	for (size_t i = 0, j; r == 0 && i < (size_t)m; i = j) {
		for (j = i + 1; j < (size_t)m && v[j].object == v[i].object; j++)
			;
		if (*n == *cap) {
			size_t nc = *cap ? *cap * 2 : 16;
			struct report_sync_object *g = realloc(*objs, nc * sizeof *g);
			if (!g) {
				r = -ENOMEM;
				break;
			}
			*objs = g;
			*cap = nc;
		}
		r = group_object(x, v + i, j - i, &(*objs)[*n]);
		if (r == 0) {
			(*n)++; /* freed with the others even if its acquirers fail */
			r = add_acquirers(profile_experiment(p, x), acq, (size_t)nacq, &(*objs)[*n - 1]);
		}
	}
	free(acq);
	free(v);
	return r;
}

ssize_t report_sync_objects(const struct profile *p, struct report_sync_object **ret)
{
	struct report_sync_object *objs = NULL;
	size_t n = 0, cap = 0;
	*ret = NULL;
	for (size_t x = 0; x < profile_experiment_count(p); x++) {
		if (add_experiment(p, x, &objs, &n, &cap) < 0) {
			report_sync_objects_free(objs, n);
			return -ENOMEM;
		}
	}
	if (n)
		qsort(objs, n, sizeof *objs, cmp_object);
	*ret = objs;
	return (ssize_t)n;
}

void report_sync_objects_free(struct report_sync_object *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++) {
		free(v[i].stacks);
		free(v[i].acquirers);
	}
	free(v);
}
