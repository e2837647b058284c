/*
 * show_info.c - er_print's information reports: header (what was run, on
 * what, and how it ended), statistics (process times and resource usage),
 * experiment_list and thread_list, in gprofng's `display text` layouts.
 *
 * Everything here copes with an experiment that did not finish: a missing
 * exit, rusage, end, thread end or sample is printed as what is known plus a
 * word about what is missing, never as garbage.  Times are relative to the
 * experiment's <start>.  Output goes to e->out only.  What the reports say
 * (endings, the process tree, warnings, threads, statistics) comes from
 * analysis/report_info.h and report_stats.h; this file lays it out.
 */
#include "er_print/erp.h"
#include "er_print/textout.h"

#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "analysis/experiment.h"
#include "analysis/metrics.h"
#include "analysis/profile.h"
#include "analysis/report_info.h"
#include "analysis/report_stats.h"
#include "common/strbuf.h"
#include "experiment/format.h"

#define LABEL_WIDTH 50 /* gprofng's max_len1 for statistics labels */

/* ------------------------------------------------------------ helpers */

/*
 * The experiments an `exp_id` argument names: none/"all" = every one, else a
 * number 1..N.  Returns 0 with [*lo, *hi), or -1 after an error message.
 */
int show_exp_range(struct erp *e, const char *cmd, const char *arg, size_t *lo, size_t *hi)
{
	size_t n = profile_experiment_count(e->prof);
	if (n == 0) {
		erp_error(e, "%s: no experiment loaded", cmd);
		return -1;
	}
	while (arg && (*arg == ' ' || *arg == '\t'))
		arg++;
	if (!arg || !*arg || strcmp(arg, "all") == 0) {
		*lo = 0;
		*hi = n;
		return 0;
	}
	char *end;
	unsigned long long k = strtoull(arg, &end, 10);
	while (*end == ' ' || *end == '\t')
		end++;
	if (end == arg || *end || arg[0] == '-' || k < 1 || k > n) {
		erp_error(e,
			  "%s: no experiment '%s' (experiments are numbered 1 to %zu; see experiment_list)",
			  cmd, arg, n);
		return -1;
	}
	*lo = (size_t)k - 1;
	*hi = (size_t)k;
	return 0;
}

static double sec(uint64_t ns)
{
	return (double)ns / 1e9;
}

static const char *str_or(const char *s, const char *dflt)
{
	return s && *s ? s : dflt;
}

static int count_digits(uint64_t v)
{
	int n = 1;
	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

/* n '=' signs then a space: one column's underline. */
static void put_rule(FILE *o, int n)
{
	for (int i = 0; i < n; i++)
		fputc('=', o);
	fputc(' ', o);
}

/* Print free text (notes) line by line, each ending in a newline; tabs are its layout. */
static void print_lines(FILE *o, const char *text)
{
	while (*text) {
		const char *nl = strchr(text, '\n');
		size_t n = nl ? (size_t)(nl - text) : strlen(text);
		textout_write(o, text, n, TEXTOUT_KEEP_TAB);
		fputc('\n', o);
		text += n + (nl != NULL);
	}
}

/* ------------------------------------------------------------ header */

/* How experiment y's process (image) ended, in a few words. */
static void ending_of(const struct experiment *y, char *buf, size_t room)
{
	struct report_ending end;
	report_ending_of(y, &end);
	switch (end.kind) {
	case REPORT_END_SIGNAL:
		snprintf(buf, room, "killed by signal %d%s%s", end.code, end.name ? " " : "",
			 end.name ? end.name : "");
		break;
	case REPORT_END_EXIT:
		snprintf(buf, room, "exit %d%s", end.code,
			 experiment_log(y)->exit_by_parent ? " (seen by its parent)" : "");
		break;
	case REPORT_END_EXEC: snprintf(buf, room, "exec %s", end.name); break;
	case REPORT_END_UNSEEN: snprintf(buf, room, "ended unseen (killed, crashed or a raw exit)"); break;
	case REPORT_END_ENDED: snprintf(buf, room, "ended"); break;
	case REPORT_END_UNFINISHED: snprintf(buf, room, "did not finish"); break;
	}
}

/* How process pr ended as its parent or collect saw it, for a warning ("" when not known). */
static void seen_end(const struct exp_process *pr, char *buf, size_t room)
{
	buf[0] = '\0';
	if (pr->end == EXP_PROC_END_REAPED && WIFSIGNALED(pr->wait_status))
		snprintf(buf, room, " (%.3f s of CPU; killed by signal %d, as its parent's wait saw it)",
			 sec(pr->cpu_ns), WTERMSIG(pr->wait_status));
	else if (pr->end == EXP_PROC_END_REAPED)
		snprintf(buf, room, " (%.3f s of CPU; exit %d, as its parent's wait saw it)", sec(pr->cpu_ns),
			 WEXITSTATUS(pr->wait_status));
	else if (pr->end == EXP_PROC_END_RUNNING)
		snprintf(buf, room, " (still running when the target ended, %.3f s of CPU by then)",
			 sec(pr->cpu_ns));
}

/* One process of the tree, indented by generation. */
static void tree_line(struct erp *e, const struct report_process *rp)
{
	FILE *o = e->out;
	const struct exp_process *pr = rp->proc;
	char name[300], end[PATH_MAX + 64];
	int d = (int)rp->depth;
	snprintf(name, sizeof name, "%s%s", pr->lineage, rp->exp >= 0 ? ".er" : "");
	textout_printf(o, "%*s%-*s pid %-7" PRIu32 " ", 2 + 2 * d, "", 24 - 2 * d > 1 ? 24 - 2 * d : 1, name,
		       pr->pid);
	if (rp->exp >= 0) {
		const struct experiment *y = profile_experiment(e->prof, (size_t)rp->exp);
		ending_of(y, end, sizeof end);
		textout_printf(o, "%.3f s  %s", sec(report_recorded_ns(y)), end);
	} else if (pr->followed) {
		textout_printf(o, "(its subexperiment was not read)");
	} else {
		char seen[160];
		seen_end(pr, seen, sizeof seen);
		textout_printf(o, "not profiled%s: %s", seen, pr->reason ? pr->reason : "unknown reason");
	}
	textout_printf(o, "  %s '%s'\n", pr->origin, pr->command[0] ? pr->command : pr->path);
}

/*
 * The founder's process tree, from processes.xml: one line per process,
 * indented by generation (children in the order they started), with its
 * subexperiment, how it ended and the CPU time recorded for it, its origin
 * and command.
 */
static void process_tree(struct erp *e, size_t xi, const struct experiment *x)
{
	FILE *o = e->out;
	struct report_process *v;
	ssize_t n = report_process_tree(e->prof, xi, &v);
	if (n < 0)
		return;
	size_t followed = 0, nprocs;
	const struct exp_process *procs = experiment_processes(x, &nprocs);
	for (size_t i = 0; i < nprocs; i++)
		followed += procs[i].followed != 0;
	textout_printf(
		o, "Process tree: the founder and %zu descendant process%s, %zu recorded in subexperiments\n",
		nprocs, nprocs == 1 ? "" : "es", followed);
	char end[PATH_MAX + 64];
	ending_of(x, end, sizeof end);
	textout_printf(o, "  %-24s pid %-7" PRIu32 " %.3f s  %s  founder '", experiment_name(x),
		       experiment_log(x)->pid, sec(report_recorded_ns(x)), end);
	for (size_t i = 0; i < experiment_log(x)->argc; i++)
		textout_printf(o, "%s%s", i ? " " : "", experiment_log(x)->argv[i]);
	textout_printf(o, "'\n");
	for (ssize_t i = 0; i < n; i++)
		tree_line(e, &v[i]);
	free(v);
}

/* The warning about a process of the tree that was not recorded, or went on running. */
static void process_warning(FILE *o, const struct exp_process *pr)
{
	char end[160];
	seen_end(pr, end, sizeof end);
	if (!pr->followed)
		textout_printf(o, "*** Warning: process %" PRIu32 " (%s) ran unprofiled%s: %s\n", pr->pid,
			       pr->path, end, pr->reason ? pr->reason : "unknown reason");
	else if (pr->end == EXP_PROC_END_RUNNING)
		textout_printf(o,
			       "*** Warning: process %" PRIu32
			       " (%s) was still running when the target ended, %.3f s of "
			       "CPU by then; %s.er holds what it recorded\n",
			       pr->pid, pr->path, sec(pr->cpu_ns), pr->lineage);
}

/* Notes, collector errors, and every warning. */
static void header_messages(FILE *o, const struct experiment *x)
{
	const struct exp_log *l = experiment_log(x);
	struct exp_header h;
	experiment_header(x, &h);
	size_t nprocs;
	const struct exp_process *procs = experiment_processes(x, &nprocs);
	/* Notes first, as gprofng prints them; log.xml's copy if the file is gone. */
	if (h.notes && *h.notes)
		print_lines(o, h.notes);
	else
		for (size_t i = 0; i < l->ncomments; i++)
			print_lines(o, str_or(l->comments[i], ""));
	if (h.nerrors == 0)
		textout_printf(o, "No errors\n");
	for (size_t i = 0; i < h.nerrors; i++)
		textout_printf(o, "*** Collector Error: %s\n", h.errors[i]);
	struct report_header_warnings w;
	report_header_warnings(x, &w);
	if (w.none)
		textout_printf(o, "No warnings\n");
	for (size_t i = 0; i < h.nwarnings; i++)
		textout_printf(o, "*** Collector Warning: %s\n", h.warnings[i]);
	for (size_t i = 0; w.exec_lost && i < l->nexecs; i++)
		textout_printf(o,
			       "*** Warning: the target exec'd %s; what ran after the exec was not profiled "
			       "(descendants were not followed)\n",
			       l->exec_paths[i]);
	for (size_t i = 0; i < nprocs; i++)
		process_warning(o, &procs[i]);
	for (size_t i = 0; i < h.nproblems; i++)
		textout_printf(o, "*** Warning: %s\n", h.problems[i]);
	textout_printf(o, "\n");
}

/* What ran, as which process, where, with which collector. */
static void header_target(FILE *o, const struct experiment *x)
{
	struct exp_header h;
	experiment_header(x, &h);
	const struct exp_log *l = experiment_log(x);
	unsigned bits = l->wordsize ? l->wordsize : 64;
	textout_printf(o, "Target command (%u-bit): ", bits);
	if (l->argc) {
		textout_printf(o, "'");
		for (size_t i = 0; i < l->argc; i++)
			textout_printf(o, "%s%s", i ? " " : "", l->argv[i]);
		textout_printf(o, "'\n");
	} else if (l->target_path && *l->target_path) {
		textout_printf(o, "'%s'\n", l->target_path);
	} else {
		textout_printf(o, "(not recorded)\n");
	}
	if (l->pid)
		textout_printf(o, "Process pid %" PRIu32 ", ppid %" PRIu32 "\n", l->pid, l->ppid);
	else
		textout_printf(
			o, "Process pid unknown (the collector did not report its start in the target)\n");
	textout_printf(o, "Current working directory: %s\n", str_or(l->cwd, "(not recorded)"));
	if (h.format_major || h.format_minor)
		textout_printf(o, "Collector version: `%s'; experiment version %u.%u (%u-bit)\n",
			       str_or(l->collector_version, "unknown"), h.format_major, h.format_minor, bits);
	else
		textout_printf(
			o,
			"Collector version: `%s'; experiment version unknown (no data file read) (%u-bit)\n",
			str_or(l->collector_version, "unknown"), bits);
}

/* The machine. */
static void header_host(FILE *o, const struct exp_log *l)
{
	if (!l->host && !l->os) {
		textout_printf(o, "Host: not recorded\n");
		return;
	}
	textout_printf(o, "Host `%s', OS `%s%s%s', page size %" PRIu64 ", architecture `%s'\n",
		       str_or(l->host, "unknown"), str_or(l->os, "unknown"),
		       l->release && *l->release ? " " : "", str_or(l->release, ""), l->pagesize,
		       str_or(l->arch, "unknown"));
	textout_printf(o, "  %" PRIu32 " CPUs, clock speed %" PRIu32 " MHz.\n", l->cpus, l->clock_mhz);
	if (l->pages && l->pagesize)
		textout_printf(o, "  Memory: %" PRIu64 " pages @ %5" PRIu64 " = %" PRIu64 " MB.\n", l->pages,
			       l->pagesize,
			       (uint64_t)((double)l->pages * (double)l->pagesize / (1024.0 * 1024.0)));
}

/* The counters of collect -h: each with its interval; what was lost. */
static void header_counters(FILE *o, const struct experiment *x)
{
	struct exp_header h;
	experiment_header(x, &h);
	const struct exp_log *l = experiment_log(x);
	if (!h.has_hwc)
		return;
	textout_printf(o, "  Counter overflow profiling (perf_event_open):");
	for (size_t k = 0; k < l->nhwc; k++)
		textout_printf(o, "%s %s, interval = %" PRIu64 " %s", k ? ";" : "", l->hwc[k].name,
			       l->hwc[k].interval, l->hwc[k].time_ns ? "ns" : "events");
	textout_printf(o, "\n");
	if (l->hwc_lost || l->hwc_open_failures)
		textout_printf(o,
			       "  (%" PRIu64 " counter overflow(s) recorded, %" PRIu64
			       " not recorded; %" PRIu64 " thread counter(s) could not be opened)\n",
			       l->hwc_overflows, l->hwc_lost, l->hwc_open_failures);
}

/*
 * Which of the clock-profiling times (Oracle's User CPU, System CPU, Wait
 * CPU, Sleep) experiment x measured, and how far they are attributed.
 */
static void header_cpu_times(FILE *o, const struct experiment *x)
{
	struct exp_header h;
	experiment_header(x, &h);
	size_t waited = 0;
	for (size_t t = 0; t < experiment_thread_count(x); t++)
		waited += experiment_thread(x, t)->has_wait;
	if (h.has_cpu_split)
		textout_printf(o, "  User CPU, System CPU: measured per sample (each thread's user time from "
				  "getrusage; metrics user, system)\n");
	else
		textout_printf(
			o, "  User CPU, System CPU: not measured (no user/system split in this experiment: "
			   "format before 1.10, or split off); Total CPU only\n");
	if (waited)
		textout_printf(
			o,
			"  Wait CPU, Sleep: measured per thread (%zu of %zu threads, from schedstat at "
			"their end; -thread_list, -statistics), not per function: Linux does not say where a "
			"thread waited or slept without scheduler tracing\n",
			waited, experiment_thread_count(x));
	else
		textout_printf(o,
			       "  Wait CPU, Sleep: not measured (no thread end recorded its run-queue wait: "
			       "collect -t, no schedstat, or format before 1.9)\n");
}

/* Clock profiling: its interval, mechanism and which CPU times it measured. */
static void header_clock(FILE *o, const struct experiment *x)
{
	const struct exp_log *l = experiment_log(x);
	if (l->clock_mode && strcmp(l->clock_mode, "off") == 0) {
		textout_printf(o, "  Clock-profiling disabled\n");
	} else if (l->clock_interval_us) {
		textout_printf(o, "  Clock-profiling, interval = %" PRIu64 " microsecs.\n",
			       l->clock_interval_us);
		int ticked = l->effective_interval_us && l->effective_interval_us != l->clock_interval_us;
		if (ticked)
			textout_printf(o,
				       "  (effective interval %" PRIu64
				       " microsecs.: CPU-time timers are limited by the kernel tick)\n",
				       l->effective_interval_us);
		if (l->mechanism && strcmp(l->mechanism, "perf_task_clock") == 0)
			textout_printf(o, "  (each thread's perf_event task-clock: the interval as asked)\n");
		else if (!ticked && l->mechanism && strcmp(l->mechanism, "timer_create") == 0)
			textout_printf(
				o, "  (each thread's POSIX CPU-time timer: perf_event was not available)\n");
	} else {
		textout_printf(o, "  Clock-profiling, interval not recorded\n");
	}
	if (!(l->clock_mode && strcmp(l->clock_mode, "off") == 0))
		header_cpu_times(o, x);
}

/* How the data was collected. */
static void header_parameters(FILE *o, const struct experiment *x)
{
	struct exp_header h;
	experiment_header(x, &h);
	const struct exp_log *l = experiment_log(x);
	textout_printf(o, "Data collection parameters:\n");
	header_clock(o, x);
	if (l->sync_on)
		textout_printf(
			o, "  Synchronization tracing, threshold = %" PRIu64 " microsecs.%s; Native-APIs\n",
			l->sync_threshold_ns / 1000,
			l->sync_mode && strcmp(l->sync_mode, "calibrated") == 0 ? " (calibrated)"
			: l->sync_mode && strcmp(l->sync_mode, "all") == 0      ? " (all)"
										: "");
	unsigned long w0 = 0, w1 = 0;
	if (l->duration && sscanf(l->duration, "%lu:%lu", &w0, &w1) == 2 && (w0 || w1)) {
		/* collect -t: only what happened in the window was recorded */
		if (!w1)
			textout_printf(o, "  Data-collection window, from %lu secs. to the end\n", w0);
		else if (!w0)
			textout_printf(o, "  Data-collection window, the first %lu secs.\n", w1);
		else
			textout_printf(o, "  Data-collection window, %lu-%lu secs.\n", w0, w1);
	}
	if (h.has_heap)
		textout_printf(o, "  Heap tracing\n");
	if (h.has_io)
		textout_printf(o, "  IO tracing\n");
	header_counters(o, x);
	if (l->depth_limit)
		textout_printf(o, "  Stack depth limit = %" PRIu32 " frames\n", l->depth_limit);
	textout_printf(o, "\n");
}

/* When it started, how it ended, how long it took. */
static void header_times(FILE *o, const struct experiment *x)
{
	const struct exp_log *l = experiment_log(x);
	char when[64];
	time_t t = (time_t)(l->realtime_ns / 1000000000u);
	if (l->realtime_ns && ctime_r(&t, when)) {
		when[strcspn(when, "\n")] = '\0';
		textout_printf(o, "Experiment started %s\n", when);
	} else {
		textout_printf(o, "Experiment started (time not recorded)\n");
	}
	textout_printf(o, "\n");
	if (l->has_exit && l->exit_signal) {
		textout_printf(o, "Target terminated by signal %d", l->exit_signal);
		if (l->exit_signame && *l->exit_signame)
			textout_printf(o, " (%s)", l->exit_signame);
		textout_printf(o, "%s\n", l->core_dumped ? ", core dumped" : "");
	} else if (l->has_exit) {
		textout_printf(o, "Target exited with status %d%s\n", l->exit_status,
			       l->exit_by_parent ? " (as its parent's wait saw it)" : "");
	} else {
		struct report_ending end;
		report_ending_of(x, &end);
		if (end.kind == REPORT_END_EXEC)
			textout_printf(o, "Process exec'd %s\n", end.name);
		else if (end.kind == REPORT_END_UNSEEN)
			textout_printf(
				o,
				"Process ended without its collector seeing the end (killed, crashed or a raw exit)\n");
		else if (end.kind == REPORT_END_ENDED)
			textout_printf(o, "Experiment ended (no exit recorded)\n");
		else
			textout_printf(o, "Experiment did not finish (no exit recorded)\n");
	}
	uint64_t end = l->end_ns ? l->end_ns : l->exit_ns;
	if (end) {
		uint64_t d = report_rel_ns(x, end);
		textout_printf(o, "Experiment Ended: %" PRIu64 ".%09" PRIu64 "\n", d / 1000000000u,
			       d % 1000000000u);
	}
	uint64_t d = experiment_duration_ns(x);
	textout_printf(o, "Data Collection Duration: %" PRIu64 ".%09" PRIu64 "\n", d / 1000000000u,
		       d % 1000000000u);
}

static void header_one(struct erp *e, const struct experiment *x)
{
	FILE *o = e->out;
	textout_printf(o, "Experiment: %s\n", experiment_path(x));
	header_messages(o, x);
	header_target(o, x);
	header_host(o, experiment_log(x));
	header_parameters(o, x);
	header_times(o, x);
}

int show_header(struct erp *e, const char *arg)
{
	size_t lo, hi;
	if (show_exp_range(e, "header", arg, &lo, &hi) < 0)
		return -1;
	for (size_t i = lo; i < hi; i++) {
		if (i != lo)
			textout_printf(e->out,
				       "----------------------------------------------------------------\n");
		const struct experiment *x = profile_experiment(e->prof, i);
		header_one(e, x);
		size_t nprocs;
		experiment_processes(x, &nprocs);
		if (nprocs) {
			textout_printf(e->out, "\n");
			process_tree(e, i, x);
		}
	}
	return 0;
}

/* ------------------------------------------------------------ statistics */

/* gprofng's value width grows with every block printed (its `maxlen`). */
static void stats_widen(const struct report_stats *s, int *width)
{
	const char *labels[REPORT_STATS_COUNTS];
	uint64_t vals[REPORT_STATS_COUNTS];
	size_t n = report_stats_counts(s, labels, vals);
	for (size_t i = 0; i < n; i++)
		if (count_digits(vals[i]) > *width)
			*width = count_digits(vals[i]);
	char buf[64];
	int len =
		snprintf(buf, sizeof buf, "%.3f",
			 sec(s->thread_ns > s->user_ns + s->sys_ns ? s->thread_ns : s->user_ns + s->sys_ns));
	if (len > *width)
		*width = len;
}

static void print_time_share(FILE *o, const char *label, uint64_t v, uint64_t total, int w)
{
	if (v == 0 || total == 0)
		textout_printf(o, "%*s: %*s (  0. %%)\n", LABEL_WIDTH, label, w, "0.   ");
	else
		textout_printf(o, "%*s: %*.3f (%5.1f%%)\n", LABEL_WIDTH, label, w, sec(v),
			       100.0 * (double)v / (double)total);
}

static void stats_print(struct erp *e, const char *title, const struct report_stats *s, int w,
			int per_experiment)
{
	FILE *o = e->out;
	textout_printf(o, "%s\n", title);
	textout_printf(o, "%*s\n\n", LABEL_WIDTH, "Aggregated statistics for selected samples");
	textout_printf(o, "%*s: %s\n", LABEL_WIDTH, "Start Label", s->start_label);
	textout_printf(o, "%*s: %s\n", LABEL_WIDTH, "End Label", s->end_label);
	textout_printf(o, "%*s: %*.3f\n", LABEL_WIDTH, "Start Time (sec.)", w, sec(s->start_ns));
	textout_printf(o, "%*s: %*.3f\n", LABEL_WIDTH, "End Time (sec.)", w, sec(s->end_ns));
	textout_printf(o, "%*s: %*.3f\n", LABEL_WIDTH, "Duration (sec.)", w, sec(s->duration_ns));
	textout_printf(o, "%*s: %*.3f\n", LABEL_WIDTH, "Total Thread Time (sec.)", w, sec(s->thread_ns));
	if (s->duration_ns)
		textout_printf(o, "%*s: %*.3f\n\n", LABEL_WIDTH, "Average number of Threads", w,
			       (double)s->thread_ns / (double)s->duration_ns);
	else
		textout_printf(o, "%*s: N/A\n\n", LABEL_WIDTH, "Average number of Threads");

	/* Linux has no Solaris microstates: CPU is user + system, the rest sleep. */
	uint64_t sl = report_stats_sleep_ns(s), total = s->user_ns + s->sys_ns + s->lock_ns + s->wait_ns + sl;
	textout_printf(o, "%*s:\n", LABEL_WIDTH, "Process Times (sec.)");
	print_time_share(o, "User CPU", s->user_ns, total, w);
	print_time_share(o, "System CPU", s->sys_ns, total, w);
	print_time_share(o, "Trap CPU", 0, total, w);
	print_time_share(o, "User Lock", s->lock_ns, total, w); /* recorded waits (collect -s) */
	static const char *const zeros[] = {"Data Page Fault", "Text Page Fault", "Kernel Page Fault",
					    "Stopped"};
	for (size_t i = 0; i < sizeof zeros / sizeof zeros[0]; i++)
		print_time_share(o, zeros[i], 0, total, w);
	print_time_share(o, "Wait CPU", s->wait_ns, total, w); /* the run queue (schedstat) */
	print_time_share(o, "Sleep", sl, total, w);
	textout_printf(o, "\n");

	const char *labels[REPORT_STATS_COUNTS];
	uint64_t vals[REPORT_STATS_COUNTS];
	size_t n = report_stats_counts(s, labels, vals);
	for (size_t i = 0; i < n; i++)
		textout_printf(o, "%*s: %*" PRIu64 "\n", LABEL_WIDTH, labels[i], w, vals[i]);
	textout_printf(o, "%*s: %*.3f\n", LABEL_WIDTH, "Total CPU time recorded by clock profiling (sec.)", w,
		       sec(s->cpu_recorded_ns));
	textout_printf(o, "%*s: %*" PRIu64 "%s\n", LABEL_WIDTH, "Samples recorded", w, s->samples_recorded,
		       !s->samples_counted ? ""
		       : per_experiment    ? " (counted in the data: the collector did not report)"
					   : " (partly counted in the data: a collector did not report)");
	textout_printf(o, "%*s: %*" PRIu64 "\n", LABEL_WIDTH, "Samples dropped", w, s->samples_dropped);
	if (per_experiment && s->note[0])
		textout_printf(o, "%*s: %s\n", LABEL_WIDTH, "Note", s->note);
	if (per_experiment)
		textout_printf(o, "%*s: %s\n", LABEL_WIDTH, "Process times and counters from",
			       s->usage == REPORT_USAGE_RUSAGE ? "resource usage at exit"
			       : s->usage == REPORT_USAGE_OWN
				       ? "this process's own overview samples (its descendants are separate)"
			       : s->usage == REPORT_USAGE_SAMPLE
				       ? "the last overview sample (no resource usage at exit)"
			       : s->finished ? "nothing (no resource usage or overview sample recorded)"
					     : "nothing (not recorded: the target did not finish)");
	textout_printf(o, "\n");
}

int show_stats_range(struct erp *e, const char *arg, struct report_stats **ret, size_t *lo, size_t *n,
		     struct report_stats *sum)
{
	size_t hi;
	if (show_exp_range(e, "statistics", arg, lo, &hi) < 0)
		return -1;
	if (profile_compute(e->prof) < 0) {
		erp_error(e, "statistics: out of memory");
		return -1;
	}
	*n = hi - *lo;
	struct report_stats *st = calloc(*n, sizeof *st);
	if (!st) {
		erp_error(e, "statistics: out of memory");
		return -1;
	}
	memset(sum, 0, sizeof *sum);
	for (size_t i = 0; i < *n; i++) {
		report_stats_of(e->prof, *lo + i, &st[i]);
		if (profile_experiment_selected(e->prof, *lo + i))
			report_stats_add(sum, &st[i]);
	}
	/* Over all experiments the profile's own total is the authority. */
	if (*n == profile_experiment_count(e->prof)) {
		const struct metrics *m = profile_metrics(e->prof);
		if (m)
			sum->cpu_recorded_ns = metrics_total(m)[PROFILE_METRIC_TOTALCPU];
		if (*n == 1)
			st[0].cpu_recorded_ns = sum->cpu_recorded_ns;
	}
	*ret = st;
	return 0;
}

int show_statistics(struct erp *e, const char *arg)
{
	size_t lo, n;
	struct report_stats *st, sum;
	if (show_stats_range(e, arg, &st, &lo, &n, &sum) < 0)
		return -1;
	int w = 0;
	if (n > 1) {
		stats_widen(&sum, &w);
		stats_print(e, "<Sum across selected experiments>", &sum, w, 0);
		textout_printf(e->out, "\n");
	}
	for (size_t i = 0; i < n; i++) {
		struct strbuf title;
		strbuf_init(&title, 0);
		strbuf_addf(&title, "Experiment: %s", experiment_path(profile_experiment(e->prof, lo + i)));
		stats_widen(&st[i], &w);
		stats_print(e, strbuf_str(&title), &st[i], w, 1);
		strbuf_release(&title);
	}
	free(st);
	return 0;
}

/* ------------------------------------------------------------ lists */

/*
 * gprofng's `ID Sel PID Experiment` table; with descendants (collect -F) also
 * each process's parent, lineage and command line.
 */
int show_experiment_list(struct erp *e, const char *arg)
{
	FILE *o = e->out;
	(void)arg;
	size_t n = profile_experiment_count(e->prof);
	int wid = count_digits(n) > 2 ? count_digits(n) : 2, wpid = 3, wname = 10, wlin = 7;
	int tree = report_experiments_are_tree(e->prof);
	for (size_t i = 0; i < n; i++) {
		const struct experiment *x = profile_experiment(e->prof, i);
		if (count_digits(experiment_log(x)->pid) > wpid)
			wpid = count_digits(experiment_log(x)->pid);
		if ((int)strlen(experiment_path(x)) > wname)
			wname = (int)strlen(experiment_path(x));
		if (experiment_log(x)->lineage && (int)strlen(experiment_log(x)->lineage) > wlin)
			wlin = (int)strlen(experiment_log(x)->lineage);
	}
	if (!tree) {
		textout_printf(o, "%*s Sel %*s %-*s \n", wid, "ID", wpid, "PID", wname, "Experiment");
		put_rule(o, wid);
		put_rule(o, 3);
		put_rule(o, wpid);
		put_rule(o, wname);
		fputc('\n', o);
		for (size_t i = 0; i < n; i++) {
			const struct experiment *x = profile_experiment(e->prof, i);
			textout_printf(o, "%*zu %-3s %*" PRIu32 " %s \n", wid, i + 1,
				       profile_experiment_selected(e->prof, i) ? "yes" : "no", wpid,
				       experiment_log(x)->pid, experiment_path(x));
		}
		return 0;
	}
	textout_printf(o, "%*s Sel %*s %*s %-*s %-*s Command\n", wid, "ID", wpid, "PID", wpid, "PPID", wlin,
		       "Lineage", wname, "Experiment");
	put_rule(o, wid);
	put_rule(o, 3);
	put_rule(o, wpid);
	put_rule(o, wpid);
	put_rule(o, wlin);
	put_rule(o, wname);
	put_rule(o, 7);
	fputc('\n', o);
	for (size_t i = 0; i < n; i++) {
		const struct experiment *x = profile_experiment(e->prof, i);
		const char *lin = experiment_log(x)->lineage ? experiment_log(x)->lineage : "founder";
		textout_printf(o, "%*zu %-3s %*" PRIu32 " %*" PRIu32 " %-*s %-*s ", wid, i + 1,
			       profile_experiment_selected(e->prof, i) ? "yes" : "no", wpid,
			       experiment_log(x)->pid, wpid, experiment_log(x)->ppid, wlin, lin, wname,
			       experiment_path(x));
		for (size_t a = 0; a < experiment_log(x)->argc; a++)
			textout_printf(o, "%s%s", a ? " " : "", experiment_log(x)->argv[a]);
		fputc('\n', o);
	}
	return 0;
}

static void thread_row(FILE *o, const struct report_thread *r)
{
	const struct exp_thread *th = r->t;
	char num[24], start[32], end[32], cpu[40], wait[32] = "-", sleep[32] = "-", routine[40];
	snprintf(num, sizeof num, "%s%" PRIu32, r->selected ? "" : "-", th->number);
	if (th->has_start)
		snprintf(start, sizeof start, "%.3f", sec(r->start_ns));
	else
		snprintf(start, sizeof start, "-");
	if (th->has_end)
		snprintf(end, sizeof end, "%.3f", sec(r->end_ns));
	else
		snprintf(end, sizeof end, "-");
	snprintf(cpu, sizeof cpu, "%.3f%s", sec(r->cpu_ns), r->cpu_sampled ? "*" : " ");
	if (r->has_wait) {
		snprintf(wait, sizeof wait, "%.3f", sec(r->wait_ns));
		snprintf(sleep, sizeof sleep, "%.3f", sec(r->sleep_ns));
	}
	if (r->routine == REPORT_ROUTINE_UNKNOWN)
		snprintf(routine, sizeof routine, "(start not recorded)");
	else if (r->routine == REPORT_ROUTINE_MAIN)
		snprintf(routine, sizeof routine, "main thread");
	else if (r->routine == REPORT_ROUTINE_FUNC)
		snprintf(routine, sizeof routine, "%s%s", r->func->name,
			 r->func->show_version ? r->func->version : "");
	else
		snprintf(routine, sizeof routine, "0x%" PRIx64, th->start_pc);
	textout_printf(o, "%6s  %-7" PRIu32 "  %12s  %10s  %11s  %11s  %12s  %7" PRIu64 "  %s\n", num,
		       th->tid, start, end, cpu, wait, sleep, th->samples, routine);
}

static void thread_table(struct erp *e, size_t xi, const struct experiment *x)
{
	FILE *o = e->out;
	textout_printf(o, "\nExperiment %zu: %s\n", xi + 1, experiment_path(x));
	if (experiment_thread_count(x) == 0) {
		textout_printf(o, "(no threads recorded)\n");
		return;
	}
	struct report_thread *v;
	ssize_t n = report_threads(e->prof, xi, &v);
	if (n < 0) {
		erp_error(e, "thread_list: out of memory");
		return;
	}
	int sampled = 0;
	textout_printf(o, "%6s  %-7s  %12s  %10s  %11s  %11s  %12s  %7s  %s\n", "Thread", "TID",
		       "Start (sec.)", "End (sec.)", " CPU (sec.)", "Wait (sec.)", "Sleep (sec.)", "Samples",
		       "Start routine");
	for (ssize_t i = 0; i < n; i++) {
		thread_row(o, &v[i]);
		sampled |= v[i].cpu_sampled;
	}
	if (sampled)
		textout_printf(o, "* CPU time of the samples: the thread had not ended when the data ends\n");
	textout_printf(
		o, "Wait: time runnable waiting for a CPU; Sleep: the rest of its life off CPU (per thread "
		   "only; - when not recorded)\n");
	free(v);
}

void show_selection_table(FILE *o, size_t n, const char *const *sel, const size_t *totals)
{
	int wexp = 3, wsel = 3, wtot = 5;
	for (size_t i = 0; i < n; i++) {
		if (sel[i] && (int)strlen(sel[i]) > wsel)
			wsel = (int)strlen(sel[i]);
		if (count_digits(totals[i]) > wtot)
			wtot = count_digits(totals[i]);
	}
	if (count_digits(n) > wexp)
		wexp = count_digits(n);
	textout_printf(o, "%*s %-*s %*s \n", wexp, "Exp", wsel, "Sel", wtot, "Total");
	put_rule(o, wexp);
	put_rule(o, wsel);
	put_rule(o, wtot);
	fputc('\n', o);
	for (size_t i = 0; i < n; i++)
		textout_printf(o, "%*zu %-*s %*zu \n", wexp, i + 1, wsel, sel[i] ? sel[i] : "?", wtot,
			       totals[i]);
}

int show_thread_list(struct erp *e, const char *arg)
{
	FILE *o = e->out;
	(void)arg;
	size_t n = profile_experiment_count(e->prof);
	char **sel = calloc(n ? n : 1, sizeof *sel);
	if (!sel) {
		erp_error(e, "thread_list: out of memory");
		return -1;
	}
	size_t *totals = calloc(n ? n : 1, sizeof *totals);
	if (!totals) {
		free(sel);
		erp_error(e, "thread_list: out of memory");
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		sel[i] = report_thread_selection(e->prof, i);
		totals[i] = experiment_thread_count(profile_experiment(e->prof, i));
	}
	show_selection_table(o, n, (const char *const *)sel, totals);
	free(totals);
	for (size_t i = 0; i < n; i++) {
		thread_table(e, i, profile_experiment(e->prof, i));
		free(sel[i]);
	}
	free(sel);
	return 0;
}
