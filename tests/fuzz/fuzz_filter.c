/*
 * fuzz_filter - the filter expression language (analysis/filter.c), which
 * er_print's `filters` compiles from whatever a user types or a script
 * holds.  Accepted: the text is kept as given, the properties named are
 * known ones, every evaluation gives 0 or 1, and "!(TEXT)" (when it
 * compiles) gives the opposite on the same event.  Refused: nothing is
 * returned and the message names a column inside the text (or just past
 * it).  A violation calls abort().
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/filter.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint64_t events[][FILTER_NPROPS] = {
	{1, 101, 0, 1, 0, 1},
	{2, 102, 3, 2, 1500000000, 2},
	{7, 4321, FILTER_NO_CPU, 5, 20000, 1},
	{0, 0, 0, 0, 0, 0},
	{UINT64_MAX, UINT64_MAX, UINT64_MAX - 1, UINT64_MAX, UINT64_MAX, UINT64_MAX},
};
#define NEVENTS (sizeof events / sizeof events[0])

static void check_refusal(const char *text, struct filter *f, const char *err)
{
	size_t col = 0;
	if (f || !err || strncmp(err, "column ", 7) != 0)
		abort();
	col = strtoul(err + 7, NULL, 10);
	if (col < 1 || col > strlen(text) + 1)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096)
		return 0;
	char *text = malloc(size + 1), *neg = malloc(size + 4);
	if (!text || !neg)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	struct filter *f = NULL, *g = NULL;
	char *err = NULL;
	if (filter_compile(text, &f, &err) < 0) {
		check_refusal(text, f, err);
		goto out;
	}
	if (strcmp(filter_text(f), text) != 0 || (filter_props(f) >> FILTER_NPROPS) != 0)
		abort();
	snprintf(neg, size + 4, "!(%s)", text);
	char *err2 = NULL;
	if (filter_compile(neg, &g, &err2) < 0)
		check_refusal(neg, g, err2);
	free(err2);
	for (size_t i = 0; i < NEVENTS; i++) {
		int r = filter_eval(f, events[i]);
		if (r != 0 && r != 1)
			abort();
		if (g && events[i][FILTER_CPU] != FILTER_NO_CPU && filter_eval(g, events[i]) != !r)
			abort();
	}
out:
	filter_free(f);
	filter_free(g);
	free(err);
	free(text);
	free(neg);
	return 0;
}
