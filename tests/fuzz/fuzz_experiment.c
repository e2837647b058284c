/*
 * fuzz_experiment - an arbitrary byte string as an experiment directory: the
 * input is split at the first three "\n@@\n" separators into log.xml, map.xml,
 * a data file and processes.xml (the founder's list of descendants); the data
 * file is named for the kind its header says (heaptrace, synctrace, iotrace;
 * profile for any other), so every data file's reader is fuzzed; the last
 * part is also the log.xml of a subexperiment _f1.er, so the reading of
 * descendants is fuzzed too; the experiments are read, their metrics
 * computed and the process tree's lineages parsed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/profile.h"
#include "experiment/format.h"

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
	const uint8_t *s3 = s2 ? find_sep(s2 + 4, end) : NULL;
	char path[128];
	static const char *const data_names[] = {EXP_FILE_NAME_PROFILE, EXP_FILE_NAME_HEAP,
						 EXP_FILE_NAME_SYNC, EXP_FILE_NAME_IO, EXP_FILE_NAME_HWC};
	const char *data_name = NULL;
	if (s2) {
		const uint8_t *d = s2 + 4;
		size_t dn = (size_t)((s3 ? s3 : end) - d);
		uint32_t kind = 0;
		if (dn >= EXP_FH_FILE_KIND + 4)
			memcpy(&kind, d + EXP_FH_FILE_KIND, 4);
		data_name = kind == EXP_FILE_HEAP   ? EXP_FILE_NAME_HEAP
			    : kind == EXP_FILE_SYNC ? EXP_FILE_NAME_SYNC
			    : kind == EXP_FILE_IO   ? EXP_FILE_NAME_IO
			    : kind == EXP_FILE_HWC  ? EXP_FILE_NAME_HWC
						    : EXP_FILE_NAME_PROFILE;
		put(data_name, d, dn);
	}
	for (size_t i = 0; i < sizeof data_names / sizeof data_names[0]; i++)
		if (data_names[i] != data_name) {
			snprintf(path, sizeof path, "%s/%s", dir, data_names[i]);
			unlink(path);
		}
	snprintf(path, sizeof path, "%s/_f1.er", dir);
	if (s3) {
		put("processes.xml", s3 + 4, (size_t)(end - (s3 + 4)));
		mkdir(path, 0755);
		put("_f1.er/log.xml", s3 + 4, (size_t)(end - (s3 + 4)));
		put("_f1.er/map.xml", s1 + 4, (size_t)(s2 - (s1 + 4)));
	} else {
		char f[160];
		snprintf(f, sizeof f, "%s/processes.xml", dir);
		unlink(f);
		snprintf(f, sizeof f, "%s/_f1.er/log.xml", dir);
		unlink(f);
		snprintf(f, sizeof f, "%s/_f1.er/map.xml", dir);
		unlink(f);
		rmdir(path);
	}
	struct profile *p;
	if (profile_new(&p) < 0)
		return 0;
	char *err = NULL;
	if (profile_add_experiment(p, dir, &err) == 0) {
		profile_compute(p);
		char up[256];
		for (size_t i = 0; i < profile_experiment_count(p); i++) {
			const struct experiment *x = profile_experiment(p, i);
			for (size_t k = 0; k < x->nprocs; k++)
				experiment_parent_lineage(x->procs[k].lineage, up, sizeof up);
			profile_experiment_parent(p, i);
		}
		char *e2 = NULL;
		profile_select_experiments(p, "1,2-3", &e2);
		free(e2);
		profile_compute(p);
	}
	free(err);
	profile_free(p);
	return 0;
}
