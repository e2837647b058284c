/*
 * profile_sync.c - synchronization wait tracing (collect -s) as a metric
 * source: each recorded wait charges its wait time (`sync`, Sync Wait Time)
 * and a count of 1 (`syncn`, Sync Wait Count) to its stack, whose leaf is
 * the libc function that waited.  Waits of threads or times outside the
 * selection are skipped, as clock samples are.
 */
#include "analysis/profile_internal.h"
#include "experiment/format.h"

/* In the order of the values each charge carries. */
static const struct metric_def sync_defs[] = {
	{"sync", "Sync Wait Time", "Sync Wait", METRIC_UNIT_TIME, METRIC_FLAVORS_ALL, EXP_FILE_NAME_SYNC, 0,
	 NULL, NULL},
	{"syncn", "Sync Wait Count", "Sync Waits", METRIC_UNIT_COUNT, METRIC_FLAVORS_ALL, EXP_FILE_NAME_SYNC,
	 0, NULL, NULL},
};

static int sync_present(const struct profile *p, size_t x, void *arg)
{
	(void)arg;
	return EXP_PRESENT(p->exps.v[x].exp, SYNC);
}

static int sync_selected(const struct profile *p, size_t x, const struct exp_sync_event *y)
{
	return profile_event_selected(p, x, y->thread, PROFILE_NO_CPU, y->ts_ns);
}

static int sync_charge(struct profile *p, size_t x, profile_charge_fn fn, void *fn_arg, void *arg)
{
	(void)arg;
	const struct experiment *exp = p->exps.v[x].exp;
	int r = 0;
	for (size_t i = 0; r == 0 && i < EXP_COUNT(exp, SYNC); i++) {
		const struct exp_sync_event *y = &EXP_ROWS(exp, SYNC)[i];
		if (!sync_selected(p, x, y))
			continue;
		uint64_t v[2] = {y->wait_ns, 1};
		struct profile_charge c = {
			.stack = y->stack, .thread = y->thread, .ts_ns = y->ts_ns, .event = 1, .values = v};
		r = fn(fn_arg, &c);
	}
	return r;
}

static int sync_sum(struct profile *p, size_t x, uint64_t *sums, size_t stride, const size_t *cols, void *arg)
{
	(void)arg;
	const struct experiment *exp = p->exps.v[x].exp;
	for (size_t i = 0; i < EXP_COUNT(exp, SYNC); i++) {
		const struct exp_sync_event *y = &EXP_ROWS(exp, SYNC)[i];
		if (!sync_selected(p, x, y))
			continue;
		uint64_t *v = sums + (size_t)y->stack * stride;
		v[cols[0]] += y->wait_ns;
		v[cols[1]] += 1;
	}
	return 0;
}

static const struct profile_metric_source sync_source = {
	.needs = "synchronization wait data (collect -s on)",
	.defs = sync_defs,
	.ndefs = sizeof sync_defs / sizeof sync_defs[0],
	.present = sync_present,
	.charge = sync_charge,
	.sum = sync_sum,
};

const struct profile_module profile_sync_module = {.source = &sync_source};
