/*
 * sampler.c - per-thread CPU-time sampling signals (see sampler.h).
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

#define GOLDEN 0.6180339887498949
#define PAGE_BYTES 4096u

static enum sampler_kind sampler_mode;
static uint64_t sampler_interval_ns;
static double sampler_seed;
static _Atomic uint64_t sampler_count;
static int sampler_fd_floor;          /* perf fds are moved to numbers >= this, away from the program's */
static uint64_t sampler_forced_first; /* PA_SAMPLER_FIRST_NS (tests): every thread's first period */
static int sampler_split;             /* each sample's CPU time is split into user and system */

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

/* The next thread's first expiry: a phase in [1, I] ns. */
static uint64_t first_ns(void)
{
	if (sampler_forced_first)
		return sampler_forced_first;
	uint64_t k = atomic_fetch_add(&sampler_count, 1);
	double f = sampler_seed + (double)k * GOLDEN;
	f -= (double)(uint64_t)f;
	return 1 + (uint64_t)(f * (double)(sampler_interval_ns - 1));
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
	sampler_interval_ns = (uint64_t)interval_us * 1000u;
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
	if (sampler_forced_first > sampler_interval_ns)
		sampler_forced_first = sampler_interval_ns;
	const char *force = getenv("PA_SAMPLER");
	if (force && strcmp(force, "timer") == 0)
		return;
	int fd = perf_open(sampler_interval_ns, 0);
	if (fd < 0)
		return; /* perf_event_paranoid >= 2 without CAP_PERFMON, seccomp, no perf events */
	close(fd);
	sampler_fd_floor = fdkeep_floor();
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

static int start_timer(struct sampler_thread *s, uint32_t tid, void *cookie)
{
	struct sigevent sev;
	memset(&sev, 0, sizeof sev);
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SAMPLER_SIGNAL;
	sev.sigev_value.sival_ptr = cookie;
	sev._sigev_un._tid = (pid_t)tid;
	timer_t id;
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &id) != 0)
		return -errno;
	uint64_t first = first_ns(), iv = sampler_interval_ns;
	struct itimerspec its = {
		.it_interval = {.tv_sec = (time_t)(iv / 1000000000u), .tv_nsec = (long)(iv % 1000000000u)},
		.it_value = {.tv_sec = (time_t)(first / 1000000000u), .tv_nsec = (long)(first % 1000000000u)},
	};
	if (timer_settime(id, 0, &its, NULL) != 0) {
		int e = errno;
		timer_delete(id);
		return -e;
	}
	s->timer = id;
	s->kind = SAMPLER_TIMER;
	return 0;
}

int sampler_move_high(int fd)
{
	if (!sampler_fd_floor)
		sampler_fd_floor = fdkeep_floor();
	int high = fcntl(fd, F_DUPFD_CLOEXEC, sampler_fd_floor);
	if (high < 0)
		return fd; /* none free up there: the low one will do, it is closed at once */
	close(fd);
	return high;
}

/*
 * Make thread tid's task-clock event with period period_ns, signalling the
 * thread, mapped (the mapping keeps it), enabled for one overflow (refresh 1)
 * or for good (refresh 0).  The descriptor stays open for the caller to
 * close (*ret_fd), so that the next event gets another number.
 */
static void *perf_event(uint32_t tid, uint64_t period_ns, int refresh, int *ret_fd)
{
	int fd = perf_open(period_ns, tid);
	if (fd < 0)
		return NULL;
	fd = sampler_move_high(fd);
	struct f_owner_ex owner = {F_OWNER_TID, (pid_t)tid};
	void *page = MAP_FAILED;
	if (fcntl(fd, F_SETSIG, SAMPLER_SIGNAL) == 0 && fcntl(fd, F_SETOWN_EX, &owner) == 0 &&
	    fcntl(fd, F_SETFL, O_ASYNC) == 0)
		page = mmap(NULL, PAGE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (page == MAP_FAILED) {
		close(fd);
		return NULL;
	}
	if (ioctl(fd, refresh ? PERF_EVENT_IOC_REFRESH : PERF_EVENT_IOC_ENABLE, refresh) != 0) {
		munmap(page, PAGE_BYTES);
		close(fd);
		return NULL;
	}
	*ret_fd = fd;
	return page;
}

static int start_perf(struct sampler_thread *s, uint32_t tid)
{
	/*
	 * The phase event is armed for one overflow only: the first period can
	 * be as short as the kernel allows (10 us), and an event that kept
	 * overflowing at that rate while the thread has the signal blocked (around
	 * a fork, say) would keep the CPU in interrupts for good.
	 */
	int pfd = -1, sfd = -1;
	void *steady = perf_event(tid, sampler_interval_ns, 0, &sfd);
	if (!steady)
		return -EINVAL;
	/*
	 * The phase event last: the CPU time it counts is the thread's own
	 * from here, not the making of the other event (of a 1 ms thread,
	 * that was 3% of its samples charged to the collector's start-up).
	 */
	void *phase = perf_event(tid, first_ns(), 1, &pfd);
	if (!phase) {
		munmap(steady, PAGE_BYTES);
		close(sfd);
		return -EINVAL;
	}
	s->phase_fd_num = pfd;
	s->steady_fd_num = sfd;
	atomic_store(&s->phase_page, phase);
	atomic_store(&s->steady_page, steady);
	s->kind = SAMPLER_PERF;
	close(pfd); /* the mappings keep the events; the signals keep the numbers */
	close(sfd);
	return 0;
}

int sampler_start(struct sampler_thread *s, uint32_t tid, void *cookie, int force_timer)
{
	memset(s, 0, sizeof *s);
	s->phase_fd_num = s->steady_fd_num = -1;
	if (sampler_mode == SAMPLER_NONE)
		return 0;
	if (sampler_mode == SAMPLER_PERF && !force_timer && start_perf(s, tid) == 0)
		return 0;
	return start_timer(s, tid, cookie);
}

int sampler_owns(const struct sampler_thread *s, const siginfo_t *si, const void *cookie)
{
	if (s->kind == SAMPLER_TIMER)
		return si->si_code == SI_TIMER && si->si_value.sival_ptr == cookie;
	if (s->kind == SAMPLER_PERF) /* POLL_HUP: the phase event's overflow that used up its refresh */
		return (si->si_code == POLL_IN || si->si_code == POLL_HUP) &&
		       (si->si_fd == s->steady_fd_num || si->si_fd == s->phase_fd_num);
	return 0;
}

static void let_go(void *_Atomic *page)
{
	void *p = atomic_exchange(page, NULL); /* sampler_stop may race from the thread ending the process */
	if (p)
		syscall(SYS_munmap, p, (size_t)PAGE_BYTES); /* the last reference: the event goes */
}

void sampler_after_sample(struct sampler_thread *s)
{
	if (s->kind == SAMPLER_PERF && atomic_load_explicit(&s->phase_page, memory_order_relaxed))
		let_go(&s->phase_page); /* it has given its one overflow */
}

void sampler_stop(struct sampler_thread *s)
{
	if (s->kind == SAMPLER_TIMER) {
		timer_delete(s->timer);
	} else if (s->kind == SAMPLER_PERF) {
		/*
		 * The phase event first: a short thread's one chance of a
		 * sample; an overflow while the steady one is torn down
		 * would come too late to be taken.
		 */
		let_go(&s->phase_page);
		let_go(&s->steady_page);
	}
	s->kind = SAMPLER_NONE;
}

void sampler_forget(struct sampler_thread *s)
{
	/* the child has no timers or perf mappings of its parent (VM_DONTCOPY) and no descriptor */
	atomic_store(&s->phase_page, NULL);
	atomic_store(&s->steady_page, NULL);
	s->kind = SAMPLER_NONE;
}
