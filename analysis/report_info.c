/*
 * report_info.c - the information reports' model (see report_info.h).
 */
#include "analysis/report_info.h"
#include "analysis/experiment_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"
#include "common/vec.h"

uint64_t report_rel_ns(const struct experiment *x, uint64_t t)
{
	return t > x->log.start_ns ? t - x->log.start_ns : 0;
}

uint64_t report_recorded_ns(const struct experiment *x)
{
	uint64_t t = 0;
	for (size_t i = 0; i < EXP_COUNT(x, CLOCK); i++)
		t += EXP_ROWS(x, CLOCK)[i].weight_ns;
	return t;
}

void report_ending_of(const struct experiment *x, struct report_ending *ret)
{
	const struct exp_log *l = &x->log;
	*ret = (struct report_ending){0};
	if (l->has_exit && l->exit_signal)
		*ret = (struct report_ending){REPORT_END_SIGNAL, l->exit_signal, l->exit_signame};
	else if (l->has_exit)
		*ret = (struct report_ending){REPORT_END_EXIT, l->exit_status, NULL};
	else if (l->nexecs)
		*ret = (struct report_ending){REPORT_END_EXEC, 0, l->exec_paths[l->nexecs - 1]};
	else if (l->ended_unseen)
		ret->kind = REPORT_END_UNSEEN;
	else if (l->complete)
		ret->kind = REPORT_END_ENDED;
	else
		ret->kind = REPORT_END_UNFINISHED;
}

void report_header_warnings(const struct experiment *x, struct report_header_warnings *ret)
{
	const struct exp_log *l = &x->log;
	ret->unprofiled = 0;
	for (size_t i = 0; i < x->nprocs; i++)
		ret->unprofiled += !x->procs[i].followed || x->procs[i].end == EXP_PROC_END_RUNNING;
	ret->exec_lost = l->nexecs && (!l->follow || strcmp(l->follow, "off") == 0);
	ret->none = x->nwarnings == 0 && x->nproblems == 0 && !ret->exec_lost && ret->unprofiled == 0;
}

/* The loaded experiment of founder f whose lineage is `lineage`, or -1. */
static long exp_of_lineage(const struct profile *p, size_t f, const char *lineage)
{
	for (size_t j = f; j < profile_experiment_count(p); j++) {
		const struct experiment *y = profile_experiment(p, j);
		if (profile_experiment_founder(p, j) == f &&
		    strcmp(y->log.lineage ? y->log.lineage : "", lineage) == 0)
			return (long)j;
	}
	return -1;
}

static int cmp_proc_time(const void *a, const void *b)
{
	const struct exp_process *x = *(const struct exp_process *const *)a,
				 *y = *(const struct exp_process *const *)b;
	if (x->tstamp_ns != y->tstamp_ns)
		return x->tstamp_ns < y->tstamp_ns ? -1 : 1;
	return x < y ? -1 : x > y; /* as listed */
}

struct tree {
	const struct profile *p;
	size_t xi;
	const struct exp_process **v; /* by start time */
	size_t n;
	VEC(struct report_process) out;
	int nomem;
};

/* The processes whose parent is `parent` (by lineage), each followed by theirs, at depth d. */
static void tree_level(struct tree *t, const char *parent, size_t d)
{
	char up[512];
	for (size_t i = 0; i < t->n; i++) {
		const struct exp_process *pr = t->v[i];
		experiment_parent_lineage(pr->lineage, up, sizeof up);
		if (strcmp(up, parent) != 0 || d > 64 || t->nomem)
			continue;
		long j = pr->followed ? exp_of_lineage(t->p, t->xi, pr->lineage) : -1;
		if (VEC_PUSH(&t->out, ((struct report_process){pr, d, j})) < 0)
			t->nomem = 1;
		if (strchr(pr->lineage, '?') == NULL)
			tree_level(t, pr->lineage, d + 1);
	}
}

ssize_t report_process_tree(const struct profile *p, size_t xi, struct report_process **ret)
{
	const struct experiment *x = profile_experiment(p, xi);
	*ret = NULL;
	if (!x || !x->nprocs)
		return 0;
	struct tree t = {.p = p, .xi = xi, .n = x->nprocs};
	t.v = calloc(x->nprocs, sizeof *t.v);
	if (!t.v)
		return -ENOMEM;
	for (size_t i = 0; i < x->nprocs; i++)
		t.v[i] = &x->procs[i];
	qsort(t.v, t.n, sizeof *t.v, cmp_proc_time);
	tree_level(&t, "", 1);
	free(t.v);
	if (t.nomem || !t.out.n) {
		free(t.out.v);
		return t.nomem ? -ENOMEM : 0;
	}
	*ret = t.out.v;
	return (ssize_t)t.out.n;
}

int report_experiments_are_tree(const struct profile *p)
{
	for (size_t i = 0; i < profile_experiment_count(p); i++) {
		const struct experiment *x = profile_experiment(p, i);
		if (x->log.lineage != NULL || x->nprocs != 0)
			return 1;
	}
	return 0;
}

char *report_thread_selection(const struct profile *p, size_t xi)
{
	const struct experiment *x = profile_experiment(p, xi);
	struct strbuf b;
	strbuf_init(&b, 0);
	size_t nsel = 0, nt = x ? x->nthreads : 0;
	for (size_t t = 0; t < nt; t++)
		nsel += profile_thread_selected(p, xi, t) != 0;
	if (nt == 0)
		strbuf_adds(&b, strcmp(profile_thread_selection(p), "all") == 0 ? "all" : "none");
	else if (nsel == nt)
		strbuf_adds(&b, "all");
	else if (nsel == 0)
		strbuf_adds(&b, "none");
	for (size_t t = 0, first = 1; nt && nsel && nsel < nt && t < nt;) {
		if (!profile_thread_selected(p, xi, t)) {
			t++;
			continue;
		}
		size_t u = t;
		while (u + 1 < nt && profile_thread_selected(p, xi, u + 1))
			u++;
		strbuf_addf(&b, "%s%" PRIu32, first ? "" : ",", x->threads[t].number);
		if (u > t)
			strbuf_addf(&b, "-%" PRIu32, x->threads[u].number);
		first = 0;
		t = u + 1;
	}
	return strbuf_detach(&b);
}

ssize_t report_threads(struct profile *p, size_t xi, struct report_thread **ret)
{
	const struct experiment *x = profile_experiment(p, xi);
	*ret = NULL;
	if (!x || !x->nthreads)
		return 0;
	struct report_thread *v = calloc(x->nthreads, sizeof *v);
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < x->nthreads; i++) {
		const struct exp_thread *th = &x->threads[i];
		struct report_thread *r = &v[i];
		const struct pfunc *f;
		r->t = th;
		r->selected = profile_thread_selected(p, xi, i);
		r->start_ns = report_rel_ns(x, th->start_ns);
		r->end_ns = report_rel_ns(x, th->end_ns);
		r->cpu_sampled = !th->has_end;
		r->cpu_ns = th->has_end ? th->cpu_ns : th->sampled_ns;
		r->has_wait = th->has_wait && th->has_end && th->has_start && th->end_ns >= th->start_ns;
		if (r->has_wait) {
			uint64_t life = th->end_ns - th->start_ns, busy = th->cpu_ns + th->wait_ns;
			r->wait_ns = th->wait_ns;
			r->sleep_ns = life > busy ? life - busy : 0;
		}
		if (!th->has_start)
			r->routine = REPORT_ROUTINE_UNKNOWN;
		else if (th->creator_tid == 0 && th->start_pc == 0)
			r->routine = REPORT_ROUTINE_MAIN;
		else if ((f = profile_func_at(p, xi, th->start_pc, th->start_ns)) &&
			 (f->kind == PFUNC_SYMBOL || f->kind == PFUNC_SYNTH)) {
			r->routine = REPORT_ROUTINE_FUNC;
			r->func = f;
		} else {
			r->routine = REPORT_ROUTINE_ADDRESS;
		}
	}
	*ret = v;
	return (ssize_t)x->nthreads;
}
