/*
 * options.h - er_archive's command line (docs/man/er_archive.1): parsed and
 * checked before anything is read.  Prints nothing: the program prints the
 * help, the version or the usage error this returns.
 */
#ifndef ER_ARCHIVE_OPTIONS_H
#define ER_ARCHIVE_OPTIONS_H

#include <stddef.h>

enum ar_mode { AR_MODE_OFF, AR_MODE_ON, AR_MODE_COPY, AR_MODE_SRC };

struct ar_options {
	int dry_run, quiet, force; /* -n, -q, -F */
	enum ar_mode mode;         /* -A, default on */
	const char *exp;           /* the experiment or group operand */
};

/* What the command line asks for. */
enum ar_request { AR_RUN = 0, AR_HELP = 1, AR_VERSION = 2 };

/* The --help text, and the two lines that follow a usage error's message. */
extern const char ar_usage_text[];
extern const char ar_usage_short[];

/*
 * Parse argv (getopt's rules, options before the operand; --help anywhere
 * before "--" wins, -V wins when it is reached) into *o.  Returns AR_RUN,
 * AR_HELP, AR_VERSION, or -EINVAL with the message (no "er_archive: "
 * prefix) in err (room bytes).  Pointers in *o point into argv.
 */
int ar_options_parse(struct ar_options *o, int argc, char **argv, char *err, size_t room);

#endif
