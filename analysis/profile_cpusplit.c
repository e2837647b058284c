/*
 * profile_cpusplit.c - the user/system split of clock profiling (format
 * 1.10) as a metric source: each clock sample charges its user-mode part
 * (`user`, User CPU Time) and the rest of its weight (`system`, System CPU
 * Time) to its stack, so that user + system = totalcpu for every function,
 * line, PC and caller-callee edge of an experiment that has the split.  The
 * source is present only for experiments that have it (has_cpu_split): for
 * the others the metrics are unavailable, not 0.  Samples of threads or
 * times outside the selection are skipped, as for totalcpu.
 */
#include "analysis/profile_internal.h"
#include "experiment/format.h"

/* In the order of the values each charge carries. */
static const struct metric_def split_defs[] = {
	{"user", "User CPU Time", "User CPU", METRIC_UNIT_TIME, METRIC_FLAVORS_ALL, EXP_FILE_NAME_PROFILE, 0,
	 NULL, NULL},
	{"system", "System CPU Time", "Sys. CPU", METRIC_UNIT_TIME, METRIC_FLAVORS_ALL, EXP_FILE_NAME_PROFILE,
	 0, NULL, NULL},
};

static int split_present(const struct profile *p, size_t x, void *arg)
{
	(void)arg;
	return p->exps.v[x].exp->has_cpu_split;
}

static int split_selected(const struct profile *p, size_t x, const struct exp_event *ev)
{
	return profile_event_selected(p, x, ev->thread, ev->cpu, ev->ts_ns);
}

static int split_charge(struct profile *p, size_t x, profile_charge_fn fn, void *fn_arg, void *arg)
{
	(void)arg;
	const struct experiment *exp = p->exps.v[x].exp;
	int r = 0;
	for (size_t i = 0; r == 0 && exp->has_cpu_split && i < EXP_COUNT(exp, CLOCK); i++) {
		const struct exp_event *ev = &EXP_ROWS(exp, CLOCK)[i];
		if (!split_selected(p, x, ev))
			continue;
		uint64_t v[2] = {ev->user_ns, ev->weight_ns - ev->user_ns};
		struct profile_charge c = {.stack = ev->stack,
					   .thread = ev->thread,
					   .ts_ns = ev->ts_ns,
					   .event = 1,
					   .values = v};
		r = fn(fn_arg, &c);
	}
	return r;
}

static int split_sum(struct profile *p, size_t x, uint64_t *sums, size_t stride, const size_t *cols,
		     void *arg)
{
	(void)arg;
	const struct experiment *exp = p->exps.v[x].exp;
	for (size_t i = 0; exp->has_cpu_split && i < EXP_COUNT(exp, CLOCK); i++) {
		const struct exp_event *ev = &EXP_ROWS(exp, CLOCK)[i];
		if (!split_selected(p, x, ev))
			continue;
		uint64_t *v = sums + (size_t)ev->stack * stride;
		v[cols[0]] += ev->user_ns;
		v[cols[1]] += ev->weight_ns - ev->user_ns;
	}
	return 0;
}

static const struct profile_metric_source cpusplit_source = {
	.needs = "the user/system CPU split (collect -p, format 1.10 or later)",
	.defs = split_defs,
	.ndefs = sizeof split_defs / sizeof split_defs[0],
	.present = split_present,
	.charge = split_charge,
	.sum = split_sum,
};

const struct profile_module profile_cpusplit_module = {.source = &cpusplit_source};
