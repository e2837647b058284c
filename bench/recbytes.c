/*
 * recbytes - count the bytes an experiment's records actually use, for the
 * bytes-per-sample benchmark (bench/runbench.py).
 *
 *   recbytes DIR.er
 *
 * For each binary data file (profile, stacks, overview) it walks every record
 * with datafile_walk and sums the encoded size of each record (kind byte +
 * varint length + payload), per record kind.  Block headers, the file header
 * block and the unused tail of each 64 KiB block are not counted.  Output, one
 * line per file then a total line, all "key=value":
 *
 *   file=profile blocks=N records=N record_bytes=N clock=N clock_bytes=N ...
 *   total samples=N profile_stacks_bytes=N bytes_per_sample=X.XX
 *
 * Exit status 0, 1 if a file cannot be opened (a missing overview is fine).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "experiment/datafile.h"
#include "experiment/format.h"
#include "experiment/record.h"

struct count {
	uint64_t records, bytes;
	uint64_t n[EXP_REC_KIND_LIMIT], b[EXP_REC_KIND_LIMIT];
};

static int on_record(void *ctx, uint32_t tid, uint64_t base_ns, int block_start, const struct exp_record *rec)
{
	(void)tid;
	(void)base_ns;
	(void)block_start;
	struct count *c = ctx;
	uint64_t sz = record_header_bytes(rec->payload_bytes) + rec->payload_bytes;
	c->records++;
	c->bytes += sz;
	if ((unsigned)rec->kind < EXP_REC_KIND_LIMIT) {
		c->n[rec->kind]++;
		c->b[rec->kind] += sz;
	}
	return 0;
}

static const char *const kind_name[EXP_REC_KIND_LIMIT] = {
	[EXP_REC_CLOCK] = "clock",           [EXP_REC_THREAD_START] = "thread_start",
	[EXP_REC_THREAD_END] = "thread_end", [EXP_REC_STACK] = "stack",
	[EXP_REC_SAMPLE] = "sample",
};

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: recbytes DIR.er\n");
		return 2;
	}
	static const char *const files[] = {EXP_FILE_NAME_PROFILE, EXP_FILE_NAME_STACKS,
					    EXP_FILE_NAME_OVERVIEW};
	uint64_t samples = 0, ps_bytes = 0;
	int status = 0;
	for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
		char path[4200];
		snprintf(path, sizeof path, "%s/%s", argv[1], files[f]);
		struct datafile *df;
		int r = datafile_open(path, 0, &df);
		if (r < 0) {
			if (!(r == -ENOENT && f == 2)) {
				fprintf(stderr, "recbytes: %s: %s\n", path, strerror(-r));
				status = 1;
			}
			continue;
		}
		struct count c;
		memset(&c, 0, sizeof c);
		datafile_walk(df, on_record, &c);
		const struct datafile_damage *d = datafile_damage(df);
		printf("file=%s blocks=%" PRIu64 " records=%" PRIu64 " record_bytes=%" PRIu64, files[f],
		       datafile_info(df)->block_count, c.records, c.bytes);
		for (int k = 1; k < EXP_REC_KIND_LIMIT; k++)
			if (c.n[k])
				printf(" %s=%" PRIu64 " %s_bytes=%" PRIu64, kind_name[k], c.n[k],
				       kind_name[k], c.b[k]);
		printf(" bad_blocks=%" PRIu64 "\n", d->bad_blocks);
		if (f < 2)
			ps_bytes += c.bytes;
		samples += c.n[EXP_REC_CLOCK];
		datafile_close(df);
	}
	printf("total samples=%" PRIu64 " profile_stacks_bytes=%" PRIu64 " bytes_per_sample=%.2f\n", samples,
	       ps_bytes, samples ? (double)ps_bytes / (double)samples : 0.0);
	return status;
}
