/*
 * profile_filter.c - the one event predicate of every metric source and
 * report (profile_event_selected), the CPU selection (cpu_select) and the
 * filter expression (filter.h).  The common case, nothing selected away but
 * threads, costs two array loads; the sample of an event is looked up only
 * when the sample selection or the filter needs it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/filter.h"
#include "analysis/profile_internal.h"

/* One more than the highest CPU number (below PROFILE_MAX_CPU) of experiment x's clock events. */
static uint32_t cpu_limit(const struct experiment *e)
{
	uint32_t n = 0;
	for (size_t i = 0; i < EXP_COUNT(e, CLOCK); i++)
		if (EXP_ROWS(e, CLOCK)[i].cpu < PROFILE_MAX_CPU && EXP_ROWS(e, CLOCK)[i].cpu >= n)
			n = EXP_ROWS(e, CLOCK)[i].cpu + 1;
	return n;
}

ssize_t profile_cpus_seen(const struct profile *p, size_t x, uint32_t **ret_cpus, uint64_t **ret_counts)
{
	*ret_cpus = NULL;
	*ret_counts = NULL;
	const struct experiment *e = profile_experiment(p, x);
	uint32_t lim = e ? cpu_limit(e) : 0;
	if (lim == 0)
		return 0;
	uint64_t *count = calloc(lim, sizeof *count);
	if (!count)
		return -ENOMEM;
	for (size_t i = 0; i < EXP_COUNT(e, CLOCK); i++)
		if (EXP_ROWS(e, CLOCK)[i].cpu < lim && EXP_ROWS(e, CLOCK)[i].kind == EXP_EV_CLOCK)
			count[EXP_ROWS(e, CLOCK)[i].cpu]++;
	size_t n = 0;
	for (uint32_t c = 0; c < lim; c++)
		n += count[c] != 0;
	uint32_t *cpus = malloc(n * sizeof *cpus);
	uint64_t *counts = malloc(n * sizeof *counts);
	if (!cpus || !counts) {
		free(cpus);
		free(counts);
		free(count);
		return -ENOMEM;
	}
	for (uint32_t c = 0, k = 0; c < lim; c++)
		if (count[c]) {
			cpus[k] = c;
			counts[k++] = count[c];
		}
	free(count);
	*ret_cpus = cpus;
	*ret_counts = counts;
	return (ssize_t)n;
}

/* Parse LIST into a fresh set for each experiment of expsel; 0 or -errno. */
static int parse_cpu_sets(struct profile *p, const char *list, const char *end, const uint8_t *expsel,
			  uint8_t **sets, uint32_t *lims, char **ret_err)
{
	for (size_t i = 0; i < p->exps.n; i++) {
		if (!expsel[i])
			continue;
		lims[i] = cpu_limit(p->exps.v[i].exp);
		sets[i] = malloc(lims[i] ? lims[i] : 1);
		if (!sets[i])
			return -ENOMEM;
		int r = profile_parse_ranges_from(list, end, sets[i], lims[i], 0, ret_err);
		if (r < 0)
			return r;
	}
	uint8_t dummy; /* the syntax, even without experiments */
	return profile_parse_ranges_from(list, end, &dummy, 0, 0, ret_err);
}

/* Install the parsed sets and the selection text (or free them when r < 0). */
static void apply_cpu_sets(struct profile *p, int r, const uint8_t *expsel, uint8_t **sets,
			   const uint32_t *lims, char *text)
{
	for (size_t i = 0; i < p->exps.n; i++) {
		if (r == 0 && expsel[i]) {
			free(p->exps.v[i].cpu_sel);
			p->exps.v[i].cpu_sel = sets[i];
			p->exps.v[i].ncpu_sel = lims[i];
		} else {
			free(sets[i]);
		}
	}
	if (r < 0) {
		free(text);
		return;
	}
	free(p->cpu_selection_text);
	p->cpu_selection_text = text;
	if (!strcmp(text, "all")) { /* back to no selection */
		for (size_t i = 0; i < p->exps.n; i++) {
			free(p->exps.v[i].cpu_sel);
			p->exps.v[i].cpu_sel = NULL;
		}
		free(p->cpu_selection_text);
		p->cpu_selection_text = NULL;
	}
	p->dirty = 1;
}

int profile_select_cpus(struct profile *p, const char *spec, char **ret_err)
{
	const char *list, *end;
	uint8_t *expsel;
	char *text;
	int r = profile_split_exp_spec(p, spec, "CPU", &expsel, &list, &end, &text, ret_err);
	if (r < 0)
		return r;
	size_t ne = p->exps.n;
	uint8_t **sets = calloc(ne ? ne : 1, sizeof *sets);
	uint32_t *lims = calloc(ne ? ne : 1, sizeof *lims);
	r = sets && lims ? 0 : -ENOMEM;
	if (r == 0)
		r = parse_cpu_sets(p, list, end, expsel, sets, lims, ret_err);
	if (sets)
		apply_cpu_sets(p, r, expsel, sets, lims, text);
	else
		free(text);
	free(lims);
	free(sets);
	free(expsel);
	return r;
}

const char *profile_cpu_selection(const struct profile *p)
{
	return p->cpu_selection_text ? p->cpu_selection_text : "all";
}

int profile_cpu_selected(const struct profile *p, size_t x, uint32_t cpu)
{
	if (x >= p->exps.n)
		return 0;
	const struct exp_slot *e = &p->exps.v[x];
	return !e->cpu_sel || (cpu < e->ncpu_sel && e->cpu_sel[cpu]);
}

int profile_set_filter(struct profile *p, const char *expr, char **ret_err)
{
	*ret_err = NULL;
	struct filter *f = NULL;
	if (expr) {
		while (*expr == ' ')
			expr++;
		size_t len = strlen(expr);
		while (len && expr[len - 1] == ' ')
			len--;
		if (!((len == 1 && expr[0] == '1') || (len == 3 && !strncmp(expr, "all", 3)))) {
			char *t = strndup(expr, len);
			if (!t)
				return -ENOMEM;
			int r = filter_compile(t, &f, ret_err);
			free(t);
			if (r < 0)
				return r;
		}
	}
	filter_free(p->filter);
	p->filter = f;
	p->dirty = 1;
	return 0;
}

const char *profile_filter(const struct profile *p)
{
	return p->filter ? filter_text(p->filter) : NULL;
}

void profile_filter_release(struct profile *p)
{
	filter_free(p->filter);
	p->filter = NULL;
	free(p->cpu_selection_text);
	p->cpu_selection_text = NULL;
}

/* The filter's verdict on the event. */
static int filter_passes(const struct profile *p, size_t x, uint32_t thread, uint32_t cpu, uint64_t ts_ns)
{
	const struct experiment *e = p->exps.v[x].exp;
	unsigned props = filter_props(p->filter);
	uint64_t v[FILTER_NPROPS];
	v[FILTER_THRID] = e->threads[thread].number;
	v[FILTER_LWPID] = e->threads[thread].tid;
	v[FILTER_CPU] = cpu == PROFILE_NO_CPU ? FILTER_NO_CPU : cpu;
	v[FILTER_SAMPLE] = props & (1u << FILTER_SAMPLE) ? profile_sample_at(p, x, ts_ns) : 0;
	v[FILTER_TSTAMP] = ts_ns > e->log.start_ns ? ts_ns - e->log.start_ns : 0;
	v[FILTER_EXPID] = x + 1;
	return filter_eval(p->filter, v);
}

int profile_event_selected(const struct profile *p, size_t x, uint32_t thread, uint32_t cpu, uint64_t ts_ns)
{
	if (x >= p->exps.n)
		return 0;
	const struct exp_slot *e = &p->exps.v[x];
	if (!e->exp_selected || thread >= e->exp->nthreads || !e->selected[thread])
		return 0;
	if (e->cpu_sel && (cpu >= e->ncpu_sel || !e->cpu_sel[cpu]))
		return 0;
	if (!profile_time_selected(p, x, ts_ns))
		return 0;
	return !p->filter || filter_passes(p, x, thread, cpu, ts_ns);
}
