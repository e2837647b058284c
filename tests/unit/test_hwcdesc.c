/*
 * test_hwcdesc.c - experiment/hwcdesc.h: the attr collect probes and the
 * collector opens is a sampling one with the counter's fields.  (The
 * counters' text in PA_PARAMS is tests/unit/test_params.c's.)
 */
#include "experiment/hwcdesc.h"

#include <string.h>

#include "tests/unit/check.h"

static void test_attr(void)
{
	struct hwcdesc c = {.type = 4,
			    .config = 0x1c0,
			    .config1 = 7,
			    .config2 = 9,
			    .exclude_kernel = 1,
			    .precise = 2,
			    .interval = 9999991,
			    .name = "perf::INSTRUCTIONS"};
	struct perf_event_attr a;
	memset(&a, 0xff, sizeof a);
	hwcdesc_attr(&c, &a);
	CHECK(a.size == sizeof a && a.type == 4 && a.config == 0x1c0 && a.config1 == 7 && a.config2 == 9);
	CHECK(a.sample_period == 9999991 && a.disabled && a.exclude_kernel && a.precise_ip == 2);
	CHECK(a.wakeup_events == 1 && !a.inherit && a.sample_type == 0 && a.exclude_hv);
	struct hwcdesc u = {.type = 1, .config = 2, .interval = 1, .name = "page-faults"};
	hwcdesc_attr(&u, &a);
	CHECK(a.type == 1 && a.config == 2 && a.config1 == 0 && a.sample_period == 1);
	CHECK(!a.exclude_kernel && a.precise_ip == 0 && a.disabled);
}

int main(void)
{
	test_attr();
	return check_done();
}
