/*
 * profile_ends.c - how the processes of a tree ended (profile_internal.h):
 * a descendant's exit from its parent's wait, and the CPU time a process
 * ran after its collector's end.
 *
 * The collector writes each thread's end (its CPU time) as the collection
 * ends; what the process runs after that (the exit handlers after ours, the
 * kernel's exit: a few tenths of a millisecond, a tenth of a process that
 * lives 3 ms) is in no thread's end.  It is known when the process's CPU
 * time is: collect's wait4 for the founder, its parent's wait (<reaped>)
 * for a descendant, each less what the children it reaped used.  A process
 * with a child reaped where no interposer saw it (inside libc: system,
 * pclose) is left as it is, and so is a remainder larger than an exit can
 * be (EXIT_MAX_NS plus EXIT_MAX_SHARE of the process), which such a child
 * would explain.  Before format 1.11 a thread's end did not count what ran
 * before the collector started: nothing is charged.
 */
#include "analysis/profile_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define EXIT_MAX_NS 10000000u /* 10 ms */
#define EXIT_MAX_SHARE 100u   /* + 1% of the process's CPU time */

/*
 * A descendant whose own log has no end (killed, or ended by a raw system
 * call): the wait status its parent reaped it with, from the founder's
 * processes.xml, when it is the last image of its pid.
 */
static void ending_from_parent(struct experiment *x, const struct experiment *f)
{
	struct exp_log *l = &x->log;
	if (l->has_exit || l->nexecs || !l->lineage)
		return;
	for (size_t i = 0; i < f->nprocs; i++) {
		const struct exp_process *pr = &f->procs[i];
		if (pr->end != EXP_PROC_END_REAPED || strcmp(pr->lineage, l->lineage) != 0)
			continue;
		l->has_exit = 1;
		l->exit_by_parent = 1;
		l->exit_ns = pr->end_tstamp_ns;
		if (WIFSIGNALED(pr->wait_status)) {
			l->exit_signal = WTERMSIG(pr->wait_status);
			l->core_dumped = WCOREDUMP(pr->wait_status) != 0;
		} else {
			l->exit_status = WEXITSTATUS(pr->wait_status);
		}
		return;
	}
}

/*
 * Process pid's own CPU time as others saw it, into *ret: 1, or 0 when not
 * known (no figure, a pid used twice, a child reaped unseen).
 */
static int own_cpu(const struct experiment *f, uint32_t pid, uint64_t *ret)
{
	uint64_t total = 0, children = 0;
	int found = 0;
	if (pid == f->log.pid) {
		if (!f->log.rusage.valid)
			return 0;
		total = f->log.rusage.utime_ns + f->log.rusage.stime_ns;
		found = 1;
	}
	for (size_t i = 0; i < f->nprocs; i++) {
		const struct exp_process *pr = &f->procs[i];
		if (pr->pid == pid && pr->end == EXP_PROC_END_REAPED && pid != f->log.pid) {
			if (found++)
				return 0; /* the pid was used twice */
			total = pr->cpu_ns;
		}
		if (pr->ppid == pid && pr->pid != pid) {
			if (pr->end != EXP_PROC_END_REAPED)
				return 0; /* a child not reaped, or reaped where no interposer saw it */
			children += pr->cpu_ns;
		}
	}
	if (!found || children > total)
		return 0;
	*ret = total - children;
	return 1;
}

/* The CPU time process pid's images' threads recorded to their ends, into *ret: 1, or 0 (a thread without one). */
static int recorded_cpu(const struct profile *p, size_t founder, uint32_t pid, uint64_t *ret,
			size_t *ret_last)
{
	uint64_t sum = 0, last_start = 0;
	int any = 0;
	for (size_t i = founder; i < p->exps.n && (i == founder || p->exps.v[i].founder == founder); i++) {
		const struct experiment *x = p->exps.v[i].exp;
		if (x->log.pid != pid)
			continue;
		for (size_t t = 0; t < x->nthreads; t++) {
			if (!x->threads[t].has_end)
				return 0;
			sum += x->threads[t].cpu_ns;
		}
		if (!any || x->log.start_ns >= last_start) {
			last_start = x->log.start_ns;
			*ret_last = i;
		}
		any = 1;
	}
	*ret = sum;
	return any;
}

/*
 * If experiment i is its process's last image: charge the process's CPU
 * time after its threads' ends to its "process exit" stack.  0 or -ENOMEM.
 */
static int exit_tail(struct profile *p, size_t founder, size_t i)
{
	const struct experiment *f = p->exps.v[founder].exp;
	struct experiment *x = p->exps.v[i].exp;
	uint64_t own, recorded;
	size_t last = i;
	/* threads' ends count from their origin (the exec) only from format 1.11 */
	if (!x->log.first_expiry || strcmp(x->log.first_expiry, "grid") != 0)
		return 0;
	if (!x->log.pid || !recorded_cpu(p, founder, x->log.pid, &recorded, &last) || last != i ||
	    !own_cpu(f, x->log.pid, &own) || own <= recorded)
		return 0;
	uint64_t tail = own - recorded;
	if (tail > EXIT_MAX_NS + own / EXIT_MAX_SHARE)
		return 0; /* more than an exit: a child no record names, say */
	if (x->exit_stack <= x->unknown_stack || x->exit_stack >= x->nstacks || !x->nthreads)
		return 0;
	uint32_t main_thread = 0;
	for (uint32_t t = 0; t < x->nthreads; t++)
		if (x->threads[t].creator_tid == 0) {
			main_thread = t;
			break;
		}
	uint64_t ts = x->log.exit_ns ? x->log.exit_ns : x->log.end_ns;
	size_t at = EXP_COUNT(x, CLOCK); /* events are sorted by time: the exit goes after those before it */
	while (at && EXP_ROWS(x, CLOCK)[at - 1].ts_ns > ts)
		at--;
	struct exp_event *v = realloc(EXP_ROWS(x, CLOCK), (EXP_COUNT(x, CLOCK) + 1) * sizeof *v);
	if (!v)
		return -ENOMEM;
	memmove(v + at + 1, v + at, (EXP_COUNT(x, CLOCK) - at) * sizeof *v);
	/* the kernel's exit and what ran after the collector: system time, mostly */
	v[at] = (struct exp_event){.ts_ns = ts,
				   .weight_ns = tail,
				   .thread = main_thread,
				   .stack = x->exit_stack,
				   .kind = EXP_EV_TAIL};
	x->tables[EXP_TABLE_CLOCK].rows = v;
	x->tables[EXP_TABLE_CLOCK].stride = sizeof *v;
	EXP_COUNT(x, CLOCK)++;
	p->dirty = 1;
	return 0;
}

int profile_process_ends(struct profile *p, size_t founder)
{
	struct experiment *f = p->exps.v[founder].exp;
	for (size_t i = founder + 1; i < p->exps.n; i++)
		ending_from_parent(p->exps.v[i].exp, f);
	for (size_t i = founder; i < p->exps.n && (i == founder || p->exps.v[i].founder == founder); i++)
		if (exit_tail(p, founder, i) < 0)
			return -ENOMEM;
	return 0;
}
