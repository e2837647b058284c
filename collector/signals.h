/*
 * signals.h - ownership of the sampling signal (SAMPLER_SIGNAL, SIGURG; see
 * sampler.h): our handler stays installed whatever the target does.  The
 * interposed sigaction/signal record the application's disposition of that
 * signal (and give it back to the application); the signals that are not
 * from our samplers are forwarded to it (SA_SIGINFO honoured, SIG_IGN and
 * SIG_DFL ignored: SIGURG's default action).  The interposed
 * sigprocmask/pthread_sigmask strip the signal from blocking sets.  A
 * <warning> goes to log.xml the first time the application installs a
 * handler for it or tries to block it.  SIGPROF is the application's own.
 */
#ifndef COLLECTOR_SIGNALS_H
#define COLLECTOR_SIGNALS_H

#include <signal.h>

/* Install our handler; the previous disposition becomes the application's. */
int signals_init(void);

/* 1 in the owner process once our handler is installed (forks keep it). SIGNAL_SAFE. */
int signals_owned(void);

/*
 * The interposers' work once the collector is initialised (interpose.c
 * exports sigaction, signal, sigprocmask and pthread_sigmask over these).
 */
int signals_sigaction(int sig, const struct sigaction *act, struct sigaction *old);
__sighandler_t signals_signal(int sig, __sighandler_t h);
int signals_sigprocmask(int how, const sigset_t *set, sigset_t *old);
int signals_pthread_sigmask(int how, const sigset_t *set, sigset_t *old);

#endif
