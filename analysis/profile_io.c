/*
 * profile_io.c - I/O tracing (collect -i on) as a metric source: each
 * recorded call charges its stack (whose leaf is the libc function called).
 * A successful read charges ioreadbytes (the bytes it returned), ioreadcnt 1
 * and ioreadtime its duration; a write likewise iowrite*; any other
 * successful call ioothercnt and ioothertime; a call that failed, whatever
 * it was, ioerrorcnt and ioerrortime (the reference's READ_ERROR,
 * WRITE_ERROR, ... types).  Calls of threads or times outside the selection
 * are skipped, as clock samples are.
 */
#include "analysis/profile_io.h"
#include "analysis/experiment_internal.h"

#include "analysis/profile_internal.h"
#include "experiment/format.h"
#include "experiment/record.h"

enum {
	RB = PROFILE_IO_READ_BYTES,
	RC = PROFILE_IO_READ_CNT,
	RT = PROFILE_IO_READ_TIME,
	WB = PROFILE_IO_WRITE_BYTES,
	WC = PROFILE_IO_WRITE_CNT,
	WT = PROFILE_IO_WRITE_TIME,
	OC = PROFILE_IO_OTHER_CNT,
	OT = PROFILE_IO_OTHER_TIME,
	EC = PROFILE_IO_ERROR_CNT,
	ET = PROFILE_IO_ERROR_TIME,
	NIO = PROFILE_IO_FIGS
};

/* In the order of the values each charge carries. */
static const struct metric_def io_defs[NIO] = {
	{"ioreadbytes", "Read Bytes", "Read Bytes", METRIC_UNIT_BYTES, METRIC_FLAVORS_ALL, EXP_FILE_NAME_IO,
	 0, NULL, NULL},
	{"ioreadcnt", "Read Count", "Read Count", METRIC_UNIT_COUNT, METRIC_FLAVORS_ALL, EXP_FILE_NAME_IO, 0,
	 NULL, NULL},
	{"ioreadtime", "Read Time", "Read Time", METRIC_UNIT_TIME, METRIC_FLAVORS_ALL, EXP_FILE_NAME_IO, 0,
	 NULL, NULL},
	{"iowritebytes", "Write Bytes", "Write Bytes", METRIC_UNIT_BYTES, METRIC_FLAVORS_ALL,
	 EXP_FILE_NAME_IO, 0, NULL, NULL},
	{"iowritecnt", "Write Count", "Write Count", METRIC_UNIT_COUNT, METRIC_FLAVORS_ALL, EXP_FILE_NAME_IO,
	 0, NULL, NULL},
	{"iowritetime", "Write Time", "Write Time", METRIC_UNIT_TIME, METRIC_FLAVORS_ALL, EXP_FILE_NAME_IO, 0,
	 NULL, NULL},
	{"ioothercnt", "Other I/O Count", "Other I/O Count", METRIC_UNIT_COUNT, METRIC_FLAVORS_ALL,
	 EXP_FILE_NAME_IO, 0, NULL, NULL},
	{"ioothertime", "Other I/O Time", "Other I/O Time", METRIC_UNIT_TIME, METRIC_FLAVORS_ALL,
	 EXP_FILE_NAME_IO, 0, NULL, NULL},
	{"ioerrorcnt", "I/O Error Count", "I/O Error Count", METRIC_UNIT_COUNT, METRIC_FLAVORS_ALL,
	 EXP_FILE_NAME_IO, 0, NULL, NULL},
	{"ioerrortime", "I/O Error Time", "I/O Error Time", METRIC_UNIT_TIME, METRIC_FLAVORS_ALL,
	 EXP_FILE_NAME_IO, 0, NULL, NULL},
};

static int io_present(const struct profile *p, size_t x, void *arg)
{
	(void)arg;
	return EXP_PRESENT(p->exps.v[x].exp, IO);
}

static int io_selected(const struct profile *p, size_t x, const struct exp_io_event *y)
{
	return profile_event_selected(p, x, y->thread, PROFILE_NO_CPU, y->ts_ns);
}

void profile_io_values(const struct exp_io_event *y, uint64_t v[PROFILE_IO_FIGS])
{
	for (int i = 0; i < NIO; i++)
		v[i] = 0;
	if (y->err) {
		v[EC] = 1;
		v[ET] = y->dur_ns;
		return;
	}
	switch (record_io_class(y->func)) {
	case EXP_IO_CLASS_READ:
		v[RB] = y->bytes;
		v[RC] = 1;
		v[RT] = y->dur_ns;
		break;
	case EXP_IO_CLASS_WRITE:
		v[WB] = y->bytes;
		v[WC] = 1;
		v[WT] = y->dur_ns;
		break;
	case EXP_IO_CLASS_COPY: /* a read and a write of the same bytes, its time once, as write time */
		v[RB] = y->bytes;
		v[RC] = 1;
		v[WB] = y->bytes;
		v[WC] = 1;
		v[WT] = y->dur_ns;
		break;
	default:
		v[OC] = 1;
		v[OT] = y->dur_ns;
		break;
	}
}

static int io_charge(struct profile *p, size_t x, profile_charge_fn fn, void *fn_arg, void *arg)
{
	(void)arg;
	const struct experiment *exp = p->exps.v[x].exp;
	int r = 0;
	for (size_t i = 0; r == 0 && i < EXP_COUNT(exp, IO); i++) {
		const struct exp_io_event *y = &EXP_ROWS(exp, IO)[i];
		if (!io_selected(p, x, y))
			continue;
		uint64_t v[NIO];
		profile_io_values(y, v);
		struct profile_charge c = {
			.stack = y->stack, .thread = y->thread, .ts_ns = y->ts_ns, .event = 1, .values = v};
		r = fn(fn_arg, &c);
	}
	return r;
}

static int io_sum(struct profile *p, size_t x, uint64_t *sums, size_t stride, const size_t *cols, void *arg)
{
	(void)arg;
	const struct experiment *exp = p->exps.v[x].exp;
	for (size_t i = 0; i < EXP_COUNT(exp, IO); i++) {
		const struct exp_io_event *y = &EXP_ROWS(exp, IO)[i];
		if (!io_selected(p, x, y))
			continue;
		uint64_t v[NIO];
		profile_io_values(y, v);
		uint64_t *s = sums + (size_t)y->stack * stride;
		for (int k = 0; k < NIO; k++)
			s[cols[k]] += v[k];
	}
	return 0;
}

static const struct profile_metric_source io_source = {
	.needs = "I/O tracing data (collect -i on)",
	.defs = io_defs,
	.ndefs = NIO,
	.present = io_present,
	.charge = io_charge,
	.sum = io_sum,
};

const struct profile_module profile_io_module = {.source = &io_source};
