/*
 * profile_samples.c - samples and sample_select (see profile.h): the
 * intervals between an experiment's sample points, and which of them the
 * reports count.  The points are sorted by time (read_overview.c), so an
 * event's sample is found by binary search.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/experiment.h"
#include "analysis/profile_internal.h"

size_t profile_sample_count(const struct profile *p, size_t x)
{
	const struct experiment *e = profile_experiment(p, x);
	if (!e || EXP_COUNT(e, SAMPLES) == 0)
		return 0;
	int ended = EXP_ROWS(e, SAMPLES)[EXP_COUNT(e, SAMPLES) - 1].reason == EXP_SAMPLE_END;
	return EXP_COUNT(e, SAMPLES) == 1 ? 1 : EXP_COUNT(e, SAMPLES) - (size_t)ended;
}

/* The experiment's time of absolute ts_ns, relative to its start. */
static uint64_t rel_ns(const struct experiment *e, uint64_t ts_ns)
{
	return ts_ns > e->log.start_ns ? ts_ns - e->log.start_ns : 0;
}

/* 1 if recording was paused right after point i. */
static int paused_after(const struct experiment *e, size_t i)
{
	int paused = 0;
	for (size_t j = 0; j <= i && j < EXP_COUNT(e, SAMPLES); j++) {
		if (EXP_ROWS(e, SAMPLES)[j].reason == EXP_SAMPLE_PAUSE)
			paused = 1;
		else if (EXP_ROWS(e, SAMPLES)[j].reason == EXP_SAMPLE_RESUME ||
			 EXP_ROWS(e, SAMPLES)[j].reason == EXP_SAMPLE_START)
			paused = 0;
	}
	return paused;
}

int profile_sample_get(const struct profile *p, size_t x, size_t k, struct profile_sample *ret)
{
	size_t n = profile_sample_count(p, x);
	if (k == 0 || k > n)
		return -ENOENT;
	const struct experiment *e = profile_experiment(p, x);
	memset(ret, 0, sizeof *ret);
	ret->number = k;
	ret->start = &EXP_ROWS(e, SAMPLES)[k - 1];
	ret->end = k < EXP_COUNT(e, SAMPLES) ? &EXP_ROWS(e, SAMPLES)[k] : NULL;
	ret->t0_ns = rel_ns(e, ret->start->ts_ns);
	ret->t1_ns = ret->end ? rel_ns(e, ret->end->ts_ns) : e->duration_ns;
	if (ret->t1_ns < ret->t0_ns)
		ret->t1_ns = ret->t0_ns;
	ret->paused = paused_after(e, k - 1);
	return 0;
}

int profile_sample_selected(const struct profile *p, size_t x, size_t k)
{
	if (x >= p->exps.n || k == 0 || k > profile_sample_count(p, x))
		return 0;
	const uint8_t *sel = p->exps.v[x].sample_sel;
	return !sel || sel[k - 1];
}

size_t profile_sample_at(const struct profile *p, size_t x, uint64_t ts_ns)
{
	const struct experiment *e = profile_experiment(p, x);
	size_t n = profile_sample_count(p, x);
	if (n == 0)
		return 0;
	/* points at or before ts_ns: sample k starts at point k-1 */
	size_t lo = 0, hi = EXP_COUNT(e, SAMPLES);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (EXP_ROWS(e, SAMPLES)[mid].ts_ns <= ts_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo == 0 ? 1 : lo > n ? n : lo; /* before the first: sample 1; after the last: the last */
}

int profile_sample_time_selected(const struct profile *p, size_t x, uint64_t ts_ns)
{
	if (x >= p->exps.n || !p->exps.v[x].sample_sel)
		return 1;
	size_t k = profile_sample_at(p, x, ts_ns);
	return k != 0 && p->exps.v[x].sample_sel[k - 1];
}

/* Parse LIST for each selected experiment into a fresh set; 0 or -errno. */
static int parse_all(struct profile *p, const char *list, const char *end, const uint8_t *expsel,
		     uint8_t **sets, char **ret_err)
{
	for (size_t i = 0; i < p->exps.n; i++) {
		if (!expsel[i])
			continue;
		size_t n = profile_sample_count(p, i);
		sets[i] = malloc(n ? n : 1);
		if (!sets[i])
			return -ENOMEM;
		int r = profile_parse_ranges(list, end, sets[i], n, ret_err);
		if (r < 0)
			return r;
	}
	uint8_t dummy; /* the syntax, even without experiments */
	return profile_parse_ranges(list, end, &dummy, 0, ret_err);
}

int profile_select_samples(struct profile *p, const char *spec, char **ret_err)
{
	const char *list, *end;
	uint8_t *expsel;
	char *text;
	int r = profile_split_exp_spec(p, spec, "sample", &expsel, &list, &end, &text, ret_err);
	if (r < 0)
		return r;
	size_t ne = p->exps.n;
	uint8_t **sets = calloc(ne ? ne : 1, sizeof *sets);
	r = sets ? 0 : -ENOMEM;
	if (r == 0)
		r = parse_all(p, list, end, expsel, sets, ret_err);
	for (size_t i = 0; sets && i < ne; i++) {
		if (r == 0 && expsel[i]) {
			free(p->exps.v[i].sample_sel);
			p->exps.v[i].sample_sel = sets[i];
		} else {
			free(sets[i]);
		}
	}
	if (r == 0) {
		free(p->sample_selection_text);
		p->sample_selection_text = text;
		if (!strcmp(text, "all")) { /* back to no filter */
			for (size_t i = 0; i < ne; i++) {
				free(p->exps.v[i].sample_sel);
				p->exps.v[i].sample_sel = NULL;
			}
			free(p->sample_selection_text);
			p->sample_selection_text = NULL;
		}
		p->dirty = 1;
	} else {
		free(text);
	}
	free(sets);
	free(expsel);
	return r;
}

const char *profile_sample_selection(const struct profile *p)
{
	return p->sample_selection_text ? p->sample_selection_text : "all";
}

void profile_samples_release(struct profile *p)
{
	free(p->sample_selection_text);
	p->sample_selection_text = NULL;
}
