/*
 * test_hwcdesc.c - experiment/hwcdesc.h: the counters collect writes into
 * PA_PARAMS are the counters the collector reads back, among the other
 * keys; what does not fit or is malformed is refused or ends the list;
 * the attr is a sampling one with the counter's fields.
 */
#include "experiment/hwcdesc.h"

#include <errno.h>
#include <string.h>

#include "tests/unit/check.h"

static void test_round_trip(void)
{
	struct hwcdesc c[2] = {
		{.type = 1, .config = 2, .interval = 1, .name = "page-faults"},
		{.type = 4,
		 .config = 0x1c0,
		 .config1 = 7,
		 .config2 = 9,
		 .exclude_kernel = 1,
		 .precise = 2,
		 .interval = 9999991,
		 .name = "perf::INSTRUCTIONS"},
	};
	char buf[512] = "p=10007;d=4096";
	CHECK(hwcdesc_format(c, 2, buf, sizeof buf) == 0);
	CHECK(strcmp(buf, "p=10007;d=4096;h=2;h0=1:2:0:0:0:0:1:page-faults;"
			  "h1=4:448:7:9:1:2:9999991:perf::INSTRUCTIONS") == 0);
	strcat(buf, ";F=0;s=1");
	struct hwcdesc d[EXP_HWC_MAX_COUNTERS];
	CHECK(hwcdesc_parse(buf, d) == 2);
	CHECK(d[0].type == 1 && d[0].config == 2 && d[0].config1 == 0 && d[0].exclude_kernel == 0);
	CHECK(d[0].precise == 0 && d[0].interval == 1 && strcmp(d[0].name, "page-faults") == 0);
	CHECK(d[1].type == 4 && d[1].config == 0x1c0 && d[1].config1 == 7 && d[1].config2 == 9);
	CHECK(d[1].exclude_kernel == 1 && d[1].precise == 2 && d[1].interval == 9999991);
	CHECK(strcmp(d[1].name, "perf::INSTRUCTIONS") == 0);

	struct perf_event_attr a;
	hwcdesc_attr(&d[1], &a);
	CHECK(a.size == sizeof a && a.type == 4 && a.config == 0x1c0 && a.config1 == 7 && a.config2 == 9);
	CHECK(a.sample_period == 9999991 && a.disabled && a.exclude_kernel && a.precise_ip == 2);
	CHECK(a.wakeup_events == 1 && !a.inherit && a.sample_type == 0);
}

static void test_refusals(void)
{
	struct hwcdesc c = {.type = 1, .config = 3, .interval = 5, .name = "cs"};
	char small[24] = "p=0;d=4096";
	CHECK(hwcdesc_format(&c, 1, small, sizeof small) == -ENOSPC);
	CHECK(strcmp(small, "p=0;d=4096") == 0); /* unchanged */
	struct hwcdesc bad = {.type = 1, .interval = 1, .name = "a;b"};
	char buf[256] = "";
	CHECK(hwcdesc_format(&bad, 1, buf, sizeof buf) == -EINVAL && buf[0] == '\0');
	struct hwcdesc many[EXP_HWC_MAX_COUNTERS + 1];
	memset(many, 0, sizeof many);
	CHECK(hwcdesc_format(many, EXP_HWC_MAX_COUNTERS + 1, buf, sizeof buf) == -EINVAL);

	struct hwcdesc d[EXP_HWC_MAX_COUNTERS];
	CHECK(hwcdesc_parse(NULL, d) == 0);
	CHECK(hwcdesc_parse("p=1;d=2", d) == 0);
	/* h=N bounds the list, and counters must come in order */
	CHECK(hwcdesc_parse("h=1;h0=1:2:0:0:0:0:1:a;h1=1:3:0:0:0:0:1:b", d) == 1);
	CHECK(hwcdesc_parse("h=2;h1=1:3:0:0:0:0:1:b;h0=1:2:0:0:0:0:1:a", d) == 1);
	CHECK(strcmp(d[0].name, "a") == 0);
	/* malformed: interval 0, no name, a field missing, a letter: the list ends there */
	CHECK(hwcdesc_parse("h=2;h0=1:2:0:0:0:0:0:a", d) == 0);
	CHECK(hwcdesc_parse("h=2;h0=1:2:0:0:0:0:1:", d) == 0);
	CHECK(hwcdesc_parse("h=2;h0=1:2:0:0:0:1:a", d) == 0);
	CHECK(hwcdesc_parse("h=2;h0=1:x:0:0:0:0:1:a;h1=1:3:0:0:0:0:1:b", d) == 0);
	/* precise is capped at 3; h=N at the most counters */
	CHECK(hwcdesc_parse("h=99;h0=1:2:0:0:0:7:1:a", d) == 1 && d[0].precise == 3);
}

int main(void)
{
	test_round_trip();
	test_refusals();
	return check_done();
}
