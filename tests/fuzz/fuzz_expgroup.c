/*
 * fuzz_expgroup - experiment group files (experiment/expgroup.c), which
 * er_print, analyzer, er_archive and er_rm/er_mv/er_cp read from wherever
 * a user points them: the input parsed with a directory and without one.
 * Accepted: the count returned is the members', each member is a non-empty
 * path without a newline or NUL, not a group (".erg"), no longer than a
 * line may be (plus the directory), and relative ones are under the
 * directory; at most EXPGROUP_MAX_MEMBERS.  Refused: nothing is left
 * allocated and the message is set.  A violation calls abort().
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "experiment/expgroup.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define DIR "/g"

static void check(const char *text, size_t size, const char *dir)
{
	struct expgroup g;
	char err[256] = "";
	int rc = expgroup_parse(text, size, dir, &g, err, sizeof err);
	if (rc < 0) {
		if (g.members || g.count || !err[0])
			abort();
		return;
	}
	if ((size_t)rc != g.count || g.count > EXPGROUP_MAX_MEMBERS || (g.count && !g.members))
		abort();
	for (size_t i = 0; i < g.count; i++) {
		const char *m = g.members[i];
		size_t n = strlen(m);
		if (n == 0 || strchr(m, '\n') || n > EXPGROUP_LINE_MAX_BYTES + sizeof DIR)
			abort();
		if (n >= 4 && strcmp(m + n - 4, ".erg") == 0)
			abort();
		if (dir && strncmp(m, DIR "/", sizeof DIR) != 0 && m[0] != '/')
			abort();
		if (!dir && memchr(text, m[0], size) == NULL)
			abort(); /* a member is made of the input's bytes */
	}
	expgroup_release(&g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check((const char *)data, size, DIR);
	check((const char *)data, size, NULL);
	return 0;
}
