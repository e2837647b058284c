/*
 * signals.c - the sampling signals' handler and the signal interposers (see
 * signals.h).
 *
 * Each signal our handler is on (owned[]) keeps the application's
 * disposition in a ring of copies published by an atomic index, so the
 * handler reads it without locks; a reader could only see a torn copy if the
 * application changed its disposition of the signal DISP_RING times during
 * one delivery.  wanted has a bit per signal the program showed it wants;
 * a sampling signal it wants is moved away from (sampler_signal_move), one
 * it does not want is kept out of its masks, wait sets and signalfds.
 */
#include "collector/signals.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collector/logxml.h"
#include "collector/sampler.h"
#include "collector/samples.h"
#include "collector/state.h"
#include "collector/threads.h"

#define DISP_RING 16
#define OWNED_MAX 12 /* SIGURG and the real-time signals sampler_signal_move may take */

struct owned {
	_Atomic int sig; /* 0: a free entry */
	struct sigaction disp[DISP_RING];
	_Atomic uint32_t cur;
};

static struct owned owned[OWNED_MAX];
static _Atomic uint64_t wanted; /* bit sig - 1: the program wants that signal itself */
static _Atomic int signals_installed;
static _Atomic int warned_handler, warned_block, warned_wait;
static atomic_flag move_lock = ATOMIC_FLAG_INIT;

static void on_sampling_signal(int sig, siginfo_t *si, void *uc);

/* The kernel's sigset: 64 signals. */
/*
 * The system call itself, not libc's syscall(): a sampling signal the mask
 * held is delivered as it returns, and its sample's innermost frame is then
 * the collector's (the reader hides it), not a libc function's.
 */
static void raw_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	register long size __asm__("r10") = 8;
	long r = SYS_rt_sigprocmask;
	__asm__ volatile("syscall"
			 : "+a"(r)
			 : "D"((long)how), "S"(set), "d"(old), "r"(size)
			 : "rcx", "r11", "memory");
}

static struct owned *owned_of(int sig)
{
	for (int i = 0; i < OWNED_MAX; i++)
		if (atomic_load_explicit(&owned[i].sig, memory_order_acquire) == sig)
			return &owned[i];
	return NULL;
}

static int is_wanted(int sig)
{
	return sig >= 1 && sig <= 64 &&
	       (atomic_load_explicit(&wanted, memory_order_relaxed) >> (sig - 1) & 1);
}

/* A signal the samplers use or used that the program does not want: kept out of its way. SIGNAL_SAFE. */
static int ours_unwanted(int sig)
{
	return sampler_signal_used(sig) && !is_wanted(sig);
}

/* The application's disposition of an owned signal. SIGNAL_SAFE. */
static struct sigaction app_disp(const struct owned *o)
{
	uint32_t cur = atomic_load_explicit(&o->cur, memory_order_acquire);
	return o->disp[cur % DISP_RING];
}

static void set_app_disp(struct owned *o, const struct sigaction *act)
{
	uint32_t next = atomic_load(&o->cur) + 1;
	o->disp[next % DISP_RING] = *act;
	atomic_store_explicit(&o->cur, next, memory_order_release);
}

/* Default actions that ignore the signal (signal(7)). */
static int default_ignores(int sig)
{
	return sig == SIGCHLD || sig == SIGURG || sig == SIGWINCH || sig == SIGCONT;
}

static void forward_to_app(int sig, siginfo_t *si, void *uc, int saved_errno)
{
	struct owned *o = owned_of(sig);
	if (!o)
		return;
	struct sigaction a = app_disp(o);
	/*
	 * What reaches here unclaimed is a program's signal, or a late one of
	 * ours (queued just before another thread ended the collection and
	 * stopped this thread's sampler).
	 */
	if (a.sa_handler == SIG_IGN)
		return;
	if (a.sa_handler == SIG_DFL) {
		if (default_ignores(sig))
			return;
		/* the program's signal, with the kernel's default action: let the kernel take it */
		struct sigaction d;
		memset(&d, 0, sizeof d);
		d.sa_handler = SIG_DFL;
		col_real()->sigaction(sig, &d, NULL);
		syscall(SYS_rt_tgsigqueueinfo, getpid(), col_gettid(), sig, si); /* pending until we return */
		return;
	}
	if (a.sa_flags & SA_RESETHAND) {
		struct sigaction d;
		memset(&d, 0, sizeof d);
		d.sa_handler = SIG_DFL;
		set_app_disp(o, &d);
	}
	sigset_t old, mask = a.sa_mask;
	for (int s = 1; s <= 64; s++)
		if (ours_unwanted(s))
			sigdelset(&mask, s);
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
	if (!threads_on_sampling_signal(sig, si, uc)) {
		forward_to_app(sig, si, uc, saved);
		return; /* errno as the application's handler left it */
	}
	samples_tick();
	errno = saved;
}

/* Put our handler on sig, its disposition until now the application's. 0 or -errno. */
static int own_signal(int sig)
{
	struct owned *o = NULL;
	for (int i = 0; i < OWNED_MAX && !o; i++)
		if (atomic_load(&owned[i].sig) == 0)
			o = &owned[i];
	struct sigaction sa, old;
	if (!o || col_real()->sigaction(sig, NULL, &old) != 0)
		return -ENOSPC;
	o->disp[0] = old;
	atomic_store(&o->cur, 0);
	atomic_store_explicit(&o->sig, sig, memory_order_release); /* before a signal can come */
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_sampling_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	if (col_real()->sigaction(sig, &sa, NULL) != 0) {
		int e = errno;
		atomic_store(&o->sig, 0);
		return -e;
	}
	return 0;
}

int signals_init(void)
{
	int r = own_signal(SAMPLER_SIGNAL);
	if (r == 0)
		atomic_store(&signals_installed, 1);
	return r;
}

int signals_owned(void)
{
	return atomic_load_explicit(&signals_installed, memory_order_relaxed);
}

static const char *signal_text(int sig, char *buf, size_t room)
{
	if (sig == SIGURG)
		return "SIGURG";
	if (sig == SIGRTMAX)
		snprintf(buf, room, "SIGRTMAX (signal %d)", sig);
	else
		snprintf(buf, room, "SIGRTMAX-%d (signal %d)", SIGRTMAX - sig, sig);
	return buf;
}

/*
 * The program wants sig (how: what it did).  If the samplers use it, they
 * move to another signal; the calling thread's sampler moves now.
 */
static void want(int sig, const char *how)
{
	if (sig < 1 || sig > 64)
		return;
	atomic_fetch_or(&wanted, 1ull << (sig - 1));
	if (col_collecting() && sig == sampler_signal()) {
		while (atomic_flag_test_and_set_explicit(&move_lock, memory_order_acquire))
			sched_yield();
		int now = sampler_signal_move(sig, is_wanted, own_signal);
		atomic_flag_clear_explicit(&move_lock, memory_order_release);
		if (now != sig) {
			char a[48], b[48], text[320];
			snprintf(
				text, sizeof text,
				"the target %s %s, the collector's sampling signal: the collector samples with %s "
				"from now on and leaves %s to the target",
				how, signal_text(sig, a, sizeof a), signal_text(now, b, sizeof b),
				signal_text(sig, a, sizeof a));
			logxml_note("warning", "sampling_signal_moved", text);
		}
	}
	threads_resignal_self();
}

/* A set that holds every real-time signal: "all signals", not a wish for one. */
static int broad(const sigset_t *set)
{
	for (int s = SIGRTMIN; s <= SIGRTMAX; s++)
		if (sigismember(set, s) != 1)
			return 0;
	return 1;
}

/*
 * The set the real call should see: `set` without the sampling signals the
 * program does not want, once it has said whether it wants the current one
 * (SIGURG, or a real-time one named without all the others).  *warned:
 * the once-only warning's flag, text its words.
 */
static const sigset_t *app_set(const sigset_t *set, sigset_t *copy, const char *how, _Atomic int *warned,
			       const char *text)
{
	if (!set || !signals_owned() || !col_collecting())
		return set;
	int cur = sampler_signal();
	if (sigismember(set, cur) == 1 && (cur == SAMPLER_SIGNAL || !broad(set)))
		want(cur, how);
	else
		threads_resignal_self();
	int stripped = 0;
	*copy = *set;
	for (int s = 1; s <= 64; s++)
		if (ours_unwanted(s) && sigismember(copy, s) == 1) {
			sigdelset(copy, s);
			stripped = 1;
		}
	if (!stripped)
		return set;
	if (!atomic_exchange(warned, 1))
		logxml_note("warning", "sampling_signal_block", text);
	return copy;
}

int signals_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (samples_owns_signal(sig))
		return samples_sigaction(sig, act, old);
	struct owned *o = signals_owned() ? owned_of(sig) : NULL;
	if (!o)
		return col_real()->sigaction(sig, act, old);
	if (old)
		*old = app_disp(o);
	if (!act)
		return 0;
	set_app_disp(o, act);
	if (act->sa_handler != SIG_DFL && act->sa_handler != SIG_IGN && col_collecting()) {
		if (sig == SAMPLER_SIGNAL)
			want(sig, "installed a handler for"); /* so that no wait of ours defers its signals */
		else if (!atomic_exchange(&warned_handler, 1))
			logxml_note("warning", "app_sampling_signal",
				    "the target installed a handler for the collector's sampling signal; the "
				    "collector keeps its own and forwards the target's signals to it");
	}
	return 0;
}

__sighandler_t signals_signal(int sig, __sighandler_t h)
{
	if ((!signals_owned() || !owned_of(sig)) && !samples_owns_signal(sig))
		return col_real()->signal(sig, h);
	struct sigaction act, old;
	memset(&act, 0, sizeof act);
	act.sa_handler = h;
	act.sa_flags = SA_RESTART; /* glibc's signal() has BSD semantics */
	sigemptyset(&act.sa_mask);
	signals_sigaction(sig, &act, &old);
	return old.sa_handler;
}

static const char block_text[] = "the target tried to block the collector's sampling signal with others; the "
				 "collector keeps it unblocked (and out of the target's sigwait sets and "
				 "signalfds)";

int signals_sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	sigset_t copy;
	if (how != SIG_UNBLOCK)
		set = app_set(set, &copy, "blocked", &warned_block, block_text);
	return col_real()->sigprocmask(how, set, old);
}

int signals_pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	sigset_t copy;
	if (how != SIG_UNBLOCK)
		set = app_set(set, &copy, "blocked", &warned_block, block_text);
	return col_real()->pthread_sigmask(how, set, old);
}

/* ------------------------------------------------------------ waiting for signals */

static const char wait_text[] = "the target waits (sigwait, signalfd) for a set of signals that holds the "
				"collector's sampling signal with others; the collector leaves that one out";

int signals_sigwait(const sigset_t *set, int *sig)
{
	static void *_Atomic real;
	int (*fn)(const sigset_t *, int *) =
		(int (*)(const sigset_t *, int *))threads_next_fn(&real, "sigwait");
	sigset_t copy, saved;
	uint64_t outer = 0;
	set = app_set(set, &copy, "waits for", &warned_wait, wait_text);
	int quiet = signals_owned() && col_collecting();
	if (quiet)
		outer = signals_quiet_begin(&saved);
	int r = fn ? fn(set, sig) : ENOSYS;
	if (quiet)
		signals_quiet_end(&saved, (void *)fn, outer);
	return r;
}

int signals_sigwaitinfo(const sigset_t *set, siginfo_t *info)
{
	static void *_Atomic real;
	int (*fn)(const sigset_t *, siginfo_t *) =
		(int (*)(const sigset_t *, siginfo_t *))threads_next_fn(&real, "sigwaitinfo");
	sigset_t copy, saved;
	uint64_t outer = 0;
	set = app_set(set, &copy, "waits for", &warned_wait, wait_text);
	int quiet = signals_owned() && col_collecting();
	if (quiet)
		outer = signals_quiet_begin(&saved);
	int r = fn ? fn(set, info) : (errno = ENOSYS, -1);
	int e = errno;
	if (quiet)
		signals_quiet_end(&saved, (void *)fn, outer);
	errno = e;
	return r;
}

int signals_sigtimedwait(const sigset_t *set, siginfo_t *info, const struct timespec *timeout)
{
	static void *_Atomic real;
	int (*fn)(const sigset_t *, siginfo_t *, const struct timespec *) =
		(int (*)(const sigset_t *, siginfo_t *, const struct timespec *))threads_next_fn(
			&real, "sigtimedwait");
	sigset_t copy, saved;
	uint64_t outer = 0;
	set = app_set(set, &copy, "waits for", &warned_wait, wait_text);
	int quiet = signals_owned() && col_collecting();
	if (quiet)
		outer = signals_quiet_begin(&saved);
	int r = fn ? fn(set, info, timeout) : (errno = ENOSYS, -1);
	int e = errno;
	if (quiet)
		signals_quiet_end(&saved, (void *)fn, outer);
	errno = e;
	return r;
}

int signals_signalfd(int fd, const sigset_t *mask, int flags)
{
	static void *_Atomic real;
	int (*fn)(int, const sigset_t *, int) =
		(int (*)(int, const sigset_t *, int))threads_next_fn(&real, "signalfd");
	sigset_t copy;
	mask = app_set(mask, &copy, "reads through a signalfd", &warned_wait, wait_text);
	if (!fn) {
		errno = ENOSYS;
		return -1;
	}
	return fn(fd, mask, flags);
}

/* ------------------------------------------------------------ quiet waits */

void signals_quiet_add(sigset_t *mask)
{
	threads_resignal_self(); /* off a signal the program wants, before it waits for it */
	for (int i = 0; i < OWNED_MAX; i++) {
		int s = atomic_load_explicit(&owned[i].sig, memory_order_acquire);
		if (s && ours_unwanted(s))
			sigaddset(mask, s);
	}
}

uint64_t signals_quiet_begin(sigset_t *saved)
{
	sigset_t m;
	sigemptyset(&m);
	signals_quiet_add(&m);
	uint64_t outer = threads_wait_begin(); /* the blocking of the signals is the call's too */
	raw_sigmask(SIG_BLOCK, &m, saved);
	return outer;
}

void signals_quiet_end(const sigset_t *saved, const void *fn, uint64_t outer)
{
	threads_wait_end((uint64_t)(uintptr_t)fn);
	threads_wait_leaf((uint64_t)(uintptr_t)fn);
	raw_sigmask(SIG_SETMASK, saved, NULL);
	threads_wait_done(outer);
}
