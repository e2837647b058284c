/*
 * syncwrap.c - libcollector-sync.so: the interposers of collect -s, under
 * every symbol version glibc 2.36 exports for them (the pthread mutex,
 * condition variable, rwlock, barrier, join, semaphore and spin lock waits,
 * and C11's mtx_, cnd_ and thrd_join).  collect preloads it before
 * libcollector.so only with -s, so no other target ever runs through these
 * functions.
 *
 * Each versioned entry point calls the real function of the same version
 * (dlvsym(RTLD_NEXT), resolved on its first call); the old
 * pthread_cond_*@GLIBC_2.2.5 are a different implementation from
 * @@GLIBC_2.3.2, so a program bound to one keeps it.  Fast path: a lock,
 * semaphore or join first tries the non-blocking variant (trylock,
 * tryrdlock, trywait, tryjoin); when that succeeds the call returns at once,
 * without reading a clock or calling libcollector.so.  Only then the clock
 * is read around the real blocking call and the wait reported through
 * libcollector.so's trace API (trace_api.h), which compares it with the
 * threshold and records it.  Condition variable and barrier waits cannot be
 * tried: they are always timed.  Once libcollector.so watches an object
 * (it had a recorded wait), every call that takes a lock or semaphore,
 * waiting or not, is reported to it (took, TIMED_TAKE) to be counted and
 * sampled; until then that costs the fast path one predictable branch.
 * Not counted: the mutex a condition variable wait takes back, and
 * pthread_mutex_lock while the process has one thread (no object can be
 * watched before a second thread exists, and glibc never turns
 * __libc_single_threaded back on).  Return values and errno are the real
 * functions': a failed attempt's errno (sem_trywait's EAGAIN) is put back
 * before the real call; an error-checking mutex's relock fails the attempt
 * with EBUSY and gets the real lock's EDEADLK; robust mutexes are not tried
 * (see try_mutex_lock), so EOWNERDEAD and ENOTRECOVERABLE come from the real
 * lock.  Nothing here allocates or locks, and nothing calls what it
 * interposes.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/single_threaded.h>
#include <threads.h>
#include <time.h>

#include "collector/trace_api.h"
#include "collector/wrapreal.h"
#include "experiment/format.h"

#define EXPORT __attribute__((visibility("default")))

/* The non-blocking variants (not interposed: the default version is the only one that matters). */
static struct real try_mutex = {"pthread_mutex_trylock", NULL, NULL};
static struct real try_rdlock = {"pthread_rwlock_tryrdlock", NULL, NULL};
static struct real try_wrlock = {"pthread_rwlock_trywrlock", NULL, NULL};
static struct real try_join = {"pthread_tryjoin_np", NULL, NULL};
static struct real try_sem = {"sem_trywait", NULL, NULL};
static struct real try_spin = {"pthread_spin_trylock", NULL, NULL};
static struct real try_mtx = {"mtx_trylock", NULL, NULL};

/* ------------------------------------------------------------ the trace API */

/* The API when this process traces waits now, else NULL. */
static const struct pa_trace_api *tracing(void)
{
	const struct pa_trace_api *a = trace_api();
	return a && a->sync_active() ? a : NULL;
}

/*
 * 1 once libcollector.so watches an object (synctrace.h): from then on every
 * call that takes an object reports it (took).  Never back to 0.
 */
static _Atomic int watching;

/* The wait that began at t0 is over: report it. */
static void waited(const struct pa_trace_api *a, unsigned func, const void *obj, uint64_t t0, void *leaf)
{
	uint64_t t1 = now_ns();
	if (a->sync_record(func, (uint64_t)(uintptr_t)obj, t0, t1 - t0, (uint64_t)(uintptr_t)leaf) &&
	    !atomic_load_explicit(&watching, memory_order_relaxed))
		atomic_store_explicit(&watching, 1, memory_order_relaxed);
}

/* An object is watched: report that func (real function rl) took obj. */
__attribute__((noinline, cold)) static void took_watched(unsigned func, const void *obj, struct real *rl)
{
	const struct pa_trace_api *a = tracing();
	if (a)
		a->sync_acquired(func, (uint64_t)(uintptr_t)obj, (uint64_t)(uintptr_t)real_get(rl));
}

/*
 * The call took obj without waiting: while no object is watched, one
 * predictable branch.  Keeps errno.
 */
static inline __attribute__((always_inline)) void took(unsigned func, const void *obj, struct real *rl)
{
	if (__builtin_expect(atomic_load_explicit(&watching, memory_order_relaxed), 0))
		took_watched(func, obj, rl);
}

/*
 * A blocking call after the attempt failed: `call` with the real function
 * `fn`, timed and reported when tracing.  Keeps errno as the call leaves it.
 * TAKES: 1 when a 0 result means the call took obj (a lock, a semaphore),
 * which is then reported as an acquisition when an object is watched.
 */
#define TIMED_CALL(func, obj, fn, call, takes)                                                          \
	do {                                                                                            \
		const struct pa_trace_api *a_ = tracing();                                              \
		if (!a_)                                                                                \
			return call;                                                                    \
		uint64_t t0_ = now_ns();                                                                \
		__typeof__(call) r_ = call;                                                             \
		int e_ = errno;                                                                         \
		waited(a_, func, obj, t0_, (void *)(uintptr_t)(fn));                                    \
		if ((takes) && r_ == 0 && atomic_load_explicit(&watching, memory_order_relaxed))        \
			a_->sync_acquired(func, (uint64_t)(uintptr_t)(obj), (uint64_t)(uintptr_t)(fn)); \
		errno = e_;                                                                             \
		return r_;                                                                              \
	} while (0)
/* A wait that takes its object: a lock, a semaphore. */
#define TIMED_TAKE(func, obj, fn, call) TIMED_CALL(func, obj, fn, call, 1)
/* A wait for an event: a condition variable, a barrier, a join. */
#define TIMED(func, obj, fn, call) TIMED_CALL(func, obj, fn, call, 0)

typedef int (*mutex_fn)(pthread_mutex_t *);
typedef int (*mutex_timed_fn)(pthread_mutex_t *, const struct timespec *);
typedef int (*mutex_clock_fn)(pthread_mutex_t *, clockid_t, const struct timespec *);
typedef int (*cond_fn)(pthread_cond_t *, pthread_mutex_t *);
typedef int (*cond_timed_fn)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
typedef int (*cond_clock_fn)(pthread_cond_t *, pthread_mutex_t *, clockid_t, const struct timespec *);
typedef int (*rw_fn)(pthread_rwlock_t *);
typedef int (*rw_timed_fn)(pthread_rwlock_t *, const struct timespec *);
typedef int (*rw_clock_fn)(pthread_rwlock_t *, clockid_t, const struct timespec *);
typedef int (*barrier_fn)(pthread_barrier_t *);
typedef int (*join_fn)(pthread_t, void **);
typedef int (*join_timed_fn)(pthread_t, void **, const struct timespec *);
typedef int (*join_clock_fn)(pthread_t, void **, clockid_t, const struct timespec *);
typedef int (*sem_fn)(sem_t *);
typedef int (*sem_timed_fn)(sem_t *, const struct timespec *);
typedef int (*sem_clock_fn)(sem_t *, clockid_t, const struct timespec *);
typedef int (*spin_fn)(pthread_spinlock_t *);
typedef int (*mtx_fn)(mtx_t *);
typedef int (*mtx_timed_fn)(mtx_t *__restrict, const struct timespec *__restrict);
typedef int (*cnd_fn)(cnd_t *, mtx_t *);
typedef int (*cnd_timed_fn)(cnd_t *__restrict, mtx_t *__restrict, const struct timespec *__restrict);
typedef int (*thrd_join_fn)(thrd_t, int *);

/* ------------------------------------------------------------ the attempts */

/*
 * Robust, priority-inheritance and priority-protect mutexes are not tried:
 * glibc 2.36's pthread_mutex_trylock on a robust mutex made not recoverable
 * returns ENOTRECOVERABLE but leaves it locked (pthread_mutex_lock unlocks
 * it), so the real lock after it would deadlock.  Their waits are always
 * timed, which keeps every result (EOWNERDEAD, ENOTRECOVERABLE) the real
 * lock's.
 */
/* glibc's PTHREAD_MUTEX_ROBUST_NORMAL_NP | _PRIO_INHERIT_NP | _PRIO_PROTECT_NP */
#define MUTEX_KIND_UNTRIED 0x70

/* 1 when the non-blocking attempt took the mutex; errno kept otherwise. */
static inline __attribute__((always_inline)) int try_mutex_lock(pthread_mutex_t *m)
{
	if (m->__data.__kind & MUTEX_KIND_UNTRIED)
		return 0;
	mutex_fn t = (mutex_fn)real_get(&try_mutex);
	return t &&
	       t(m) == 0; /* else EBUSY (an error-checking relock too), or what the real lock says again */
}

static inline __attribute__((always_inline)) int try_rw(struct real *which, pthread_rwlock_t *l)
{
	rw_fn t = (rw_fn)real_get(which);
	return t && t(l) == 0;
}

static inline __attribute__((always_inline)) int try_join_thread(pthread_t th, void **ret)
{
	join_fn t = (join_fn)real_get(&try_join);
	return t && t(th, ret) == 0;
}

static inline __attribute__((always_inline)) int try_sem_wait(sem_t *s)
{
	int saved = errno;
	sem_fn t = (sem_fn)real_get(&try_sem);
	if (t && t(s) == 0)
		return 1;
	errno = saved; /* sem_trywait's EAGAIN is not the program's */
	return 0;
}

/* ------------------------------------------------------------ the waits, by signature */

__attribute__((noinline)) static int wait_mutex_lock(struct real *rl, pthread_mutex_t *m)
{
	mutex_fn fn = (mutex_fn)real_get(rl);
	if (!fn)
		return ENOSYS;
	TIMED_TAKE(EXP_SYNC_MUTEX_LOCK, m, fn, fn(m));
}

/*
 * While the process has one thread, pthread_mutex_lock of a process-private
 * mutex cannot wait (another thread would have to hold it; relocking one's
 * own is a deadlock, not a wait), and glibc's lock then takes it without an
 * atomic instruction, where the attempt (trylock) always makes one: 12.8
 * against 6.6 ns for a lock/unlock pair here.  So the real lock is called
 * directly.  __libc_single_threaded (glibc 2.32) turns false before a second
 * thread exists.
 */
#define MUTEX_KIND_PSHARED 0x80 /* glibc's PTHREAD_MUTEX_PSHARED_BIT */

/* The attempt, then the timed wait: out of line, so that the entry point is a bare tail call. */
__attribute__((noinline)) static int try_or_wait_mutex_lock(struct real *rl, pthread_mutex_t *m)
{
	real_get(rl); /* resolved here, for do_mutex_lock's single-threaded path */
	if (try_mutex_lock(m)) {
		took(EXP_SYNC_MUTEX_LOCK, m, rl);
		return 0;
	}
	return wait_mutex_lock(rl, m);
}

/*
 * Either way a tail call, so the entry point needs no frame and saves no
 * register (syncwrap.c is built without frame pointers; the collector walks
 * its frames by CFI): 3 ns of a 7.4 ns lock/unlock pair went to the frame.
 */
static inline __attribute__((always_inline)) int do_mutex_lock(struct real *rl, pthread_mutex_t *m)
{
	if (__libc_single_threaded && !(m->__data.__kind & (MUTEX_KIND_UNTRIED | MUTEX_KIND_PSHARED))) {
		mutex_fn fn = (mutex_fn)atomic_load_explicit(&rl->fn, memory_order_relaxed);
		if (fn)
			return fn(m);
	}
	return try_or_wait_mutex_lock(rl, m);
}

__attribute__((noinline)) static int wait_mutex_timedlock(struct real *rl, pthread_mutex_t *m,
							  const struct timespec *at)
{
	mutex_timed_fn fn = (mutex_timed_fn)real_get(rl);
	if (!fn)
		return ENOSYS;
	TIMED_TAKE(EXP_SYNC_MUTEX_TIMEDLOCK, m, fn, fn(m, at));
}

static inline __attribute__((always_inline)) int do_mutex_timedlock(struct real *rl, pthread_mutex_t *m,
								    const struct timespec *at)
{
	if (try_mutex_lock(m)) {
		took(EXP_SYNC_MUTEX_TIMEDLOCK, m, rl);
		return 0;
	}
	return wait_mutex_timedlock(rl, m, at);
}

__attribute__((noinline)) static int wait_mutex_clocklock(struct real *rl, pthread_mutex_t *m, clockid_t c,
							  const struct timespec *at)
{
	mutex_clock_fn fn = (mutex_clock_fn)real_get(rl);
	if (!fn)
		return ENOSYS;
	TIMED_TAKE(EXP_SYNC_MUTEX_CLOCKLOCK, m, fn, fn(m, c, at));
}

static inline __attribute__((always_inline)) int do_mutex_clocklock(struct real *rl, pthread_mutex_t *m,
								    clockid_t c, const struct timespec *at)
{
	if (try_mutex_lock(m)) {
		took(EXP_SYNC_MUTEX_CLOCKLOCK, m, rl);
		return 0;
	}
	return wait_mutex_clocklock(rl, m, c, at);
}

static int do_cond_wait(struct real *rl, pthread_cond_t *cv, pthread_mutex_t *m)
{
	cond_fn fn = (cond_fn)real_get(rl);
	if (!fn)
		return ENOSYS;
	TIMED(EXP_SYNC_COND_WAIT, cv, fn, fn(cv, m));
}

static int do_cond_timedwait(struct real *rl, pthread_cond_t *cv, pthread_mutex_t *m,
			     const struct timespec *at)
{
	cond_timed_fn fn = (cond_timed_fn)real_get(rl);
	if (!fn)
		return ENOSYS;
	TIMED(EXP_SYNC_COND_TIMEDWAIT, cv, fn, fn(cv, m, at));
}

static int do_cond_clockwait(struct real *rl, pthread_cond_t *cv, pthread_mutex_t *m, clockid_t c,
			     const struct timespec *at)
{
	cond_clock_fn fn = (cond_clock_fn)real_get(rl);
	if (!fn)
		return ENOSYS;
	TIMED(EXP_SYNC_COND_CLOCKWAIT, cv, fn, fn(cv, m, c, at));
}

__attribute__((noinline)) static int wait_rw(struct real *rl, unsigned func, pthread_rwlock_t *l)
{
	rw_fn fn = (rw_fn)real_get(rl);
	if (!fn)
		return ENOSYS;
	TIMED_TAKE(func, l, fn, fn(l));
}

static inline __attribute__((always_inline)) int do_rw(struct real *rl, unsigned func, pthread_rwlock_t *l)
{
	if (try_rw(func == EXP_SYNC_RWLOCK_RDLOCK ? &try_rdlock : &try_wrlock, l)) {
		took(func, l, rl);
		return 0;
	}
	return wait_rw(rl, func, l);
}

__attribute__((noinline)) static int wait_rw_timed(struct real *rl, unsigned func, pthread_rwlock_t *l,
						   const struct timespec *at)
{
	rw_timed_fn fn = (rw_timed_fn)real_get(rl);
	if (!fn)
		return ENOSYS;
	TIMED_TAKE(func, l, fn, fn(l, at));
}

static inline __attribute__((always_inline)) int do_rw_timed(struct real *rl, unsigned func,
							     pthread_rwlock_t *l, const struct timespec *at)
{
	if (try_rw(func == EXP_SYNC_RWLOCK_TIMEDRDLOCK ? &try_rdlock : &try_wrlock, l)) {
		took(func, l, rl);
		return 0;
	}
	return wait_rw_timed(rl, func, l, at);
}

__attribute__((noinline)) static int wait_rw_clock(struct real *rl, unsigned func, pthread_rwlock_t *l,
						   clockid_t c, const struct timespec *at)
{
	rw_clock_fn fn = (rw_clock_fn)real_get(rl);
	if (!fn)
		return ENOSYS;
	TIMED_TAKE(func, l, fn, fn(l, c, at));
}

static inline __attribute__((always_inline)) int
do_rw_clock(struct real *rl, unsigned func, pthread_rwlock_t *l, clockid_t c, const struct timespec *at)
{
	if (try_rw(func == EXP_SYNC_RWLOCK_CLOCKRDLOCK ? &try_rdlock : &try_wrlock, l)) {
		took(func, l, rl);
		return 0;
	}
	return wait_rw_clock(rl, func, l, c, at);
}

static int do_barrier_wait(struct real *rl, pthread_barrier_t *b)
{
	barrier_fn fn = (barrier_fn)real_get(rl);
	if (!fn)
		return ENOSYS;
	TIMED(EXP_SYNC_BARRIER_WAIT, b, fn, fn(b));
}

__attribute__((noinline)) static int wait_join(struct real *rl, pthread_t th, void **ret)
{
	join_fn fn = (join_fn)real_get(rl);
	if (!fn)
		return ENOSYS;
	TIMED(EXP_SYNC_JOIN, (void *)th, fn, fn(th, ret));
}

static inline __attribute__((always_inline)) int do_join(struct real *rl, pthread_t th, void **ret)
{
	if (try_join_thread(th, ret))
		return 0;
	return wait_join(rl, th, ret);
}

__attribute__((noinline)) static int wait_timedjoin(struct real *rl, pthread_t th, void **ret,
						    const struct timespec *at)
{
	join_timed_fn fn = (join_timed_fn)real_get(rl);
	if (!fn)
		return ENOSYS;
	TIMED(EXP_SYNC_TIMEDJOIN, (void *)th, fn, fn(th, ret, at));
}

static inline __attribute__((always_inline)) int do_timedjoin(struct real *rl, pthread_t th, void **ret,
							      const struct timespec *at)
{
	if (try_join_thread(th, ret))
		return 0;
	return wait_timedjoin(rl, th, ret, at);
}

__attribute__((noinline)) static int wait_clockjoin(struct real *rl, pthread_t th, void **ret, clockid_t c,
						    const struct timespec *at)
{
	join_clock_fn fn = (join_clock_fn)real_get(rl);
	if (!fn)
		return ENOSYS;
	TIMED(EXP_SYNC_CLOCKJOIN, (void *)th, fn, fn(th, ret, c, at));
}

static inline __attribute__((always_inline)) int do_clockjoin(struct real *rl, pthread_t th, void **ret,
							      clockid_t c, const struct timespec *at)
{
	if (try_join_thread(th, ret))
		return 0;
	return wait_clockjoin(rl, th, ret, c, at);
}

static int sem_nosys(void)
{
	errno = ENOSYS;
	return -1;
}

__attribute__((noinline)) static int wait_sem_wait(struct real *rl, sem_t *s)
{
	sem_fn fn = (sem_fn)real_get(rl);
	if (!fn)
		return sem_nosys();
	TIMED_TAKE(EXP_SYNC_SEM_WAIT, s, fn, fn(s));
}

static inline __attribute__((always_inline)) int do_sem_wait(struct real *rl, sem_t *s)
{
	if (try_sem_wait(s)) {
		took(EXP_SYNC_SEM_WAIT, s, rl);
		return 0;
	}
	return wait_sem_wait(rl, s);
}

__attribute__((noinline)) static int wait_sem_timedwait(struct real *rl, sem_t *s, const struct timespec *at)
{
	sem_timed_fn fn = (sem_timed_fn)real_get(rl);
	if (!fn)
		return sem_nosys();
	TIMED_TAKE(EXP_SYNC_SEM_TIMEDWAIT, s, fn, fn(s, at));
}

static inline __attribute__((always_inline)) int do_sem_timedwait(struct real *rl, sem_t *s,
								  const struct timespec *at)
{
	if (try_sem_wait(s)) {
		took(EXP_SYNC_SEM_TIMEDWAIT, s, rl);
		return 0;
	}
	return wait_sem_timedwait(rl, s, at);
}

__attribute__((noinline)) static int wait_sem_clockwait(struct real *rl, sem_t *s, clockid_t c,
							const struct timespec *at)
{
	sem_clock_fn fn = (sem_clock_fn)real_get(rl);
	if (!fn)
		return sem_nosys();
	TIMED_TAKE(EXP_SYNC_SEM_CLOCKWAIT, s, fn, fn(s, c, at));
}

static inline __attribute__((always_inline)) int do_sem_clockwait(struct real *rl, sem_t *s, clockid_t c,
								  const struct timespec *at)
{
	if (try_sem_wait(s)) {
		took(EXP_SYNC_SEM_CLOCKWAIT, s, rl);
		return 0;
	}
	return wait_sem_clockwait(rl, s, c, at);
}

static inline __attribute__((always_inline)) int try_spin_lock(pthread_spinlock_t *l)
{
	spin_fn t = (spin_fn)real_get(&try_spin);
	return t && t(l) == 0;
}

__attribute__((noinline)) static int wait_spin_lock(struct real *rl, pthread_spinlock_t *l)
{
	spin_fn fn = (spin_fn)real_get(rl);
	if (!fn)
		return ENOSYS;
	TIMED_TAKE(EXP_SYNC_SPIN_LOCK, (void *)l, fn, fn(l));
}

static inline __attribute__((always_inline)) int do_spin_lock(struct real *rl, pthread_spinlock_t *l)
{
	if (try_spin_lock(l)) {
		took(EXP_SYNC_SPIN_LOCK, (void *)l, rl);
		return 0;
	}
	return wait_spin_lock(rl, l);
}

static inline __attribute__((always_inline)) int try_mtx_lock(mtx_t *m)
{
	mtx_fn t = (mtx_fn)real_get(&try_mtx);
	return t && t(m) == thrd_success;
}

__attribute__((noinline)) static int wait_mtx_lock(struct real *rl, mtx_t *m)
{
	mtx_fn fn = (mtx_fn)real_get(rl);
	if (!fn)
		return thrd_error;
	TIMED_TAKE(EXP_SYNC_MTX_LOCK, m, fn, fn(m));
}

static inline __attribute__((always_inline)) int do_mtx_lock(struct real *rl, mtx_t *m)
{
	if (try_mtx_lock(m)) {
		took(EXP_SYNC_MTX_LOCK, m, rl);
		return thrd_success;
	}
	return wait_mtx_lock(rl, m);
}

__attribute__((noinline)) static int wait_mtx_timedlock(struct real *rl, mtx_t *__restrict m,
							const struct timespec *__restrict at)
{
	mtx_timed_fn fn = (mtx_timed_fn)real_get(rl);
	if (!fn)
		return thrd_error;
	TIMED_TAKE(EXP_SYNC_MTX_TIMEDLOCK, m, fn, fn(m, at));
}

static inline __attribute__((always_inline)) int do_mtx_timedlock(struct real *rl, mtx_t *__restrict m,
								  const struct timespec *__restrict at)
{
	if (try_mtx_lock(m)) {
		took(EXP_SYNC_MTX_TIMEDLOCK, m, rl);
		return thrd_success;
	}
	return wait_mtx_timedlock(rl, m, at);
}

static int do_cnd_wait(struct real *rl, cnd_t *cv, mtx_t *m)
{
	cnd_fn fn = (cnd_fn)real_get(rl);
	if (!fn)
		return thrd_error;
	TIMED(EXP_SYNC_CND_WAIT, cv, fn, fn(cv, m));
}

static int do_cnd_timedwait(struct real *rl, cnd_t *__restrict cv, mtx_t *__restrict m,
			    const struct timespec *__restrict at)
{
	cnd_timed_fn fn = (cnd_timed_fn)real_get(rl);
	if (!fn)
		return thrd_error;
	TIMED(EXP_SYNC_CND_TIMEDWAIT, cv, fn, fn(cv, m, at));
}

static int do_thrd_join(struct real *rl, thrd_t th, int *res)
{
	void *pres;
	if (try_join_thread(th, &pres)) { /* as glibc's thrd_join converts pthread_join's */
		if (res)
			*res = (int)(intptr_t)pres;
		return thrd_success;
	}
	thrd_join_fn fn = (thrd_join_fn)real_get(rl);
	if (!fn)
		return thrd_error;
	TIMED(EXP_SYNC_THRD_JOIN, (void *)th, fn, fn(th, res));
}

/* ------------------------------------------------------------ versioned entry points */

/*
 * ENTRY(api, tag, VERSION, at, params, call): the entry point pa_<tag>,
 * exported as api@VERSION (at "@") or api@@VERSION (at "@@", the default),
 * with its own real function, api of VERSION.  collector/sync/libcollector-sync.map
 * declares the versions.
 */
#define ENTRY(api, tag, ver, at, params, call)             \
	static struct real real_##tag = {#api, ver, NULL}; \
	EXPORT int pa_##tag params;                        \
	int pa_##tag params                                \
	{                                                  \
		struct real *rl = &real_##tag;             \
		return call;                               \
	}                                                  \
	__asm__(".symver pa_" #tag ", " #api at ver);

/* pthread_mutex_* */
ENTRY(pthread_mutex_lock, mutex_lock, "GLIBC_2.2.5", "@@", (pthread_mutex_t * m), do_mutex_lock(rl, m))
ENTRY(pthread_mutex_timedlock, mutex_timedlock_225, "GLIBC_2.2.5", "@",
      (pthread_mutex_t * m, const struct timespec *at), do_mutex_timedlock(rl, m, at))
ENTRY(pthread_mutex_timedlock, mutex_timedlock_234, "GLIBC_2.34", "@@",
      (pthread_mutex_t * m, const struct timespec *at), do_mutex_timedlock(rl, m, at))
ENTRY(pthread_mutex_clocklock, mutex_clocklock_230, "GLIBC_2.30", "@",
      (pthread_mutex_t * m, clockid_t c, const struct timespec *at), do_mutex_clocklock(rl, m, c, at))
ENTRY(pthread_mutex_clocklock, mutex_clocklock_234, "GLIBC_2.34", "@@",
      (pthread_mutex_t * m, clockid_t c, const struct timespec *at), do_mutex_clocklock(rl, m, c, at))

/* pthread_cond_*: @GLIBC_2.2.5 is the old implementation, @@GLIBC_2.3.2 the current one */
ENTRY(pthread_cond_wait, cond_wait_225, "GLIBC_2.2.5", "@", (pthread_cond_t * cv, pthread_mutex_t *m),
      do_cond_wait(rl, cv, m))
ENTRY(pthread_cond_wait, cond_wait_232, "GLIBC_2.3.2", "@@", (pthread_cond_t * cv, pthread_mutex_t *m),
      do_cond_wait(rl, cv, m))
ENTRY(pthread_cond_timedwait, cond_timedwait_225, "GLIBC_2.2.5", "@",
      (pthread_cond_t * cv, pthread_mutex_t *m, const struct timespec *at), do_cond_timedwait(rl, cv, m, at))
ENTRY(pthread_cond_timedwait, cond_timedwait_232, "GLIBC_2.3.2", "@@",
      (pthread_cond_t * cv, pthread_mutex_t *m, const struct timespec *at), do_cond_timedwait(rl, cv, m, at))
ENTRY(pthread_cond_clockwait, cond_clockwait_230, "GLIBC_2.30", "@",
      (pthread_cond_t * cv, pthread_mutex_t *m, clockid_t c, const struct timespec *at),
      do_cond_clockwait(rl, cv, m, c, at))
ENTRY(pthread_cond_clockwait, cond_clockwait_234, "GLIBC_2.34", "@@",
      (pthread_cond_t * cv, pthread_mutex_t *m, clockid_t c, const struct timespec *at),
      do_cond_clockwait(rl, cv, m, c, at))

/* pthread_rwlock_* */
ENTRY(pthread_rwlock_rdlock, rw_rdlock_225, "GLIBC_2.2.5", "@", (pthread_rwlock_t * l),
      do_rw(rl, EXP_SYNC_RWLOCK_RDLOCK, l))
ENTRY(pthread_rwlock_rdlock, rw_rdlock_234, "GLIBC_2.34", "@@", (pthread_rwlock_t * l),
      do_rw(rl, EXP_SYNC_RWLOCK_RDLOCK, l))
ENTRY(pthread_rwlock_wrlock, rw_wrlock_225, "GLIBC_2.2.5", "@", (pthread_rwlock_t * l),
      do_rw(rl, EXP_SYNC_RWLOCK_WRLOCK, l))
ENTRY(pthread_rwlock_wrlock, rw_wrlock_234, "GLIBC_2.34", "@@", (pthread_rwlock_t * l),
      do_rw(rl, EXP_SYNC_RWLOCK_WRLOCK, l))
ENTRY(pthread_rwlock_timedrdlock, rw_timedrdlock_225, "GLIBC_2.2.5", "@",
      (pthread_rwlock_t * l, const struct timespec *at), do_rw_timed(rl, EXP_SYNC_RWLOCK_TIMEDRDLOCK, l, at))
ENTRY(pthread_rwlock_timedrdlock, rw_timedrdlock_234, "GLIBC_2.34", "@@",
      (pthread_rwlock_t * l, const struct timespec *at), do_rw_timed(rl, EXP_SYNC_RWLOCK_TIMEDRDLOCK, l, at))
ENTRY(pthread_rwlock_timedwrlock, rw_timedwrlock_225, "GLIBC_2.2.5", "@",
      (pthread_rwlock_t * l, const struct timespec *at), do_rw_timed(rl, EXP_SYNC_RWLOCK_TIMEDWRLOCK, l, at))
ENTRY(pthread_rwlock_timedwrlock, rw_timedwrlock_234, "GLIBC_2.34", "@@",
      (pthread_rwlock_t * l, const struct timespec *at), do_rw_timed(rl, EXP_SYNC_RWLOCK_TIMEDWRLOCK, l, at))
ENTRY(pthread_rwlock_clockrdlock, rw_clockrdlock_230, "GLIBC_2.30", "@",
      (pthread_rwlock_t * l, clockid_t c, const struct timespec *at),
      do_rw_clock(rl, EXP_SYNC_RWLOCK_CLOCKRDLOCK, l, c, at))
ENTRY(pthread_rwlock_clockrdlock, rw_clockrdlock_234, "GLIBC_2.34", "@@",
      (pthread_rwlock_t * l, clockid_t c, const struct timespec *at),
      do_rw_clock(rl, EXP_SYNC_RWLOCK_CLOCKRDLOCK, l, c, at))
ENTRY(pthread_rwlock_clockwrlock, rw_clockwrlock_230, "GLIBC_2.30", "@",
      (pthread_rwlock_t * l, clockid_t c, const struct timespec *at),
      do_rw_clock(rl, EXP_SYNC_RWLOCK_CLOCKWRLOCK, l, c, at))
ENTRY(pthread_rwlock_clockwrlock, rw_clockwrlock_234, "GLIBC_2.34", "@@",
      (pthread_rwlock_t * l, clockid_t c, const struct timespec *at),
      do_rw_clock(rl, EXP_SYNC_RWLOCK_CLOCKWRLOCK, l, c, at))

/* pthread_barrier_wait */
ENTRY(pthread_barrier_wait, barrier_wait_225, "GLIBC_2.2.5", "@", (pthread_barrier_t * b),
      do_barrier_wait(rl, b))
ENTRY(pthread_barrier_wait, barrier_wait_234, "GLIBC_2.34", "@@", (pthread_barrier_t * b),
      do_barrier_wait(rl, b))

/* pthread_join and the _np joins (pthread_tryjoin_np never waits: not traced) */
ENTRY(pthread_join, join_225, "GLIBC_2.2.5", "@", (pthread_t th, void **ret), do_join(rl, th, ret))
ENTRY(pthread_join, join_234, "GLIBC_2.34", "@@", (pthread_t th, void **ret), do_join(rl, th, ret))
ENTRY(pthread_timedjoin_np, timedjoin_233, "GLIBC_2.3.3", "@",
      (pthread_t th, void **ret, const struct timespec *at), do_timedjoin(rl, th, ret, at))
ENTRY(pthread_timedjoin_np, timedjoin_234, "GLIBC_2.34", "@@",
      (pthread_t th, void **ret, const struct timespec *at), do_timedjoin(rl, th, ret, at))
ENTRY(pthread_clockjoin_np, clockjoin_231, "GLIBC_2.31", "@",
      (pthread_t th, void **ret, clockid_t c, const struct timespec *at), do_clockjoin(rl, th, ret, c, at))
ENTRY(pthread_clockjoin_np, clockjoin_234, "GLIBC_2.34", "@@",
      (pthread_t th, void **ret, clockid_t c, const struct timespec *at), do_clockjoin(rl, th, ret, c, at))

/* sem_* */
ENTRY(sem_wait, sem_wait_225, "GLIBC_2.2.5", "@", (sem_t * s), do_sem_wait(rl, s))
ENTRY(sem_wait, sem_wait_234, "GLIBC_2.34", "@@", (sem_t * s), do_sem_wait(rl, s))
ENTRY(sem_timedwait, sem_timedwait_225, "GLIBC_2.2.5", "@", (sem_t * s, const struct timespec *at),
      do_sem_timedwait(rl, s, at))
ENTRY(sem_timedwait, sem_timedwait_234, "GLIBC_2.34", "@@", (sem_t * s, const struct timespec *at),
      do_sem_timedwait(rl, s, at))
ENTRY(sem_clockwait, sem_clockwait_230, "GLIBC_2.30", "@",
      (sem_t * s, clockid_t c, const struct timespec *at), do_sem_clockwait(rl, s, c, at))
ENTRY(sem_clockwait, sem_clockwait_234, "GLIBC_2.34", "@@",
      (sem_t * s, clockid_t c, const struct timespec *at), do_sem_clockwait(rl, s, c, at))

/* pthread_spin_lock */
ENTRY(pthread_spin_lock, spin_lock_225, "GLIBC_2.2.5", "@", (pthread_spinlock_t * l), do_spin_lock(rl, l))
ENTRY(pthread_spin_lock, spin_lock_234, "GLIBC_2.34", "@@", (pthread_spinlock_t * l), do_spin_lock(rl, l))

/* C11 */
ENTRY(mtx_lock, mtx_lock_228, "GLIBC_2.28", "@", (mtx_t * m), do_mtx_lock(rl, m))
ENTRY(mtx_lock, mtx_lock_234, "GLIBC_2.34", "@@", (mtx_t * m), do_mtx_lock(rl, m))
ENTRY(mtx_timedlock, mtx_timedlock_228, "GLIBC_2.28", "@",
      (mtx_t *__restrict m, const struct timespec *__restrict at), do_mtx_timedlock(rl, m, at))
ENTRY(mtx_timedlock, mtx_timedlock_234, "GLIBC_2.34", "@@",
      (mtx_t *__restrict m, const struct timespec *__restrict at), do_mtx_timedlock(rl, m, at))
ENTRY(cnd_wait, cnd_wait_228, "GLIBC_2.28", "@", (cnd_t * cv, mtx_t *m), do_cnd_wait(rl, cv, m))
ENTRY(cnd_wait, cnd_wait_234, "GLIBC_2.34", "@@", (cnd_t * cv, mtx_t *m), do_cnd_wait(rl, cv, m))
ENTRY(cnd_timedwait, cnd_timedwait_228, "GLIBC_2.28", "@",
      (cnd_t *__restrict cv, mtx_t *__restrict m, const struct timespec *__restrict at),
      do_cnd_timedwait(rl, cv, m, at))
ENTRY(cnd_timedwait, cnd_timedwait_234, "GLIBC_2.34", "@@",
      (cnd_t *__restrict cv, mtx_t *__restrict m, const struct timespec *__restrict at),
      do_cnd_timedwait(rl, cv, m, at))
ENTRY(thrd_join, thrd_join_228, "GLIBC_2.28", "@", (thrd_t th, int *res), do_thrd_join(rl, th, res))
ENTRY(thrd_join, thrd_join_234, "GLIBC_2.34", "@@", (thrd_t th, int *res), do_thrd_join(rl, th, res))
