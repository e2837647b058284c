/*
 * state.c - the collector's process state (see state.h).
 */
#include "collector/state.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static struct col_real col_reals;
static struct col_config col_cfg;
static struct col_counters col_count;
static _Atomic int col_is_active; /* owner process, collecting */
static _Atomic int col_finished;
static _Atomic uint64_t map_change_ns;

const struct col_real *col_real(void)
{
	return &col_reals;
}

void *col_next_sym(const char *name, const char *version)
{
	void *p = version ? dlvsym(RTLD_NEXT, name, version) : NULL;
	return p ? p : dlsym(RTLD_NEXT, name);
}

void col_resolve_reals(void)
{
	struct col_real *r = &col_reals;
	r->pthread_create = (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *),
				     void *))col_next_sym("pthread_create", "GLIBC_2.34");
	r->sigaction =
		(int (*)(int, const struct sigaction *, struct sigaction *))col_next_sym("sigaction", NULL);
	r->signal = (__sighandler_t(*)(int, __sighandler_t))col_next_sym("signal", NULL);
	r->sigprocmask = (int (*)(int, const sigset_t *, sigset_t *))col_next_sym("sigprocmask", NULL);
	r->pthread_sigmask =
		(int (*)(int, const sigset_t *, sigset_t *))col_next_sym("pthread_sigmask", "GLIBC_2.32");
	r->exit_ = (void (*)(int))col_next_sym("_exit", NULL);
	r->exit = (void (*)(int))col_next_sym("exit", NULL);
	r->Exit_ = (void (*)(int))col_next_sym("_Exit", NULL);
	r->dlopen = (void *(*)(const char *, int))col_next_sym("dlopen", "GLIBC_2.34");
	r->dlclose = (int (*)(void *))col_next_sym("dlclose", "GLIBC_2.34");
	r->pthread_mutex_lock = (int (*)(pthread_mutex_t *))col_next_sym("pthread_mutex_lock", NULL);
}

struct col_config *col_config(void)
{
	return &col_cfg;
}

struct col_counters *col_counters(void)
{
	return &col_count;
}

/*
 * A page the kernel gives a child made by fork or clone without CLONE_VM
 * zeroed (MADV_WIPEONFORK, Linux 4.14): its first byte, set when this
 * process became active, says that it is still that process.  A child made
 * by the raw system call (no atfork handler ran) finds it 0, so it never
 * records into its parent's data files.  NULL where the kernel refuses.
 */
static volatile uint8_t *self_page;

static void self_mark(void)
{
	if (!self_page) {
		void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return;
		if (madvise(p, 4096, MADV_WIPEONFORK) != 0) {
			munmap(p, 4096);
			return;
		}
		self_page = p;
	}
	self_page[0] = 1;
}

int col_collecting(void)
{
	return atomic_load_explicit(&col_is_active, memory_order_acquire) &&
	       !atomic_load_explicit(&col_finished, memory_order_relaxed) && (!self_page || self_page[0]);
}

int col_forked_unseen(void)
{
	return atomic_load_explicit(&col_is_active, memory_order_acquire) && self_page && !self_page[0];
}

void col_set_active(int on)
{
	if (on) {
		self_mark();
		atomic_store(&col_finished, 0);
	}
	atomic_store(&col_is_active, on ? 1 : 0);
}

static _Atomic int col_is_paused, col_was_paused;
static _Atomic uint64_t col_resumed_ns; /* the latest resume */

void col_set_paused(int paused)
{
	if (paused)
		atomic_store(&col_was_paused, 1);
	else if (atomic_load(&col_is_paused))
		atomic_store(&col_resumed_ns, col_now_ns());
	atomic_store(&col_is_paused, paused ? 1 : 0);
}

uint64_t col_recording_since_ns(void)
{
	struct col_config *cfg = col_config();
	uint64_t r = atomic_load_explicit(&col_resumed_ns, memory_order_relaxed);
	uint64_t w = cfg->window_start_ns ? cfg->start_ns + cfg->window_start_ns : 0;
	return r > w ? r : w;
}

int col_paused(void)
{
	return atomic_load_explicit(&col_is_paused, memory_order_relaxed);
}

int col_pause_seen(void)
{
	return atomic_load_explicit(&col_was_paused, memory_order_relaxed);
}

int col_recording(void)
{
	return col_collecting() && !col_paused();
}

int col_active(void)
{
	return atomic_load(&col_is_active);
}

int col_mark_finished(void)
{
	return atomic_exchange(&col_finished, 1);
}

uint64_t col_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t col_thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint32_t col_gettid(void)
{
	return (uint32_t)syscall(SYS_gettid);
}

uint64_t col_map_change_ns(void)
{
	return atomic_load_explicit(&map_change_ns, memory_order_acquire);
}

void col_map_changed(uint64_t now_ns)
{
	atomic_store_explicit(&map_change_ns, now_ns, memory_order_release);
}
