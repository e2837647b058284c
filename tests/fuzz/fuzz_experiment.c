/*
 * fuzz_experiment - an arbitrary byte string as an experiment directory: the
 * input is split at the first three "\n@@\n" separators into log.xml, map.xml,
 * a data file and processes.xml (the founder's list of descendants); the data
 * file is named for the kind its header says (heaptrace, synctrace, iotrace;
 * profile for any other), so every data file's reader is fuzzed; the last
 * part is also the log.xml of a subexperiment _f1.er, so the reading of
 * descendants is fuzzed too; the experiments are read, their metrics
 * computed and the process tree's lineages parsed.
 *
 * Hostile files (issue 24): an input that ends with "\n@!" and two bytes
 * WHAT HOW has one file replaced after it is written.  WHAT: 'l' log.xml,
 * 'm' map.xml, 'd' the data file, 'p' processes.xml, 'n' notes (always
 * written, "fuzz notes").  HOW: 'f' a FIFO; 's' sparse (extended to 1 TiB,
 * which costs no disk); 'z' a link to /dev/zero; 'o' a link to a file
 * outside the experiment; and for the data file 'c' compressed to NAME.zst,
 * 'b' a zstd bomb NAME.zst (RLE blocks declaring 1 TiB), 'u' one that does
 * not declare its size (256 MiB of zeros in 8 KiB).  A reader that blocks is
 * a libFuzzer timeout, one that allocates what the file claims an
 * out-of-memory; the target itself aborts when anything of the file outside
 * reaches the experiment (notes), or when a log.xml or map.xml that is not a
 * regular file inside the experiment is read as one.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "analysis/experiment_internal.h"
#include "analysis/profile.h"
#include "experiment/format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64], outside[96];

#define OUTSIDE_MARK "PA-FUZZ-OUTSIDE"

static const char *at(const char *name)
{
	static char path[160];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	return path;
}

/* Write name afresh: whatever was there (a FIFO, a link of an earlier input) goes first. */
static void put(const char *name, const uint8_t *p, size_t n)
{
	unlink(at(name));
	FILE *f = fopen(at(name), "wbx");
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

/* NAME.zst as a frame of n RLE blocks of 128 KiB of zeros, declaring `declared` bytes (0: not declaring). */
static void put_bomb(const char *zname, unsigned long long declared, unsigned n)
{
	uint8_t *b = malloc(14 + 4 * (size_t)n), *q = b;
	if (!b)
		abort();
	memcpy(q, "\x28\xb5\x2f\xfd", 4);
	q += 4;
	*q++ = declared ? 0xC0 : 0x00; /* 8-byte content size, or none; a window descriptor follows */
	*q++ = 0x38;                   /* window 128 KiB */
	for (int i = 0; declared && i < 8; i++)
		*q++ = (uint8_t)(declared >> (8 * i));
	for (unsigned i = 0; i < n; i++) {
		uint32_t h = (131072u << 3) | (1u << 1) | (i + 1 == n);
		*q++ = (uint8_t)h, *q++ = (uint8_t)(h >> 8), *q++ = (uint8_t)(h >> 16), *q++ = 0;
	}
	put(zname, b, (size_t)(q - b));
	free(b);
}

/* The data file `name` (n bytes at p) made what `how` says. */
static void hostile_data(const char *name, const uint8_t *p, size_t n, uint8_t how)
{
	char zname[64];
	snprintf(zname, sizeof zname, "%s.zst", name);
	if (how == 'c' || how == 'b' || how == 'u') {
		unlink(at(name));
		if (how == 'b') {
			put_bomb(zname, 1ull << 40, 2);
		} else if (how == 'u') {
			put_bomb(zname, 0, 2048);
		} else {
			size_t room = ZSTD_compressBound(n);
			void *z = malloc(room ? room : 1);
			size_t zn = z ? ZSTD_compress(z, room, p, n, 1) : 0;
			if (!z || ZSTD_isError(zn))
				abort();
			put(zname, z, zn);
			free(z);
		}
	}
}

/* Replace the file `name` as `how` says ('f', 's', 'z', 'o'). */
static void hostile(const char *name, uint8_t how)
{
	const char *path = at(name);
	if (how == 's') {
		if (truncate(path, 1ll << 40) != 0)
			abort();
		return;
	}
	if (how != 'f' && how != 'z' && how != 'o')
		return;
	unlink(path);
	if ((how == 'f' && mkfifo(path, 0600) != 0) || (how == 'z' && symlink("/dev/zero", path) != 0) ||
	    (how == 'o' && symlink(outside, path) != 0))
		abort();
}

static void remove_all(void)
{
	static const char *const names[] = {
		"log.xml",
		"map.xml",
		"processes.xml",
		"notes",
		EXP_FILE_NAME_PROFILE,
		EXP_FILE_NAME_HEAP,
		EXP_FILE_NAME_SYNC,
		EXP_FILE_NAME_IO,
		EXP_FILE_NAME_HWC,
		"profile.zst",
		"heaptrace.zst",
		"synctrace.zst",
		"iotrace.zst",
		"hwctrace.zst",
		"_f1.er/log.xml",
		"_f1.er/map.xml",
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		unlink(at(names[i]));
	rmdir(at("_f1.er"));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!dir[0]) {
		snprintf(dir, sizeof dir, "/tmp/pa-fuzz-exp.XXXXXX");
		if (!mkdtemp(dir))
			abort();
		snprintf(outside, sizeof outside, "%s.outside", dir);
		FILE *f = fopen(outside, "w");
		if (!f)
			abort();
		fputs("<?xml version=\"1.0\"?>\n<experiment version=\"1.0\"><comment>" OUTSIDE_MARK
		      "</comment></experiment>\n",
		      f);
		fclose(f);
	}
	remove_all();
	uint8_t what = 0, how = 0;
	if (size >= 5 && memcmp(data + size - 5, "\n@!", 3) == 0) {
		what = data[size - 2];
		how = data[size - 1];
		size -= 5;
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
		if (what == 'd')
			hostile_data(data_name, d, dn, how);
	}
	(void)data_names;
	snprintf(path, sizeof path, "%s/_f1.er", dir);
	if (s3) {
		put("processes.xml", s3 + 4, (size_t)(end - (s3 + 4)));
		mkdir(path, 0755);
		put("_f1.er/log.xml", s3 + 4, (size_t)(end - (s3 + 4)));
		put("_f1.er/map.xml", s1 + 4, (size_t)(s2 - (s1 + 4)));
	}
	put("notes", (const uint8_t *)"fuzz notes\n", 11);
	static const char *const whats[] = {
		['l'] = "log.xml", ['m'] = "map.xml", ['p'] = "processes.xml", ['n'] = "notes", ['d'] = NULL};
	const char *victim = what == 'd'                             ? data_name
			     : what < sizeof whats / sizeof whats[0] ? whats[what]
								     : NULL;
	if (victim && access(at(victim), F_OK) == 0)
		hostile(victim, how);
	struct profile *p;
	if (profile_new(&p) < 0)
		return 0;
	char *err = NULL;
	int opened = profile_add_experiment(p, dir, &err) == 0;
	/* log.xml or map.xml that is not a regular file of the experiment is never read as one */
	if (opened && (what == 'l' || what == 'm') && (how == 'f' || how == 'z' || how == 'o') && victim)
		abort();
	if (opened) {
		const struct experiment *fx = profile_experiment(p, 0);
		if (fx && fx->notes && strstr(fx->notes, OUTSIDE_MARK))
			abort(); /* a file outside the experiment shown as its notes */
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
