/*
 * samples.c - sample points and pause/resume (see samples.h).
 *
 * Invariant: one writer at a time appends to the overview file, through
 * the one cursor here, under point_busy; a point's number is taken under it,
 * so numbers are in file order.  Signal context never waits for the flag.
 */
#include "collector/samples.h"

#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "collector/encode.h"
#include "collector/logxml.h"
#include "collector/state.h"
#include "collector/threads.h"
#include "experiment/record.h"

#define DISP_RING 8

static _Atomic int point_busy;
static struct blockw_cursor point_cursor;
static uint64_t point_number; /* under point_busy */

/* collect -S: when the next periodic point is due (CLOCK_MONOTONIC ns), 0 none */
static _Atomic uint64_t periodic_due_ns;

/* The program's disposition of a -l or -y signal, readable from the handler without locks. */
struct vsig {
	int sig; /* 0: unused */
	struct sigaction disp[DISP_RING];
	_Atomic uint32_t cur;
	_Atomic int warned;
};
static struct vsig vsigs[2]; /* [0] -l, [1] -y */
static int handlers_installed;

static struct vsig *vsig_of(int sig)
{
	for (int i = 0; i < 2; i++)
		if (sig > 0 && vsigs[i].sig == sig)
			return &vsigs[i];
	return NULL;
}

static uint64_t tv_ns(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000000u + (uint64_t)tv.tv_usec * 1000u;
}

static int take_flag(int in_signal)
{
	int expect = 0;
	while (!atomic_compare_exchange_weak(&point_busy, &expect, 1)) {
		if (in_signal)
			return 0;
		expect = 0;
		sched_yield();
	}
	return 1;
}

int samples_point(unsigned reason, const char *label, size_t len, int in_signal)
{
	struct col_config *cfg = col_config();
	if (!col_collecting() && reason != EXP_SAMPLE_END)
		return -ESRCH;
	if (!take_flag(in_signal)) {
		atomic_fetch_add(&col_counters()->lost_records, 1);
		return -EBUSY;
	}
	int g = threads_guard_enter(); /* the collector's own system calls */
	struct rusage ru;
	memset(&ru, 0, sizeof ru);
	getrusage(RUSAGE_SELF, &ru);
	struct exp_sample s = {
		.ts_ns = col_now_ns(),
		.number = point_number,
		.utime_ns = tv_ns(ru.ru_utime),
		.stime_ns = tv_ns(ru.ru_stime),
		.minflt = (uint64_t)ru.ru_minflt,
		.majflt = (uint64_t)ru.ru_majflt,
		.nswap = (uint64_t)ru.ru_nswap,
		.inblock = (uint64_t)ru.ru_inblock,
		.oublock = (uint64_t)ru.ru_oublock,
		.msgsnd = (uint64_t)ru.ru_msgsnd,
		.msgrcv = (uint64_t)ru.ru_msgrcv,
		.nsignals = (uint64_t)ru.ru_nsignals,
		.nvcsw = (uint64_t)ru.ru_nvcsw,
		.nivcsw = (uint64_t)ru.ru_nivcsw,
		.maxrss_kb = (uint64_t)ru.ru_maxrss,
		.reason = reason,
		.label = label,
		.label_bytes =
			label ? (uint32_t)(len > EXP_SAMPLE_LABEL_MAX ? EXP_SAMPLE_LABEL_MAX : len) : 0,
	};
	int r = blockw_append(&cfg->overview, &point_cursor, col_gettid(), s.ts_ns, EXP_REC_SAMPLE_POINT,
			      encode_sample_point, &s, 0);
	if (r < 0)
		atomic_fetch_add(&col_counters()->lost_records, 1);
	else
		point_number++;
	if (reason == EXP_SAMPLE_END)
		blockw_cursor_release(&point_cursor);
	threads_guard_leave(g);
	atomic_store(&point_busy, 0);
	return r;
}

static int point_str(unsigned reason, const char *label, int in_signal)
{
	return samples_point(reason, label, strlen(label), in_signal);
}

void samples_pause(int paused, const char *who, int in_signal)
{
	if (!col_collecting() || col_paused() == paused)
		return;
	char label[40] = "collector_pause(";
	if (!paused)
		strcpy(label, "collector_resume(");
	strncat(label, who, 8);
	strcat(label, ")");
	if (paused) { /* nothing after the point is recorded */
		col_set_paused(1);
		point_str(EXP_SAMPLE_PAUSE, label, in_signal);
	} else {
		point_str(EXP_SAMPLE_RESUME, label, in_signal);
		col_set_paused(0);
	}
}

void samples_tick(void)
{
	uint64_t due = atomic_load_explicit(&periodic_due_ns, memory_order_relaxed);
	if (!due)
		return;
	uint64_t now = col_now_ns();
	if (now < due)
		return;
	uint64_t period = (uint64_t)col_config()->sample_period_s * 1000000000u, next = due;
	while (next <= now) /* one point for the periods missed while nothing ran */
		next += period;
	if (atomic_compare_exchange_strong(&periodic_due_ns, &due, next))
		point_str(EXP_SAMPLE_PERIODIC, "periodic", 1);
}

/* Call the program's handler of v's signal, if it has one (its SIG_DFL is ignored: see samples.h). */
static void forward(struct vsig *v, int sig, siginfo_t *si, void *uc)
{
	struct sigaction a = v->disp[atomic_load_explicit(&v->cur, memory_order_acquire) % DISP_RING];
	if (a.sa_handler == SIG_IGN || a.sa_handler == SIG_DFL)
		return;
	if (a.sa_flags & SA_SIGINFO)
		a.sa_sigaction(sig, si, uc);
	else
		a.sa_handler(sig);
}

static void on_user_signal(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	struct vsig *v = vsig_of(sig);
	if (!v)
		return;
	if (si && si->si_code == SI_USER && col_collecting()) {
		if (v == &vsigs[0])
			point_str(EXP_SAMPLE_SIGNAL, "signal", 1);
		else
			samples_pause(!col_paused(), "signal", 1);
	}
	errno = saved;
	forward(v, sig, si, uc);
	errno = saved;
}

static void install(struct vsig *v, int sig)
{
	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_user_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (col_real()->sigaction(sig, &sa, &old) != 0) {
		logxml_note("error", "sample_signal", "could not install the handler of a -l or -y signal");
		return;
	}
	v->disp[0] = old;
	atomic_store(&v->cur, 0);
	v->sig = sig;
}

void samples_start(void)
{
	struct col_config *cfg = col_config();
	point_number = 0;
	memset(&point_cursor, 0, sizeof point_cursor);
	atomic_store(&point_busy, 0);
	col_set_paused(0);
	point_str(EXP_SAMPLE_START, "collector_open_experiment", 0);
	if (!handlers_installed) { /* a fork child keeps its parent's */
		handlers_installed = 1;
		if (cfg->sample_signal > 0 && cfg->sample_signal < NSIG)
			install(&vsigs[0], cfg->sample_signal);
		if (cfg->pause_signal > 0 && cfg->pause_signal < NSIG &&
		    cfg->pause_signal != cfg->sample_signal)
			install(&vsigs[1], cfg->pause_signal);
	}
	if (cfg->pause_signal && cfg->start_paused)
		samples_pause(1, "signal", 0);
	uint32_t period = cfg->sample_period_s;
	atomic_store(&periodic_due_ns, period ? col_now_ns() + (uint64_t)period * 1000000000u : 0);
}

void samples_finish(void)
{
	atomic_store(&periodic_due_ns, 0);
	point_str(EXP_SAMPLE_END, "collector_close_experiment", 0);
}

int samples_owns_signal(int sig)
{
	return vsig_of(sig) != NULL;
}

int samples_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	struct vsig *v = vsig_of(sig);
	if (!v)
		return col_real()->sigaction(sig, act, old);
	uint32_t cur = atomic_load_explicit(&v->cur, memory_order_acquire);
	if (old)
		*old = v->disp[cur % DISP_RING];
	if (!act)
		return 0;
	v->disp[(cur + 1) % DISP_RING] = *act;
	atomic_store_explicit(&v->cur, cur + 1, memory_order_release);
	if (act->sa_handler != SIG_DFL && act->sa_handler != SIG_IGN && col_collecting() &&
	    !atomic_exchange(&v->warned, 1))
		logxml_note("warning", v == &vsigs[0] ? "app_sample_signal" : "app_pause_signal",
			    "the target installed its own handler for the -l or -y signal; the collector "
			    "keeps its handler and calls the target's after it");
	return 0;
}
