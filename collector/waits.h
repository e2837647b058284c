/*
 * waits.h - the blocking calls that a handled signal interrupts with EINTR
 * whatever SA_RESTART says (signal(7): poll, ppoll, select, pselect,
 * epoll_wait, epoll_pwait, epoll_pwait2, nanosleep, clock_nanosleep, usleep,
 * sleep, pause, sigsuspend, msgrcv, msgsnd, semop, semtimedop; the sigwait
 * family is signals.c's).  A clock sample taken while a thread enters or
 * leaves such a call (the kernel's part of it is CPU time too) would end it
 * early with EINTR, which the program never sees without the collector.
 * waits.c interposes each (exported under its own name, libcollector.map)
 * and runs the real one with the sampling signals the program does not
 * want blocked (signals_quiet_begin, or added to the mask the call installs
 * itself), so that a sample due meanwhile is taken as the call returns;
 * the grid points of the thread's CPU time that pass inside the call are
 * the call's (threads_wait_begin, threads_wait_end: a task-clock event does
 * not count the kernel's switching of the thread off its CPU and back).
 * Calls that cannot block (a zero timeout, IPC_NOWAIT) pass straight
 * through, as does every call in a process that is not collecting.
 *
 * What remains: the same calls made by the raw system call (Go's runtime,
 * static code), and socket calls with SO_RCVTIMEO/SO_SNDTIMEO timeouts,
 * which are not wrapped (their cost would fall on every send and recv):
 * collect(1) says so.
 *
 * Nothing here allocates; the real functions are found with dlsym(RTLD_NEXT)
 * on first use.
 */
#ifndef COLLECTOR_WAITS_H
#define COLLECTOR_WAITS_H

/* Nothing to call: the module is its exported interposers. */

#endif
