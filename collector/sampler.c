/*
 * sampler.c - per-thread CPU-time sampling signals on a per-thread grid (see
 * sampler.h).  Everything that arms, re-arms or stops a thread's sampler
 * uses raw system calls only: a thread re-arms itself in the handler.
 */
#include "collector/sampler.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collector/fdkeep.h"
#include "collector/state.h"

#define GOLDEN 0.6180339887498949
#define PAGE_BYTES 4096u
/* perf clamps a task-clock period to at least 10 us; a timer takes 1 ns */
#define MIN_PERIOD_NS 1u

static enum sampler_kind sampler_mode;
static uint64_t sampler_interval;
static double sampler_seed;
static _Atomic uint64_t sampler_count;
static int sampler_fd_floor;          /* perf fds are moved to numbers >= this, away from the program's */
static uint64_t sampler_forced_first; /* PA_SAMPLER_FIRST_NS (tests): every thread's first phase */
static int sampler_split;             /* each sample's CPU time is split into user and system */
static _Atomic int sampler_sig = SAMPLER_SIGNAL;
static _Atomic uint64_t sampler_sigs_used = 1ull << (SAMPLER_SIGNAL - 1); /* bit sig-1 */

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void sampler_reseed(void)
{
	/* any uniform value: the clock's low bits mixed (splitmix64) */
	uint64_t z = mono_ns() ^ ((uint64_t)getpid() << 32);
	z += 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	sampler_seed = (double)(z >> 11) / 9007199254740992.0;
	atomic_store(&sampler_count, 0);
}

uint64_t sampler_interval_ns(void)
{
	return sampler_interval;
}

uint64_t sampler_phase_ns(void)
{
	if (sampler_forced_first)
		return sampler_forced_first;
	uint64_t k = atomic_fetch_add(&sampler_count, 1);
	double f = sampler_seed + (double)k * GOLDEN;
	f -= (double)(uint64_t)f;
	return 1 + (uint64_t)(f * (double)(sampler_interval - 1));
}

static int perf_open(uint64_t period_ns, uint32_t tid)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = period_ns;
	a.disabled = 1;
	a.exclude_kernel = 0; /* time in system calls counts, as for the CPU clock */
	a.exclude_hv = 1;
	a.wakeup_events = 1;
	return (int)syscall(SYS_perf_event_open, &a, (pid_t)tid, -1, -1, (unsigned long)PERF_FLAG_FD_CLOEXEC);
}

void sampler_init(uint32_t interval_us)
{
	sampler_interval = (uint64_t)interval_us * 1000u;
	sampler_reseed();
	sampler_mode = SAMPLER_NONE;
	sampler_split = 0;
	if (!interval_us)
		return;
	sampler_mode = SAMPLER_TIMER;
	const char *split = getenv("PA_CPU_SPLIT");
	uint64_t probe;
	sampler_split = !(split && strcmp(split, "off") == 0) && sampler_user_ns(&probe) == 0;
	const char *first = getenv("PA_SAMPLER_FIRST_NS");
	sampler_forced_first = first ? strtoull(first, NULL, 10) : 0;
	if (sampler_forced_first > sampler_interval)
		sampler_forced_first = sampler_interval;
	sampler_fd_floor = fdkeep_floor();
	const char *force = getenv("PA_SAMPLER");
	if (force && strcmp(force, "timer") == 0)
		return;
	int fd = perf_open(sampler_interval, 0);
	if (fd < 0)
		return; /* perf_event_paranoid >= 2 without CAP_PERFMON, seccomp, no perf events */
	close(fd);
	sampler_mode = SAMPLER_PERF;
}

enum sampler_kind sampler_kind(void)
{
	return sampler_mode;
}

const char *sampler_mechanism(void)
{
	return sampler_mode == SAMPLER_PERF    ? "perf_task_clock"
	       : sampler_mode == SAMPLER_TIMER ? "timer_create"
					       : "none";
}

const char *sampler_split_mechanism(void)
{
	return sampler_split ? "rusage_thread" : "none";
}

int sampler_splits(void)
{
	return sampler_split;
}

int sampler_user_ns(uint64_t *ret)
{
	/*
	 * Not a second task-clock event with exclude_kernel: the kernel
	 * ignores exclude_kernel when it counts task-clock (Linux 6.18 counts
	 * the same with and without it); only its samples are filtered.  The
	 * raw system call: glibc's getrusage is the same call, but is not on
	 * the async-signal-safe list.
	 */
	struct rusage ru;
	if (syscall(SYS_getrusage, RUSAGE_THREAD, &ru) != 0)
		return -1;
	*ret = (uint64_t)ru.ru_utime.tv_sec * 1000000000u + (uint64_t)ru.ru_utime.tv_usec * 1000u;
	return 0;
}

/* ------------------------------------------------------------ the signal */

int sampler_signal(void)
{
	return atomic_load_explicit(&sampler_sig, memory_order_acquire);
}

int sampler_signal_used(int sig)
{
	return sig >= 1 && sig <= 64 &&
	       (atomic_load_explicit(&sampler_sigs_used, memory_order_acquire) >> (sig - 1) & 1);
}

int sampler_signal_move(int from, int (*taken)(int sig), int (*install)(int sig))
{
	int cur = sampler_signal();
	if (cur != from)
		return cur;
	/* the highest real-time signals: programs number theirs up from SIGRTMIN */
	for (int sig = SIGRTMAX; sig >= SIGRTMAX - 8 && sig > SIGRTMIN; sig--) {
		struct sigaction old;
		if (sampler_signal_used(sig) || taken(sig) || col_real()->sigaction(sig, NULL, &old) != 0 ||
		    old.sa_handler != SIG_DFL || install(sig) != 0)
			continue;
		atomic_fetch_or(&sampler_sigs_used, 1ull << (sig - 1));
		atomic_store_explicit(&sampler_sig, sig, memory_order_release);
		return sig;
	}
	return cur;
}

/* ------------------------------------------------------------ arming */

int sampler_move_high(int fd)
{
	if (!sampler_fd_floor)
		sampler_fd_floor = fdkeep_floor();
	int high = (int)syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, sampler_fd_floor);
	if (high < 0)
		return fd; /* none free up there: the low one will do, it is closed at once */
	syscall(SYS_close, fd);
	return high;
}

/* The thread's timer: expiries at first_ns of its CPU time from now, then every I. */
static int start_timer(struct sampler_thread *s, uint32_t tid, void *cookie, uint64_t first_ns)
{
	struct sigevent sev;
	memset(&sev, 0, sizeof sev);
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = s->sig;
	sev.sigev_value.sival_ptr = cookie;
	sev._sigev_un._tid = (pid_t)tid;
	int id;
	if (syscall(SYS_timer_create, CLOCK_THREAD_CPUTIME_ID, &sev, &id) != 0)
		return -errno;
	uint64_t iv = sampler_interval;
	struct itimerspec its = {
		.it_interval = {.tv_sec = (time_t)(iv / 1000000000u), .tv_nsec = (long)(iv % 1000000000u)},
		.it_value = {.tv_sec = (time_t)(first_ns / 1000000000u),
			     .tv_nsec = (long)(first_ns % 1000000000u)},
	};
	if (syscall(SYS_timer_settime, id, 0, &its, NULL) != 0) {
		int e = errno;
		syscall(SYS_timer_delete, id);
		return -e;
	}
	s->timer_id = id;
	s->kind = SAMPLER_TIMER;
	if (atomic_load(&s->stopped)) { /* sampler_stop ran meanwhile, from another thread */
		syscall(SYS_timer_delete, id);
		s->kind = SAMPLER_NONE;
	}
	return 0;
}

void sampler_avoid(struct sampler_thread *s, const int *fds, unsigned n)
{
	s->navoid = 0;
	for (unsigned i = 0; i < n && s->navoid < SAMPLER_AVOID; i++)
		if (fds[i] >= 0)
			s->avoid[s->navoid++] = fds[i];
}

/* 1 if a new event of s must not carry number fd (a counter's, or one let go). */
static int taken_number(const struct sampler_thread *s, int fd)
{
	for (uint32_t i = 0; i < s->navoid; i++)
		if (s->avoid[i] == fd)
			return 1;
	for (uint32_t i = 0; i < s->nretired && i < SAMPLER_RETIRED; i++)
		if (s->retired_fd[i] == fd)
			return 1;
	return 0;
}

/*
 * fd moved high (sampler_move_high) to a number s has not used: the numbers
 * passed over stay open until one is found, so that the next try gets
 * another.
 */
static int move_high_for(const struct sampler_thread *s, int fd)
{
	int skipped[SAMPLER_AVOID + SAMPLER_RETIRED], n = 0;
	fd = sampler_move_high(fd);
	while (taken_number(s, fd) && n < (int)(sizeof skipped / sizeof skipped[0])) {
		skipped[n++] = fd;
		int again = (int)syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, fd);
		if (again < 0)
			break;
		fd = again;
	}
	for (int i = 0; i < n; i++)
		if (skipped[i] != fd)
			syscall(SYS_close, skipped[i]);
	return fd;
}

static void let_go(void *_Atomic *page)
{
	void *p = atomic_exchange(page, NULL); /* sampler_stop may race from the thread ending the process */
	if (p)
		syscall(SYS_munmap, p, (size_t)PAGE_BYTES); /* the last reference: the event goes */
}

/* Publish page as s's event, unless s was stopped meanwhile (then let it go). */
static void publish(struct sampler_thread *s, void *page)
{
	atomic_store(&s->page, page);
	if (atomic_load(&s->stopped))
		let_go(&s->page);
}

/*
 * Make thread s->tid's task-clock event with period period_ns, signalling
 * the thread with s->sig, mapped (the mapping keeps it) and its descriptor
 * closed.  s->fd_num, the number its signals carry, is set before the event
 * is enabled (a short first period can overflow at once), for one overflow
 * (refresh 1) or for good (refresh 0).  0, or -1 (s not armed).
 */
static int perf_event(struct sampler_thread *s, uint64_t period_ns, int refresh)
{
	int fd = perf_open(period_ns, s->tid);
	if (fd < 0)
		return -1;
	fd = move_high_for(s, fd);
	struct f_owner_ex owner = {F_OWNER_TID, (pid_t)s->tid};
	void *page = MAP_FAILED;
	if (syscall(SYS_fcntl, fd, F_SETSIG, s->sig) == 0 &&
	    syscall(SYS_fcntl, fd, F_SETOWN_EX, &owner) == 0 && syscall(SYS_fcntl, fd, F_SETFL, O_ASYNC) == 0)
		page = (void *)syscall(SYS_mmap, NULL, (size_t)PAGE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED,
				       fd, 0L);
	if (page == MAP_FAILED) {
		syscall(SYS_close, fd);
		return -1;
	}
	s->fd_num = fd;
	s->oneshot = refresh;
	s->kind = SAMPLER_PERF;
	publish(s, page);
	if (syscall(SYS_ioctl, fd, refresh ? PERF_EVENT_IOC_REFRESH : PERF_EVENT_IOC_ENABLE, refresh) != 0) {
		let_go(&s->page);
		syscall(SYS_close, fd);
		s->fd_num = -1;
		s->kind = SAMPLER_NONE;
		return -1;
	}
	syscall(SYS_close, fd); /* the mapping keeps the event; its signals keep the number */
	return 0;
}

int sampler_start(struct sampler_thread *s, uint32_t tid, void *cookie, int force_timer, uint64_t first_ns)
{
	memset(s, 0, sizeof *s);
	s->fd_num = -1;
	s->tid = tid;
	s->cookie = cookie;
	s->sig = sampler_signal();
	if (sampler_mode == SAMPLER_NONE)
		return 0;
	if (first_ns < MIN_PERIOD_NS)
		first_ns = MIN_PERIOD_NS;
	if (sampler_mode == SAMPLER_PERF && !force_timer && perf_event(s, first_ns, 1) == 0)
		return 0;
	return start_timer(s, tid, cookie, first_ns);
}

static void retire(struct sampler_thread *s, int fd)
{
	s->retired_fd[s->nretired % SAMPLER_RETIRED] = fd;
	s->retired_sig[s->nretired % SAMPLER_RETIRED] = s->sig;
	s->nretired++;
}

/*
 * Let the thread's event or timer go (its numbers retired); the thread's
 * own call.  s stops naming it first: a signal of it that comes as it goes
 * (at the return of munmap or timer_delete) is a retired one's, not the
 * current event's, whose expiry the handler would act on.
 */
static void disarm(struct sampler_thread *s)
{
	enum sampler_kind kind = s->kind;
	s->kind = SAMPLER_NONE;
	if (kind == SAMPLER_PERF)
		retire(s, s->fd_num);
	else if (kind == SAMPLER_TIMER)
		retire(s, -1);
	atomic_signal_fence(memory_order_seq_cst); /* the handler sees it retired before it goes */
	if (kind == SAMPLER_PERF)
		let_go(&s->page);
	else if (kind == SAMPLER_TIMER)
		syscall(SYS_timer_delete, s->timer_id);
}

int sampler_rearm(struct sampler_thread *s, uint64_t first_ns)
{
	if (atomic_load(&s->stopped))
		return 0;
	int force_timer = s->kind == SAMPLER_TIMER;
	disarm(s);
	s->sig = sampler_signal();
	if (first_ns < MIN_PERIOD_NS)
		first_ns = MIN_PERIOD_NS;
	if (sampler_mode == SAMPLER_PERF && !force_timer && perf_event(s, first_ns, 1) == 0)
		return 0;
	return start_timer(s, s->tid, s->cookie, first_ns);
}

int sampler_counts_apart(const struct sampler_thread *s)
{
	return s->kind == SAMPLER_PERF;
}

int sampler_first_pending(const struct sampler_thread *s)
{
	return s->kind == SAMPLER_PERF && s->oneshot;
}

int sampler_stale(const struct sampler_thread *s)
{
	return s->kind != SAMPLER_NONE && s->sig != sampler_signal();
}

int sampler_owns(const struct sampler_thread *s, int sig, const siginfo_t *si, const void *cookie)
{
	if (si->si_code == SI_TIMER) { /* a timer's value names its thread, retired ones too */
		if (si->si_value.sival_ptr != cookie)
			return 0;
		return s->kind == SAMPLER_TIMER && sig == s->sig ? 1 : sampler_signal_used(sig) ? 2 : 0;
	}
	/* POLL_HUP: the one-shot event's overflow that used up its refresh */
	if (si->si_code != POLL_IN && si->si_code != POLL_HUP)
		return 0;
	if (s->kind == SAMPLER_PERF && sig == s->sig && si->si_fd == s->fd_num)
		return 1;
	for (uint32_t i = 0; i < s->nretired && i < SAMPLER_RETIRED; i++)
		if (s->retired_fd[i] >= 0 && si->si_fd == s->retired_fd[i] && sig == s->retired_sig[i])
			return 2;
	return 0;
}

void sampler_after_sample(struct sampler_thread *s)
{
	if (s->kind != SAMPLER_PERF || !s->oneshot || atomic_load(&s->stopped))
		return;
	/* the first expiry has given its one overflow: the steady event, period I, from here */
	disarm(s);
	if (perf_event(s, sampler_interval, 0) == 0)
		return;
	start_timer(s, s->tid, s->cookie, sampler_interval); /* no descriptor free now: a timer needs none */
}

void sampler_stop(struct sampler_thread *s)
{
	atomic_store(&s->stopped, 1);
	if (s->kind == SAMPLER_TIMER)
		syscall(SYS_timer_delete, s->timer_id);
	else if (s->kind == SAMPLER_PERF)
		let_go(&s->page);
	s->kind = SAMPLER_NONE;
}

void sampler_forget(struct sampler_thread *s)
{
	/* the child has no timers or perf mappings of its parent (VM_DONTCOPY) and no descriptor */
	atomic_store(&s->page, NULL);
	s->kind = SAMPLER_NONE;
}
