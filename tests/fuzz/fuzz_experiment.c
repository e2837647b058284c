/*
 * fuzz_experiment - an arbitrary byte string as an experiment directory: the
 * input is split at the first two "\n@@\n" separators into log.xml, map.xml
 * and profile; the experiment is read and its metrics computed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];

static void put(const char *name, const uint8_t *p, size_t n)
{
	char path[128];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	if (!f)
		abort();
	fwrite(p, 1, n, f);
	fclose(f);
}

static const uint8_t *find_sep(const uint8_t *p, const uint8_t *end)
{
	for (; p + 4 <= end; p++)
		if (memcmp(p, "\n@@\n", 4) == 0)
			return p;
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!dir[0]) {
		snprintf(dir, sizeof dir, "/tmp/pa-fuzz-exp.XXXXXX");
		if (!mkdtemp(dir))
			abort();
	}
	const uint8_t *end = data + size, *s1 = find_sep(data, end), *s2 = s1 ? find_sep(s1 + 4, end) : NULL;
	const uint8_t *log_end = s1 ? s1 : end;
	put("log.xml", data, (size_t)(log_end - data));
	put("map.xml", s1 ? s1 + 4 : data, s1 ? (size_t)((s2 ? s2 : end) - (s1 + 4)) : 0);
	if (s2)
		put("profile", s2 + 4, (size_t)(end - (s2 + 4)));
	else {
		char path[128];
		snprintf(path, sizeof path, "%s/profile", dir);
		unlink(path);
	}
	struct profile *p;
	if (profile_new(&p) < 0)
		return 0;
	char *err = NULL;
	if (profile_add_experiment(p, dir, &err) == 0)
		profile_compute(p);
	free(err);
	profile_free(p);
	return 0;
}
