/*
 * signals.c - the sampling signal's handler and the signal interposers (see
 * signals.h).
 *
 * The application's disposition is kept in a ring of copies published by an
 * atomic index, so the handler reads it without locks; a reader could only
 * see a torn copy if the application changed its disposition of the signal
 * DISP_RING times during one delivery.
 */
#include "collector/signals.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collector/logxml.h"
#include "collector/sampler.h"
#include "collector/samples.h"
#include "collector/state.h"
#include "collector/threads.h"

#define DISP_RING 16

static struct sigaction app_disp[DISP_RING];
static _Atomic uint32_t app_disp_cur;
static _Atomic int signals_installed;
static _Atomic int warned_handler, warned_block;

/* The kernel's sigset: 64 signals. */
static void raw_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	syscall(SYS_rt_sigprocmask, how, set, old, 8);
}

static void forward_to_app(int sig, siginfo_t *si, void *uc, int saved_errno)
{
	uint32_t cur = atomic_load_explicit(&app_disp_cur, memory_order_acquire);
	struct sigaction a = app_disp[cur % DISP_RING];
	/*
	 * SIG_DFL is to ignore SIGURG too: what reaches here unclaimed is a
	 * program's signal, or a late one of ours (queued just before another
	 * thread ended the collection and stopped this thread's sampler).
	 */
	if (a.sa_handler == SIG_IGN || a.sa_handler == SIG_DFL)
		return;
	if (a.sa_flags & SA_RESETHAND) {
		struct sigaction d;
		memset(&d, 0, sizeof d);
		d.sa_handler = SIG_DFL;
		uint32_t next = cur + 1;
		app_disp[next % DISP_RING] = d;
		atomic_store_explicit(&app_disp_cur, next, memory_order_release);
	}
	sigset_t old, mask = a.sa_mask;
	sigdelset(&mask, SAMPLER_SIGNAL);
	raw_sigmask(SIG_BLOCK, &mask, &old);
	if (a.sa_flags & SA_NODEFER) {
		sigset_t s;
		sigemptyset(&s);
		sigaddset(&s, sig);
		raw_sigmask(SIG_UNBLOCK, &s, NULL);
	}
	errno = saved_errno;
	if (a.sa_flags & SA_SIGINFO)
		a.sa_sigaction(sig, si, uc);
	else
		a.sa_handler(sig);
	raw_sigmask(SIG_SETMASK, &old, NULL);
}

static void on_sampling_signal(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	if (!threads_on_sampling_signal(si, uc)) {
		forward_to_app(sig, si, uc, saved);
		return; /* errno as the application's handler left it */
	}
	samples_tick();
	errno = saved;
}

int signals_init(void)
{
	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_sampling_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	if (col_real()->sigaction(SAMPLER_SIGNAL, &sa, &old) != 0)
		return -errno;
	app_disp[0] = old;
	atomic_store(&app_disp_cur, 0);
	atomic_store(&signals_installed, 1);
	return 0;
}

int signals_owned(void)
{
	return atomic_load_explicit(&signals_installed, memory_order_relaxed);
}

static void set_app_disp(const struct sigaction *act)
{
	uint32_t next = atomic_load(&app_disp_cur) + 1;
	app_disp[next % DISP_RING] = *act;
	atomic_store_explicit(&app_disp_cur, next, memory_order_release);
	if (act->sa_handler != SIG_DFL && act->sa_handler != SIG_IGN && col_collecting() &&
	    !atomic_exchange(&warned_handler, 1))
		logxml_note("warning", "app_sampling_signal",
			    "the target installed its own SIGURG handler; the collector keeps its "
			    "own (SIGURG is its sampling signal) and forwards the target's SIGURG "
			    "signals to it");
}

int signals_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (samples_owns_signal(sig))
		return samples_sigaction(sig, act, old);
	if (sig != SAMPLER_SIGNAL || !signals_owned())
		return col_real()->sigaction(sig, act, old);
	if (old) {
		uint32_t cur = atomic_load_explicit(&app_disp_cur, memory_order_acquire);
		*old = app_disp[cur % DISP_RING];
	}
	if (act)
		set_app_disp(act);
	return 0;
}

__sighandler_t signals_signal(int sig, __sighandler_t h)
{
	if ((sig != SAMPLER_SIGNAL || !signals_owned()) && !samples_owns_signal(sig))
		return col_real()->signal(sig, h);
	struct sigaction act, old;
	memset(&act, 0, sizeof act);
	act.sa_handler = h;
	act.sa_flags = SA_RESTART; /* glibc's signal() has BSD semantics */
	sigemptyset(&act.sa_mask);
	signals_sigaction(sig, &act, &old);
	return old.sa_handler;
}

/* The set the real call should see: `set` without the sampling signal when it would block it. */
static const sigset_t *strip_sampling_signal(int how, const sigset_t *set, sigset_t *copy)
{
	if (!set || how == SIG_UNBLOCK || !col_collecting() || sigismember(set, SAMPLER_SIGNAL) != 1)
		return set;
	*copy = *set;
	sigdelset(copy, SAMPLER_SIGNAL);
	if (!atomic_exchange(&warned_block, 1))
		logxml_note("warning", "sampling_signal_block",
			    "the target tried to block SIGURG; the collector keeps it unblocked "
			    "(SIGURG is its sampling signal)");
	return copy;
}

int signals_sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	sigset_t copy;
	return col_real()->sigprocmask(how, strip_sampling_signal(how, set, &copy), old);
}

int signals_pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	sigset_t copy;
	return col_real()->pthread_sigmask(how, strip_sampling_signal(how, set, &copy), old);
}
