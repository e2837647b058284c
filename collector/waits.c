/*
 * waits.c - the EINTR-prone blocking calls, run with the collector's
 * sampling signals blocked (see waits.h).
 */
#include "collector/waits.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/epoll.h>
#include <sys/msg.h>
#include <sys/select.h>
#include <sys/sem.h>
#include <time.h>
#include <unistd.h>

#include "collector/collector.h"
#include "collector/signals.h"
#include "collector/state.h"
#include "collector/threads.h"

#define EXPORT __attribute__((visibility("default")))

/* 1 when the sampling signals are to be kept out of a blocking call. */
static int quiet_on(void)
{
	col_init();
	return signals_owned() && col_collecting();
}

/* FN (type T), the real NAME; ENOSYS from the wrapper (RET its result type) without one. */
#define REAL_FN(RET, T, NAME)                    \
	static void *_Atomic real_;              \
	T fn = (T)threads_next_fn(&real_, NAME); \
	if (!fn) {                               \
		errno = ENOSYS;                  \
		return (RET)-1;                  \
	}

/*
 * CALL with the sampling signals blocked around it (signals_quiet_begin,
 * quiet_end), errno as the real call left it.
 */
#define QUIET_RETURN(RET, CALL)                         \
	sigset_t saved_;                                \
	uint64_t outer_ = signals_quiet_begin(&saved_); \
	RET r_ = CALL;                                  \
	int e_ = errno;                                 \
	signals_quiet_end(&saved_, (void *)fn, outer_); \
	errno = e_;                                     \
	return r_

/*
 * The body of a wrapper: the real NAME (type T, RET its result type) called
 * as CALL, with the sampling signals blocked when BLOCKING and the process
 * collects.
 */
#define QUIET_CALL(RET, T, NAME, BLOCKING, CALL) \
	REAL_FN(RET, T, NAME)                    \
	if (!(BLOCKING) || !quiet_on())          \
		return CALL;                     \
	QUIET_RETURN(RET, CALL)

/*
 * The same for a call that installs a mask of its own (MASK, may be NULL:
 * the thread's then): the sampling signals are added to a copy of it, and
 * the grid points the call passed are charged to it (threads_wait_end) as
 * it returns.
 */
#define QUIET_MASK_CALL(RET, T, NAME, BLOCKING, MASK, CALL) \
	REAL_FN(RET, T, NAME)                               \
	if (!(BLOCKING) || !quiet_on())                     \
		return CALL;                                \
	if ((MASK) == NULL) {                               \
		QUIET_RETURN(RET, CALL);                    \
	}                                                   \
	sigset_t copy_ = *(MASK);                           \
	signals_quiet_add(&copy_);                          \
	MASK = &copy_;                                      \
	uint64_t outer_ = threads_wait_begin();             \
	RET r_ = CALL;                                      \
	int e_ = errno;                                     \
	threads_wait_end((uint64_t)(uintptr_t)fn);          \
	threads_wait_done(outer_);                          \
	errno = e_;                                         \
	return r_

static int zero_ts(const struct timespec *ts)
{
	return ts && ts->tv_sec == 0 && ts->tv_nsec == 0;
}

typedef int (*poll_fn)(struct pollfd *, nfds_t, int);
EXPORT int poll(struct pollfd *fds, nfds_t n, int timeout)
{
	QUIET_CALL(int, poll_fn, "poll", timeout != 0, fn(fds, n, timeout));
}

typedef int (*poll_chk_fn)(struct pollfd *, nfds_t, int, size_t);
EXPORT int __poll_chk(struct pollfd *fds, nfds_t n, int timeout, size_t fdslen);
EXPORT int __poll_chk(struct pollfd *fds, nfds_t n, int timeout, size_t fdslen)
{
	QUIET_CALL(int, poll_chk_fn, "__poll_chk", timeout != 0, fn(fds, n, timeout, fdslen));
}

typedef int (*ppoll_fn)(struct pollfd *, nfds_t, const struct timespec *, const sigset_t *);
EXPORT int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *ts, const sigset_t *mask)
{
	QUIET_MASK_CALL(int, ppoll_fn, "ppoll", !zero_ts(ts), mask, fn(fds, n, ts, mask));
}

typedef int (*ppoll_chk_fn)(struct pollfd *, nfds_t, const struct timespec *, const sigset_t *, size_t);
EXPORT int __ppoll_chk(struct pollfd *fds, nfds_t n, const struct timespec *ts, const sigset_t *mask,
		       size_t fdslen);
EXPORT int __ppoll_chk(struct pollfd *fds, nfds_t n, const struct timespec *ts, const sigset_t *mask,
		       size_t fdslen)
{
	QUIET_MASK_CALL(int, ppoll_chk_fn, "__ppoll_chk", !zero_ts(ts), mask, fn(fds, n, ts, mask, fdslen));
}

typedef int (*select_fn)(int, fd_set *, fd_set *, fd_set *, struct timeval *);
EXPORT int select(int n, fd_set *r, fd_set *w, fd_set *x, struct timeval *tv)
{
	QUIET_CALL(int, select_fn, "select", !(tv && tv->tv_sec == 0 && tv->tv_usec == 0),
		   fn(n, r, w, x, tv));
}

typedef int (*pselect_fn)(int, fd_set *, fd_set *, fd_set *, const struct timespec *, const sigset_t *);
EXPORT int pselect(int n, fd_set *r, fd_set *w, fd_set *x, const struct timespec *ts, const sigset_t *mask)
{
	QUIET_MASK_CALL(int, pselect_fn, "pselect", !zero_ts(ts), mask, fn(n, r, w, x, ts, mask));
}

typedef int (*epoll_wait_fn)(int, struct epoll_event *, int, int);
EXPORT int epoll_wait(int fd, struct epoll_event *ev, int max, int timeout)
{
	QUIET_CALL(int, epoll_wait_fn, "epoll_wait", timeout != 0, fn(fd, ev, max, timeout));
}

typedef int (*epoll_pwait_fn)(int, struct epoll_event *, int, int, const sigset_t *);
EXPORT int epoll_pwait(int fd, struct epoll_event *ev, int max, int timeout, const sigset_t *mask)
{
	QUIET_MASK_CALL(int, epoll_pwait_fn, "epoll_pwait", timeout != 0, mask,
			fn(fd, ev, max, timeout, mask));
}

typedef int (*epoll_pwait2_fn)(int, struct epoll_event *, int, const struct timespec *, const sigset_t *);
EXPORT int epoll_pwait2(int fd, struct epoll_event *ev, int max, const struct timespec *ts,
			const sigset_t *mask);
EXPORT int epoll_pwait2(int fd, struct epoll_event *ev, int max, const struct timespec *ts,
			const sigset_t *mask)
{
	QUIET_MASK_CALL(int, epoll_pwait2_fn, "epoll_pwait2", !zero_ts(ts), mask, fn(fd, ev, max, ts, mask));
}

typedef int (*nanosleep_fn)(const struct timespec *, struct timespec *);
EXPORT int nanosleep(const struct timespec *req, struct timespec *rem)
{
	QUIET_CALL(int, nanosleep_fn, "nanosleep", 1, fn(req, rem));
}

EXPORT int __nanosleep(const struct timespec *req, struct timespec *rem);
EXPORT int __nanosleep(const struct timespec *req, struct timespec *rem)
{
	QUIET_CALL(int, nanosleep_fn, "__nanosleep", 1, fn(req, rem));
}

typedef int (*clock_nanosleep_fn)(clockid_t, int, const struct timespec *, struct timespec *);
EXPORT int clock_nanosleep(clockid_t clk, int flags, const struct timespec *req, struct timespec *rem)
{
	QUIET_CALL(int, clock_nanosleep_fn, "clock_nanosleep", 1, fn(clk, flags, req, rem));
}

typedef int (*usleep_fn)(useconds_t);
EXPORT int usleep(useconds_t us)
{
	QUIET_CALL(int, usleep_fn, "usleep", us != 0, fn(us));
}

typedef unsigned (*sleep_fn)(unsigned);
EXPORT unsigned sleep(unsigned s)
{
	QUIET_CALL(unsigned, sleep_fn, "sleep", s != 0, fn(s));
}

typedef int (*pause_fn)(void);
EXPORT int pause(void)
{
	QUIET_CALL(int, pause_fn, "pause", 1, fn());
}

typedef int (*sigsuspend_fn)(const sigset_t *);

/* sigsuspend with the sampling signals added to the mask it waits under. */
static int quiet_sigsuspend(void *_Atomic *slot, const char *name, const sigset_t *mask)
{
	sigsuspend_fn fn = (sigsuspend_fn)threads_next_fn(slot, name);
	if (!fn) {
		errno = ENOSYS;
		return -1;
	}
	if (!quiet_on())
		return fn(mask);
	sigset_t copy = *mask;
	signals_quiet_add(&copy);
	uint64_t outer = threads_wait_begin();
	int r = fn(&copy);
	int e = errno;
	threads_wait_end((uint64_t)(uintptr_t)fn);
	threads_wait_done(outer);
	errno = e;
	return r;
}

EXPORT int sigsuspend(const sigset_t *mask)
{
	static void *_Atomic real;
	return quiet_sigsuspend(&real, "sigsuspend", mask);
}

EXPORT int __sigsuspend(const sigset_t *mask);
EXPORT int __sigsuspend(const sigset_t *mask)
{
	static void *_Atomic real;
	return quiet_sigsuspend(&real, "__sigsuspend", mask);
}

typedef ssize_t (*msgrcv_fn)(int, void *, size_t, long, int);
EXPORT ssize_t msgrcv(int id, void *msg, size_t size, long type, int flags)
{
	QUIET_CALL(ssize_t, msgrcv_fn, "msgrcv", !(flags & IPC_NOWAIT), fn(id, msg, size, type, flags));
}

typedef int (*msgsnd_fn)(int, const void *, size_t, int);
EXPORT int msgsnd(int id, const void *msg, size_t size, int flags)
{
	QUIET_CALL(int, msgsnd_fn, "msgsnd", !(flags & IPC_NOWAIT), fn(id, msg, size, flags));
}

typedef int (*semop_fn)(int, struct sembuf *, size_t);
EXPORT int semop(int id, struct sembuf *ops, size_t n)
{
	QUIET_CALL(int, semop_fn, "semop", 1, fn(id, ops, n));
}

typedef int (*semtimedop_fn)(int, struct sembuf *, size_t, const struct timespec *);
EXPORT int semtimedop(int id, struct sembuf *ops, size_t n, const struct timespec *ts)
{
	QUIET_CALL(int, semtimedop_fn, "semtimedop", !zero_ts(ts), fn(id, ops, n, ts));
}
