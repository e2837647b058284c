/*
 * signals.h - SIGPROF ownership: our handler stays installed whatever the
 * target does.  The interposed sigaction/signal record the application's
 * SIGPROF disposition (and give it back to the application); SIGPROFs that
 * are not from our timers are forwarded to it (SA_SIGINFO honoured, SIG_IGN
 * ignored, SIG_DFL emulated by terminating with the signal).  The interposed
 * sigprocmask/pthread_sigmask strip SIGPROF from blocking sets.  A <warning>
 * goes to log.xml the first time the application installs a SIGPROF handler
 * or tries to block SIGPROF.
 */
#ifndef COLLECTOR_SIGNALS_H
#define COLLECTOR_SIGNALS_H

/* Install our handler; the previous disposition becomes the application's. */
int signals_init(void);

#endif
