/*
 * erp_output.h - for unit tests that drive er_print's session over a profile
 * they built (er_print/commands.h): run command lines, get what they printed.
 * Include after tests/unit/check.h.
 */
#ifndef TESTS_UNIT_ERP_OUTPUT_H
#define TESTS_UNIT_ERP_OUTPUT_H

#include <stdio.h>

#include "er_print/commands.h"

/* Run er_print's command lines over p (each checked to succeed); what they printed, malloc'd (NULL on failure). */
static inline char *erp_output(struct profile *p, const char *const *lines, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	if (!out)
		return NULL;
	struct erp e = {.prof = p, .out = out, .prog = "er_print", .sthresh = 75, .dthresh = 75};
	for (size_t i = 0; i < n; i++) {
		char line[256];
		snprintf(line, sizeof line, "%s", lines[i]);
		CHECK(erp_run_line(&e, line) == 0);
	}
	CHECK(erp_end_out(&e) == 0);
	fclose(out);
	return buf;
}

#endif
