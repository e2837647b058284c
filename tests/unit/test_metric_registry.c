/*
 * test_metric_registry - a metric known only at run time plugs into a
 * profile (analysis/profile.h's metrics registry): a source registered by
 * the test, whose keyword and names are made at run time, charges values to
 * a synthetic experiment's stacks; the metric then has its vector slot in
 * every engine (functions, callers-callees, objects, lines), its totals, its
 * place in profile_foreach_stack's vectors, and a name mspec parses.  Also
 * the registry's rules: order of first appearance, indices that never move,
 * a source without data stays out (and says what it needs), keywords are
 * unique, flavors are checked.
 *
 * The experiment (tests/tools/mkexp over tests/fixtures/cc_prog.c's
 * symbols): thread 100 main<-slow<-work 10 samples and main<-both<-fast 5
 * samples, 10 ms each.  The run-time counter charges 7 per sample, and 1000
 * more for each of slow's samples as a state at the end (no event).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/experiment_internal.h"
#include "analysis/mspec.h"
#include "analysis/profile.h"
#include "analysis/report_list.h"
#include "tests/unit/check.h"
#include "tests/unit/fixture.h"

static const char script[] = "thread 100\n"
			     "sample 100 10 10000000 work+10 slow+9 main+42\n"
			     "sample 100 5 10000000 fast+9 both+8 main+16\n"
			     "end 100 150000000\n";

/* The counter's definition, built at run time as a counter read from a file would be. */
static char kw[32], user[64], abbrev[32];
static struct metric_def counter_def;

struct counter {
	int present_calls;
	uint32_t slow_stack; /* the recorded stack with slow in it: its end-of-run charge */
};

static int counter_present(const struct profile *p, size_t x, void *arg)
{
	struct counter *c = arg;
	c->present_calls++;
	return EXP_COUNT(profile_experiment(p, x), CLOCK) > 0;
}

/* 7 per selected clock sample at its stack; 1000 per slow sample as a state at the end. */
static int counter_charge(struct profile *p, size_t x, profile_charge_fn fn, void *fn_arg, void *arg)
{
	const struct counter *c = arg;
	const struct experiment *exp = profile_experiment(p, x);
	uint64_t at_end = 0;
	for (size_t i = 0; i < EXP_COUNT(exp, CLOCK); i++) {
		const struct exp_event *ev = &EXP_ROWS(exp, CLOCK)[i];
		if (!profile_thread_selected(p, x, ev->thread))
			continue;
		uint64_t v = 7;
		struct profile_charge ch = {.stack = ev->stack,
					    .thread = ev->thread,
					    .ts_ns = ev->ts_ns,
					    .event = 1,
					    .values = &v};
		int r = fn(fn_arg, &ch);
		if (r)
			return r;
		at_end += ev->stack == c->slow_stack ? 1000 : 0;
	}
	struct profile_charge end = {.stack = c->slow_stack, .thread = 0, .event = 0, .values = &at_end};
	return at_end ? fn(fn_arg, &end) : 0;
}

static uint32_t func(struct profile *p, const char *name)
{
	uint32_t id = 0;
	CHECK_EQ_U64(profile_find_funcs(p, name, &id, 1), 1);
	return id;
}

struct sums {
	uint64_t cpu, counter;
	size_t calls;
};

static int add_stack(const struct profile_stack *s, void *arg)
{
	struct sums *w = arg;
	w->cpu += s->metrics[PROFILE_METRIC_TOTALCPU];
	w->counter += s->metrics[1];
	w->calls++;
	return 0;
}

static void check_counter(struct profile *p)
{
	CHECK_EQ_U64(profile_compute(p), 0);
	size_t n;
	const struct metric_def *d = profile_metric_defs(p, &n);
	CHECK_EQ_U64(n, 2); /* totalcpu (always first), then the counter */
	CHECK_EQ_STR(d[0].keyword, "totalcpu");
	CHECK_EQ_STR(d[1].keyword, "cycles_run_time");
	CHECK_EQ_U64(profile_metric_find(p, "cycles_run_time"), 1);
	const struct metrics *m = profile_metrics(p);
	uint32_t work = func(p, "work"), slow = func(p, "slow"), fast = func(p, "fast"),
		 mainf = func(p, "main");
	/* totals and the function list: 15 x 7 + 10 x 1000 */
	CHECK_EQ_U64(metrics_total(m)[1], 10105);
	CHECK_EQ_U64(metrics_total(m)[0], 150000000);
	CHECK_EQ_U64(metrics_exclusive(m, work)[1], 10070);
	CHECK_EQ_U64(metrics_exclusive(m, fast)[1], 35);
	CHECK_EQ_U64(metrics_inclusive(m, slow)[1], 10070);
	CHECK_EQ_U64(metrics_inclusive(m, mainf)[1], 10105);
	CHECK_EQ_U64(metrics_total(profile_object_metrics(p))[1], 10105);
	CHECK_EQ_U64(metrics_total(profile_line_metrics(p))[1], 10105);
	CHECK_EQ_U64(metrics_total(profile_pc_metrics(p))[1], 10105);
	/* attributed: slow's caller edge from main carries its inclusive value */
	int call_err;
	const struct metrics *cm = profile_call_metrics(p, &call_err);
	CHECK(cm != NULL);
	CHECK_EQ_U64(metrics_inclusive(cm, slow)[1], metrics_inclusive(m, slow)[1]);
	const struct metrics_edge *ed;
	size_t ne = metrics_callers(cm, slow, &ed);
	CHECK_EQ_U64(ne, 1);
	if (ne == 1) {
		CHECK_EQ_U64(ed[0].func, mainf);
		CHECK_EQ_U64(ed[0].values[1], 10070);
	}

	/* a metric list and sort by it: the values a list shows, in its order */
	struct mspec ms, sort;
	char err[256], buf[256];
	CHECK(mspec_parse(p, "e.cycles_run_time:i.%cycles_run_time:name", 0, &ms, err, sizeof err) == 0);
	CHECK(mspec_parse(p, "e.cycles_run_time", 1, &sort, err, sizeof err) == 0);
	mspec_format(p, &ms, buf, sizeof buf);
	CHECK_EQ_STR(buf, "e.cycles_run_time:i.%cycles_run_time:name");
	CHECK_EQ_U64(ms.items[0].metric, 1);
	CHECK_EQ_U64(report_item_value(m, &ms.items[1], PROFILE_FUNC_TOTAL), 10105);
	CHECK_EQ_U64(report_item_value(m, &ms.items[1], mainf), 10105);
	uint32_t ids[2] = {fast, work};
	uint64_t key[64] = {0};
	char *names[64] = {0};
	CHECK(work < 64 && fast < 64);
	if (work < 64 && fast < 64) {
		names[work] = "work";
		names[fast] = "fast";
		key[work] = report_item_value(m, &sort.items[0], work);
		key[fast] = report_item_value(m, &sort.items[0], fast);
		report_sort_ids(ids, 2, key, names, 0);
		CHECK_EQ_U64(ids[0], work);
		CHECK_EQ_U64(ids[1], fast);
	}
	/* flavors are the source's: no attributed one */
	CHECK(mspec_parse(p, "a.cycles_run_time", 0, &ms, err, sizeof err) == -EINVAL);
	CHECK_EQ_STR(err, "metric 'cycles_run_time' has no attributed flavor");

	/* the stacks exporters see: aggregate sums, and the end-of-run charge is no event */
	struct sums w = {0};
	CHECK_EQ_U64(profile_foreach_stack(p, NULL, add_stack, &w), 0);
	CHECK_EQ_U64(w.counter, 10105);
	CHECK_EQ_U64(w.cpu, 150000000);
	CHECK_EQ_U64(w.calls, 2);
	struct profile_stacks_options o = {.flags = PROFILE_STACKS_BY_EVENT};
	memset(&w, 0, sizeof w);
	CHECK_EQ_U64(profile_foreach_stack(p, &o, add_stack, &w), 0);
	CHECK_EQ_U64(w.calls, 30); /* each sample twice: once as the clock's event, once as the counter's */
	CHECK_EQ_U64(w.counter, 105);
	CHECK_EQ_U64(w.cpu, 150000000);
	o.flags = PROFILE_STACKS_BY_THREAD;
	memset(&w, 0, sizeof w);
	CHECK_EQ_U64(profile_foreach_stack(p, &o, add_stack, &w), 0);
	CHECK_EQ_U64(w.counter, 10105);
}

int main(void)
{
	char fixtures[4096], dir[] = "/tmp/pa-unit-registry.XXXXXX", path[4200], text[8192];
	if (!find_fixtures_dir(fixtures, sizeof fixtures, "cc_prog.c") || !getenv("PA_BUILD")) {
		fprintf(stderr, "skip: no tests/fixtures/cc_prog.c or PA_BUILD (run through tests/run.sh)\n");
		return 77;
	}
	CHECK(mkdtemp(dir) != NULL);
	CHECK(sh("cc -O0 -g -o %s/prog %s/cc_prog.c", dir, fixtures) == 0);
	snprintf(text, sizeof text, "object %s/prog\n%s", dir, script);
	CHECK(make_exp(dir, "s", text) == 0);
	snprintf(path, sizeof path, "%s/s.er", dir);

	/* names made at run time, as a counter listed in a data file would have */
	const char *hw = "cycles";
	snprintf(kw, sizeof kw, "%s_run_time", hw);
	snprintf(user, sizeof user, "CPU Cycles (run time)");
	snprintf(abbrev, sizeof abbrev, "Cycles");
	counter_def = (struct metric_def){
		kw, user, abbrev, METRIC_UNIT_COUNT, METRIC_FLAVOR_EXCL | METRIC_FLAVOR_INCL, "counters",
		0,  NULL, NULL};
	struct counter c = {0};
	struct profile_metric_source src = {.needs = "counter data",
					    .defs = &counter_def,
					    .ndefs = 1,
					    .present = counter_present,
					    .charge = counter_charge,
					    .arg = &c};

	/* slow's stack: work+10 under slow+9, the recorded stack of the 10 samples */
	struct profile *p;
	char *err = NULL;
	CHECK(profile_new(&p) == 0);
	CHECK(profile_add_experiment(p, path, &err) == 0);
	free(err);
	err = NULL;
	const struct experiment *x = profile_experiment(p, 0);
	for (uint32_t i = 0; x && i < x->nstacks; i++) {
		uint64_t n = 0;
		for (size_t e = 0; e < EXP_COUNT(x, CLOCK); e++)
			n += EXP_ROWS(x, CLOCK)[e].stack == i;
		if (n == 10)
			c.slow_stack = i;
	}

	/* registered after the experiment was added: its metric joins at once */
	size_t n;
	profile_metric_defs(p, &n);
	CHECK_EQ_U64(n, 1);
	CHECK_EQ_U64(profile_compute(p), 0);
	CHECK_EQ_U64(profile_metric_register(p, &src), 0);
	CHECK(c.present_calls == 1);
	check_counter(p); /* recomputed with the new metric */
	profile_free(p);

	/* registered before: it joins when the experiment is added */
	CHECK(profile_new(&p) == 0);
	CHECK_EQ_U64(profile_metric_register(p, &src), 0);
	profile_metric_defs(p, &n);
	CHECK_EQ_U64(n, 0); /* no experiment yet: no metric */
	CHECK_EQ_STR(profile_metric_needs(p, "cycles_run_time"), "counter data");
	CHECK(profile_add_experiment(p, path, &err) == 0);
	free(err);
	err = NULL;
	CHECK(profile_metric_needs(p, "cycles_run_time") == NULL);
	check_counter(p);
	/* the thread selection applies: no thread, nothing */
	CHECK(profile_select_threads(p, "2", &err) == 0);
	CHECK_EQ_U64(profile_compute(p), 0);
	CHECK_EQ_U64(metrics_total(profile_metrics(p))[1], 0);

	/* keywords are unique; a source must say what it defines and how to charge it */
	CHECK(profile_metric_register(p, &src) == -EEXIST);
	struct metric_def cpu2 = counter_def;
	cpu2.keyword = "totalcpu";
	struct profile_metric_source dup = src;
	dup.defs = &cpu2;
	CHECK(profile_metric_register(p, &dup) == -EEXIST);
	struct profile_metric_source bad = src;
	bad.ndefs = 0;
	CHECK(profile_metric_register(p, &bad) == -EINVAL);
	bad = src;
	bad.charge = NULL;
	CHECK(profile_metric_register(p, &bad) == -EINVAL);
	profile_metric_defs(p, &n);
	CHECK_EQ_U64(n, 2);
	profile_free(p);

	CHECK(sh("rm -rf '%s'", dir) == 0);
	return check_done();
}
