/*
 * collector.c - libcollector.so's life cycle: lazy idempotent init (from the
 * constructor and from every interposer), the PA_* environment contract, the
 * data files, and the end of collection (atexit, destructor, _exit/_Exit).
 *
 * Invariant: only the process whose pid is PA_TARGET_PID and that created
 * the data files itself writes anything; a fork child or an exec'd image of
 * the same pid stays dormant.  Nothing here may take the target down: a
 * failing part is disabled, counted and noted in log.xml.
 */
#include "collector/collector.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "collector/encode.h"
#include "collector/loadmap.h"
#include "collector/logxml.h"
#include "collector/signals.h"
#include "collector/stacktab.h"
#include "collector/threads.h"
#include "collector/trace_api.h"
#include "experiment/record.h"
#include "experiment/xmlw.h"

#define EXPORT __attribute__((visibility("default")))

/* CPU-time timers fire at most once per kernel tick (HZ=250 here). */
#define KERNEL_TICK_US 4000u
#define DEPTH_DEFAULT 4096u
#define DEPTH_MAX 6000u
#define STACKTAB_LOG2 16

static struct col_real col_reals;
static struct col_config col_cfg;
static struct col_counters col_count;
static _Atomic int col_init_state; /* 0 none, 1 running, 2 done */
static _Atomic uint32_t col_init_tid;
static _Atomic int col_active; /* owner process, collecting */
static _Atomic int col_finished;

const struct col_real *col_real(void)
{
	return &col_reals;
}

struct col_config *col_config(void)
{
	return &col_cfg;
}

struct col_counters *col_counters(void)
{
	return &col_count;
}

int col_collecting(void)
{
	return atomic_load_explicit(&col_active, memory_order_acquire) &&
	       !atomic_load_explicit(&col_finished, memory_order_relaxed);
}

uint64_t col_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * One counter for all threads: its modification order agrees with
 * happens-before, so a free that a malloc's caller made possible gets a
 * later number even from another thread.
 */
static _Atomic uint64_t col_heap_seq;

uint64_t col_heap_stamp(void)
{
	return atomic_fetch_add_explicit(&col_heap_seq, 1, memory_order_relaxed) + 1;
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

static void *next_sym(const char *name, const char *version)
{
	void *p = version ? dlvsym(RTLD_NEXT, name, version) : NULL;
	return p ? p : dlsym(RTLD_NEXT, name);
}

static void resolve_reals(void)
{
	struct col_real *r = &col_reals;
	r->pthread_create = (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *))next_sym(
		"pthread_create", "GLIBC_2.34");
	r->sigaction =
		(int (*)(int, const struct sigaction *, struct sigaction *))next_sym("sigaction", NULL);
	r->signal = (__sighandler_t(*)(int, __sighandler_t))next_sym("signal", NULL);
	r->sigprocmask = (int (*)(int, const sigset_t *, sigset_t *))next_sym("sigprocmask", NULL);
	r->pthread_sigmask =
		(int (*)(int, const sigset_t *, sigset_t *))next_sym("pthread_sigmask", "GLIBC_2.32");
	r->exit_ = (void (*)(int))next_sym("_exit", NULL);
	r->Exit_ = (void (*)(int))next_sym("_Exit", NULL);
	r->dlopen = (void *(*)(const char *, int))next_sym("dlopen", "GLIBC_2.34");
	r->dlclose = (int (*)(void *))next_sym("dlclose", "GLIBC_2.34");
}

static uint64_t parse_u64(const char **s)
{
	uint64_t v = 0;
	while (**s >= '0' && **s <= '9')
		v = v * 10 + (uint64_t)(*(*s)++ - '0');
	return v;
}

/* PA_PARAMS: ';'-separated p=<us>, d=<depth>, t=<start_s>:<end_s>, H=0|1; unknown keys ignored. */
static void parse_params(const char *s, struct col_config *cfg)
{
	cfg->interval_us = 0;
	cfg->depth_limit = DEPTH_DEFAULT;
	cfg->heap_on = 0;
	while (s && *s) {
		char key = *s;
		if (s[1] == '=') {
			s += 2;
			if (key == 'p') {
				uint64_t v = parse_u64(&s);
				cfg->interval_us = v > 1000000000u ? 1000000000u : (uint32_t)v;
			} else if (key == 'd') {
				uint64_t v = parse_u64(&s);
				cfg->depth_limit = v < 1 ? 1 : v > DEPTH_MAX ? DEPTH_MAX : (uint32_t)v;
			} else if (key == 'H') {
				cfg->heap_on = parse_u64(&s) != 0;
			} else if (key == 't') {
				cfg->window_start_ns = parse_u64(&s) * 1000000000u;
				if (*s == ':') {
					s++;
					cfg->window_end_ns = parse_u64(&s) * 1000000000u;
				}
			}
		}
		while (*s && *s != ';')
			s++;
		if (*s == ';')
			s++;
	}
}

static void write_sample(uint64_t number)
{
	static struct blockw_cursor cursor; /* init and finish never overlap */
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return;
	struct exp_sample s = {
		.ts_ns = col_now_ns(),
		.number = number,
		.utime_ns =
			(uint64_t)ru.ru_utime.tv_sec * 1000000000u + (uint64_t)ru.ru_utime.tv_usec * 1000u,
		.stime_ns =
			(uint64_t)ru.ru_stime.tv_sec * 1000000000u + (uint64_t)ru.ru_stime.tv_usec * 1000u,
		.minflt = (uint64_t)ru.ru_minflt,
		.majflt = (uint64_t)ru.ru_majflt,
		.nswap = (uint64_t)ru.ru_nswap,
		.inblock = (uint64_t)ru.ru_inblock,
		.oublock = (uint64_t)ru.ru_oublock,
		.msgsnd = (uint64_t)ru.ru_msgsnd,
		.msgrcv = (uint64_t)ru.ru_msgrcv,
		.nsignals = (uint64_t)ru.ru_nsignals,
		.nvcsw = (uint64_t)ru.ru_nvcsw,
		.nivcsw = (uint64_t)ru.ru_nivcsw,
		.maxrss_kb = (uint64_t)ru.ru_maxrss,
	};
	blockw_append(&col_cfg.overview, &cursor, col_gettid(), s.ts_ns, EXP_REC_SAMPLE, encode_sample, &s,
		      0);
	blockw_cursor_release(&cursor);
}

static void log_start(void)
{
	char buf[512];
	struct xmlw w;
	uint32_t eff = col_cfg.interval_us && col_cfg.interval_us < KERNEL_TICK_US ? KERNEL_TICK_US
										   : col_cfg.interval_us;
	xmlw_init(&w, buf, sizeof buf);
	xmlw_raw(&w, "  <collector_start");
	xmlw_attr_u64(&w, "pid", (uint64_t)getpid());
	xmlw_attr_u64(&w, "ppid", (uint64_t)getppid());
	xmlw_attr_u64(&w, "tstamp_ns", col_cfg.start_ns);
	xmlw_attr(&w, "mechanism", col_cfg.interval_us ? "timer_create" : "none");
	xmlw_attr_u64(&w, "clock_interval_us", col_cfg.interval_us);
	xmlw_attr_u64(&w, "effective_interval_us", eff);
	xmlw_attr_u64(&w, "depth_limit", col_cfg.depth_limit);
	xmlw_attr(&w, "heap", col_cfg.heap_on ? "on" : "off");
	xmlw_raw(&w, "/>\n");
	logxml_append(&w);
	if (col_cfg.interval_us && col_cfg.interval_us < KERNEL_TICK_US)
		logxml_note("warning", "timer_rate",
			    "CPU timers are limited by the kernel tick (4000 us at HZ=250): each "
			    "sample's weight is the thread's CPU time since its previous sample");
}

static void log_exec(void)
{
	char buf[PATH_MAX + 128], exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	exe[n > 0 ? n : 0] = '\0';
	struct xmlw w;
	xmlw_init(&w, buf, sizeof buf);
	xmlw_raw(&w, "  <exec");
	xmlw_attr_u64(&w, "tstamp_ns", col_now_ns());
	xmlw_attr(&w, "path", exe);
	xmlw_raw(&w, "/>\n");
	logxml_append(&w);
}

static void col_atexit(void)
{
	col_finish();
}

static void col_atfork_child(void)
{
	/* the child never writes to its parent's experiment */
	atomic_store(&col_active, 0);
}

static void init_collection(void)
{
	const char *dir = getenv("PA_EXPERIMENT");
	const char *pid = getenv("PA_TARGET_PID");
	if (!dir || !*dir || !pid || strtoul(pid, NULL, 10) != (unsigned long)getpid())
		return;
	if (strlen(dir) >= sizeof col_cfg.dir || logxml_init(dir) < 0)
		return;
	strcpy(col_cfg.dir, dir);
	parse_params(getenv("PA_PARAMS"), &col_cfg);
	col_cfg.owner_pid = (uint32_t)getpid();
	col_cfg.start_ns = col_now_ns();
	int r = blockw_file_create(&col_cfg.profile, dir, EXP_FILE_NAME_PROFILE, EXP_FILE_PROFILE,
				   col_cfg.owner_pid, col_cfg.start_ns);
	if (r == -EEXIST) {
		log_exec(); /* an exec'd image of the owner: its data stays as it is */
		return;
	}
	if (r < 0 ||
	    blockw_file_create(&col_cfg.stacks, dir, EXP_FILE_NAME_STACKS, EXP_FILE_STACKS, col_cfg.owner_pid,
			       col_cfg.start_ns) < 0 ||
	    blockw_file_create(&col_cfg.overview, dir, EXP_FILE_NAME_OVERVIEW, EXP_FILE_OVERVIEW,
			       col_cfg.owner_pid, col_cfg.start_ns) < 0) {
		logxml_note("error", "data_files", "could not create the data files; collection is off");
		return;
	}
	if (col_cfg.heap_on && blockw_file_create(&col_cfg.heap, dir, EXP_FILE_NAME_HEAP, EXP_FILE_HEAP,
						  col_cfg.owner_pid, col_cfg.start_ns) < 0) {
		logxml_note("error", "data_files",
			    "could not create the heaptrace file; heap tracing is off");
		col_cfg.heap_on = 0;
	}
	if (stacktab_init(STACKTAB_LOG2) < 0 || threads_init() < 0) {
		logxml_note("error", "memory", "could not map the collector's tables; collection is off");
		return;
	}
	if (signals_init() < 0) {
		logxml_note("error", "sigaction",
			    "could not install the SIGPROF handler; clock profiling is off");
		col_cfg.interval_us = 0;
	}
	atomic_store(&col_active, 1);
	log_start();
	write_sample(0);
	if (loadmap_init(dir) < 0)
		logxml_note("error", "map", "could not write map.xml");
	threads_begin_initial();
	atexit(col_atexit);
	pthread_atfork(NULL, NULL, col_atfork_child);
}

void col_init(void)
{
	if (atomic_load_explicit(&col_init_state, memory_order_acquire) == 2)
		return;
	int expect = 0;
	if (atomic_compare_exchange_strong(&col_init_state, &expect, 1)) {
		atomic_store(&col_init_tid, col_gettid());
		int g = threads_guard_enter(); /* our own mallocs and mmaps are not the target's */
		resolve_reals();
		init_collection();
		threads_guard_leave(g);
		atomic_store_explicit(&col_init_state, 2, memory_order_release);
		return;
	}
	if (atomic_load(&col_init_tid) == col_gettid())
		return; /* called back from our own init: the reals are resolved */
	while (atomic_load_explicit(&col_init_state, memory_order_acquire) != 2)
		sched_yield();
}

void col_finish(void)
{
	if (!atomic_load(&col_active) || (uint32_t)getpid() != col_cfg.owner_pid)
		return;
	if (atomic_exchange(&col_finished, 1))
		return;
	int saved = errno;
	int g = threads_guard_enter();
	threads_finish();
	char buf[256];
	struct xmlw w;
	xmlw_init(&w, buf, sizeof buf);
	xmlw_raw(&w, "  <collector_end");
	xmlw_attr_u64(&w, "tstamp_ns", col_now_ns());
	xmlw_attr_u64(&w, "samples", atomic_load(&col_count.samples));
	xmlw_attr_u64(&w, "dropped", atomic_load(&col_count.dropped));
	xmlw_attr_u64(&w, "timer_failures", atomic_load(&col_count.timer_failures));
	xmlw_attr_u64(&w, "thread_slot_failures", atomic_load(&col_count.slot_failures));
	xmlw_attr_u64(&w, "block_failures",
		      atomic_load(&col_cfg.profile.failure_count) +
			      atomic_load(&col_cfg.stacks.failure_count) +
			      atomic_load(&col_cfg.overview.failure_count) +
			      (col_cfg.heap_on ? atomic_load(&col_cfg.heap.failure_count) : 0));
	if (col_cfg.heap_on) {
		xmlw_attr_u64(&w, "heap_records", atomic_load(&col_count.heap_records));
		xmlw_attr_u64(&w, "heap_dropped", atomic_load(&col_count.heap_dropped));
		xmlw_attr_u64(&w, "heap_stackless", atomic_load(&col_count.heap_stackless));
	}
	xmlw_raw(&w, "/>\n");
	logxml_append(&w);
	write_sample(1);
	threads_guard_leave(g);
	errno = saved;
}

/*
 * The heap library asks on every call.  A library's constructor may allocate
 * before ours runs: start then, once libc is initialised (it sets environ
 * before any constructor of another object runs; the loader's own earlier
 * allocations are not the target's).
 */
static int trace_heap_active(void)
{
	if (atomic_load_explicit(&col_init_state, memory_order_acquire) != 2 && environ)
		col_init();
	return col_cfg.heap_on && col_collecting();
}

static const struct pa_trace_api trace_api = {
	.version = PA_TRACE_API_VERSION,
	.heap_active = trace_heap_active,
	.heap_record = threads_heap_record,
	.heap_stamp = col_heap_stamp,
};

EXPORT const struct pa_trace_api *pa_collector_trace_api(void)
{
	return &trace_api;
}

__attribute__((constructor(101))) static void col_constructor(void)
{
	col_init();
}

__attribute__((destructor(101))) static void col_destructor(void)
{
	col_finish();
}

EXPORT void _exit(int status)
{
	col_init();
	col_finish();
	if (col_reals.exit_)
		col_reals.exit_(status);
	for (;;)
		syscall(SYS_exit_group, status);
}

EXPORT void _Exit(int status)
{
	col_init();
	col_finish();
	if (col_reals.Exit_)
		col_reals.Exit_(status);
	for (;;)
		syscall(SYS_exit_group, status);
}
