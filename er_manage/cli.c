/*
 * cli.c - option parsing of the experiment management tools (cli.h).
 */
#include "er_manage/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cli_usage_error(const char *prog, const char *usage, const char *msg)
{
	const char *end = strstr(usage, "\n\n");
	fprintf(stderr, "%s: %s\n%.*s\nTry '%s --help' for more information.\n", prog, msg,
		end ? (int)(end - usage) : (int)strlen(usage), usage, prog);
	exit(CLI_EXIT_USAGE);
}

int cli_parse(int argc, char **argv, const char *prog, const char *usage, const char *flags, char *ret_set)
{
	int i = 1;
	memset(ret_set, 0, 128);
	for (; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--") == 0)
			return i + 1;
		if (strcmp(a, "--help") == 0) {
			fputs(usage, stdout);
			exit(0);
		}
		if (a[0] != '-' || a[1] == '\0')
			break;
		char msg[128];
		if (a[1] == '-') {
			snprintf(msg, sizeof msg, "unknown option %s", a);
			cli_usage_error(prog, usage, msg);
		}
		for (const char *p = a + 1; *p; p++) {
			if (*p == 'V') {
				printf("%s (Performance Analyzer for Linux) %s\n", prog, PA_VERSION);
				exit(0);
			}
			if ((unsigned char)*p >= 128 || !strchr(flags, *p)) {
				snprintf(msg, sizeof msg, "unknown option -%c", *p);
				cli_usage_error(prog, usage, msg);
			}
			ret_set[(unsigned char)*p] = 1;
		}
	}
	return i;
}
