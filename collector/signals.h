/*
 * signals.h - the sampling signals' handler, and the program's view of the
 * signals the collector uses.
 *
 * The samplers signal SIGURG at first (sampler.h).  Our handler is
 * installed on every signal the samplers use or used; the program's
 * disposition of such a signal is kept apart (the interposed
 * sigaction/signal record it and give it back), and its signals that are
 * not the samplers' are forwarded to it (SA_SIGINFO, SA_RESETHAND,
 * SA_NODEFER and sa_mask honoured; SIG_IGN dropped; SIG_DFL: SIGURG's is
 * to ignore it, another signal's is taken as the kernel would).
 *
 * When the program shows it wants the sampling signal itself (signals_want:
 * it handles it, blocks it, waits for it with sigwait and its kin, or reads
 * it through a signalfd), the samplers move to a real-time signal it does
 * not use, and the program's masks, waits and signalfds of its signal are
 * then the kernel's own, untouched.  A sampling signal the program does not
 * want is kept out of its masks, its sigwait sets and its signalfds, and
 * blocked while it waits in a call that a handled signal would interrupt
 * with EINTR (waits.h): the sampling never shows in the program's signals.
 * SIGURG is moved away from at the first sign of the program's interest
 * (any mask or wait set holding it); a real-time sampling signal only when
 * a set names it without holding every real-time signal (sigfillset is not
 * a wish for a signal).  A <warning> goes to log.xml the first time each
 * happens.  SIGPROF is the application's own.
 */
#ifndef COLLECTOR_SIGNALS_H
#define COLLECTOR_SIGNALS_H

#include <signal.h>
#include <stdint.h>
#include <time.h>

/* Install our handler on SIGURG; its previous disposition becomes the application's. */
int signals_init(void);

/* 1 in the owner process once our handler is installed (forks keep it). SIGNAL_SAFE. */
int signals_owned(void);

/*
 * The interposers' work once the collector is initialised (interpose.c
 * exports these names over them).
 */
int signals_sigaction(int sig, const struct sigaction *act, struct sigaction *old);
__sighandler_t signals_signal(int sig, __sighandler_t h);
int signals_sigprocmask(int how, const sigset_t *set, sigset_t *old);
int signals_pthread_sigmask(int how, const sigset_t *set, sigset_t *old);
int signals_sigwait(const sigset_t *set, int *sig);
int signals_sigwaitinfo(const sigset_t *set, siginfo_t *info);
int signals_sigtimedwait(const sigset_t *set, siginfo_t *info, const struct timespec *timeout);
int signals_signalfd(int fd, const sigset_t *mask, int flags);

/*
 * Around a call that a handled signal interrupts with EINTR whatever
 * SA_RESTART says (poll, nanosleep, ...: waits.c): move the calling
 * thread's sampler off a signal the program wants, then block the sampling
 * signals the program does not want, saving the thread's mask in *saved
 * (quiet_end restores it; a sample due meanwhile is taken then).  quiet_add
 * adds those signals to a mask the call installs itself (ppoll, pselect,
 * epoll_pwait, sigsuspend).  quiet_begin starts the call's own grid points
 * (threads_wait_begin; its result is for quiet_end), quiet_end's fn is the
 * library function called: the leaf of the grid points the call passed
 * (threads_wait_end) and of a sample that comes as the signals are
 * released (threads_wait_leaf).  SIGNAL_SAFE but for the move.
 */
uint64_t signals_quiet_begin(sigset_t *saved);
void signals_quiet_end(const sigset_t *saved, const void *fn, uint64_t outer);
void signals_quiet_add(sigset_t *mask);

#endif
