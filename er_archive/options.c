/*
 * options.c - er_archive's command line (contract in options.h).
 */
#include "er_archive/options.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char ar_usage_text[] =
	"Usage: er_archive [-n] [-q] [-F] [-A on|off|copy|src] experiment|group.erg\n"
	"       er_archive -V\n"
	"       er_archive --help\n"
	"\n"
	"Record the build-id of each load object that a recorded call stack of the\n"
	"experiment (or of the subexperiments of its descendant processes) runs, and\n"
	"archive those objects and their separate debug files in experiment/archives/,\n"
	"so that er_print can read them after the program is rebuilt or deleted.\n"
	"A group (group.erg) archives each experiment it names.\n"
	"Objects only mapped are skipped; nothing is archived when nothing was\n"
	"recorded.  By default each object with a build-id is kept once in the\n"
	"per-user cache ($PA_CACHE_DIR, else $XDG_CACHE_HOME/pa-analyzer, else\n"
	"~/.cache/pa-analyzer) and the archive links to it; -A copy puts the copies\n"
	"in the experiment itself.\n"
	"\n"
	"  -n          dry run: print what would be archived or skipped; change nothing\n"
	"  -q          quiet: no warnings (they are kept in archives/index.xml)\n"
	"  -F          force: rewrite objects already archived, and archive objects\n"
	"              that have no build-id (keyed by their path)\n"
	"  -A on       keep the objects in the per-user cache and link them (default)\n"
	"  -A copy     copy the objects into the experiment (portable to another\n"
	"              machine; turns links made by -A on into copies)\n"
	"  -A off      record the build-ids only; copy nothing\n"
	"  -A src      as on, plus copies of the source files named in the DWARF\n"
	"  -V          print the version and exit\n"
	"  --help      print this help and exit\n"
	"\n"
	"Exit status: 0 done (objects that could not be archived are warned about),\n"
	"1 an error (experiment unreadable, archives/ not writable, disk full),\n"
	"2 a usage error.\n";

const char ar_usage_short[] = "Usage: er_archive [-n] [-q] [-F] [-A on|off|copy|src] experiment|group.erg\n"
			      "Try 'er_archive --help' for more information.\n";

static int usage(char *err, size_t room, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int usage(char *err, size_t room, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (room)
		vsnprintf(err, room, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int ar_options_parse(struct ar_options *o, int argc, char **argv, char *err, size_t room)
{
	memset(o, 0, sizeof *o);
	o->mode = AR_MODE_ON;
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "--help") == 0)
			return AR_HELP;
	}
	int c;
	opterr = 0;
	optind = 0; /* glibc: start afresh */
	while ((c = getopt(argc, argv, "+nqFA:V")) != -1) {
		switch (c) {
		case 'n': o->dry_run = 1; break;
		case 'q': o->quiet = 1; break;
		case 'F': o->force = 1; break;
		case 'A':
			if (strcmp(optarg, "on") == 0)
				o->mode = AR_MODE_ON;
			else if (strcmp(optarg, "copy") == 0)
				o->mode = AR_MODE_COPY;
			else if (strcmp(optarg, "off") == 0)
				o->mode = AR_MODE_OFF;
			else if (strcmp(optarg, "src") == 0)
				o->mode = AR_MODE_SRC;
			else {
				return usage(err, room, "-A takes on, off, copy or src, not '%s'", optarg);
			}
			break;
		case 'V': return AR_VERSION;
		default:
			if (optopt == 'A')
				return usage(err, room, "-A needs an argument: on, off, copy or src");
			if (optopt)
				return usage(err, room, "unknown option -%c", optopt);
			return usage(err, room, "unknown option %s", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return usage(err, room, "no experiment named");
	if (argc - optind > 1)
		return usage(err, room, "more than one experiment named");
	o->exp = argv[optind];
	return AR_RUN;
}
