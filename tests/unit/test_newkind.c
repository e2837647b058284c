/*
 * test_newkind - a data type that libanalysis does not know, plugged in from
 * this file alone: its data file ("ticketlog", a file kind of its own whose
 * blocks hold 24-byte events: time from the block's base, stack id, value),
 * its reader (exp_read_register, filling a table of its own), its metric
 * source (profile_metric_register: `tickets`, charged from that table) and
 * a report model (tickets per thread).  The metric then shows in the
 * library's function list (report_list_new) like a built-in one, a thread
 * selection applies to it, and an er_print session over the same profile
 * (er_print/commands.h) lists it, as text and in printmode json.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/exp_read.h"
#include "analysis/experiment_internal.h"
#include "analysis/metrics.h"
#include "analysis/mspec.h"
#include "analysis/profile.h"
#include "analysis/report_list.h"
#include "experiment/format.h"
#include "tests/unit/check.h"
#include "tests/unit/erp_output.h"
#include "tests/unit/fixture.h"

#define TICKET_FILE "ticketlog"
#define TICKET_KIND 42u
#define TICKET_BYTES 24u

/* ---------------------------------------------------------------- the table and its reader */

struct ticket {
	uint64_t ts_ns;
	uint64_t value;
	uint32_t thread; /* index into threads */
	uint32_t stack;  /* index into stacks */
};

static int ticket_table = -1;

struct ticket_state {
	struct exp_read *rd;
	VEC(struct ticket) rows;
	VEC(uint64_t) stack_ids;
};

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static int ticket_block(void *ctx, uint32_t tid, uint64_t base_ns, const uint8_t *events, size_t bytes)
{
	struct ticket_state *st = ctx;
	struct exp_thread *t = exp_read_thread(st->rd, tid);
	if (!t)
		return 0;
	for (size_t off = 0; off + TICKET_BYTES <= bytes; off += TICKET_BYTES) {
		struct ticket k = {.ts_ns = base_ns + get64(events + off),
				   .value = get64(events + off + 16),
				   .thread = (uint32_t)(t - st->rd->threads.v)};
		if (VEC_PUSH(&st->rows, k) < 0 || VEC_PUSH(&st->stack_ids, get64(events + off + 8)) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int ticket_read(struct exp_read *rd, void *vst, struct datafile *df)
{
	struct ticket_state *st = vst;
	st->rd = rd;
	rd->exp->tables[ticket_table].present = exp_read_present(rd, TICKET_FILE);
	if (!df)
		return 0;
	int r = datafile_walk_stream(df, ticket_block, st);
	if (r < 0)
		return r;
	exp_read_set_stacks(rd, st->stack_ids.v, st->rows.n, st->rows.v, sizeof *st->rows.v,
			    offsetof(struct ticket, stack), "ticket(s)");
	return 0;
}

static int cmp_ticket(const void *a, const void *b)
{
	const struct ticket *x = a, *y = b;
	return x->ts_ns < y->ts_ns ? -1 : x->ts_ns > y->ts_ns;
}

static int ticket_finish(struct exp_read *rd, void *vst, const uint32_t *thread_order)
{
	struct ticket_state *st = vst;
	EXP_READ_FINISH_VEC(rd, ticket_table, &st->rows, thread_order, cmp_ticket, NULL);
	return 0;
}

static void ticket_release(void *vst)
{
	struct ticket_state *st = vst;
	free(st->rows.v);
	free(st->stack_ids.v);
}

static const struct exp_reader ticket_reader = {
	.file = TICKET_FILE,
	.kind = (enum exp_file_kind)TICKET_KIND,
	.state_bytes = sizeof(struct ticket_state),
	.read = ticket_read,
	.finish = ticket_finish,
	.release = ticket_release,
};

/* Experiment x's tickets and their count. */
static const struct ticket *tickets_of(const struct experiment *x, size_t *ret_n)
{
	const struct exp_table *t = experiment_table(x, ticket_table);
	*ret_n = t->count;
	return t->rows;
}

/* ---------------------------------------------------------------- its metric source */

static const struct metric_def ticket_defs[] = {
	{"tickets", "Tickets", "Tickets", METRIC_UNIT_COUNT, METRIC_FLAVORS_ALL, TICKET_FILE, 0, NULL, NULL},
};

static int ticket_present(const struct profile *p, size_t x, void *arg)
{
	(void)arg;
	return experiment_table(profile_experiment(p, x), ticket_table)->present;
}

static int ticket_charge(struct profile *p, size_t x, profile_charge_fn fn, void *fn_arg, void *arg)
{
	(void)arg;
	size_t n;
	const struct ticket *v = tickets_of(profile_experiment(p, x), &n);
	int r = 0;
	for (size_t i = 0; r == 0 && i < n; i++) {
		if (!profile_event_selected(p, x, v[i].thread, PROFILE_NO_CPU, v[i].ts_ns))
			continue;
		struct profile_charge c = {.stack = v[i].stack,
					   .thread = v[i].thread,
					   .ts_ns = v[i].ts_ns,
					   .event = 1,
					   .values = &v[i].value};
		r = fn(fn_arg, &c);
	}
	return r;
}

static const struct profile_metric_source ticket_source = {
	.needs = "ticket data",
	.defs = ticket_defs,
	.ndefs = 1,
	.present = ticket_present,
	.charge = ticket_charge,
};

/* ---------------------------------------------------------------- er_print's session */

/* er_print's function list of e.tickets: a column of its own, <Total> 16, main 10 (as text and JSON). */
static void check_er_print(struct profile *p)
{
	static const char *const text[] = {"thread_select all", "metrics e.tickets:name", "sort e.tickets",
					   "functions"};
	char *t = erp_output(p, text, sizeof text / sizeof text[0]);
	CHECK(t && strstr(t, "Tickets") && strstr(t, "<Total>"));
	static const char *const json[] = {"thread_select all", "metrics e.tickets:name", "sort e.tickets",
					   "printmode json", "functions"};
	char *j = erp_output(p, json, sizeof json / sizeof json[0]);
	CHECK(j && strstr(j, "{\"key\":\"e.tickets\",\"title\":\"Excl. Tickets\",\"unit\":\"count\""));
	CHECK(j && strstr(j, "{\"e.tickets\":16,\"name\":\"<Total>\"}"));
	CHECK(j && strstr(j, "{\"e.tickets\":10,\"name\":\"main\"}"));
	CHECK(j && strstr(j, "{\"e.tickets\":6,\"name\":\"report_list_new\"}"));
	if (!(j && strstr(j, "{\"e.tickets\":16,")))
		fprintf(stderr, "er_print printed: %s\n", j ? j : "(nothing)");
	free(t);
	free(j);
}

/* ---------------------------------------------------------------- its report: tickets per thread */

/* The tickets of the selected threads of experiment xi, summed per thread number into sums[0..n). */
static void report_tickets_by_thread(const struct profile *p, size_t xi, uint64_t *sums, size_t n)
{
	size_t nt;
	const struct ticket *v = tickets_of(profile_experiment(p, xi), &nt);
	memset(sums, 0, n * sizeof *sums);
	for (size_t i = 0; i < nt; i++) {
		uint32_t number = experiment_thread(profile_experiment(p, xi), v[i].thread)->number;
		if (number < n && profile_thread_selected(p, xi, v[i].thread))
			sums[number] += v[i].value;
	}
}

/* ---------------------------------------------------------------- the data file */

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* One block of thread tid: n tickets of stack id `stack`, values 1, 2, ..., 1 ms apart. */
static void put_block(FILE *f, uint32_t tid, uint32_t seq, uint64_t base_ns, uint64_t stack, size_t n)
{
	static uint8_t b[EXP_BLOCK_BYTES];
	memset(b, 0, sizeof b);
	put32(b + EXP_BH_MAGIC, EXP_BLOCK_MAGIC);
	put32(b + EXP_BH_TID, tid);
	put32(b + EXP_BH_SEQ, seq);
	put64(b + EXP_BH_BASE_NS, base_ns);
	for (size_t i = 0; i < n; i++) {
		uint8_t *e = b + EXP_BLOCK_HEADER_BYTES + i * TICKET_BYTES;
		put64(e, (i + 1) * 1000000);
		put64(e + 8, stack);
		put64(e + 16, i + 1);
	}
	put32(b + EXP_BH_USED, (uint32_t)(n * TICKET_BYTES));
	fwrite(b, 1, sizeof b, f);
}

static int write_tickets(const char *exp_dir, uint64_t stack1, uint64_t stack2)
{
	char path[4400];
	snprintf(path, sizeof path, "%.4200s/%s", exp_dir, TICKET_FILE);
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	static uint8_t h[EXP_BLOCK_BYTES];
	memcpy(h, EXP_FILE_MAGIC, EXP_FILE_MAGIC_BYTES);
	h[EXP_FH_VERSION_MAJOR] = EXP_FORMAT_VERSION_MAJOR; /* u16 each, little-endian */
	h[EXP_FH_VERSION_MINOR] = EXP_FORMAT_VERSION_MINOR;
	put32(h + EXP_FH_FILE_KIND, TICKET_KIND);
	put32(h + EXP_FH_BLOCK_BYTES, EXP_BLOCK_BYTES);
	put32(h + EXP_FH_PID, 4242);
	put64(h + EXP_FH_START_NS, 1000000000);
	fwrite(h, 1, sizeof h, f);
	put_block(f, 1, 0, 1000000000, stack1, 4); /* thread 1: 1+2+3+4 = 10 */
	put_block(f, 2, 0, 1000000000, stack2, 3); /* thread 2: 1+2+3 = 6 */
	return fclose(f) == 0 ? 0 : -1;
}

/* Two threads sampled in two functions of this program (mkexp looks them up in its symbols). */
static const char script[] = "object %s\n"
			     "thread 1\n"
			     "thread 2 1\n"
			     "sample 1 1 10000000 main\n"
			     "sample 2 1 10000000 report_list_new\n"
			     "end 1 20000000\n"
			     "end 2 20000000\n";

static const char *pc_name(void *arg, enum report_what what, uint32_t id, char *buf, size_t room)
{
	(void)what;
	const struct pfunc *f = profile_func(arg, id);
	snprintf(buf, room, "%s", f ? f->name : "?");
	return buf;
}

/* The value in column 0 of the list's row named `name`, or UINT64_MAX when it has none. */
static uint64_t row_value(const struct report_list *l, const char *name)
{
	for (size_t i = 0; i < l->nrows; i++)
		if (strcmp(l->names[i], name) == 0)
			return l->values[i * l->ncols];
	return UINT64_MAX;
}

/*
 * The function list of e.tickets: <Total> is `total`, the exclusive values
 * of the functions add up to it, main's (thread 1's stack) is `first`
 * and report_list_new's (thread 2's) the rest, its row absent when 0.
 */
static void check_list(struct profile *p, uint64_t total, uint64_t first)
{
	struct mspec spec;
	char err[256];
	CHECK(mspec_parse(p, "e.tickets:name", 0, &spec, err, sizeof err) == 0);
	struct report_list *l = NULL;
	CHECK(report_list_new(p, REPORT_FUNCTIONS, &spec, &spec.items[0], pc_name, p, &l) == 0);
	if (!l)
		return;
	CHECK(l->ncols >= 1 && l->nrows >= 2);
	CHECK_EQ_U64(l->values[0], total); /* <Total> */
	uint64_t sum = 0;
	for (size_t i = 1; i < l->nrows; i++)
		sum += l->values[i * l->ncols];
	CHECK_EQ_U64(sum, total);
	CHECK_EQ_U64(row_value(l, "main"), first);
	CHECK_EQ_U64(row_value(l, "report_list_new"), total > first ? total - first : UINT64_MAX);
	report_list_free(l);
}

int main(void)
{
	const char *build = getenv("PA_BUILD");
	char dir[] = "/tmp/pa-unit-newkind.XXXXXX";
	CHECK(build && mkdtemp(dir));
	if (!build)
		return check_done();
	ticket_table = exp_read_register(&ticket_reader);
	CHECK(ticket_table >= EXP_TABLE_BUILTIN && ticket_table < EXP_TABLE_MAX);
	CHECK(exp_read_register(&ticket_reader) == -EEXIST);
	char spath[4200], epath[4200];
	snprintf(spath, sizeof spath, "%s/script", dir);
	FILE *sf = fopen(spath, "w");
	char self[4096];
	ssize_t sn = readlink("/proc/self/exe", self, sizeof self - 1);
	CHECK(sn > 0);
	self[sn > 0 ? sn : 0] = '\0';
	CHECK(sf && fprintf(sf, script, self) > 0);
	if (sf)
		fclose(sf);
	CHECK(sh("'%s/tests/tools/mkexp' '%s/t.er' < '%s'", build, dir, spath) == 0);
	snprintf(epath, sizeof epath, "%s/t.er", dir);

	/* without its file the kind is absent: no rows, not present */
	struct experiment *x = NULL;
	char *err = NULL;
	CHECK(experiment_open(epath, &x, &err) == 0);
	free(err);
	if (!x)
		return check_done();
	CHECK(!experiment_table(x, ticket_table)->present);
	size_t ns;
	const struct exp_callstack *stacks = experiment_stacks(x, &ns);
	CHECK(ns >= 2 && stacks[0].nframes >= 1 && stacks[1].nframes >= 1);
	/*
	 * main's stack (thread 1's) and report_list_new's, told apart by their
	 * leaf's address: this program's two functions keep their order in the
	 * experiment's copy of its object, whatever the order of the stack ids.
	 */
	int lower = ns > 1 && stacks[1].pcs[0] < stacks[0].pcs[0];
	int mine = (uintptr_t)main < (uintptr_t)report_list_new ? lower : !lower;
	uint64_t id1 = stacks[mine].id, id2 = ns > 1 ? stacks[!mine].id : 0;
	experiment_free(x);
	CHECK(write_tickets(epath, id1, id2) == 0);

	struct profile *p;
	CHECK(profile_new(&p) == 0);
	CHECK(profile_metric_register(p, &ticket_source) == 0);
	CHECK(profile_add_experiment(p, epath, &err) == 0);
	free(err);
	CHECK(profile_compute(p) == 0);
	const struct experiment *px = profile_experiment(p, 0);
	CHECK(experiment_table(px, ticket_table)->present);
	CHECK_EQ_U64(experiment_table(px, ticket_table)->count, 7);
	long k = profile_metric_find(p, "tickets");
	CHECK(k >= 0);
	if (k >= 0)
		CHECK_EQ_U64(metrics_total(profile_metrics(p))[k], 16);

	/* the function list shows it as any metric: main has thread 1's 10 of 16 */
	check_list(p, 16, 10);

	uint64_t by_thread[4];
	report_tickets_by_thread(p, 0, by_thread, 4);
	CHECK_EQ_U64(by_thread[1], 10);
	CHECK_EQ_U64(by_thread[2], 6);

	/* a thread selection applies to the new metric and to its report */
	CHECK(profile_select_threads(p, "1", &err) == 0);
	free(err);
	CHECK(profile_compute(p) == 0);
	check_list(p, 10, 10);
	report_tickets_by_thread(p, 0, by_thread, 4);
	CHECK_EQ_U64(by_thread[1], 10);
	CHECK_EQ_U64(by_thread[2], 0);

	/* er_print, which knows nothing of tickets, lists them (its session over the same profile) */
	check_er_print(p);

	profile_free(p);
	CHECK(sh("rm -rf '%s'", dir) == 0);
	return check_done();
}
