/*
 * test_params.c - experiment/params.h, PA_PARAMS: the encoder writes the
 * exact bytes collect has always written; every parameter comes back from
 * the decoder as it was given; the decoder reads what the collector's
 * parsers read (unknown keys ignored, later items winning, values clamped,
 * counters in order); the encoder refuses what would not come back.
 */
#include "experiment/params.h"

#include <errno.h>
#include <string.h>

#include "tests/unit/check.h"

static const struct hwcdesc page_faults = {.type = 1, .config = 2, .interval = 1, .name = "page-faults"};
static const struct hwcdesc instructions = {.type = 4,
					    .config = 0x1c0,
					    .config1 = 7,
					    .config2 = 9,
					    .exclude_kernel = 1,
					    .precise = 2,
					    .interval = 9999991,
					    .name = "perf::INSTRUCTIONS"};

/* p encoded, compared with want. */
static void check_encode(const struct exp_params *p, const char *want)
{
	char buf[1024];
	int n = params_encode(p, buf, sizeof buf);
	CHECK_EQ_STR(buf, want);
	CHECK_EQ_U64(n, strlen(want));
}

/* What collect wrote for these options before experiment/params.c (tests/e2e/collect_cli.sh too). */
static void test_encode_known(void)
{
	struct exp_params p;
	params_init(&p);
	check_encode(&p, "p=0;d=4096");
	p.interval_us = 10007;
	check_encode(&p, "p=10007;d=4096");
	p.depth_limit = 10;
	p.window_set = 1, p.window_end_s = 5;
	check_encode(&p, "p=10007;d=10;t=0:5");

	params_init(&p); /* -p hi -t 1-100 -F off -H on -s 10 -i on -S 5 -l USR1 -y USR2 */
	p.interval_us = 997;
	p.window_set = 1, p.window_start_s = 1, p.window_end_s = 100;
	p.tracer[EXP_PARAMS_HEAP] = p.tracer[EXP_PARAMS_IO] = p.tracer[EXP_PARAMS_SYNC] = 1;
	p.sync_threshold_set = 1, p.sync_threshold_us = 10;
	p.sample_period_s = 5;
	p.sample_signal = 10;
	p.pause_signal = 12, p.start_paused = 1;
	p.follow = EXP_PARAMS_FOLLOW_OFF;
	check_encode(&p, "p=997;d=4096;t=1:100;H=1;i=1;s=1;w=10;S=5;l=10;y=12p;F=0");

	params_init(&p); /* -s all -S off -y USR2,r -F =regex */
	p.interval_us = 10007;
	p.tracer[EXP_PARAMS_SYNC] = 1;
	p.sync_threshold_set = 1;
	p.sample_period_s = 0;
	p.pause_signal = 12;
	p.follow = EXP_PARAMS_FOLLOW_REGEX;
	check_encode(&p, "p=10007;d=4096;s=1;w=0;S=0;y=12;F=2");

	params_init(&p); /* -p on -h page-faults,1,perf::INSTRUCTIONS:pp ... */
	p.interval_us = 10007;
	p.tracer[EXP_PARAMS_HWC] = 1;
	p.hwc_count = 2;
	p.hwc[0] = page_faults;
	p.hwc[1] = instructions;
	check_encode(&p, "p=10007;d=4096;h=2;h0=1:2:0:0:0:0:1:page-faults;"
			 "h1=4:448:7:9:1:2:9999991:perf::INSTRUCTIONS");
	p.hwc_count = 0; /* the counters' key follows the counters */
	check_encode(&p, "p=10007;d=4096");
}

/* Every field of a and b. */
static void check_same(const struct exp_params *a, const struct exp_params *b)
{
	CHECK_EQ_U64(a->interval_us, b->interval_us);
	CHECK_EQ_U64(a->depth_limit, b->depth_limit);
	CHECK_EQ_U64(a->window_set, b->window_set);
	CHECK_EQ_U64(a->window_start_s, b->window_start_s);
	CHECK_EQ_U64(a->window_end_s, b->window_end_s);
	for (int t = 0; t < EXP_PARAMS_TRACERS; t++)
		CHECK_EQ_U64(a->tracer[t], b->tracer[t]);
	CHECK_EQ_U64(a->sync_threshold_set, b->sync_threshold_set);
	CHECK_EQ_U64(a->sync_threshold_us, b->sync_threshold_us);
	CHECK_EQ_U64(a->sample_period_s, b->sample_period_s);
	CHECK_EQ_U64(a->sample_signal, b->sample_signal);
	CHECK_EQ_U64(a->pause_signal, b->pause_signal);
	CHECK_EQ_U64(a->start_paused, b->start_paused);
	CHECK_EQ_U64(a->follow, b->follow);
	CHECK_EQ_U64(a->hwc_count, b->hwc_count);
	for (size_t i = 0; i < a->hwc_count && i < b->hwc_count; i++) {
		const struct hwcdesc *x = &a->hwc[i], *y = &b->hwc[i];
		CHECK_EQ_U64(x->type, y->type);
		CHECK_EQ_U64(x->config, y->config);
		CHECK_EQ_U64(x->config1, y->config1);
		CHECK_EQ_U64(x->config2, y->config2);
		CHECK_EQ_U64(x->exclude_kernel, y->exclude_kernel);
		CHECK_EQ_U64(x->precise, y->precise);
		CHECK_EQ_U64(x->interval, y->interval);
		CHECK_EQ_STR(x->name, y->name);
	}
}

/* p encoded and decoded is p; encoded again, the same bytes. */
static void check_round_trip(const struct exp_params *p)
{
	char buf[EXP_PARAMS_MAX_BYTES], again[EXP_PARAMS_MAX_BYTES];
	CHECK(params_encode(p, buf, sizeof buf) > 0);
	struct exp_params d;
	params_decode(buf, &d);
	check_same(p, &d);
	CHECK(params_encode(&d, again, sizeof again) > 0);
	CHECK_EQ_STR(again, buf);
}

static void test_round_trip(void)
{
	struct exp_params p;
	params_init(&p);
	check_round_trip(&p);
	p.interval_us = EXP_PARAMS_INTERVAL_MAX_US;
	p.depth_limit = EXP_PARAMS_DEPTH_MAX;
	p.window_set = 1, p.window_start_s = 3, p.window_end_s = UINT64_MAX;
	for (int t = 0; t < EXP_PARAMS_TRACERS; t++)
		p.tracer[t] = 1;
	p.sync_threshold_set = 1, p.sync_threshold_us = 1000000000;
	p.sample_period_s = EXP_PARAMS_SAMPLE_MAX_S;
	p.sample_signal = EXP_PARAMS_SIGNAL_MAX;
	p.pause_signal = 1, p.start_paused = 1;
	p.follow = EXP_PARAMS_FOLLOW_REGEX;
	p.hwc_count = EXP_HWC_MAX_COUNTERS;
	for (size_t i = 0; i < EXP_HWC_MAX_COUNTERS; i++) {
		p.hwc[i] = i % 2 ? instructions : page_faults;
		p.hwc[i].config2 = UINT64_MAX - i;
		p.hwc[i].type = UINT32_MAX;
		p.hwc[i].precise = (int)(i % 4);
		memset(p.hwc[i].name, 'a' + (int)i, sizeof p.hwc[i].name - 1); /* the longest name */
		p.hwc[i].name[sizeof p.hwc[i].name - 1] = '\0';
	}
	check_round_trip(&p);
	p.follow = EXP_PARAMS_FOLLOW_OFF;
	p.window_end_s = 0;
	p.sync_threshold_us = 0;
	p.start_paused = 0;
	p.sample_period_s = 0;
	p.hwc_count = 1;
	check_round_trip(&p);
	params_init(&p);
	p.tracer[EXP_PARAMS_SYNC] = 1; /* s=1 alone: calibrated */
	p.depth_limit = 1;
	check_round_trip(&p);
}

/* s decoded. */
static struct exp_params dec(const char *s)
{
	struct exp_params p;
	memset(&p, 0x5a, sizeof p); /* nothing of the caller's survives */
	params_decode(s, &p);
	return p;
}

static void test_decode_defaults_and_unknown(void)
{
	struct exp_params def, p;
	params_init(&def);
	CHECK_EQ_U64(def.depth_limit, 4096);
	CHECK_EQ_U64(def.sample_period_s, 1);
	CHECK_EQ_U64(def.follow, EXP_PARAMS_FOLLOW_ON);
	p = dec(NULL);
	check_same(&p, &def);
	p = dec("");
	check_same(&p, &def);
	/* unknown keys, items without '=', empty items and keys of two letters are ignored */
	p = dec("x=5;;pp=3;p5;=7;dd=9;Q;H;s2=1;p0=5");
	check_same(&p, &def);
	p = dec("zz=1;p=7;future=1:2:3;d=9");
	CHECK_EQ_U64(p.interval_us, 7);
	CHECK_EQ_U64(p.depth_limit, 9);
	/* a later item wins */
	p = dec("p=5;d=3;p=6;H=1;H=0;F=0;F=1");
	CHECK_EQ_U64(p.interval_us, 6);
	CHECK_EQ_U64(p.depth_limit, 3);
	CHECK_EQ_U64(p.tracer[EXP_PARAMS_HEAP], 0);
	CHECK_EQ_U64(p.follow, EXP_PARAMS_FOLLOW_ON);
	/* a number ends at its first non-digit; none is 0; past 2^64 it wraps */
	p = dec("p=12abc;d=;S=x;w=7us");
	CHECK_EQ_U64(p.interval_us, 12);
	CHECK_EQ_U64(p.depth_limit, 1);
	CHECK_EQ_U64(p.sample_period_s, 0);
	CHECK(p.sync_threshold_set && p.sync_threshold_us == 7);
	p = dec("p=18446744073709551617");
	CHECK_EQ_U64(p.interval_us, 1);
}

static void test_decode_clamps(void)
{
	struct exp_params p = dec("p=2000000000;d=0;S=100000;l=65;y=64p");
	CHECK_EQ_U64(p.interval_us, EXP_PARAMS_INTERVAL_MAX_US);
	CHECK_EQ_U64(p.depth_limit, 1);
	CHECK_EQ_U64(p.sample_period_s, EXP_PARAMS_SAMPLE_MAX_S);
	CHECK_EQ_U64(p.sample_signal, 0);
	CHECK(p.pause_signal == 64 && p.start_paused);
	p = dec("d=9999;l=64;y=12x;F=7");
	CHECK_EQ_U64(p.depth_limit, EXP_PARAMS_DEPTH_MAX);
	CHECK_EQ_U64(p.sample_signal, 64);
	CHECK(p.pause_signal == 12 && !p.start_paused);
	p = dec("y=65p"); /* no signal: nothing to start paused on */
	CHECK(p.pause_signal == 0 && !p.start_paused);
	CHECK_EQ_U64(p.follow, EXP_PARAMS_FOLLOW_ON);
	p = dec("F=0");
	CHECK_EQ_U64(p.follow, EXP_PARAMS_FOLLOW_OFF);
	p = dec("F=2");
	CHECK_EQ_U64(p.follow, EXP_PARAMS_FOLLOW_REGEX);
	/* t=<start> alone keeps the end; the collector's tracer keys: any number but 0 is on */
	p = dec("t=1:2;t=5;H=2;i=0;s=1");
	CHECK(p.window_set && p.window_start_s == 5 && p.window_end_s == 2);
	CHECK(p.tracer[EXP_PARAMS_HEAP] && !p.tracer[EXP_PARAMS_IO] && p.tracer[EXP_PARAMS_SYNC]);
	CHECK(!p.sync_threshold_set);
	p = dec("t=7");
	CHECK(p.window_set && p.window_start_s == 7 && p.window_end_s == 0);
}

/* The counters: h=N bounds the list, they come in order, a malformed one ends it. */
static void test_decode_counters(void)
{
	struct exp_params p = dec("p=10007;d=4096;h=2;h0=1:2:0:0:0:0:1:page-faults;"
				  "h1=4:448:7:9:1:2:9999991:perf::INSTRUCTIONS;F=0;s=1");
	CHECK_EQ_U64(p.hwc_count, 2);
	CHECK(p.tracer[EXP_PARAMS_HWC] && p.tracer[EXP_PARAMS_SYNC] && p.follow == EXP_PARAMS_FOLLOW_OFF);
	struct exp_params want;
	params_init(&want);
	want.hwc_count = 2;
	want.hwc[0] = page_faults;
	want.hwc[1] = instructions;
	struct exp_params got = p;
	got.interval_us = 0, got.tracer[EXP_PARAMS_HWC] = 0, got.tracer[EXP_PARAMS_SYNC] = 0;
	got.follow = EXP_PARAMS_FOLLOW_ON;
	check_same(&got, &want);

	CHECK_EQ_U64(dec("p=1;d=2").hwc_count, 0);
	CHECK(!dec("p=1;d=2").tracer[EXP_PARAMS_HWC]);
	p = dec("h=3"); /* on, but no counter came */
	CHECK(p.tracer[EXP_PARAMS_HWC] && p.hwc_count == 0);
	p = dec("h0=1:2:0:0:0:0:1:a"); /* no h=: none */
	CHECK(!p.tracer[EXP_PARAMS_HWC] && p.hwc_count == 0);
	CHECK_EQ_U64(dec("h=1;h0=1:2:0:0:0:0:1:a;h1=1:3:0:0:0:0:1:b").hwc_count, 1);
	p = dec("h=2;h1=1:3:0:0:0:0:1:b;h0=1:2:0:0:0:0:1:a");
	CHECK(p.hwc_count == 1 && strcmp(p.hwc[0].name, "a") == 0);
	/* the counters may come before h= */
	CHECK_EQ_U64(dec("h0=1:2:0:0:0:0:1:a;h=1").hwc_count, 1);
	/* malformed: interval 0, no name, a field missing, a letter, type past 32 bits: the list ends there */
	CHECK_EQ_U64(dec("h=2;h0=1:2:0:0:0:0:0:a").hwc_count, 0);
	CHECK_EQ_U64(dec("h=2;h0=1:2:0:0:0:0:1:").hwc_count, 0);
	CHECK_EQ_U64(dec("h=2;h0=1:2:0:0:0:1:a").hwc_count, 0);
	CHECK_EQ_U64(dec("h=2;h0=1:x:0:0:0:0:1:a;h1=1:3:0:0:0:0:1:b").hwc_count, 0);
	CHECK_EQ_U64(dec("h=1;h0=4294967296:2:0:0:0:0:1:a").hwc_count, 0);
	/* ... unless the same counter comes again whole */
	CHECK_EQ_U64(dec("h=1;h0=1:x:0:0:0:0:1:a;h0=1:2:0:0:0:0:1:a").hwc_count, 1);
	/* a name of 64 bytes does not fit */
	char longname[128] = "h=1;h0=1:2:0:0:0:0:1:";
	memset(longname + strlen(longname), 'n', 64);
	CHECK_EQ_U64(dec(longname).hwc_count, 0);
	/* precise is capped at 3, exclude_kernel is 0 or 1; h=N at the most counters; h8= is not a counter */
	p = dec("h=99;h0=1:2:0:0:5:7:1:a");
	CHECK(p.hwc_count == 1 && p.hwc[0].precise == 3 && p.hwc[0].exclude_kernel == 1);
	char all[1024] = "h=9";
	for (int i = 0; i <= 9; i++) {
		size_t n = strlen(all);
		memcpy(all + n, ";h0=1:2:0:0:0:0:1:c", sizeof ";h0=1:2:0:0:0:0:1:c");
		all[n + 2] = (char)('0' + i);
	}
	CHECK_EQ_U64(dec(all).hwc_count, EXP_HWC_MAX_COUNTERS);
}

static void test_encode_refusals(void)
{
	struct exp_params p;
	params_init(&p);
	p.interval_us = 10007;
	char buf[64];
	/* "p=10007;d=4096" is 14 bytes: 15 fit, 14 do not */
	CHECK_EQ_U64(params_encode(&p, buf, 15), 14);
	memset(buf, 'x', sizeof buf);
	CHECK(params_encode(&p, buf, 14) == -ENOSPC && buf[0] == '\0');
	CHECK(params_encode(&p, buf, 0) == -ENOSPC);
	p.hwc_count = 1;
	p.hwc[0] = page_faults;
	CHECK(params_encode(&p, buf, 24) == -ENOSPC && buf[0] == '\0');

	/* what would not come back as given */
	char big[2048];
	struct exp_params q = p;
	strcpy(q.hwc[0].name, "a;b");
	CHECK(params_encode(&q, big, sizeof big) == -EINVAL && big[0] == '\0');
	q = p, q.hwc[0].name[0] = '\0';
	CHECK(params_encode(&q, big, sizeof big) == -EINVAL);
	q = p, memset(q.hwc[0].name, 'n', sizeof q.hwc[0].name);
	CHECK(params_encode(&q, big, sizeof big) == -EINVAL);
	q = p, q.hwc[0].interval = 0;
	CHECK(params_encode(&q, big, sizeof big) == -EINVAL);
	q = p, q.hwc[0].precise = 4;
	CHECK(params_encode(&q, big, sizeof big) == -EINVAL);
	q = p, q.hwc[0].exclude_kernel = 2;
	CHECK(params_encode(&q, big, sizeof big) == -EINVAL);
	q = p, q.hwc_count = EXP_HWC_MAX_COUNTERS + 1;
	CHECK(params_encode(&q, big, sizeof big) == -EINVAL);
	q = p, q.sample_signal = -1;
	CHECK(params_encode(&q, big, sizeof big) == -EINVAL);
	q = p, q.pause_signal = -10;
	CHECK(params_encode(&q, big, sizeof big) == -EINVAL);
	q = p, q.follow = (enum exp_params_follow)5;
	CHECK(params_encode(&q, big, sizeof big) == -EINVAL);
	CHECK(params_encode(&p, big, sizeof big) > 0); /* and p itself is fine */
}

int main(void)
{
	test_encode_known();
	test_round_trip();
	test_decode_defaults_and_unknown();
	test_decode_clamps();
	test_decode_counters();
	test_encode_refusals();
	return check_done();
}
