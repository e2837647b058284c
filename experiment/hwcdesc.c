/*
 * hwcdesc.c - a counter's perf_event_attr (see hwcdesc.h).
 */
#include "experiment/hwcdesc.h"

#include <string.h>

void hwcdesc_attr(const struct hwcdesc *c, struct perf_event_attr *a)
{
	memset(a, 0, sizeof *a);
	a->size = sizeof *a;
	a->type = c->type;
	a->config = c->config;
	a->config1 = c->config1;
	a->config2 = c->config2;
	a->sample_period = c->interval;
	a->sample_type = 0; /* header-only samples: the collector only counts them */
	a->disabled = 1;
	a->exclude_kernel = (unsigned)c->exclude_kernel;
	a->exclude_hv = 1;
	a->precise_ip = (unsigned)c->precise;
	a->wakeup_events = 1; /* a signal per overflow */
}
