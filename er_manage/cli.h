/*
 * cli.h - the command line shared by er_rm, er_mv and er_cp: flag letters,
 * -V, --help and usage errors (exit status 2), as the other tools do.
 */
#ifndef ER_MANAGE_CLI_H
#define ER_MANAGE_CLI_H

#define CLI_EXIT_USAGE 2

/*
 * Parse the options of ARGV (they come before the operands; "--" ends
 * them): each letter of FLAGS sets ret_set[letter] to 1; -V prints the
 * version and exits 0; --help prints USAGE to stdout and exits 0; anything
 * else prints a message and the SYNOPSIS (USAGE's lines up to the first
 * empty one) to stderr and exits CLI_EXIT_USAGE.  Returns the index of the
 * first operand.  RET_SET has 128 entries.
 */
int cli_parse(int argc, char **argv, const char *prog, const char *usage, const char *flags, char *ret_set);

/* A usage error: MSG, the synopsis, exit CLI_EXIT_USAGE. */
__attribute__((noreturn)) void cli_usage_error(const char *prog, const char *usage, const char *msg);

#endif
