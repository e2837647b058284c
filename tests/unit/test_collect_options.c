/*
 * test_collect_options.c - collect's command line (collect/options.h, linked
 * from libcollect.a): the defaults, every option's accepted spellings and
 * the values they give, attached and separate values, bundled flags, where
 * the target starts ("--", "-" alone), the informational modes, -h turning
 * the clock off unless -p is given, and the refusals with their messages
 * (one line, no "collect: " prefix).  Also the value parsers on their own:
 * -p intervals rounded to microseconds and range-checked, -t durations,
 * -s thresholds, signal names and numbers.
 */
#include "collect/options.h"

#include <errno.h>
#include <signal.h>

#include "tests/unit/check.h"

static struct collect_options o;
static char err[256];

/* Parse a NULL-terminated word list after "collect". */
#define PARSE(...) parse((const char *[]){"collect", __VA_ARGS__, NULL})

static int parse(const char **words)
{
	int argc = 0;
	while (words[argc])
		argc++;
	err[0] = 0;
	return collect_options_parse(&o, argc, (char **)words, err, sizeof err);
}

static void test_defaults(void)
{
	CHECK_EQ_U64(PARSE("./a.out", "-x"), 0);
	CHECK_EQ_U64(o.mode, COLLECT_MODE_RUN);
	CHECK_EQ_U64(o.target_index, 1); /* "-x" belongs to the target */
	CHECK(o.clock_on);
	CHECK_EQ_U64(o.clock_interval_us, COLLECT_CLOCK_ON_US);
	CHECK_EQ_U64(o.follow, COLLECT_FOLLOW_ON);
	CHECK_EQ_STR(o.follow_spec, "on");
	CHECK_EQ_U64(o.sample_period_s, 1);
	CHECK_EQ_STR(o.archive, "on");
	CHECK(!o.heap_on && !o.io_on && !o.sync && !o.hwc_spec && !o.name && !o.dir && !o.group);
	CHECK(!o.dry_run && !o.verbose && !o.duration_set && !o.sample_signal && !o.pause_signal);

	CHECK_EQ_U64(collect_options_parse(&o, 1, (char *[]){"collect", NULL}, err, sizeof err), 0);
	CHECK_EQ_U64(o.mode, COLLECT_MODE_SUMMARY);
	CHECK_EQ_U64(PARSE("--help", "-p", "bogus"), 0);
	CHECK_EQ_U64(o.mode, COLLECT_MODE_HELP);
	CHECK_EQ_U64(PARSE("-V"), 0);
	CHECK_EQ_U64(o.mode, COLLECT_MODE_VERSION);
	CHECK_EQ_U64(PARSE("-h"), 0);
	CHECK_EQ_U64(o.mode, COLLECT_MODE_HWC_LIST);
	CHECK_EQ_U64(PARSE("-h", "list"), 0);
	CHECK_EQ_U64(o.mode, COLLECT_MODE_HWC_LIST);
}

static void test_values(void)
{
	CHECK_EQ_U64(PARSE("-nv", "-p10", "-t", "5-1m", "-H", "on", "-ion", "-s", "250", "-F", "=ab.*", "-A",
			   "copy", "-o", "out/x.3.er", "-d", "/tmp", "-g", "g.erg", "-C", "one", "-C", "two",
			   "-S", "7", "-lUSR1", "-y", "SIGUSR2,r", "--", "-prog", "arg"),
		     0);
	CHECK(o.dry_run && o.verbose);
	CHECK(o.clock_on);
	CHECK_EQ_U64(o.clock_interval_us, 10000);
	CHECK(o.duration_set);
	CHECK_EQ_U64(o.duration_start_s, 5);
	CHECK_EQ_U64(o.duration_end_s, 60);
	CHECK(o.heap_on && o.io_on);
	CHECK_EQ_STR(o.sync, "250");
	CHECK_EQ_U64(o.sync_threshold_us, 250);
	CHECK_EQ_U64(o.follow, COLLECT_FOLLOW_REGEX);
	CHECK_EQ_STR(o.follow_regex, "ab.*");
	CHECK_EQ_STR(o.follow_spec, "=ab.*");
	CHECK_EQ_STR(o.archive, "copy");
	CHECK_EQ_STR(o.name, "out/x.3.er");
	CHECK_EQ_STR(o.dir, "/tmp");
	CHECK_EQ_STR(o.group, "g.erg");
	CHECK_EQ_U64(o.comment_count, 2);
	CHECK_EQ_STR(o.comments[1], "two");
	CHECK_EQ_STR(o.sample, "7");
	CHECK_EQ_U64(o.sample_period_s, 7);
	CHECK_EQ_U64(o.sample_signal, SIGUSR1);
	CHECK_EQ_U64(o.pause_signal, SIGUSR2);
	CHECK(o.pause_resumed);
	CHECK_EQ_U64(o.target_index, 30); /* after "--" (word 29): "-prog" is the target */

	CHECK_EQ_U64(PARSE("-p", "off", "-S", "off", "-F", "all", "-s", "off", "-", "x"), 0);
	CHECK(!o.clock_on);
	CHECK_EQ_U64(o.sample_period_s, 0);
	CHECK_EQ_U64(o.follow, COLLECT_FOLLOW_ON);
	CHECK(o.sync == NULL);
	CHECK_EQ_U64(o.target_index, 9); /* "-" alone is a file name */

	/* -h COUNTERS turns the clock off unless -p is given too */
	CHECK_EQ_U64(PARSE("-h", "cycles", "./a.out"), 0);
	CHECK_EQ_STR(o.hwc_spec, "cycles");
	CHECK(!o.clock_on);
	CHECK_EQ_U64(PARSE("-hcycles,insts", "-p", "hi", "./a.out"), 0);
	CHECK_EQ_STR(o.hwc_spec, "cycles,insts");
	CHECK(o.clock_on);
	CHECK_EQ_U64(o.clock_interval_us, COLLECT_CLOCK_HI_US);
	CHECK_EQ_U64(PARSE("-h", "off", "./a.out"), 0);
	CHECK(o.clock_on);
	CHECK_EQ_U64(PARSE("-s", "on", "-y", "PROF", "./a.out"), 0);
	CHECK_EQ_U64(o.sync_threshold_us, -1);
	CHECK_EQ_U64(o.pause_signal, SIGPROF);
	CHECK(!o.pause_resumed);
}

static void refused(const char **words, const char *message)
{
	CHECK_EQ_U64(parse(words), -EINVAL);
	CHECK_EQ_STR(err, message);
}

#define REFUSED(msg, ...) refused((const char *[]){"collect", __VA_ARGS__, NULL}, msg)

static void test_refusals(void)
{
	REFUSED("no target program given (see collect --help)", "-p", "on");
	REFUSED("option -p requires a value", "-p");
	REFUSED("unknown option -q (see collect --help)", "-q", "x");
	REFUSED("unknown option --frobnicate (see collect --help)", "--frobnicate", "x");
	REFUSED("-p: interval '0.1' out of range (0.5 to 1000 milliseconds)", "-p", "0.1", "x");
	REFUSED("-p: invalid interval '1.2.3' (expected on, off, lo, hi or milliseconds)", "-p", "1.2.3",
		"x");
	REFUSED("-t: invalid duration '9-3' (expected seconds, optionally with m or s, or START-END)", "-t",
		"9-3", "x");
	REFUSED("-H: invalid value 'yes' (expected on or off)", "-H", "yes", "x");
	REFUSED("-o: experiment name 'x.dat' must end in .er", "-o", "x.dat", "x");
	REFUSED("-g: experiment group name 'g.er' must end in .erg", "-g", "g.er", "x");
	REFUSED("-A: invalid value 'maybe' (expected on, off or copy)", "-A", "maybe", "x");
	REFUSED("-F: invalid value 'some' (expected on, off, all or =REGEX)", "-F", "some", "x");
	REFUSED("-d: empty directory name", "-d", "", "x");
	REFUSED("-l and -y need different signals", "-l", "USR1", "-y", "USR1", "x");
	REFUSED("-S: invalid sampling '0' (expected on, off or seconds)", "-S", "0", "x");
	CHECK_EQ_U64(PARSE("-F", "=(", "x"), -EINVAL);
	CHECK(strncmp(err, "-F: invalid regular expression '(': ", 36) == 0);
	CHECK_EQ_U64(PARSE("-l", "KILL", "x"), -EINVAL);
	CHECK(strncmp(err, "-l: invalid signal 'KILL'", 25) == 0);
	const char *many[2 * COLLECT_COMMENTS_MAX + 4] = {"collect"};
	for (int k = 0; k <= COLLECT_COMMENTS_MAX; k++) {
		many[1 + 2 * k] = "-C";
		many[2 + 2 * k] = "c";
	}
	many[2 * COLLECT_COMMENTS_MAX + 3] = NULL;
	refused(many, "-C: at most 10 comments are allowed");
}

static void test_parsers(void)
{
	int on = -1;
	long us = 0;
	CHECK_EQ_U64(collect_parse_interval("lo", &on, &us), 0);
	CHECK(on == 1 && us == COLLECT_CLOCK_LO_US);
	CHECK_EQ_U64(collect_parse_interval("0.5", &on, &us), 0);
	CHECK_EQ_U64(us, 500);
	CHECK_EQ_U64(collect_parse_interval("1.0004", &on, &us), 0);
	CHECK_EQ_U64(us, 1000); /* rounded to the nearest microsecond */
	CHECK_EQ_U64(collect_parse_interval("1.0006", &on, &us), 0);
	CHECK_EQ_U64(us, 1001);
	CHECK_EQ_U64(collect_parse_interval("750u", &on, &us), 0);
	CHECK_EQ_U64(us, 750);
	CHECK_EQ_U64(collect_parse_interval("1000m", &on, &us), 0);
	CHECK_EQ_U64(us, 1000000);
	CHECK_EQ_U64(collect_parse_interval("1000.001", &on, &us), -ERANGE);
	CHECK_EQ_U64(collect_parse_interval("499u", &on, &us), -ERANGE);
	CHECK_EQ_U64(collect_parse_interval("", &on, &us), -EINVAL);
	CHECK_EQ_U64(collect_parse_interval(".", &on, &us), -EINVAL);
	CHECK_EQ_U64(collect_parse_interval("off", &on, &us), 0);
	CHECK_EQ_U64(on, 0);

	unsigned long a = 9, b = 9;
	CHECK_EQ_U64(collect_parse_duration("30", &a, &b), 0);
	CHECK(a == 0 && b == 30);
	CHECK_EQ_U64(collect_parse_duration("2m", &a, &b), 0);
	CHECK(a == 0 && b == 120);
	CHECK_EQ_U64(collect_parse_duration("10s-0", &a, &b), 0); /* open end */
	CHECK(a == 10 && b == 0);
	CHECK_EQ_U64(collect_parse_duration("0", &a, &b), -EINVAL);
	CHECK_EQ_U64(collect_parse_duration("5-5", &a, &b), -EINVAL);
	CHECK_EQ_U64(collect_parse_duration("-5", &a, &b), -EINVAL);
	CHECK_EQ_U64(collect_parse_duration("5x", &a, &b), -EINVAL);
	CHECK_EQ_U64(collect_parse_duration("99999999999999999999", &a, &b), -ERANGE);

	long thr = 7;
	CHECK_EQ_U64(collect_parse_sync("all", &on, &thr), 0);
	CHECK(on == 1 && thr == 0);
	CHECK_EQ_U64(collect_parse_sync("calibrate", &on, &thr), 0);
	CHECK_EQ_U64(thr, -1);
	CHECK_EQ_U64(collect_parse_sync("1000000000", &on, &thr), 0);
	CHECK_EQ_U64(thr, 1000000000);
	CHECK_EQ_U64(collect_parse_sync("1000000001", &on, &thr), -EINVAL);
	CHECK_EQ_U64(collect_parse_sync("-1", &on, &thr), -EINVAL);
	CHECK_EQ_U64(collect_parse_sync("12us", &on, &thr), -EINVAL);

	int sig = 0;
	CHECK_EQ_U64(collect_parse_signal("SIGHUP", &sig), 0);
	CHECK_EQ_U64(sig, SIGHUP);
	CHECK_EQ_U64(collect_parse_signal("10", &sig), 0);
	CHECK_EQ_U64(sig, 10);
	CHECK_EQ_U64(collect_parse_signal("URG", &sig), -EINVAL); /* the collector's own */
	CHECK_EQ_U64(collect_parse_signal("SEGV", &sig), -EINVAL);
	CHECK_EQ_U64(collect_parse_signal("STOP", &sig), -EINVAL);
	CHECK_EQ_U64(collect_parse_signal("0", &sig), -EINVAL);
	CHECK_EQ_U64(collect_parse_signal("12x", &sig), -EINVAL);
	CHECK_EQ_U64(collect_parse_signal("NOPE", &sig), -EINVAL);
}

int main(void)
{
	test_defaults();
	test_values();
	test_refusals();
	test_parsers();
	return check_done();
}
