/*
 * test_archive_options.c - er_archive's command line (er_archive/options.h,
 * linked from liberarchive.a): the defaults, each option, --help anywhere
 * before "--", -V when reached, and every usage error with its message (the
 * ones tests/e2e/archive_cli.sh sees on stderr after "er_archive: ").
 */
#include "er_archive/options.h"

#include <errno.h>

#include "tests/unit/check.h"

static struct ar_options o;
static char err[256];

#define PARSE(...) parse((char *[]){"er_archive", __VA_ARGS__, NULL})

static int parse(char **words)
{
	int argc = 0;
	while (words[argc])
		argc++;
	err[0] = 0;
	return ar_options_parse(&o, argc, words, err, sizeof err);
}

int main(void)
{
	CHECK_EQ_U64(PARSE("test.1.er"), AR_RUN);
	CHECK(!o.dry_run && !o.quiet && !o.force);
	CHECK_EQ_U64(o.mode, AR_MODE_ON);
	CHECK_EQ_STR(o.exp, "test.1.er");

	CHECK_EQ_U64(PARSE("-nqF", "-A", "copy", "g.erg"), AR_RUN);
	CHECK(o.dry_run && o.quiet && o.force);
	CHECK_EQ_U64(o.mode, AR_MODE_COPY);
	CHECK_EQ_STR(o.exp, "g.erg");
	CHECK_EQ_U64(PARSE("-Aoff", "x.er"), AR_RUN);
	CHECK_EQ_U64(o.mode, AR_MODE_OFF);
	CHECK_EQ_U64(PARSE("-A", "src", "--", "-odd.er"), AR_RUN);
	CHECK_EQ_U64(o.mode, AR_MODE_SRC);
	CHECK_EQ_STR(o.exp, "-odd.er");

	CHECK_EQ_U64(PARSE("-Z", "--help"), AR_HELP);
	CHECK_EQ_U64(PARSE("--", "--help"), AR_RUN); /* after "--": an experiment named --help */
	CHECK_EQ_STR(o.exp, "--help");
	CHECK_EQ_U64(PARSE("-V", "-Z"), AR_VERSION);
	CHECK_EQ_U64(PARSE("-Z", "-V"), -EINVAL);
	CHECK_EQ_STR(err, "unknown option -Z");

	CHECK_EQ_U64(PARSE("-A", "bad", "x.er"), -EINVAL);
	CHECK_EQ_STR(err, "-A takes on, off, copy or src, not 'bad'");
	CHECK_EQ_U64(PARSE("-A"), -EINVAL);
	CHECK_EQ_STR(err, "-A needs an argument: on, off, copy or src");
	CHECK_EQ_U64(PARSE("-n"), -EINVAL);
	CHECK_EQ_STR(err, "no experiment named");
	CHECK_EQ_U64(PARSE("a.er", "b.er"), -EINVAL);
	CHECK_EQ_STR(err, "more than one experiment named");
	CHECK(strstr(ar_usage_text,
		     "Usage: er_archive [-n] [-q] [-F] [-A on|off|copy|src] experiment|group.erg\n") ==
	      ar_usage_text);
	CHECK(strncmp(ar_usage_short, ar_usage_text,
		      strlen("Usage: er_archive [-n] [-q] [-F] [-A on|off|copy|src] "
			     "experiment|group.erg\n")) == 0);
	return check_done();
}
