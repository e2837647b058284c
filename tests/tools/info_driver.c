/*
 * info_driver - run er_print's information reports (er_print/show_info.c)
 * without the command front end, for the component tests:
 *
 *   info_driver [-select SPEC] CMD [ARG] -- EXP.er...
 *
 * CMD is header, statistics, experiment_list or thread_list; ARG is passed
 * to it (e.g. an experiment number).  -select applies a thread selection
 * first.  Exit status: the report's (0, or 1 after an error), 2 on usage or
 * when an experiment cannot be read.
 *
 * It links er_print's renderer of these reports (er_print/show_info.o)
 * with libanalysis, whose model (analysis/report_info.h, report_stats.h)
 * says what they show; the two er_print functions the renderer calls are
 * here.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "er_print/erp.h"

void erp_error(struct erp *e, const char *fmt, ...)
{
	va_list ap;
	(void)e;
	fprintf(stderr, "er_print: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
}

const char *erp_func_name(struct erp *e, const struct pfunc *f, char *buf, size_t room)
{
	(void)e;
	snprintf(buf, room, "%s", f->name);
	return buf;
}

int main(int argc, char **argv)
{
	const char *spec = NULL, *cmd = NULL, *arg = NULL;
	int i = 1;
	if (i + 1 < argc && strcmp(argv[i], "-select") == 0) {
		spec = argv[i + 1];
		i += 2;
	}
	if (i < argc)
		cmd = argv[i++];
	if (i < argc && strcmp(argv[i], "--") != 0)
		arg = argv[i++];
	if (!cmd || i >= argc || strcmp(argv[i], "--") != 0) {
		fprintf(stderr, "usage: info_driver [-select SPEC] CMD [ARG] -- EXP.er...\n");
		return 2;
	}
	i++;

	struct profile *p;
	if (profile_new(&p) < 0)
		return 2;
	for (; i < argc; i++) {
		char *err = NULL;
		if (profile_add_experiment(p, argv[i], &err) < 0) {
			fprintf(stderr, "info_driver: %s\n", err ? err : argv[i]);
			free(err);
			profile_free(p);
			return 2;
		}
	}
	if (spec) {
		char *err = NULL;
		if (profile_select_threads(p, spec, &err) < 0) {
			fprintf(stderr, "info_driver: %s\n", err ? err : spec);
			free(err);
			profile_free(p);
			return 2;
		}
	}

	struct erp e = {.prof = p, .out = stdout, .prog = "er_print"};
	int r;
	if (strcmp(cmd, "header") == 0)
		r = show_header(&e, arg);
	else if (strcmp(cmd, "statistics") == 0)
		r = show_statistics(&e, arg);
	else if (strcmp(cmd, "experiment_list") == 0)
		r = show_experiment_list(&e, arg);
	else if (strcmp(cmd, "thread_list") == 0)
		r = show_thread_list(&e, arg);
	else {
		fprintf(stderr, "info_driver: unknown command %s\n", cmd);
		r = -2;
	}
	profile_free(p);
	return r == 0 ? 0 : r == -2 ? 2 : 1;
}
