/*
 * report_stats.c - the statistics report's model (see report_stats.h).
 */
#include "analysis/report_stats.h"

#include <stdio.h>
#include <string.h>

#include "analysis/experiment_internal.h"

/* Thread lifetimes; a missing start or end is the experiment's. */
static uint64_t thread_time(const struct experiment *x)
{
	const struct exp_log *l = &x->log;
	if (x->nthreads == 0)
		return x->duration_ns;
	uint64_t t0 = l->start_ns, t1 = l->start_ns + x->duration_ns, sum = 0;
	for (size_t i = 0; i < x->nthreads; i++) {
		const struct exp_thread *th = &x->threads[i];
		uint64_t a = th->has_start ? th->start_ns : t0, b = th->has_end ? th->end_ns : t1;
		if (b > a)
			sum += b - a;
	}
	return sum;
}

static void usage_from_rusage(struct report_stats *s, const struct exp_rusage *r)
{
	s->usage = REPORT_USAGE_RUSAGE;
	s->user_ns = r->utime_ns;
	s->sys_ns = r->stime_ns;
	s->minflt = r->minflt;
	s->majflt = r->majflt;
	s->inblock = r->inblock;
	s->oublock = r->oublock;
	s->nvcsw = r->nvcsw;
	s->nivcsw = r->nivcsw;
}

/* The usage from last, less b's (the usage the process started with). */
static void usage_from_samples(struct report_stats *s, const struct exp_sample_point *last,
			       const struct exp_sample_point *b)
{
	s->user_ns = last->utime_ns - b->utime_ns;
	s->sys_ns = last->stime_ns - b->stime_ns;
	s->minflt = last->minflt - b->minflt;
	s->majflt = last->majflt - b->majflt;
	s->inblock = last->inblock - b->inblock;
	s->oublock = last->oublock - b->oublock;
	s->nvcsw = last->nvcsw - b->nvcsw;
	s->nivcsw = last->nivcsw - b->nivcsw;
}

/*
 * Process times and counters.  The founder's resource usage (wait4)
 * includes its descendants; with their own experiments loaded, each process
 * shows only its own, from the collector's samples, so that the sum counts
 * each once.  An exec'd image starts with the usage of the images before
 * it: only the difference is its.
 */
static void usage_of(const struct profile *p, size_t xi, const struct experiment *x, struct report_stats *s)
{
	const struct exp_log *l = &x->log;
	const struct exp_sample_point *last = NULL, *first = NULL;
	for (size_t i = 0; i < EXP_COUNT(x, SAMPLES); i++) {
		if (!last || EXP_ROWS(x, SAMPLES)[i].ts_ns >= last->ts_ns)
			last = &EXP_ROWS(x, SAMPLES)[i];
		if (!first || EXP_ROWS(x, SAMPLES)[i].ts_ns < first->ts_ns)
			first = &EXP_ROWS(x, SAMPLES)[i];
	}
	int descendants = 0;
	for (size_t j = 0; j < profile_experiment_count(p); j++)
		descendants |= j != xi && profile_experiment_founder(p, j) == xi;
	int delta = (l->origin && strcmp(l->origin, "exec") == 0) || (descendants && last);
	if (last) {
		s->nswap = last->nswap;
		s->msgsnd = last->msgsnd;
		s->msgrcv = last->msgrcv;
		s->nsignals = last->nsignals;
	}
	/*
	 * The overview samples' nsignals is getrusage's ru_nsignals, which Linux
	 * never counts (always 0); the collector's own count of the sampling
	 * signals it handled (<collector_end signals>) is the real figure.
	 */
	if (l->signals)
		s->nsignals = l->signals;
	if (l->rusage.valid && !(descendants && last)) {
		usage_from_rusage(s, &l->rusage);
	} else if (last) {
		const struct exp_sample_point z = {0}, *b = delta && first != last ? first : &z;
		s->usage = descendants ? REPORT_USAGE_OWN : REPORT_USAGE_SAMPLE;
		usage_from_samples(s, last, b);
	}
}

/* What clock profiling recorded, of the selected threads. */
static void recorded_of(const struct profile *p, size_t xi, const struct experiment *x,
			struct report_stats *s)
{
	const struct exp_log *l = &x->log;
	uint64_t clock_events = 0;
	for (size_t i = 0; i < EXP_COUNT(x, CLOCK); i++) {
		const struct exp_event *ev = &EXP_ROWS(x, CLOCK)[i];
		if (ev->kind == EXP_EV_CLOCK)
			clock_events++;
		if (profile_event_selected(p, xi, ev->thread, ev->cpu, ev->ts_ns))
			s->cpu_recorded_ns += ev->weight_ns;
	}
	for (size_t i = 0; i < EXP_COUNT(x, SYNC); i++)
		if (profile_event_selected(p, xi, EXP_ROWS(x, SYNC)[i].thread, PROFILE_NO_CPU,
					   EXP_ROWS(x, SYNC)[i].ts_ns))
			s->lock_ns += EXP_ROWS(x, SYNC)[i].wait_ns;
	/* a thread's wait is its whole life's: not for a sample, time or CPU selection, nor a filter */
	uint64_t t0, t1;
	int windowed = s->by_samples || profile_time_selection(p, &t0, &t1) || profile_filter(p) ||
		       strcmp(profile_cpu_selection(p), "all") != 0;
	for (size_t t = 0; !windowed && t < x->nthreads; t++)
		if (x->threads[t].has_wait && profile_thread_selected(p, xi, t)) {
			s->wait_ns += x->threads[t].wait_ns;
			s->has_wait = 1;
		}
	s->samples_recorded = l->samples_recorded;
	s->samples_dropped = l->samples_dropped;
	if (!l->samples_recorded && !l->samples_dropped && clock_events) {
		s->samples_recorded = clock_events;
		s->samples_counted = 1;
	}
}

/* Never CPU time next to nothing recorded without a word. */
static void note_of(const struct profile *p, size_t xi, const struct experiment *x, struct report_stats *s)
{
	const struct exp_log *l = &x->log;
	uint64_t cpu = s->user_ns + s->sys_ns;
	if (cpu < 50000000u || s->cpu_recorded_ns * 2 >= cpu)
		return;
	size_t unprofiled = 0;
	for (size_t i = 0; i < x->nprocs; i++)
		unprofiled += !x->procs[i].followed;
	if (!l->pid && l->has_exit)
		snprintf(s->note, sizeof s->note,
			 "the collector never ran in this process (see the header's warnings): no CPU "
			 "time could be recorded");
	else if (s->usage == REPORT_USAGE_RUSAGE && unprofiled)
		snprintf(s->note, sizeof s->note,
			 "the process times include %zu descendant process%s that ran unprofiled (see "
			 "the header)",
			 unprofiled, unprofiled == 1 ? "" : "es");
	else if (s->usage == REPORT_USAGE_RUSAGE && x->nprocs)
		snprintf(s->note, sizeof s->note,
			 "the process times include the descendant processes, recorded in "
			 "subexperiments not loaded here");
	else if (profile_experiment_selected(p, xi))
		snprintf(s->note, sizeof s->note, "clock profiling recorded %.0f%% of the process times",
			 100.0 * (double)s->cpu_recorded_ns / (double)cpu);
}

/* A point's label for Start/End Label: its own, else what it marks. */
static void point_label(char *dst, size_t room, const struct exp_sample_point *pt)
{
	static const char *const names[] = {
		"collector_open_experiment", "periodic", "signal", "API", "pause", "resume",
		"collector_close_experiment"};
	snprintf(dst, room, "%s",
		 !pt                                    ? "End"
		 : pt->label[0]                         ? pt->label
		 : pt->reason < EXP_SAMPLE_REASON_LIMIT ? names[pt->reason]
							: "?");
}

/* The rusage delta of sample sm into s (added). */
static void add_sample_usage(struct report_stats *s, const struct profile_sample *sm)
{
	if (!sm->end)
		return; /* no point closes it: no usage known */
	const struct exp_sample_point *a = sm->start, *b = sm->end;
	s->user_ns += b->utime_ns - a->utime_ns;
	s->sys_ns += b->stime_ns - a->stime_ns;
	s->minflt += b->minflt - a->minflt;
	s->majflt += b->majflt - a->majflt;
	s->nswap += b->nswap - a->nswap;
	s->inblock += b->inblock - a->inblock;
	s->oublock += b->oublock - a->oublock;
	s->msgsnd += b->msgsnd - a->msgsnd;
	s->msgrcv += b->msgrcv - a->msgrcv;
	s->nvcsw += b->nvcsw - a->nvcsw;
	s->nivcsw += b->nivcsw - a->nivcsw;
}

/* The threads' lifetimes inside [t0, t1) (relative ns). */
static uint64_t thread_time_in(const struct experiment *x, uint64_t t0, uint64_t t1)
{
	uint64_t base = x->log.start_ns, sum = 0;
	if (x->nthreads == 0)
		return t1 - t0;
	for (size_t i = 0; i < x->nthreads; i++) {
		const struct exp_thread *th = &x->threads[i];
		uint64_t a = th->has_start && th->start_ns > base ? th->start_ns - base : 0;
		uint64_t b = th->has_end && th->end_ns > base ? th->end_ns - base : x->duration_ns;
		a = a > t0 ? a : t0;
		b = b < t1 ? b : t1;
		if (b > a)
			sum += b - a;
	}
	return sum;
}

/* sample_select: the figures of the selected samples only (see report_stats.h). */
static void by_samples_of(const struct profile *p, size_t xi, const struct experiment *x,
			  struct report_stats *s)
{
	s->by_samples = 1;
	s->usage = REPORT_USAGE_OWN;
	s->duration_ns = s->thread_ns = s->user_ns = s->sys_ns = 0;
	s->minflt = s->majflt = s->nswap = s->inblock = s->oublock = 0;
	s->msgsnd = s->msgrcv = s->nvcsw = s->nivcsw = 0;
	int first = 1;
	size_t n = profile_sample_count(p, xi);
	for (size_t k = 1; k <= n; k++) {
		struct profile_sample sm;
		if (!profile_sample_selected(p, xi, k) || profile_sample_get(p, xi, k, &sm) < 0)
			continue;
		if (first) {
			s->start_ns = sm.t0_ns;
			point_label(s->start_label, sizeof s->start_label, sm.start);
		}
		first = 0;
		s->end_ns = sm.t1_ns;
		point_label(s->end_label, sizeof s->end_label, sm.end);
		s->duration_ns += sm.t1_ns - sm.t0_ns;
		s->thread_ns += thread_time_in(x, sm.t0_ns, sm.t1_ns);
		add_sample_usage(s, &sm);
	}
	if (first) { /* none selected */
		snprintf(s->start_label, sizeof s->start_label, "(none)");
		snprintf(s->end_label, sizeof s->end_label, "(none)");
	}
}

void report_stats_of(const struct profile *p, size_t xi, struct report_stats *s)
{
	const struct experiment *x = profile_experiment(p, xi);
	memset(s, 0, sizeof *s);
	s->duration_ns = x->duration_ns;
	s->end_ns = x->duration_ns;
	strcpy(s->start_label, "Total");
	strcpy(s->end_label, "Total");
	s->finished = x->log.has_exit;
	s->thread_ns = thread_time(x);
	usage_of(p, xi, x, s);
	if (strcmp(profile_sample_selection(p), "all") != 0)
		by_samples_of(p, xi, x, s);
	recorded_of(p, xi, x, s);
	note_of(p, xi, x, s);
}

void report_stats_add(struct report_stats *sum, const struct report_stats *s)
{
	if (s->duration_ns > sum->duration_ns)
		sum->duration_ns = s->duration_ns;
	if (!sum->start_label[0]) { /* sum starts zeroed: the first experiment's start */
		memcpy(sum->start_label, s->start_label, sizeof sum->start_label);
		sum->start_ns = s->start_ns;
	}
	memcpy(sum->end_label, s->end_label, sizeof sum->end_label);
	sum->end_ns = s->end_ns > sum->end_ns ? s->end_ns : sum->end_ns;
	sum->by_samples |= s->by_samples;
	sum->thread_ns += s->thread_ns;
	sum->user_ns += s->user_ns;
	sum->sys_ns += s->sys_ns;
	sum->minflt += s->minflt;
	sum->majflt += s->majflt;
	sum->nswap += s->nswap;
	sum->inblock += s->inblock;
	sum->oublock += s->oublock;
	sum->msgsnd += s->msgsnd;
	sum->msgrcv += s->msgrcv;
	sum->nsignals += s->nsignals;
	sum->nvcsw += s->nvcsw;
	sum->nivcsw += s->nivcsw;
	sum->cpu_recorded_ns += s->cpu_recorded_ns;
	sum->lock_ns += s->lock_ns;
	sum->wait_ns += s->wait_ns;
	sum->has_wait |= s->has_wait;
	sum->samples_recorded += s->samples_recorded;
	sum->samples_dropped += s->samples_dropped;
	sum->samples_counted |= s->samples_counted;
}

uint64_t report_stats_sleep_ns(const struct report_stats *s)
{
	uint64_t busy = s->user_ns + s->sys_ns + s->lock_ns + s->wait_ns;
	return s->thread_ns > busy ? s->thread_ns - busy : 0;
}

size_t report_stats_counts(const struct report_stats *s, const char **labels, uint64_t *vals)
{
	static const char *const names[] = {"Minor Page Faults",
					    "Major Page Faults",
					    "Process swaps",
					    "Input blocks",
					    "Output blocks",
					    "Messages sent",
					    "Messages received",
					    "Signals handled",
					    "Voluntary context switches",
					    "Involuntary context switches",
					    "System calls",
					    "Characters of I/O"};
	const uint64_t v[] = {s->minflt, s->majflt,   s->nswap, s->inblock, s->oublock, s->msgsnd,
			      s->msgrcv, s->nsignals, s->nvcsw, s->nivcsw,  0,          0};
	size_t n = sizeof names / sizeof names[0];
	for (size_t i = 0; i < n; i++) {
		labels[i] = names[i];
		vals[i] = v[i];
	}
	return n;
}
