/*
 * read_profile.c - the profile file's reader (see exp_read.h): clock samples
 * and the threads' start and end records.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/exp_read.h"
#include "experiment/record.h"

struct profile_state {
	struct exp_read *rd;
	VEC(struct exp_event) events;
	VEC(uint64_t) stack_ids;         /* per event, resolved once the file is read */
	VEC(struct exp_sample_ctx) ctxs; /* the CONTEXTS table */
	struct u64map ctx_index;         /* a context's hash -> index + 1 of the first with that hash */
	uint64_t prev_ns;
	uint64_t bad;
};

static uint64_t ctx_hash(const struct exp_sample_ctx *c)
{
	uint64_t h = 1469598103934665603ull;
	const uint64_t v[5] = {c->runtime, c->state, c->flags, c->region, c->aux};
	for (size_t i = 0; i < 5; i++)
		h = (h ^ v[i]) * 1099511628211ull;
	return h ? h : 1;
}

static int ctx_equal(const struct exp_sample_ctx *a, const struct exp_sample_ctx *b)
{
	return a->runtime == b->runtime && a->state == b->state && a->flags == b->flags &&
	       a->region == b->region && a->aux == b->aux;
}

/* Context c's index + 1 in the table (added when new; one whose hash another has is added unmapped). */
static int ctx_intern(struct profile_state *st, const struct exp_sample_ctx *c, uint32_t *ret)
{
	uint64_t h = ctx_hash(c);
	int64_t k = u64map_get(&st->ctx_index, h);
	if (k > 0 && ctx_equal(&st->ctxs.v[k - 1], c)) {
		*ret = (uint32_t)k;
		return 0;
	}
	if (st->ctxs.n >= UINT32_MAX - 1 || VEC_PUSH(&st->ctxs, *c) < 0)
		return -ENOMEM;
	*ret = (uint32_t)st->ctxs.n;
	if (k < 0 && u64map_put(&st->ctx_index, h, (uint32_t)st->ctxs.n) < 0)
		return -ENOMEM;
	return 0;
}

static int add_clock(struct profile_state *st, uint32_t tid, const struct exp_record *rec)
{
	struct exp_clock c;
	if (record_decode_clock(rec, st->prev_ns, tid, &c) < 0) {
		st->bad++;
		return 0;
	}
	st->prev_ns = c.ts_ns;
	struct exp_thread *t = exp_read_thread(st->rd, tid);
	if (!t)
		return 0;
	if (c.has_user)
		st->rd->exp->has_cpu_split = 1;
	struct exp_event e = {.ts_ns = c.ts_ns,
			      .weight_ns = c.weight_ns,
			      .user_ns = c.user_ns,
			      .thread = (uint32_t)(t - st->rd->threads.v),
			      .cpu = c.cpu};
	if (c.ctx.runtime && ctx_intern(st, &c.ctx, &e.ctx) < 0)
		return -ENOMEM;
	if (VEC_PUSH(&st->events, e) < 0 || VEC_PUSH(&st->stack_ids, c.stack_id) < 0)
		return -ENOMEM;
	return 0;
}

static int profile_record(void *ctx, uint32_t tid, uint64_t base_ns, int block_start,
			  const struct exp_record *rec)
{
	struct profile_state *st = ctx;
	if (block_start)
		st->prev_ns = base_ns;
	if (rec->kind == EXP_REC_CLOCK || rec->kind == EXP_REC_CLOCK_CTX)
		return add_clock(st, tid, rec);
	if (rec->kind == EXP_REC_THREAD_START) {
		struct exp_thread_start s;
		struct exp_thread *t;
		if (record_decode_thread_start(rec, &s) < 0)
			st->bad++;
		else if ((t = exp_read_thread(st->rd, s.tid))) {
			t->has_start = 1;
			t->start_ns = s.start_ns;
			t->creator_tid = s.creator_tid;
			t->start_pc = s.start_pc;
		}
		return 0;
	}
	if (rec->kind == EXP_REC_THREAD_END) {
		struct exp_thread_end s;
		struct exp_thread *t;
		if (record_decode_thread_end(rec, &s) < 0)
			st->bad++;
		else if ((t = exp_read_thread(st->rd, s.tid))) {
			t->has_end = 1;
			t->end_ns = s.end_ns;
			t->cpu_ns = s.cpu_ns;
			t->wait_ns = s.wait_ns;
			t->has_wait = s.has_wait != 0;
		}
		return 0;
	}
	st->bad++; /* a record kind that does not belong in this file */
	return 0;
}

static int profile_read(struct exp_read *rd, void *vst, struct datafile *df)
{
	struct profile_state *st = vst;
	st->rd = rd;
	const char *split = rd->exp->log.cpu_split;
	rd->exp->has_cpu_split = split && strcmp(split, "rusage_thread") == 0;
	if (!df)
		return 0;
	int r = datafile_walk(df, profile_record, st);
	if (r < 0)
		return r;
	exp_read_damage(rd, EXP_FILE_NAME_PROFILE, df, st->bad);
	exp_read_set_stacks(rd, st->stack_ids.v, st->events.n, st->events.v, sizeof *st->events.v,
			    offsetof(struct exp_event, stack), "sample(s)");
	return 0;
}

static int cmp_event(const void *a, const void *b)
{
	const struct exp_event *x = a, *y = b;
	if (x->ts_ns != y->ts_ns)
		return x->ts_ns < y->ts_ns ? -1 : 1;
	return x->thread < y->thread ? -1 : x->thread > y->thread;
}

/*
 * CPU time after a thread's last sample: charged to that sample's stack.
 *
 * first_expiry="uniform" (format 1.3 to 1.10): each thread's first expiry at
 * a uniform phase of the interval I, each sample weighing the CPU time
 * since the previous one: a thread that ran c < I was sampled with
 * probability c / I, so charging such a thread I (not c) makes its expected
 * charge c exactly; a longer thread is charged what came after its last
 * sample.
 *
 * first_expiry="grid" (format 1.11): each sample weighs I for each grid
 * point of the thread's CPU time it charges (collector/sampler.h),
 * so the samples' sum is the thread's CPU time in expectation, and for a thread of c >= I the difference to c (in
 * (-I, I)) is charged to its last sample's stack, which keeps every
 * function's expected charge exact and the thread's sum exact too: more
 * CPU as a tail event, less by lowering the last sample's weight.  A
 * thread of c < I keeps what its samples say (I or nothing).
 *
 * A thread whose samples are all of its start (EXP_STACK_STARTUP, or the
 * collector's own start-up, EXP_STACK_COLLECTOR) gets its tail as
 * <Unknown>: it ran with the sampling signal blocked, say, and what it
 * did after its start is neither its start nor the collector's; so does a
 * thread of c >= I without any sample (grid: it cannot have been sampled),
 * unless the data files stopped (what they lost is counted apart), and the
 * header says how many such threads there were.
 */
struct tails {
	struct exp_read *rd;
	struct profile_state *st;
	int grid;                         /* first_expiry="grid" */
	uint64_t short_ns;                /* the interval, when short threads are charged it; else 0 */
	uint64_t unsampled, unsampled_ns; /* threads charged as <Unknown> without a sample */
};

/* Thread th's last sample stood for `over` more than the thread ran (a grid): it weighs that less. */
static void shorten_last(struct exp_thread *th, struct exp_event *lastev, uint64_t over)
{
	if (over >= lastev->weight_ns)
		return; /* cannot be with a grid: a malformed record */
	uint64_t w = lastev->weight_ns - over;
	uint64_t u = (uint64_t)((double)lastev->user_ns * (double)w / (double)lastev->weight_ns + 0.5);
	th->sampled_user_ns -= lastev->user_ns - u;
	lastev->user_ns = u;
	lastev->weight_ns = w;
	th->sampled_ns -= over;
}

/*
 * Thread t's charge beyond its samples (last: its last event's index, or
 * UINT32_MAX; program: it has a sample of the program's own code).  0 or
 * -ENOMEM.
 */
static int tail_of_thread(struct tails *c, size_t t, uint32_t last, int program)
{
	struct exp_thread *th = &c->rd->threads.v[t];
	const struct exp_log *log = &c->rd->exp->log;
	struct exp_event tail = {.ts_ns = th->end_ns, .thread = (uint32_t)t, .kind = EXP_EV_TAIL};
	if (c->grid && th->has_end && last == UINT32_MAX && th->cpu_ns >= c->short_ns && !log->lost.stopped) {
		/* ran an interval or more with no sample: its CPU time, not where it went */
		tail.weight_ns = th->sampled_ns = th->cpu_ns;
		tail.stack = (uint32_t)c->rd->nknown;
		c->unsampled++;
		c->unsampled_ns += th->cpu_ns;
		return VEC_PUSH(&c->st->events, tail) < 0 ? -ENOMEM : 0;
	}
	if (!th->has_end || last == UINT32_MAX || (c->grid && th->cpu_ns < c->short_ns))
		return 0;
	uint64_t charge = th->cpu_ns < c->short_ns ? c->short_ns : th->cpu_ns;
	struct exp_event *lastev = &c->st->events.v[last];
	if (c->grid && charge < th->sampled_ns) {
		/* the grid points charged more than the thread ran: the last sample stood for less */
		shorten_last(th, lastev, th->sampled_ns - charge);
		return 0;
	}
	if (charge <= th->sampled_ns)
		return 0;
	tail = *lastev;
	tail.kind = EXP_EV_TAIL;
	tail.weight_ns = charge - th->sampled_ns;
	/*
	 * A thread whose only samples are its start's (it ran with the
	 * sampling signal blocked, say): what came after them was not its
	 * start, nor the collector's: unknown.
	 */
	if (!program)
		tail.stack = (uint32_t)c->rd->nknown;
	/* no split was measured after the last sample: the thread's sampled share */
	tail.user_ns = th->sampled_ns ? (uint64_t)((double)tail.weight_ns * (double)th->sampled_user_ns /
							   (double)th->sampled_ns +
						   0.5)
				      : 0;
	if (tail.user_ns > tail.weight_ns)
		tail.user_ns = tail.weight_ns;
	tail.ts_ns = th->end_ns > tail.ts_ns ? th->end_ns : tail.ts_ns;
	return VEC_PUSH(&c->st->events, tail) < 0 ? -ENOMEM : 0;
}

static int add_tails(struct exp_read *rd, struct profile_state *st)
{
	size_t nt = rd->threads.n, nev = st->events.n;
	uint32_t *last = malloc((nt ? nt : 1) * sizeof *last);
	uint8_t *program = calloc(nt ? nt : 1, 1); /* a sample of the program's own code */
	if (!last || !program) {
		free(last);
		free(program);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nt; i++)
		last[i] = UINT32_MAX;
	for (size_t i = 0; i < nev; i++) {
		const struct exp_event *e = &st->events.v[i];
		last[e->thread] = (uint32_t)i;
		/* the stacks reader, finished first, moved the stacks into the experiment */
		if (e->stack < rd->exp->nstacks &&
		    !(rd->exp->stacks[e->stack].flags & (EXP_STACK_COLLECTOR | EXP_STACK_STARTUP)))
			program[e->thread] = 1;
	}
	const struct exp_log *log = &rd->exp->log;
	const char *fx = log->first_expiry ? log->first_expiry : "";
	struct tails c = {.rd = rd, .st = st, .grid = strcmp(fx, "grid") == 0};
	c.short_ns = c.grid || strcmp(fx, "uniform") == 0 ? log->clock_interval_us * 1000u : 0;
	int r = 0;
	for (size_t t = 0; t < nt && r == 0; t++)
		r = tail_of_thread(&c, t, last[t], program[t]);
	free(last);
	free(program);
	if (r < 0)
		return r;
	if (c.unsampled)
		exp_read_warnf(rd,
			       "%" PRIu64
			       " thread(s) ran %.3f s of CPU time without a sample (the sampling signal "
			       "blocked by the raw system call?): shown as <Unknown>",
			       c.unsampled, (double)c.unsampled_ns / 1e9);
	if (st->events.n != nev)
		qsort(st->events.v, st->events.n, sizeof *st->events.v, cmp_event);
	return 0;
}

static int profile_finish(struct exp_read *rd, void *vst, const uint32_t *thread_order)
{
	struct profile_state *st = vst;
	for (size_t i = 0; i < st->events.n; i++) {
		struct exp_event *e = &st->events.v[i];
		e->thread = thread_order[e->thread];
		rd->threads.v[e->thread].sampled_ns += e->weight_ns;
		rd->threads.v[e->thread].sampled_user_ns += e->user_ns;
		rd->threads.v[e->thread].samples++;
	}
	if (st->events.n)
		qsort(st->events.v, st->events.n, sizeof *st->events.v, cmp_event);
	int r = add_tails(rd, st);
	if (r < 0)
		return r;
	exp_read_take_rows(rd, EXP_TABLE_CLOCK, &st->events.v, &st->events.n, sizeof *st->events.v, NULL);
	exp_read_take_rows(rd, EXP_TABLE_CONTEXTS, &st->ctxs.v, &st->ctxs.n, sizeof *st->ctxs.v, NULL);
	return 0;
}

static void profile_release(void *vst)
{
	struct profile_state *st = vst;
	free(st->events.v);
	free(st->stack_ids.v);
	free(st->ctxs.v);
	u64map_release(&st->ctx_index);
}

const struct exp_reader exp_reader_profile = {
	.file = EXP_FILE_NAME_PROFILE,
	.kind = EXP_FILE_PROFILE,
	.state_bytes = sizeof(struct profile_state),
	.read = profile_read,
	.finish = profile_finish,
	.release = profile_release,
};
