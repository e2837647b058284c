/*
 * commands.h - er_print's command table, for its program (main.c: options
 * and scripts name commands) and for tests that run a session over a
 * profile they made: set struct erp's prof, out and prog (the rest
 * zeroed, sthresh and dthresh 75, as main does), then erp_run_line.
 */
#ifndef ER_PRINT_COMMANDS_H
#define ER_PRINT_COMMANDS_H

#include "er_print/erp.h"

/* ARG_TWO: two words; on the command line the next two arguments, joined by a space. */
enum arg_kind { ARG_NONE, ARG_ONE, ARG_OPT, ARG_REST, ARG_TWO };

struct command {
	const char *name;
	const char *alias;
	enum arg_kind arg;
	int (*fn)(struct erp *e, const char *arg);
	const char *args_help;
	const char *help;
};

/*
 * The command a word names (its name, alias or unambiguous prefix, any
 * case), or NULL after one error message.
 */
const struct command *erp_command_lookup(struct erp *e, const char *word);

/* Run command c with arg (NULL or "": none), its output through printmode. 0 or -1. */
int erp_command_run(struct erp *e, const struct command *c, const char *arg);

/* Flush the output, and close it if `outfile` opened it: 0, or -1 after a message (a failed write). */
int erp_end_out(struct erp *e);

/* Run every command line of f (where: its name for messages): 0, or -1 if one failed. */
int erp_run_lines(struct erp *e, FILE *f, const char *where);

/* pathmap: takes two words, also as an option's two arguments. */
int cmd_pathmap(struct erp *e, const char *arg);
/* help and version, which the options -help and -V run too. */
int cmd_help(struct erp *e, const char *arg);
int cmd_version(struct erp *e, const char *arg);

#endif
