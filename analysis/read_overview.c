/*
 * read_overview.c - the overview file's reader (see exp_read.h): sample
 * points, the process's rusage at each.
 */
#include <errno.h>
#include <stdlib.h>

#include "analysis/exp_read.h"
#include "experiment/record.h"

struct overview_state {
	VEC(struct exp_sample_point) samples;
	uint64_t bad;
};

static int sample_record(void *ctx, uint32_t tid, uint64_t base_ns, int block_start,
			 const struct exp_record *rec)
{
	struct overview_state *st = ctx;
	(void)tid, (void)base_ns, (void)block_start;
	struct exp_sample s;
	if (record_decode_sample(rec, &s) < 0) {
		st->bad++;
		return 0;
	}
	struct exp_sample_point p = {s.ts_ns, s.number,  s.utime_ns,  s.stime_ns, s.minflt, s.majflt,
				     s.nswap, s.inblock, s.oublock,   s.msgsnd,   s.msgrcv, s.nsignals,
				     s.nvcsw, s.nivcsw,  s.maxrss_kb, s.reason,   {0}};
	for (uint32_t i = 0; i < s.label_bytes; i++) /* a NUL or a control byte would cut or break a report */
		p.label[i] = (unsigned char)s.label[i] < 0x20 ? '?' : s.label[i];
	return VEC_PUSH(&st->samples, p) < 0 ? -ENOMEM : 0;
}

static int overview_read(struct exp_read *rd, void *vst, struct datafile *df)
{
	struct overview_state *st = vst;
	if (!df)
		return 0;
	int r = datafile_walk(df, sample_record, st);
	if (r < 0)
		return r;
	exp_read_damage(rd, EXP_FILE_NAME_OVERVIEW, df, st->bad);
	return 0;
}

/* By time, then number: the order the reports and profile_samples.c's search need. */
static int point_cmp(const void *a, const void *b)
{
	const struct exp_sample_point *x = a, *y = b;
	if (x->ts_ns != y->ts_ns)
		return x->ts_ns < y->ts_ns ? -1 : 1;
	return x->number < y->number ? -1 : x->number > y->number;
}

static int overview_finish(struct exp_read *rd, void *vst, const uint32_t *thread_order)
{
	struct overview_state *st = vst;
	(void)thread_order;
	if (st->samples.n > 1)
		qsort(st->samples.v, st->samples.n, sizeof *st->samples.v, point_cmp);
	exp_read_take_rows(rd, EXP_TABLE_SAMPLES, &st->samples.v, &st->samples.n, sizeof *st->samples.v,
			   NULL);
	return 0;
}

static void overview_release(void *vst)
{
	struct overview_state *st = vst;
	free(st->samples.v);
}

const struct exp_reader exp_reader_overview = {
	.file = EXP_FILE_NAME_OVERVIEW,
	.kind = EXP_FILE_OVERVIEW,
	.state_bytes = sizeof(struct overview_state),
	.read = overview_read,
	.finish = overview_finish,
	.release = overview_release,
};
