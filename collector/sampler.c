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

#define GOLDEN 0.6180339887498949
#define PAGE_BYTES 4096u

static enum sampler_kind sampler_mode;
static uint64_t sampler_interval_ns;
static double sampler_seed;
static _Atomic uint64_t sampler_count;
static int sampler_fd_floor;          /* perf fds are moved to numbers >= this, away from the program's */
static uint64_t sampler_forced_first; /* PA_SAMPLER_FIRST_NS (tests): every thread's first period */

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
	if (!interval_us)
		return;
	sampler_mode = SAMPLER_TIMER;
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
	struct rlimit rl;
	sampler_fd_floor = 512;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur / 2 > 512)
		sampler_fd_floor = (int)(rl.rlim_cur / 2);
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

static int start_timer(struct sampler_thread *s, uint32_t tid, void *cookie)
{
	struct sigevent sev;
	memset(&sev, 0, sizeof sev);
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGPROF;
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

static int start_perf(struct sampler_thread *s, uint32_t tid)
{
	int fd = perf_open(first_ns(), tid);
	if (fd < 0)
		return -errno;
	int high = fcntl(fd, F_DUPFD_CLOEXEC, sampler_fd_floor);
	close(fd);
	if (high < 0)
		return -EMFILE;
	struct f_owner_ex owner = {F_OWNER_TID, (pid_t)tid};
	void *page = MAP_FAILED;
	if (fcntl(high, F_SETSIG, SIGPROF) == 0 && fcntl(high, F_SETOWN_EX, &owner) == 0 &&
	    fcntl(high, F_SETFL, O_ASYNC) == 0)
		page = mmap(NULL, PAGE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, high, 0);
	if (page == MAP_FAILED) {
		close(high);
		return -EINVAL;
	}
	atomic_store(&s->fd, high);
	s->fd_num = high;
	s->page = page;
	s->kind = SAMPLER_PERF;
	/*
	 * Enabled for one overflow only: the first period can be as short as
	 * the kernel allows (10 us), and if the thread has SIGPROF blocked then
	 * (around a fork, say) an event that kept overflowing at that rate would
	 * keep the CPU in interrupts and the thread in the kernel for good.  The
	 * handler sets the real period and enables it again.
	 */
	if (ioctl(high, PERF_EVENT_IOC_REFRESH, 1) != 0) {
		sampler_stop(s);
		return -EINVAL;
	}
	return 0;
}

int sampler_start(struct sampler_thread *s, uint32_t tid, void *cookie, int force_timer)
{
	memset(s, 0, sizeof *s);
	atomic_store(&s->fd, -1);
	s->fd_num = -1;
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
	if (s->kind == SAMPLER_PERF) /* POLL_HUP: the overflow that used up the refresh count */
		return (si->si_code == POLL_IN || si->si_code == POLL_HUP) && si->si_fd == s->fd_num;
	return 0;
}

void sampler_after_sample(struct sampler_thread *s)
{
	if (s->kind != SAMPLER_PERF || atomic_load_explicit(&s->fd, memory_order_relaxed) < 0)
		return;
	int fd = atomic_exchange(&s->fd, -1); /* sampler_stop may race from the thread ending the process */
	if (fd < 0)
		return;
	uint64_t period = sampler_interval_ns;
	syscall(SYS_ioctl, fd, PERF_EVENT_IOC_PERIOD, &period);
	syscall(SYS_ioctl, fd, PERF_EVENT_IOC_ENABLE, 0); /* no overflow limit from now on */
	syscall(SYS_close, fd);                           /* the mapping keeps the event */
}

void sampler_stop(struct sampler_thread *s)
{
	if (s->kind == SAMPLER_TIMER) {
		timer_delete(s->timer);
	} else if (s->kind == SAMPLER_PERF) {
		int fd = atomic_exchange(&s->fd, -1);
		if (fd >= 0)
			close(fd);
		if (s->page)
			munmap(s->page, PAGE_BYTES); /* the last reference: the event goes */
	}
	s->kind = SAMPLER_NONE;
	s->page = NULL;
}

void sampler_forget(struct sampler_thread *s)
{
	/* the child has no timers or perf mappings of its parent (VM_DONTCOPY), only fds */
	int fd = atomic_exchange(&s->fd, -1);
	if (s->kind == SAMPLER_PERF && fd >= 0)
		close(fd);
	s->kind = SAMPLER_NONE;
	s->page = NULL;
}
