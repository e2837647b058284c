/*
 * show_sync.c - er_print's synclocks report: the synchronization objects
 * ranked by the time threads waited on them (analysis/report_sync.h), each
 * with the call stacks that waited, largest first, listed leaf first like
 * the heap reports' stacks, then how often it was taken from its first
 * wait on and the stacks that took it most often (sampled).
 */
#include <inttypes.h>
#include <stdlib.h>

#include "analysis/experiment.h"
#include "analysis/report_sync.h"
#include "er_print/erp.h"
#include "er_print/show.h"
#include "er_print/textout.h"
#include "experiment/record.h"

static int has_sync(const struct profile *p)
{
	for (size_t x = 0; x < profile_experiment_count(p); x++) {
		struct exp_header h;
		experiment_header(profile_experiment(p, x), &h);
		if (h.has_sync)
			return 1;
	}
	return 0;
}

ssize_t show_sync_list(struct erp *e, struct report_sync_object **ret)
{
	*ret = NULL;
	if (show_prepare(e) < 0)
		return -1;
	if (!has_sync(e->prof)) {
		erp_error(e, "no synchronization wait data in the experiments (record with collect -s on)");
		return -1;
	}
	ssize_t got = report_sync_objects(e->prof, ret);
	if (got < 0)
		erp_error(e, "out of memory");
	return got < 0 ? -1 : got;
}

/* o's acquisitions: the count and the REPORT_SYNC_TOP_ACQUIRERS stacks sampled most often. */
static void print_acquirers(struct erp *e, const struct report_sync_object *o)
{
	if (o->sample_every)
		textout_printf(e->out,
			       " Acquired %" PRIu64 " time%s since its first wait; most often at"
			       " (1 in %" PRIu64 " of each thread's acquisitions sampled: %" PRIu64
			       " sample%s):\n",
			       o->acquisitions, o->acquisitions == 1 ? "" : "s", o->sample_every,
			       o->acq_samples, o->acq_samples == 1 ? "" : "s");
	else if (o->nacquirers)
		textout_printf(e->out,
			       " Acquisitions not counted (the process did not end normally); most often at"
			       " (%" PRIu64 " sample%s):\n",
			       o->acq_samples, o->acq_samples == 1 ? "" : "s");
	for (size_t k = 0; k < o->nacquirers && k < REPORT_SYNC_TOP_ACQUIRERS; k++) {
		const struct report_sync_acquirer *a = &o->acquirers[k];
		textout_printf(e->out, " Took it in %" PRIu64 " sample%s (%.1f%%) at:\n", a->samples,
			       a->samples == 1 ? "" : "s",
			       100.0 * (double)a->samples / (double)o->acq_samples);
		erp_print_frames(e, o->exp, a->stack);
	}
}

int show_synclocks(struct erp *e, const char *arg)
{
	(void)arg;
	struct report_sync_object *v;
	ssize_t got = show_sync_list(e, &v);
	if (got < 0)
		return -1;
	size_t n = (size_t)got, shown = e->limit > 0 && (size_t)e->limit < n ? (size_t)e->limit : n;
	uint64_t total = 0, waits = 0;
	for (size_t i = 0; i < n; i++)
		total += v[i].wait_ns, waits += v[i].waits;
	textout_printf(e->out,
		       "Synchronization objects sorted by wait time: %zu, %.3f s in %" PRIu64 " waits\n\n", n,
		       (double)total / 1e9, waits);
	for (size_t i = 0; i < shown; i++) {
		const struct report_sync_object *o = &v[i];
		textout_printf(e->out,
			       "Object %zu: 0x%016" PRIX64 " (%s) in %s: %.3f s, %" PRIu64 " wait%s\n", i + 1,
			       o->object, record_sync_func_name(o->func),
			       experiment_name(profile_experiment(e->prof, o->exp)), (double)o->wait_ns / 1e9,
			       o->waits, o->waits == 1 ? "" : "s");
		for (size_t k = 0; k < o->nstacks; k++) {
			const struct report_sync_waiter *w = &o->stacks[k];
			textout_printf(e->out, " Waited %.3f s, %" PRIu64 " wait%s (%.1f%%) at:\n",
				       (double)w->wait_ns / 1e9, w->waits, w->waits == 1 ? "" : "s",
				       o->wait_ns ? 100.0 * (double)w->wait_ns / (double)o->wait_ns : 0.0);
			erp_print_frames(e, o->exp, w->stack);
		}
		print_acquirers(e, o);
		fputc('\n', e->out);
	}
	report_sync_objects_free(v, n);
	return 0;
}
