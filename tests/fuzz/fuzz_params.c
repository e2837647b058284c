/*
 * fuzz_params - PA_PARAMS, which the collector decodes from whatever its
 * environment holds (experiment/params.h).  The input, NUL-terminated, is
 * decoded: every field must lie within the bounds the header gives (so
 * the collector may use it unchecked), and what was decoded must encode,
 * decode to the same parameters and encode to the same bytes again.
 * A violation calls abort().
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "experiment/params.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_counter(const struct hwcdesc *c)
{
	size_t n = strnlen(c->name, sizeof c->name);
	if (n == 0 || n == sizeof c->name || memchr(c->name, ';', n) || c->interval == 0 ||
	    (c->exclude_kernel != 0 && c->exclude_kernel != 1) || c->precise < 0 || c->precise > 3)
		abort();
}

static void check_bounds(const struct exp_params *p)
{
	if (p->interval_us > EXP_PARAMS_INTERVAL_MAX_US || p->depth_limit < 1 ||
	    p->depth_limit > EXP_PARAMS_DEPTH_MAX || p->sample_period_s > EXP_PARAMS_SAMPLE_MAX_S)
		abort();
	if (p->sample_signal < 0 || p->sample_signal > EXP_PARAMS_SIGNAL_MAX || p->pause_signal < 0 ||
	    p->pause_signal > EXP_PARAMS_SIGNAL_MAX)
		abort();
	if (p->follow != EXP_PARAMS_FOLLOW_OFF && p->follow != EXP_PARAMS_FOLLOW_ON &&
	    p->follow != EXP_PARAMS_FOLLOW_REGEX)
		abort();
	for (int t = 0; t < EXP_PARAMS_TRACERS; t++)
		if (p->tracer[t] != 0 && p->tracer[t] != 1)
			abort();
	if (p->hwc_count > EXP_HWC_MAX_COUNTERS || (p->hwc_count && !p->tracer[EXP_PARAMS_HWC]))
		abort();
	for (size_t i = 0; i < p->hwc_count; i++)
		check_counter(&p->hwc[i]);
}

static int same_counter(const struct hwcdesc *a, const struct hwcdesc *b)
{
	return a->type == b->type && a->config == b->config && a->config1 == b->config1 &&
	       a->config2 == b->config2 && a->exclude_kernel == b->exclude_kernel &&
	       a->precise == b->precise && a->interval == b->interval && strcmp(a->name, b->name) == 0;
}

/* a and b the same parameters (the counters' tracer key aside when no counter came). */
static void check_same(const struct exp_params *a, const struct exp_params *b)
{
	if (a->interval_us != b->interval_us || a->depth_limit != b->depth_limit ||
	    a->window_set != b->window_set || a->window_start_s != b->window_start_s ||
	    a->window_end_s != b->window_end_s || a->sync_threshold_set != b->sync_threshold_set ||
	    a->sync_threshold_us != b->sync_threshold_us || a->sample_period_s != b->sample_period_s ||
	    a->sample_signal != b->sample_signal || a->pause_signal != b->pause_signal ||
	    a->start_paused != b->start_paused || a->follow != b->follow || a->hwc_count != b->hwc_count)
		abort();
	for (int t = 0; t < EXP_PARAMS_TRACERS; t++)
		if (a->tracer[t] != b->tracer[t] && (t != EXP_PARAMS_HWC || a->hwc_count))
			abort();
	for (size_t i = 0; i < a->hwc_count; i++)
		if (!same_counter(&a->hwc[i], &b->hwc[i]))
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	struct exp_params p, q;
	params_decode(s, &p);
	free(s);
	check_bounds(&p);
	static char once[4096], twice[4096];
	if (params_encode(&p, once, sizeof once) <= 0)
		abort();
	params_decode(once, &q);
	check_same(&p, &q);
	if (params_encode(&q, twice, sizeof twice) <= 0 || strcmp(once, twice) != 0)
		abort();
	return 0;
}
