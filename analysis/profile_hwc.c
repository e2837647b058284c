/*
 * profile_hwc.c - counter overflow profiling (collect -h) as metric sources
 * (see profile_hwc.h): each HWC event of a counter charges its stack with
 * overflows x the counter's interval.  Events of threads or times outside
 * the selection are skipped, as clock samples are.
 */
#include "analysis/profile_hwc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analysis/profile_internal.h"
#include "experiment/format.h"

/*
 * One counter's source: its metric and the name experiments know it by.
 * as_time: the cycles counter as time, cycles x 1000 / clock_mhz ns, in the
 * experiments whose log.xml has the clock rate (the others have none of it).
 */
struct hwc_source {
	struct metric_def def;
	char keyword[80];
	char name[64]; /* as in log.xml */
	char username[80];
	int as_time;
};

/* The names of the cycles and instructions counters (libpfm4's pmu:: prefix and :modifiers aside). */
static const char *const cycles_names[] = {
	"cycles", "cpu-cycles", "cpu_cycles", "CYCLES", "PERF_COUNT_HW_CPU_CYCLES", "CPU_CLK_UNHALTED"};
static const char *const insts_names[] = {"insts",        "instructions",
					  "INSTRUCTIONS", "PERF_COUNT_HW_INSTRUCTIONS",
					  "INST_RETIRED", "INSTRUCTIONS_RETIRED"};

static int name_is(const char *name, const char *const *names, size_t n)
{
	const char *base = strstr(name, "::");
	base = base ? base + 2 : name;
	size_t len = strcspn(base, ":");
	for (size_t i = 0; i < n; i++)
		if (strlen(names[i]) == len && strncasecmp(base, names[i], len) == 0)
			return 1;
	return 0;
}

/* Index of exp's first counter whose name is one of names, or -1. */
static int counter_named(const struct experiment *exp, const char *const *names, size_t n)
{
	for (size_t k = 0; k < exp->log.nhwc; k++)
		if (name_is(exp->log.hwc[k].name, names, n))
			return (int)k;
	return -1;
}

#define NAMES(a) a, sizeof a / sizeof a[0]

/* Counter k of experiment x that is this source's, or -1. */
static int counter_of(const struct profile *p, size_t x, const struct hwc_source *s)
{
	const struct exp_log *l = &p->exps.v[x].exp->log;
	if (s->as_time && !l->clock_mhz)
		return -1;
	for (size_t k = 0; k < l->nhwc; k++)
		if (strcmp(l->hwc[k].name, s->name) == 0)
			return (int)k;
	return -1;
}

static int hwc_present(const struct profile *p, size_t x, void *arg)
{
	return EXP_PRESENT(p->exps.v[x].exp, HWC) && counter_of(p, x, arg) >= 0;
}

/* What count events of the source's counter are worth in experiment exp. */
static uint64_t event_value(const struct experiment *exp, const struct hwc_source *s, uint64_t count)
{
	if (!s->as_time)
		return count;
	return (uint64_t)((unsigned __int128)count * 1000 / exp->log.clock_mhz); /* counter_of: mhz > 0 */
}

static int hwc_selected(const struct profile *p, size_t x, const struct exp_hwc_event *y)
{
	return profile_event_selected(p, x, y->thread, PROFILE_NO_CPU, y->ts_ns);
}

static int hwc_charge(struct profile *p, size_t x, profile_charge_fn fn, void *fn_arg, void *arg)
{
	const struct experiment *exp = p->exps.v[x].exp;
	int k = counter_of(p, x, arg), r = 0;
	if (k < 0)
		return 0;
	uint64_t interval = exp->log.hwc[k].interval;
	for (size_t i = 0; r == 0 && i < EXP_COUNT(exp, HWC); i++) {
		const struct exp_hwc_event *y = &EXP_ROWS(exp, HWC)[i];
		if (y->counter != (uint32_t)k || !hwc_selected(p, x, y))
			continue;
		uint64_t v = event_value(exp, arg, y->overflows * interval);
		struct profile_charge c = {
			.stack = y->stack, .thread = y->thread, .ts_ns = y->ts_ns, .event = 1, .values = &v};
		r = fn(fn_arg, &c);
	}
	return r;
}

static int hwc_sum(struct profile *p, size_t x, uint64_t *sums, size_t stride, const size_t *cols, void *arg)
{
	const struct experiment *exp = p->exps.v[x].exp;
	int k = counter_of(p, x, arg);
	if (k < 0)
		return 0;
	uint64_t interval = exp->log.hwc[k].interval;
	for (size_t i = 0; i < EXP_COUNT(exp, HWC); i++) {
		const struct exp_hwc_event *y = &EXP_ROWS(exp, HWC)[i];
		if (y->counter == (uint32_t)k && hwc_selected(p, x, y))
			sums[(size_t)y->stack * stride + cols[0]] +=
				event_value(exp, arg, y->overflows * interval);
	}
	return 0;
}

/* The metric keyword of counter name: ':' (libpfm4's pmu::event) would split a metric list. */
static void keyword_of(const char *name, char *ret, size_t room)
{
	snprintf(ret, room, "%s", name);
	for (char *q = ret; *q; q++)
		if (*q == ':')
			*q = '_';
}

/* The counter module's state in a profile: the default metric list and sort its counters make. */
struct hwc_state {
	char *metrics;  /* "e.C:i.C:..." of the counter metrics, NULL: none */
	char *defaults; /* ... and the default metric list with them (a buffer of defaults_bytes) */
	size_t defaults_bytes;
	char *sort; /* "e.KW" of the first counter, NULL: none */
};

/* Counter c's metric, or with as_time its cycles as time (KEYWORD_time, not in the default list). */
static int register_counter(struct profile *p, struct hwc_state *hs, const struct exp_hwc_counter *c,
			    int as_time)
{
	struct hwc_source *s = calloc(1, sizeof *s);
	if (!s)
		return -ENOMEM;
	snprintf(s->name, sizeof s->name, "%s", c->name);
	keyword_of(c->name, s->keyword, sizeof s->keyword);
	snprintf(s->username, sizeof s->username, "%s", c->name);
	s->as_time = as_time;
	if (as_time) {
		size_t n = strlen(s->keyword);
		snprintf(s->keyword + n, sizeof s->keyword - n, "_time");
		snprintf(s->username, sizeof s->username, "%s time", c->name);
	}
	s->def = (struct metric_def){.keyword = s->keyword,
				     .username = s->username,
				     .abbrev = s->username,
				     .unit = c->time_ns || as_time ? METRIC_UNIT_TIME : METRIC_UNIT_COUNT,
				     .flavors = METRIC_FLAVORS_ALL,
				     .data_file = EXP_FILE_NAME_HWC,
				     .at_end = 0};
	/* the profile owns it (freed with its strings) */
	if (!profile_own(p, (char *)s))
		return -ENOMEM;
	struct profile_metric_source src = {
		.needs =
			as_time ? "a cycles counter (collect -h cycles) and the clock rate (log.xml clock_mhz)"
				: "counter overflow data (collect -h)",
		.defs = &s->def,
		.ndefs = 1,
		.present = hwc_present,
		.charge = hwc_charge,
		.sum = hwc_sum,
		.arg = s,
	};
	int r = profile_metric_register(p, &src);
	if (r == -EEXIST)
		return 0; /* a metric of that name exists already (another counter's, or a built-in one) */
	if (r < 0 || as_time)
		return r;
	/* the default list's counter columns, in order of first appearance */
	size_t old = hs->metrics ? strlen(hs->metrics) : 0;
	char *m = realloc(hs->metrics, old + 2 * strlen(s->keyword) + 8);
	if (!m)
		return -ENOMEM;
	sprintf(m + old, "%se.%s:i.%s", old ? ":" : "", s->keyword, s->keyword);
	hs->metrics = m;
	size_t bytes = strlen(m) + 512; /* room for the longest MSPEC_DEFAULT_*_METRICS too */
	char *d = realloc(hs->defaults, bytes);
	if (!d)
		return -ENOMEM;
	hs->defaults = d;
	hs->defaults_bytes = bytes;
	if (!hs->sort) { /* the first counter's exclusive metric */
		size_t n = strlen(s->keyword) + 3;
		if (!(hs->sort = malloc(n)))
			return -ENOMEM;
		snprintf(hs->sort, n, "e.%s", s->keyword);
	}
	return 0;
}

/* IPC and CPI: ratios of the counters named cycles (keyword 0) and insts (keyword 1). */
struct ratio_source {
	struct metric_def defs[2];
	char cycles[64], insts[64]; /* keywords */
};

static int ratio_present(const struct profile *p, size_t x, void *arg)
{
	const struct ratio_source *s = arg;
	const struct experiment *exp = p->exps.v[x].exp;
	if (!EXP_PRESENT(exp, HWC))
		return 0;
	int c = counter_named(exp, NAMES(cycles_names)), i = counter_named(exp, NAMES(insts_names));
	char kc[64], ki[64];
	if (c < 0 || i < 0)
		return 0;
	keyword_of(exp->log.hwc[c].name, kc, sizeof kc);
	keyword_of(exp->log.hwc[i].name, ki, sizeof ki);
	return strcmp(kc, s->cycles) == 0 && strcmp(ki, s->insts) == 0;
}

static int ratio_charge(struct profile *p, size_t x, profile_charge_fn fn, void *fn_arg, void *arg)
{
	(void)p, (void)x, (void)fn, (void)fn_arg, (void)arg;
	return 0; /* computed by profile_compute from its two counters, never charged */
}

static struct metric_def ratio_def(const char *kw, const char *username, const char *num, const char *den)
{
	return (struct metric_def){.keyword = kw,
				   .username = username,
				   .abbrev = kw,
				   .unit = METRIC_UNIT_RATIO,
				   .flavors = METRIC_FLAVORS_ALL,
				   .data_file = EXP_FILE_NAME_HWC,
				   .ratio_num = num,
				   .ratio_den = den};
}

/* IPC and CPI when exp recorded both a cycles and an instructions counter and p has no IPC yet. */
static int register_ratios(struct profile *p, const struct experiment *exp)
{
	int c = counter_named(exp, NAMES(cycles_names)), i = counter_named(exp, NAMES(insts_names));
	if (c < 0 || i < 0 || profile_metric_find(p, "IPC") >= 0 || profile_metric_needs(p, "IPC"))
		return 0;
	struct ratio_source *s = calloc(1, sizeof *s);
	if (!s || !profile_own(p, (char *)s))
		return -ENOMEM;
	keyword_of(exp->log.hwc[c].name, s->cycles, sizeof s->cycles);
	keyword_of(exp->log.hwc[i].name, s->insts, sizeof s->insts);
	s->defs[0] = ratio_def("IPC", "Instructions Per Cycle", s->insts, s->cycles);
	s->defs[1] = ratio_def("CPI", "Cycles Per Instruction", s->cycles, s->insts);
	/* no sum: the charges (none) are what profile_compute adds up */
	struct profile_metric_source src = {
		.needs = "cycles and instructions counters (collect -h cycles,insts)",
		.defs = s->defs,
		.ndefs = 2,
		.present = ratio_present,
		.charge = ratio_charge,
		.arg = s};
	int r = profile_metric_register(p, &src);
	return r == -EEXIST ? 0 : r;
}

/* Experiment x was added: a source for each of its counters not yet known to p. */
static int hwc_added(struct profile *p, size_t x, void *vst)
{
	struct hwc_state *hs = vst;
	const struct experiment *exp = p->exps.v[x].exp;
	for (size_t k = 0; k < exp->log.nhwc; k++) {
		char kw[64];
		keyword_of(exp->log.hwc[k].name, kw, sizeof kw);
		if (profile_metric_find(p, kw) >= 0 || profile_metric_needs(p, kw))
			continue; /* known: registered by an earlier experiment */
		int r = register_counter(p, hs, &exp->log.hwc[k], 0);
		if (r == 0 && name_is(exp->log.hwc[k].name, NAMES(cycles_names)))
			r = register_counter(p, hs, &exp->log.hwc[k], 1);
		if (r < 0)
			return r;
	}
	return register_ratios(p, exp);
}

static void hwc_release(void *vst)
{
	struct hwc_state *hs = vst;
	free(hs->metrics);
	free(hs->defaults);
	free(hs->sort);
}

const struct profile_module profile_hwc_module = {
	.state_bytes = sizeof(struct hwc_state),
	.added = hwc_added,
	.release = hwc_release,
};

const char *profile_hwc_default_metrics(const struct profile *p, const char *base)
{
	const struct hwc_state *hs = profile_module_state(p, &profile_hwc_module);
	if (!hs->metrics || !hs->defaults)
		return base;
	const char *cpu = strstr(base, "i.%totalcpu");
	if (cpu) {
		size_t head = (size_t)(cpu - base) + strlen("i.%totalcpu");
		snprintf(hs->defaults, hs->defaults_bytes, "%.*s:%s%s", (int)head, base, hs->metrics,
			 base + head);
	} else {
		snprintf(hs->defaults, hs->defaults_bytes, "%s:%s", hs->metrics, base);
	}
	return hs->defaults;
}

const char *profile_hwc_default_sort(const struct profile *p, const char *base)
{
	const struct hwc_state *hs = profile_module_state(p, &profile_hwc_module);
	if (!hs->sort)
		return base;
	for (size_t x = 0; x < p->exps.n; x++) {
		const char *mode = p->exps.v[x].exp->log.clock_mode;
		if (!mode || strcmp(mode, "off") != 0)
			return base; /* some experiment has (or may have) clock data */
	}
	return hs->sort;
}
