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

/* Install our handler; the previous disposition becomes the application's. */
int signals_init(void);

#endif
