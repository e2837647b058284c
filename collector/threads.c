/*
 * threads.c - per-thread collection (see threads.h).
 *
 * Slot life cycle: FREE -> RESERVED (pthread_create claimed it for the new
 * thread) -> LIVE (THREAD_START written, timer armed) -> ENDING (whoever wins
 * the CAS - the thread's key destructor or the process-end path - deletes the
 * timer and writes THREAD_END) -> FREE (only the thread itself frees it).
 * The slot table and each thread's altstack + frame buffer are mmap'd: no
 * malloc anywhere here.
 */
#include "collector/threads.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "collector/state.h"
#include "collector/context.h"
#include "collector/encode.h"
#include "collector/hwc.h"
#include "collector/logxml.h"
#include "collector/sampler.h"
#include "collector/stacktab.h"
#include "collector/unwind.h"
#include "experiment/record.h"

#define SLOT_COUNT 4096
#define ALTSTACK_BYTES (256u * 1024)
#define PAGE_BYTES 4096u

enum { SLOT_FREE, SLOT_RESERVED, SLOT_LIVE, SLOT_ENDING };

/*
 * A tracer's stack remembered: the walk (unwind.h's memo), the leaf given,
 * and what the stack was named by in the stacks file.  A traced call made
 * again from the same place (a loop's write, a lock in a loop) finds its
 * stack by checking the walk's stack words instead of walking, hashing and
 * looking the stack table up.  A few ways, so that a loop of read and write
 * keeps both.
 */
#define TRACE_MEMO_WAYS 4u

struct trace_memo {
	struct unwind_memo uw;
	uint64_t leaf_pc;
	uint64_t epoch; /* stacktab_epoch() when ref was made */
	struct threads_stackref ref;
};

struct col_thread {
	_Atomic int state;
	uint32_t tid, creator_tid;
	void *(*start_fn)(void *);
	void *start_arg;
	struct unwind_thread uw;
	struct sampler_thread smp;
	struct hwc_thread hwc; /* counter overflow profiling (collect -h); not for raw threads */
	volatile sig_atomic_t
		hwc_deferred;            /* overflows signalled inside the collector: taken on the way out */
	int raw;                         /* made by clone(2) directly: shares its creator's TLS */
	volatile sig_atomic_t raw_guard; /* the reentrancy guard of a raw thread (tls_guard is not its own) */
	int (*raw_fn)(void *);           /* a raw thread's start routine */
	uint64_t raw_stack_hi;           /* ... and the top of the stack clone was given */
	uint64_t origin_ns;              /* thread CPU clock where its recording counts from (sampler.h) */
	uint64_t next_grid_ns;           /* ... of its next grid point not yet passed */
	uint64_t steady_lag_ns;          /* how far after a grid point its steady event was made (perf) */
	uint64_t credit;                 /* grid points from there on a blocking call charged already */
	uint64_t last_cpu_ns;            /* ... up to which its samples charged it */
	uint64_t last_at_ns;             /* when last_cpu_ns was read (col_now_ns) */
	uint64_t last_user_ns;  /* its user-mode CPU time charged to samples so far (sampler_user_ns) */
	uint64_t window_cpu_ns; /* CPU charged to samples inside the collection window (-t) */
	volatile sig_atomic_t deferred; /* samples that arrived inside the collector: taken on the way out */
	volatile sig_atomic_t in_sampler;     /* its events are being made or let go (sampler_busy) */
	volatile sig_atomic_t expiry_pending; /* an expiry that came meanwhile: its next_expiry waits */
	struct blockw_cursor prof, stk;       /* clock samples, stacks: in the signal handler */
	uint8_t *region;                      /* [guard page][altstack][pcs] */
	size_t region_bytes;
	uint64_t *pcs;
	/* threads_count's: only this thread writes them (a raw thread shares its creator's) */
	_Atomic uint64_t counts[THREADS_COUNTERS];
	struct trace_memo *memo; /* TRACE_MEMO_WAYS, in region */
	uint32_t memo_next;      /* the way the next new stack replaces */
	int own_altstack;
};

static struct col_thread *thread_slots;
static _Atomic uint64_t
	counts_ended[THREADS_COUNTERS]; /* of threads whose slot was freed, and slotless ones */
/*
 * Where slot_claim starts looking (the lowest slot freed since, or the one
 * after the last claimed), and one past the highest slot ever claimed: the
 * loops over every thread stop there, since each slot is its own pages and
 * reading one never claimed faults a page in (4096 faults per process, a
 * third of a short shell command's).  A claim raises the top before its
 * thread can publish a hazard, so a scan that reads the top first misses no
 * hazard that matters to it (unwtab_acquire checks the tables again after
 * publishing).
 */
static _Atomic uint32_t thread_slot_hint, thread_slot_top;
static pthread_key_t thread_key;
static int thread_key_ok;

static __thread struct col_thread *tls_thread;
static __thread volatile sig_atomic_t tls_guard;
static __thread volatile uint64_t tls_wait_leaf; /* threads_wait_leaf */
static __thread volatile uint64_t
	tls_wait_cpu;               /* in a blocking call: its grid points after this are its own */
static void (*on_thread_end)(void); /* the tracers' per-thread end */

/*
 * Thread starts and ends of every thread go through one shared cursor (never
 * used in a signal handler), so a thread that takes no sample claims no
 * block: a pool of short threads costs a few bytes per thread.
 */
static struct blockw_cursor ctl_cursor;
static atomic_flag ctl_lock = ATOMIC_FLAG_INIT;

static void ctl_append(uint32_t tid, uint64_t now_ns, enum exp_record_kind kind, blockw_encode_fn encode,
		       const void *rec)
{
	while (atomic_flag_test_and_set_explicit(&ctl_lock, memory_order_acquire))
		sched_yield();
	if (blockw_append(&col_config()->profile, &ctl_cursor, tid, now_ns, kind, encode, rec, 0) < 0)
		atomic_fetch_add(&col_counters()->lost_records, 1);
	atomic_flag_clear_explicit(&ctl_lock, memory_order_release);
}

void threads_lock(void)
{
	while (atomic_flag_test_and_set_explicit(&ctl_lock, memory_order_acquire))
		sched_yield();
}

void threads_unlock(void)
{
	atomic_flag_clear_explicit(&ctl_lock, memory_order_release);
}

static void thread_key_destructor(void *p);
static void take_deferred(struct col_thread *t, int ending);
static void sampler_busy(struct col_thread *t);
static void sampler_done(struct col_thread *t);
static void take_hwc_here(struct col_thread *t);
static void take_end(struct col_thread *t, uint64_t cpu_ns);

int threads_init(void (*thread_end)(void))
{
	on_thread_end = thread_end;
	size_t bytes = sizeof(struct col_thread) * SLOT_COUNT;
	void *p =
		mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	thread_slots = p;
	if (pthread_key_create(&thread_key, thread_key_destructor) == 0)
		thread_key_ok = 1;
	return 0;
}

static struct col_thread *slot_claim(void)
{
	if (!thread_slots)
		return NULL;
	uint32_t h = atomic_load(&thread_slot_hint) % SLOT_COUNT;
	for (uint32_t i = 0; i < SLOT_COUNT; i++) {
		uint32_t k = (h + i) % SLOT_COUNT;
		struct col_thread *t = &thread_slots[k];
		int expect = SLOT_FREE;
		if (atomic_load(&t->state) == SLOT_FREE &&
		    atomic_compare_exchange_strong(&t->state, &expect, SLOT_RESERVED)) {
			uint32_t top = atomic_load(&thread_slot_top);
			while (top < k + 1 && !atomic_compare_exchange_weak(&thread_slot_top, &top, k + 1))
				;
			atomic_store(&thread_slot_hint, k + 1);
			memset((char *)t + sizeof t->state, 0, sizeof *t - sizeof t->state);
			return t;
		}
	}
	atomic_fetch_add(&col_counters()->slot_failures, 1);
	return NULL;
}

static void slot_free(struct col_thread *t)
{
	for (int i = 0; i < THREADS_COUNTERS; i++) {
		uint64_t k = atomic_load_explicit(&t->counts[i], memory_order_relaxed);
		if (k)
			atomic_fetch_add(&counts_ended[i], k);
	}
	atomic_store(&t->state, SLOT_FREE);
	uint32_t k = (uint32_t)(t - thread_slots), h = atomic_load(&thread_slot_hint);
	while (k < h && !atomic_compare_exchange_weak(&thread_slot_hint, &h, k))
		;
}

/* One past the highest slot ever claimed: no thread has a slot at or above it. */
static uint32_t slots_used(void)
{
	uint32_t top = atomic_load(&thread_slot_top);
	return top < SLOT_COUNT ? top : SLOT_COUNT;
}

static int is_slot(const void *p)
{
	const char *a = (const char *)thread_slots, *q = p;
	return a && q >= a && q < a + sizeof(struct col_thread) * SLOT_COUNT;
}

/*
 * The pc, sp, fp and rbx of the frame this is inlined into, taken by one asm
 * statement so that the unwind rule at that pc holds for those registers.
 */
__attribute__((always_inline)) static inline void context_here(ucontext_t *uc)
{
	uint64_t pc, sp, fp, bx;
	__asm__ volatile("leaq 0(%%rip), %0\n\t"
			 "movq %%rsp, %1\n\t"
			 "movq %%rbp, %2\n\t"
			 "movq %%rbx, %3"
			 : "=&r"(pc), "=&r"(sp), "=&r"(fp), "=&r"(bx));
	uc->uc_mcontext.gregs[REG_RIP] = (greg_t)pc;
	uc->uc_mcontext.gregs[REG_RSP] = (greg_t)sp;
	uc->uc_mcontext.gregs[REG_RBP] = (greg_t)fp;
	uc->uc_mcontext.gregs[REG_RBX] = (greg_t)bx;
}

/* The kernel's CPU clock id of thread `tid` (MAKE_THREAD_CPUCLOCK, CPUCLOCK_SCHED). */
static clockid_t tid_cpu_clock(uint32_t tid)
{
	return (clockid_t)((~(unsigned)tid << 3) | 6u);
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;
	if (clock_gettime(id, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void stack_bounds(struct col_thread *t)
{
	pthread_attr_t a;
	void *addr;
	size_t size;
	if (pthread_getattr_np(pthread_self(), &a) != 0)
		return;
	if (pthread_attr_getstack(&a, &addr, &size) == 0) {
		t->uw.stack_lo = (uint64_t)(uintptr_t)addr;
		t->uw.stack_hi = (uint64_t)(uintptr_t)addr + size;
	}
	pthread_attr_destroy(&a);
}

/* Frame buffer for the unwinder, plus an altstack if the thread has none. */
static void thread_region(struct col_thread *t)
{
	stack_t old;
	int need_alt = sigaltstack(NULL, &old) == 0 && (old.ss_flags & SS_DISABLE);
	size_t pcs_bytes =
		((size_t)col_config()->depth_limit * 8 + PAGE_BYTES - 1) & ~(size_t)(PAGE_BYTES - 1);
	size_t cache_bytes = (UNWIND_CACHE_BYTES + PAGE_BYTES - 1) & ~(size_t)(PAGE_BYTES - 1);
	size_t memo_bytes =
		(TRACE_MEMO_WAYS * sizeof(struct trace_memo) + PAGE_BYTES - 1) & ~(size_t)(PAGE_BYTES - 1);
	size_t bytes = memo_bytes + cache_bytes + pcs_bytes + (need_alt ? PAGE_BYTES + ALTSTACK_BYTES : 0);
	uint8_t *p =
		mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return;
	t->region = p;
	t->region_bytes = bytes;
	t->pcs = (uint64_t *)(void *)(p + bytes - pcs_bytes);
	t->uw.cache = (struct unwind_cache_entry *)(void *)(p + bytes - pcs_bytes - cache_bytes);
	t->uw.cache_gen = 0; /* zeroed memory: every entry empty */
	t->memo = (struct trace_memo *)(void *)(p + bytes - pcs_bytes - cache_bytes - memo_bytes);
	t->memo_next = 0; /* zeroed memory: every way empty (gen 0) */
	if (need_alt) {
		mprotect(p, PAGE_BYTES, PROT_NONE); /* overflow guard below the altstack */
		stack_t ss = {.ss_sp = p + PAGE_BYTES, .ss_size = ALTSTACK_BYTES, .ss_flags = 0};
		if (sigaltstack(&ss, NULL) == 0)
			t->own_altstack = 1;
	}
}

/* What ran on a thread before it was armed. */
enum startup {
	STARTUP_THREAD,  /* the collector's start of a thread or a fork child */
	STARTUP_PROCESS, /* a new image's loading, then the collector's start */
	STARTUP_UNSEEN,  /* a raw clone child's own code, which nothing sampled */
};

static void take_startup(struct col_thread *t, uint64_t weight_ns, uint64_t first_ns, enum startup how);

/*
 * Arm t's sampler at its first grid point not yet passed; the grid points
 * that passed before (a process's loading, the thread's start-up) are
 * charged now, to the start-up's stack (take_startup).  Under t's guard.
 */
static void thread_sampler(struct col_thread *t, enum startup how)
{
	uint64_t iv = sampler_interval_ns(), cpu = col_thread_cpu_ns();
	uint64_t first = t->origin_ns + (iv ? sampler_phase_ns() : 0), passed = 0;
	if (iv && cpu >= first) {
		passed = (cpu - first) / iv + 1;
		t->next_grid_ns = first + passed * iv;
	} else {
		t->next_grid_ns = first;
	}
	if (passed) {
		take_startup(t, passed * iv, first, how);
		t->last_cpu_ns = t->next_grid_ns - iv; /* the last point passed */
	}
	sampler_busy(t);
	int r = sampler_start(&t->smp, t->tid, t, t->raw, t->next_grid_ns > cpu ? t->next_grid_ns - cpu : 1);
	if (!t->raw) /* its counters' numbers: the events made later (in the handler) must not take them */
		sampler_avoid(&t->smp, t->hwc.fd_num, EXP_HWC_MAX_COUNTERS);
	sampler_done(t);
	if (r < 0 && atomic_fetch_add(&col_counters()->timer_failures, 1) == 0) {
		char msg[96] = "could not arm the thread's sampling: ";
		const char *e = strerror(-r);
		strncat(msg, e, sizeof msg - strlen(msg) - 1);
		logxml_note("error", "sampler", msg);
	}
	if (r == 0 && !t->raw && t->smp.kind == SAMPLER_TIMER && sampler_kind() == SAMPLER_PERF &&
	    atomic_fetch_add(&col_counters()->timer_fallbacks, 1) == 0)
		logxml_note(
			"warning", "timer_fallback",
			"a thread could not get its perf events (no descriptor free?) and is sampled by a "
			"POSIX CPU timer, which the kernel checks at its tick: threads like it that live "
			"shorter than the interval are under-sampled (collector_end timer_fallbacks counts them)");
}

/*
 * Runs in the new thread (or the initial one at init), outside signal
 * context.  origin_ns: the thread CPU clock its recording counts from (0
 * for a thread or a fork child, which the kernel starts at 0; for a new
 * image, its CPU before the exec).  how: what ran before it was armed.
 */
static void thread_begin(struct col_thread *t, uint32_t creator, uint64_t start_pc, uint64_t outer_fp,
			 uint64_t origin_ns, enum startup how)
{
	volatile sig_atomic_t *g = t->raw ? &t->raw_guard : &tls_guard;
	sig_atomic_t guard = *g;
	*g = 1;
	t->tid = col_gettid();
	t->creator_tid = creator;
	t->uw.outer_fp = outer_fp;
	if (t->raw) {
		/* its stack is the one clone was given; reads stay in [sp, top) */
		t->uw.stack_lo = 0;
		t->uw.stack_hi = t->raw_stack_hi;
	} else {
		stack_bounds(t);
	}
	if (!t->region)
		thread_region(t);
	if (!t->raw) {
		tls_thread = t;
		if (thread_key_ok)
			pthread_setspecific(thread_key, t);
	}
	t->last_cpu_ns = col_thread_cpu_ns();
	t->origin_ns = origin_ns < t->last_cpu_ns ? origin_ns : t->last_cpu_ns;
	t->credit = 0; /* a fork child's main thread is its parent's slot again */
	if (!sampler_splits() || sampler_user_ns(&t->last_user_ns) < 0)
		t->last_user_ns = 0;
	struct exp_thread_start r = {
		.tid = t->tid, .creator_tid = creator, .start_ns = col_now_ns(), .start_pc = start_pc};
	t->last_at_ns = r.start_ns;
	ctl_append(t->tid, r.start_ns, EXP_REC_THREAD_START, encode_thread_start, &r);
	atomic_store(&t->state, SLOT_LIVE);
	if (!t->raw) /* a raw thread's signals cannot tell it from its creator (shared TLS) */
		hwc_thread_start(&t->hwc, t->tid);
	thread_sampler(t, how);
	if (!t->raw)
		hwc_thread_started(&t->hwc); /* the sampler's events took other numbers */
	if (!t->raw && !guard && (t->deferred || t->hwc_deferred))
		take_deferred(t, 0); /* a first expiry that came as the thread was armed */
	*g = guard;
}

/* Write t's THREAD_END; t is in state ENDING. */
/*
 * Thread tid's time runnable but waiting for a CPU, the second figure of
 * /proc/self/task/TID/schedstat, into *ret: 1, or 0 when it cannot be read
 * (no schedstats in this kernel).  Raw system calls, no stdio.  SIGNAL_SAFE.
 */
static int thread_wait_ns(uint32_t tid, uint64_t *ret)
{
	char path[48] = "/proc/self/task/", digits[12];
	size_t n = strlen(path), k = 0;
	do {
		digits[k++] = (char)('0' + tid % 10);
		tid /= 10;
	} while (tid && k < sizeof digits);
	while (k)
		path[n++] = digits[--k];
	memcpy(path + n, "/schedstat", sizeof "/schedstat");
	int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	char buf[96];
	long got = syscall(SYS_read, fd, buf, sizeof buf - 1);
	syscall(SYS_close, fd);
	if (got <= 0)
		return 0;
	buf[got] = '\0';
	const char *p = buf;
	while (*p >= '0' && *p <= '9')
		p++; /* the time on a CPU */
	if (*p++ != ' ' || !(*p >= '0' && *p <= '9'))
		return 0;
	uint64_t v = 0;
	while (*p >= '0' && *p <= '9')
		v = v * 10 + (uint64_t)(*p++ - '0');
	*ret = v;
	return 1;
}

/*
 * Thread t's CPU since its last sample, cpu_ns now at now_ns, as far as it was
 * recorded: when recording began (a resume, the -t window's start) after that
 * sample, the CPU before it is not, and the thread cannot have used more than
 * the time since.  SIGNAL_SAFE.
 */
/* 1 if what happens at now_ns (col_now_ns) is recorded: inside the -t window and not paused. SIGNAL_SAFE. */
static int recorded_at(const struct col_config *cfg, uint64_t now_ns)
{
	uint64_t rel = now_ns - cfg->start_ns;
	return rel >= cfg->window_start_ns && (!cfg->window_end_ns || rel < cfg->window_end_ns) &&
	       !col_paused();
}

static uint64_t cpu_since_recording(const struct col_thread *t, uint64_t cpu_ns, uint64_t now_ns)
{
	uint64_t d = cpu_ns > t->last_cpu_ns ? cpu_ns - t->last_cpu_ns : 0;
	uint64_t since = col_recording_since_ns();
	if (since > t->last_at_ns && now_ns > since && d > now_ns - since)
		d = now_ns - since;
	return d;
}

static void thread_write_end(struct col_thread *t, uint32_t writer_tid, uint64_t cpu_now_ns)
{
	struct col_config *cfg = col_config();
	struct exp_thread_end r = {
		.tid = t->tid,
		.end_ns = col_now_ns(),
		.cpu_ns = cpu_now_ns > t->origin_ns ? cpu_now_ns - t->origin_ns : 0,
	};
	if (cfg->window_start_ns || cfg->window_end_ns || col_pause_seen()) {
		/* -t, pause: the CPU inside the window, which its samples carry, plus
		 * the tail since the last one if the thread ends inside the window
		 * and not paused */
		r.cpu_ns = t->window_cpu_ns +
			   (recorded_at(cfg, r.end_ns) ? cpu_since_recording(t, cpu_now_ns, r.end_ns) : 0);
	} else {
		/* the whole life's run-queue wait: only without a window, which it would not fit */
		r.has_wait = thread_wait_ns(t->tid, &r.wait_ns);
	}
	ctl_append(writer_tid, r.end_ns, EXP_REC_THREAD_END, encode_thread_end, &r);
}

static void thread_release(struct col_thread *t)
{
	blockw_cursor_release(&t->prof);
	blockw_cursor_release(&t->stk);
	stack_t cur;
	if (t->own_altstack && sigaltstack(NULL, &cur) == 0 &&
	    (uint8_t *)cur.ss_sp == t->region + PAGE_BYTES) {
		/* still ours (the target may have installed its own since) */
		stack_t ss = {.ss_flags = SS_DISABLE};
		sigaltstack(&ss, NULL);
	}
	if (t->region)
		munmap(t->region, t->region_bytes);
	t->region = NULL;
	t->pcs = NULL;
	t->uw.cache = NULL;
	t->memo = NULL;
}

static void thread_key_destructor(void *p)
{
	struct col_thread *t = p;
	if (t != tls_thread || !col_collecting())
		return;
	int expect = SLOT_LIVE;
	if (!atomic_compare_exchange_strong(&t->state, &expect, SLOT_ENDING))
		return; /* the process-end path has ended it */
	tls_guard = 1;
	uint64_t cpu = col_thread_cpu_ns(); /* before the sampler's own teardown */
	sampler_stop(&t->smp);
	take_end(t, cpu);
	take_hwc_here(t); /* overflows of the way out, over the stack from here */
	hwc_thread_stop(&t->hwc);
	thread_write_end(t, t->tid, col_thread_cpu_ns());
	tls_thread = NULL;
	thread_release(t);
	if (on_thread_end)
		on_thread_end();
	slot_free(t);
	tls_guard = 0;
}

void threads_begin_initial(uint64_t origin_ns)
{
	struct col_thread *t = slot_claim();
	if (t)
		thread_begin(t, 0, 0, 0, origin_ns, STARTUP_PROCESS);
}

void threads_fork_child(int followed, int unseen)
{
	struct col_thread *self = tls_thread;
	blockw_cursor_forget(&ctl_cursor);
	atomic_flag_clear(&ctl_lock);
	if (!thread_slots) {
		if (followed)
			threads_begin_initial(0);
		return;
	}
	/* the other threads do not exist here: free their slots and private copies */
	for (uint32_t i = 0, n = slots_used(); i < n; i++) {
		struct col_thread *t = &thread_slots[i];
		if (t == self || atomic_load(&t->state) == SLOT_FREE)
			continue;
		sampler_forget(&t->smp);
		hwc_thread_forget(&t->hwc);
		if (t->region)
			munmap(t->region, t->region_bytes);
		t->region = NULL;
		t->pcs = NULL;
		t->uw.cache = NULL;
		t->memo = NULL;
		atomic_store(&t->state, SLOT_FREE);
	}
	for (int i = 0; i < THREADS_COUNTERS; i++) {
		atomic_store(&counts_ended[i], 0);
		if (self)
			atomic_store(&self->counts[i], 0);
	}
	if (!self) {
		if (followed)
			threads_begin_initial(0);
		return;
	}
	sampler_forget(&self->smp);
	hwc_thread_forget(&self->hwc);
	self->hwc_deferred = 0;
	blockw_cursor_forget(&self->prof);
	blockw_cursor_forget(&self->stk);
	if (followed) {
		/* the child's only thread: its main thread */
		thread_begin(self, 0, 0, self->uw.outer_fp, 0, unseen ? STARTUP_UNSEEN : STARTUP_THREAD);
	} else {
		tls_thread = NULL; /* its region stays: it may hold the signal stack in use */
		atomic_store(&self->state, SLOT_FREE);
	}
}

void threads_finish(void)
{
	if (!thread_slots)
		return;
	struct col_thread *self = tls_thread;
	sig_atomic_t guard = tls_guard;
	tls_guard = 1;
	uint32_t me = col_gettid();
	/* stop sampling first: the calling thread's own, and take what it deferred */
	static uint8_t ended[SLOT_COUNT];
	memset(ended, 0, sizeof ended);
	int expect_self = SLOT_LIVE;
	if (self && atomic_compare_exchange_strong(&self->state, &expect_self, SLOT_ENDING)) {
		ended[self - thread_slots] = 1;
		uint64_t cpu = col_thread_cpu_ns();
		sampler_stop(&self->smp);
		if (self->deferred)
			take_deferred(self, 1);
		take_end(self, cpu);
		take_hwc_here(self); /* overflows of the way out, over the stack from here */
		hwc_thread_stop(&self->hwc);
	}
	for (uint32_t i = 0, n = slots_used(); i < n; i++) {
		struct col_thread *t = &thread_slots[i];
		int expect = SLOT_LIVE;
		if (t == self)
			continue;
		if (atomic_load(&t->state) != SLOT_LIVE ||
		    !atomic_compare_exchange_strong(&t->state, &expect, SLOT_ENDING))
			continue;
		ended[i] = 1;
		sampler_stop(&t->smp);
		hwc_thread_stop(&t->hwc);
	}
	if (self && ended[self - thread_slots])
		thread_write_end(self, me, col_thread_cpu_ns());
	for (uint32_t i = 0, n = slots_used(); i < n; i++) {
		struct col_thread *t = &thread_slots[i];
		if (!ended[i] || t == self)
			continue;
		thread_write_end(t, me, clock_ns(tid_cpu_clock(t->tid)));
	}
	/* the calling thread's state stays ENDING: its key destructor does nothing */
	tls_guard = guard;
}

/* Write the stack unless already known; 0 on success. SIGNAL_SAFE. */
static int stack_intern(struct col_thread *t, const struct exp_stack *s)
{
	if (stacktab_contains(s->id))
		return 0;
	int r = blockw_append(&col_config()->stacks, &t->stk, t->tid, col_now_ns(), EXP_REC_STACK,
			      encode_stack, s, 0);
	if (r < 0)
		return r;
	stacktab_insert(s->id); /* full table: the stack will be written again */
	return 0;
}

/*
 * Write one CLOCK record of thread t at now: weight_ns of CPU, *user_ns of
 * it user time (NULL: no split), at the stack s (its pcs filled, flags and
 * id set here).  0, -E2BIG (counted as dropped), or another -errno (the
 * data files have stopped or could not take it).  Counted as a sample, or
 * with EXP_STACK_STARTUP or startup as a start-up sample.  The caller holds
 * t's guard.  SIGNAL_SAFE.
 */
static int record_clock_stack(struct col_thread *t, struct exp_stack *s, uint32_t flags, uint64_t now,
			      uint64_t weight_ns, const uint64_t *user_ns, int startup)
{
	struct col_counters *n = col_counters();
	struct col_config *cfg = col_config();
	if (atomic_load_explicit(&cfg->health.err, memory_order_relaxed))
		return -EIO; /* the data files have stopped */
	s->flags = flags;
	s->id = record_stack_hash(s->pcs, s->nframes, s->flags);
	int r = stack_intern(t, s);
	if (r == 0) {
		int cpu_id = sched_getcpu();
		struct exp_clock c = {
			.ts_ns = now,
			.tid = t->tid,
			.cpu = cpu_id < 0 ? 0 : (uint32_t)cpu_id,
			.stack_id = s->id,
			.weight_ns = weight_ns,
			.user_ns = user_ns ? *user_ns : 0,
			.has_user = user_ns != NULL,
		};
		col_context_get(&c.ctx); /* a runtime's, if it set one */
		r = blockw_append(&cfg->profile, &t->prof, t->tid, now, record_clock_kind(&c), encode_clock,
				  &c, now);
	}
	if (r == 0)
		atomic_fetch_add(startup ? &n->startup_samples : &n->samples, 1);
	else if (r == -E2BIG)
		atomic_fetch_add(&n->dropped_other, 1);
	return r;
}

/*
 * A sample's stack into t->pcs, unwound from uc, at most max frames; with
 * the library function the thread is leaving (tls_wait_leaf: a blocking
 * call run with the sampling signals held, whose sample comes as it
 * returns) as its leaf, over the collector's frames the reader hides.
 * SIGNAL_SAFE.
 */
static uint32_t unwind_sample(struct col_thread *t, const ucontext_t *uc, uint32_t max, uint32_t *ret_flags)
{
	uint64_t leaf = t->raw ? 0 : tls_wait_leaf;
	if (!leaf || max < 2)
		return unwind_from_context(uc, &t->uw, t->pcs, max, ret_flags);
	t->pcs[0] = leaf;
	return 1 + unwind_from_context(uc, &t->uw, t->pcs + 1, max - 1, ret_flags);
}

/* As record_clock_stack, with the stack unwound from uc. SIGNAL_SAFE. */
static int record_clock(struct col_thread *t, const ucontext_t *uc, uint32_t extra_flags, uint64_t now,
			uint64_t weight_ns, const uint64_t *user_ns, int startup)
{
	uint32_t flags;
	struct exp_stack s = {.pcs = t->pcs};
	s.nframes = unwind_sample(t, uc, col_config()->depth_limit, &flags);
	return record_clock_stack(t, &s, flags | extra_flags, now, weight_ns, user_ns, startup);
}

/* w, or at most the time since recording began (a resume, the -t window's start) after t's last sample. */
static uint64_t recorded_since(const struct col_thread *t, uint64_t w, uint64_t now_ns)
{
	uint64_t since = col_recording_since_ns();
	if (since > t->last_at_ns && now_ns > since && w > now_ns - since)
		w = now_ns - since;
	return w;
}

/*
 * The CPU time thread t's sample at cpu_ns (its CPU clock), now_ns stands
 * for: I for each grid point the thread's own clock passed since the last
 * one charged (sampler.h), less those a blocking call charged already
 * (threads_wait_end), so coalesced or dropped samples lose nothing, and an
 * expiry that came before its grid point (a task-clock event counts the
 * time a hypervisor took the CPU away, which the thread's clock does not)
 * leaves that point to a later sample.  When recording began (a resume,
 * the -t window's start) after the previous sample, at most the time
 * since.  0: nothing to charge.  Moves the thread's next grid point.
 * SIGNAL_SAFE.
 */
static uint64_t sample_weight(struct col_thread *t, uint64_t cpu_ns, uint64_t now_ns)
{
	/* the thread's CPU clock, not the event's: it counts the hypervisor's steal time */
	uint64_t iv = sampler_interval_ns();
	if (!iv || cpu_ns < t->next_grid_ns)
		return 0;
	uint64_t k = (cpu_ns - t->next_grid_ns) / iv + 1;
	t->next_grid_ns += k * iv;
	uint64_t early = k < t->credit ? k : t->credit;
	t->credit -= early;
	t->last_cpu_ns = t->next_grid_ns - iv + t->credit * iv;
	return recorded_since(t, (k - early) * iv, now_ns);
}

/*
 * The user part of weight_ns for a sample at user_now_ns of user time
 * (sampler_user_ns): the thread's user time since its previous sample, at
 * most the weight (the kernel's figure lags the CPU clock by up to a tick;
 * what is left over goes to the next sample, unless cut: the CPU before a
 * resume or the window's start was not recorded, so neither is its user
 * time).  Moves the thread's user base.  SIGNAL_SAFE.
 */
static uint64_t user_part(struct col_thread *t, uint64_t user_now_ns, uint64_t weight_ns, int cut)
{
	uint64_t user = 0;
	if (user_now_ns > t->last_user_ns)
		user = user_now_ns - t->last_user_ns < weight_ns ? user_now_ns - t->last_user_ns : weight_ns;
	t->last_user_ns = cut ? user_now_ns : t->last_user_ns + user;
	return user;
}

/*
 * The grid points of thread t in (cpu0, cpu] of its CPU clock not charged
 * yet (those a blocking call charged are older than cpu0), which a
 * blocking call is to charge now: their number.  Moves the thread's next
 * grid point, or when one before cpu0 still waits for its sample, counts
 * them as charged ahead of it (credit).  SIGNAL_SAFE.
 */
static uint64_t wait_points(struct col_thread *t, uint64_t cpu0, uint64_t cpu)
{
	uint64_t iv = sampler_interval_ns();
	uint64_t lo = cpu0 + 1 > t->next_grid_ns ? cpu0 + 1 : t->next_grid_ns;
	if (!iv || cpu < lo)
		return 0;
	uint64_t first = t->next_grid_ns + (lo - t->next_grid_ns + iv - 1) / iv * iv;
	if (first > cpu)
		return 0;
	uint64_t m = (cpu - first) / iv + 1;
	if (first == t->next_grid_ns)
		t->next_grid_ns += m * iv;
	else
		t->credit += m;
	t->last_cpu_ns = t->next_grid_ns - iv + t->credit * iv;
	return m;
}

/*
 * Record a clock sample of thread t at now of weight (from sample_weight)
 * with the stack unwound from uc; system: all of it system time (a
 * blocking call's, threads_wait_end).  The caller holds t's guard.
 * SIGNAL_SAFE.
 */
static void charge_sample(struct col_thread *t, const ucontext_t *uc, uint32_t extra_flags, uint64_t now,
			  uint64_t weight, int system)
{
	struct col_counters *n = col_counters();
	struct col_config *cfg = col_config();
	uint64_t since = col_recording_since_ns();
	int resumed = since > t->last_at_ns && now > since;
	uint64_t user_now = 0, user = 0;
	int split = sampler_splits() && sampler_user_ns(&user_now) == 0;
	int recorded = recorded_at(cfg, now);
	if (split && !system)
		user = user_part(t, user_now, weight, !recorded || resumed);
	t->last_at_ns = now;
	if (!recorded)
		return; /* outside the collection window, or paused: not attributed */
	int r = record_clock(t, uc, extra_flags, now, weight, split ? &user : NULL, 0);
	if (r == -E2BIG)
		return;             /* dropped: the thread's tail covers it */
	t->window_cpu_ns += weight; /* inside the window: recorded or lost */
	if (r < 0) {
		atomic_fetch_add(&n->lost_samples, 1);
		atomic_fetch_add(&n->lost_sample_ns, weight);
	}
}

/*
 * Record one clock sample of thread t with the stack unwound from uc (a
 * signal context, or a context taken in the collector's own code, whose
 * frames the reader hides).  0 if no grid point has passed since the
 * previous sample (nothing to record: the signal is folded into the next
 * sample), else 1; cpu: the thread's CPU clock at the sample.  The caller
 * holds t's guard.  SIGNAL_SAFE.
 */
static int take_sample_at(struct col_thread *t, const ucontext_t *uc, uint32_t extra_flags, uint64_t cpu)
{
	uint64_t now = col_now_ns();
	uint64_t from = t->raw ? 0 : tls_wait_cpu;
	/*
	 * In a blocking call (its signals held till it returns): only the grid
	 * points it passed are its own; those before, which the event came late
	 * for, are the code's before it, and wait for the next sample there.
	 */
	uint64_t weight = from ? recorded_since(t, wait_points(t, from, cpu) * sampler_interval_ns(), now)
			       : sample_weight(t, cpu, now);
	if (from)
		tls_wait_cpu = cpu;
	if (!weight)
		return 0;
	charge_sample(t, uc, extra_flags, now, weight, from != 0);
	return 1;
}

/* As take_sample_at, with the thread's CPU clock now. SIGNAL_SAFE. */
static int take_sample(struct col_thread *t, const ucontext_t *uc, uint32_t extra_flags)
{
	return take_sample_at(t, uc, extra_flags, col_thread_cpu_ns());
}

/* The entry of the dynamic loader (or of the program, without one): where a process's loading runs. */
static uint64_t loader_entry(void)
{
	uint64_t base = getauxval(AT_BASE);
	if (!base)
		return getauxval(AT_ENTRY);
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)(uintptr_t)base;
	return memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 ? base + eh->e_entry : getauxval(AT_ENTRY);
}

/*
 * Charge the grid points thread t passed before it was armed (weight_ns,
 * from the one at first_ns of its CPU clock).  STARTUP_PROCESS: those before
 * the collector started (the kernel's exec, the dynamic loader, the
 * constructors before ours) as the process's start (EXP_STACK_STARTUP), the
 * rest (the collector's own start) as its overhead there; STARTUP_THREAD:
 * the collector's start-up of a thread or a fork child, over the stack from
 * here; STARTUP_UNSEEN: code nothing sampled, as unknown (no frame).  Under
 * t's guard, outside signal context.
 */
__attribute__((noinline)) static void take_startup(struct col_thread *t, uint64_t weight_ns,
						   uint64_t first_ns, enum startup how)
{
	struct col_config *cfg = col_config();
	uint64_t iv = sampler_interval_ns(), now = col_now_ns(), cpu = col_thread_cpu_ns();
	uint64_t user_now = 0, loading = 0;
	int split = sampler_splits() && sampler_user_ns(&user_now) == 0;
	if (how == STARTUP_PROCESS && cfg->init_cpu_ns >= first_ns)
		loading = ((cfg->init_cpu_ns - first_ns) / iv + 1) * iv;
	if (loading > weight_ns)
		loading = weight_ns;
	uint64_t part[2] = {loading, weight_ns - loading};
	for (int k = 0; k < 2 && recorded_at(cfg, now); k++) {
		if (!part[k])
			continue;
		/* no finer split is known: the thread's whole life's ratio */
		uint64_t user =
			split && cpu ? (uint64_t)((double)part[k] * (double)user_now / (double)cpu) : 0;
		if (user > part[k])
			user = part[k];
		int r;
		if (how == STARTUP_PROCESS) {
			struct exp_stack s = {.pcs = t->pcs, .nframes = 1};
			t->pcs[0] = loader_entry();
			r = record_clock_stack(t, &s, EXP_STACK_STARTUP | (k ? EXP_STACK_COLLECTOR : 0), now,
					       part[k], split ? &user : NULL, 1);
		} else if (how == STARTUP_UNSEEN) {
			struct exp_stack s = {.pcs = t->pcs, .nframes = 0};
			r = record_clock_stack(t, &s, 0, now, part[k], split ? &user : NULL, 1);
		} else {
			ucontext_t uc;
			context_here(&uc);
			r = record_clock(t, &uc, EXP_STACK_COLLECTOR, now, part[k], split ? &user : NULL, 1);
		}
		if (r != -E2BIG)
			t->window_cpu_ns += part[k];
	}
	t->last_user_ns = user_now;
	__asm__ volatile("" ::: "memory"); /* keep this frame: no tail call */
}

/*
 * Record the counter overflows the thread's rings hold (whichever signal
 * brought us here: a clock signal and an overflow signal pending together
 * are delivered once) with the stack unwound from uc.  The caller holds
 * t's guard.  SIGNAL_SAFE.
 */
static void take_hwc(struct col_thread *t, const ucontext_t *uc, uint32_t extra_flags)
{
	uint64_t counts[EXP_HWC_MAX_COUNTERS];
	if (!hwc_drain(&t->hwc, counts))
		return;
	struct col_config *cfg = col_config();
	uint64_t now = col_now_ns();
	if (!recorded_at(cfg, now))
		return; /* outside the collection window, or paused: not attributed */
	uint64_t id = 0;
	if (!atomic_load_explicit(&cfg->health.err, memory_order_relaxed)) {
		uint32_t flags;
		struct exp_stack s = {.pcs = t->pcs};
		s.nframes = unwind_sample(t, uc, cfg->depth_limit, &flags);
		s.flags = flags | extra_flags;
		s.id = record_stack_hash(s.pcs, s.nframes, s.flags);
		if (stack_intern(t, &s) == 0)
			id = s.id;
	}
	hwc_record(&t->hwc, t->tid, now, id, counts); /* id 0: counted as lost */
}

/*
 * Move the calling thread's sampler (and counters) to the sampling signal
 * now in use, its next expiry at its next grid point.  Under its guard.
 * SIGNAL_SAFE.
 */
static void thread_resignal(struct col_thread *t)
{
	sampler_busy(t);
	int counters = !t->raw && hwc_active();
	if (counters) {
		hwc_thread_stop(&t->hwc);
		hwc_thread_start(&t->hwc, t->tid);
	}
	uint64_t cpu = col_thread_cpu_ns();
	sampler_rearm(&t->smp, t->next_grid_ns > cpu ? t->next_grid_ns - cpu : 1);
	if (counters) {
		sampler_avoid(&t->smp, t->hwc.fd_num, EXP_HWC_MAX_COUNTERS);
		hwc_thread_started(&t->hwc);
	}
	sampler_done(t);
}

void threads_resignal_self(void)
{
	struct col_thread *t = tls_thread;
	if (!t || atomic_load(&t->state) != SLOT_LIVE || !sampler_stale(&t->smp))
		return;
	sig_atomic_t g = tls_guard;
	tls_guard = 1;
	if (t->hwc_deferred || t->deferred)
		take_deferred(t, 0);
	if (hwc_active())
		take_hwc_here(t); /* what the old counters counted, before they go */
	thread_resignal(t);
	tls_guard = g;
}

/*
 * After an expiry of t's sampler, before its sample is charged (the steady
 * event first: the later it is made, the later its expiries come).  The
 * first expiry's one-shot event gives way to the steady one
 * (sampler_after_sample), whose expiries come as far after their grid
 * points as it was made after this one (steady_lag_ns).  A task-clock
 * event's count drifts from the thread's own clock: it counts the time a
 * hypervisor took the CPU away, and not the scheduler's switches, a few
 * microseconds each under load.  An expiry that comes before its grid
 * point is followed by a one-shot for what is left (0: no grid point
 * passed); one that comes more than I/16 (at least 250 us) later than the
 * steady event's lag by a one-shot to the next grid point, then a steady
 * event again.
 * Without them a point is charged to what runs when its late expiry comes,
 * which is always later: the function a process runs first lost the lag
 * at its end.  cpu: the thread's CPU clock as the expiry came (the handler
 * reads it once, for this and for the sample).  SIGNAL_SAFE.
 */
#define RESYNC_FLOOR_NS 250000u /* the lag a VM's timer interrupts alone can add */

/* How late after its grid point an expiry of t's may come before it counts as drifted. */
static uint64_t lag_bound(const struct col_thread *t)
{
	uint64_t iv = sampler_interval_ns();
	return t->steady_lag_ns + (iv / 16 > RESYNC_FLOOR_NS ? iv / 16 : RESYNC_FLOOR_NS);
}

static int next_expiry_now(struct col_thread *t, uint64_t cpu)
{
	if (!sampler_counts_apart(&t->smp)) {
		sampler_after_sample(&t->smp);
		return 1;
	}
	uint64_t iv = sampler_interval_ns(), grid = t->next_grid_ns;
	if (cpu < grid) {
		sampler_rearm(&t->smp, grid - cpu);
		return 0;
	}
	int first = sampler_first_pending(&t->smp);
	if (!first && iv && cpu - grid > lag_bound(t)) {
		sampler_rearm(&t->smp, grid + ((cpu - grid) / iv + 1) * iv - cpu);
		atomic_fetch_add(&col_counters()->resyncs, 1);
		return 1;
	}
	sampler_after_sample(&t->smp);
	if (first && iv)
		t->steady_lag_ns = (col_thread_cpu_ns() - grid) % iv;
	return 1;
}

/* next_expiry_now under sampler_busy; cpu: the thread's CPU clock as the expiry came. */
static int next_expiry(struct col_thread *t, uint64_t cpu)
{
	sampler_busy(t);
	int r = next_expiry_now(t, cpu);
	sampler_done(t);
	return r;
}

/*
 * t's events are being made or let go, here or in the handler: an expiry
 * that comes meanwhile (a signal of another number, or the new event's
 * own) leaves the sampler alone and is followed up by sampler_done.
 * SIGNAL_SAFE.
 */
static void sampler_busy(struct col_thread *t)
{
	t->in_sampler = 1;
	atomic_signal_fence(memory_order_seq_cst);
}

/* The sampler is consistent again: the next_expiry of expiries that came meanwhile. SIGNAL_SAFE. */
static void sampler_done(struct col_thread *t)
{
	for (;;) {
		atomic_signal_fence(memory_order_seq_cst);
		t->in_sampler = 0;
		atomic_signal_fence(memory_order_seq_cst);
		if (!t->expiry_pending)
			return; /* one that comes from here on finds in_sampler 0 and acts itself */
		t->in_sampler = 1;
		atomic_signal_fence(memory_order_seq_cst);
		t->expiry_pending = 0;
		if (atomic_load(&t->state) == SLOT_LIVE && col_collecting())
			next_expiry_now(t, col_thread_cpu_ns());
	}
}

enum sig_owner { SIG_APP, SIG_STALE, SIG_CLOCK, SIG_RETIRED, SIG_HWC };

/* SIG_CLOCK for the thread's sampler's own signal, SIG_RETIRED for a late one of an event it let go. */
static enum sig_owner clock_owner(int owns)
{
	return owns == 1 ? SIG_CLOCK : SIG_RETIRED;
}

/*
 * Whose signal sig with si is: the program's, a stale one of ours (a
 * deleted timer), the clock sampler's (its event's, or a retired one's)
 * or the counters' of thread *ret_t (a raw thread is named by its timer's
 * value).  SIGNAL_SAFE.
 */
static enum sig_owner signal_owner(int sig, const siginfo_t *si, struct col_thread **ret_t)
{
	struct col_thread *t = tls_thread;
	*ret_t = t;
	if (si->si_code == SI_TIMER && is_slot(si->si_value.sival_ptr)) {
		struct col_thread *named = si->si_value.sival_ptr;
		if (named->raw)
			*ret_t = t = named; /* a thread without TLS of its own: its timer names it */
		else if (named != t)
			return SIG_STALE; /* a deleted timer's */
		/* a timer of ours on no signal the samplers use is stale */
		int owns = sampler_owns(&t->smp, sig, si, t);
		return owns ? clock_owner(owns) : SIG_STALE;
	}
	int owns = t ? sampler_owns(&t->smp, sig, si, t) : 0;
	if (owns)
		return clock_owner(owns);
	return t && hwc_owns(&t->hwc, sig, si) ? SIG_HWC : SIG_APP;
}

int threads_on_sampling_signal(int sig, const siginfo_t *si, const ucontext_t *uc)
{
	struct col_thread *t;
	enum sig_owner owner = signal_owner(sig, si, &t);
	if (owner == SIG_APP)
		return 0; /* not our sampling signal: the application's */
	if (owner == SIG_STALE || !t->pcs ||
	    atomic_load_explicit(&t->state, memory_order_relaxed) != SLOT_LIVE || !col_collecting())
		return 1; /* a thread ending, or collection over */
	int hwc = !t->raw && hwc_active();
	struct col_counters *n = col_counters();
	if (owner == SIG_HWC) {
		if (tls_guard) {
			t->hwc_deferred = 1; /* the collector's own code runs: take them when it returns */
			return 1;
		}
		tls_guard = 1;
		take_hwc(t, uc, 0);
		tls_guard = 0;
		return 1;
	}
	atomic_fetch_add(&n->signals, 1); /* each one is a sample, deferred, dropped or lost */
	volatile sig_atomic_t *guard = t->raw ? &t->raw_guard : &tls_guard;
	if (*guard) {
		/*
		 * The thread is in the collector's own code (a heap record, a
		 * dlopen's tables), which uses this thread's stack buffer and
		 * cursors: take the sample when that code returns.
		 */
		if (t->raw)
			atomic_fetch_add(&n->dropped_busy, 1); /* a raw thread's guard has no exit hook */
		else
			t->deferred++; /* only this thread and its handler touch it */
		if (hwc)
			t->hwc_deferred = 1;
		/*
		 * The code interrupted may be making or letting go of this
		 * thread's events (arming, moving to another signal): then
		 * what the expiry asks of the sampler waits until it is done.
		 */
		if (owner == SIG_CLOCK && t->in_sampler)
			t->expiry_pending = 1;
		else if (owner == SIG_CLOCK)
			next_expiry(
				t,
				col_thread_cpu_ns()); /* the first one-shot gives way to the steady event */
		return 1;
	}
	*guard = 1;
	/*
	 * The steady event first: the longer after its grid point it starts,
	 * the more its grid shifts.  A late signal of an event let go says
	 * nothing of the one that replaced it.
	 */
	uint64_t cpu = col_thread_cpu_ns(); /* read once: for the expiry's follow-up and its sample */
	if ((owner == SIG_CLOCK && !next_expiry(t, cpu)) || !take_sample_at(t, uc, 0, cpu))
		atomic_fetch_add(&n->coalesced, 1); /* its grid point comes with a later sample */
	if (hwc)
		take_hwc(t, uc, 0);
	if (sampler_stale(&t->smp))
		thread_resignal(t); /* the program took the sampling signal: move to the new one */
	*guard = 0;
	return 1;
}

/* ------------------------------------------------------------ tracers' stacks */

/*
 * Name stack s for a trace record: by its table slot (writing the STACK
 * record when the stack is new and the STACK_SLOT record when the slot is
 * first used), else by its id.  0, or -1 if nothing could be written.
 */
static int stack_ref(struct col_thread *t, const struct exp_stack *s, struct threads_stackref *ref)
{
	struct col_config *cfg = col_config();
	long slot = stacktab_find_slot(s->id);
	if (slot < 0) {
		if (blockw_append(&cfg->stacks, &t->stk, t->tid, col_now_ns(), EXP_REC_STACK, encode_stack, s,
				  0) < 0)
			return -1;
		slot = stacktab_insert_slot(s->id);
	}
	if (slot >= 0 && stacktab_claim_slot((uint32_t)slot)) {
		struct exp_stack_slot r = {.slot = (uint32_t)slot, .stack_id = s->id};
		if (blockw_append(&cfg->stacks, &t->stk, t->tid, col_now_ns(), EXP_REC_STACK_SLOT,
				  encode_stack_slot, &r, 0) < 0) {
			stacktab_unclaim_slot((uint32_t)slot);
			slot = -1;
		}
	}
	ref->slot = slot >= 0 ? (uint32_t)slot : 0;
	ref->id = s->id;
	ref->kind = slot >= 0 ? EXP_STACKREF_SLOT0 : EXP_STACKREF_ID; /* the STACK record is in the file */
	return 0;
}

/* The way of t's memo that names the stack of a walk from uc with leaf leaf_pc, or NULL. */
static struct trace_memo *memo_find(struct col_thread *t, const ucontext_t *uc, uint32_t max,
				    uint64_t leaf_pc)
{
	if (!t->memo)
		return NULL;
	uint64_t epoch = stacktab_epoch();
	for (uint32_t i = 0; i < TRACE_MEMO_WAYS; i++) {
		struct trace_memo *m = &t->memo[i];
		if (m->leaf_pc == leaf_pc && m->epoch == epoch && unwind_memo_holds(&m->uw, uc, max))
			return m;
	}
	return NULL;
}

/*
 * Unwind from this very frame into pcs; with memo (way is not NULL), first
 * look for the same walk there: *way is the way that holds it (pcs not
 * filled, 0 returned), else the way the walk was remembered in (its ref to
 * be set by the caller).
 */
__attribute__((noinline)) static uint32_t unwind_here(struct col_thread *t, uint64_t *pcs, uint32_t max,
						      uint32_t *ret_flags, uint64_t leaf_pc,
						      struct trace_memo **way, int *hit)
{
	ucontext_t uc;
	context_here(&uc);
	struct unwind_memo *memo = NULL;
	*hit = 0;
	if (way) {
		*way = memo_find(t, &uc, max, leaf_pc);
		if (*way) {
			*hit = 1;
			return 0;
		}
		if (t->memo) {
			*way = &t->memo[t->memo_next++ % TRACE_MEMO_WAYS];
			memo = &(*way)->uw;
		}
	}
	uint32_t n = unwind_from_context_memo(&uc, &t->uw, pcs, max, ret_flags, memo);
	__asm__ volatile("" ::: "memory"); /* keep this frame: no tail call */
	return n;
}

/*
 * Record the thread's pending counter overflows over the stack unwound from
 * here: the collector's frames (hidden by the reader) over the program's,
 * marked as collector overhead.  The caller holds the guard.
 */
__attribute__((noinline)) static void take_hwc_here(struct col_thread *t)
{
	if (!t->pcs)
		return;
	ucontext_t uc;
	context_here(&uc);
	take_hwc(t, &uc, EXP_STACK_COLLECTOR);
	__asm__ volatile("" ::: "memory"); /* keep this frame: no tail call */
}

/*
 * Take the samples that arrived while this thread ran the collector's own
 * code, now that the code is done with the thread's buffers: one sample,
 * which weighs the CPU time since the last (the others are counted as
 * coalesced).  Its stack is unwound from here: the collector's frames
 * (hidden by the reader) over the program's, where the program called in.
 * The caller holds the guard; ending: t is ending, its signals were counted
 * while it lived.
 */
__attribute__((noinline)) static void take_deferred(struct col_thread *t, int ending)
{
	struct col_counters *n = col_counters();
	if (t->hwc_deferred) {
		t->hwc_deferred = 0;
		if (ending || (atomic_load(&t->state) == SLOT_LIVE && col_collecting()))
			take_hwc_here(t);
	}
	for (int round = 0; round < 2 && t->deferred; round++) {
		sig_atomic_t k = t->deferred;
		t->deferred = 0;
		if (!t->pcs || (!ending && (atomic_load(&t->state) != SLOT_LIVE || !col_collecting()))) {
			atomic_fetch_add(&n->dropped_busy, (uint64_t)k);
			return;
		}
		ucontext_t uc;
		context_here(&uc);
		if (!take_sample(t, &uc, EXP_STACK_COLLECTOR)) {
			atomic_fetch_add(&n->coalesced,
					 (uint64_t)k); /* no grid point yet: the next sample's */
			continue;
		}
		atomic_fetch_add(&n->deferred, 1);
		if (k > 1) /* one sample weighs the CPU time of all of them */
			atomic_fetch_add(&n->coalesced, (uint64_t)k - 1);
	}
	__asm__ volatile("" ::: "memory"); /* keep this frame: no tail call */
}

/*
 * At t's end, its sampler stopped: a grid point its own clock passed by
 * cpu_ns (read as its end began, before the sampler's teardown) so shortly
 * before that its expiry could still be on its way (lag_bound), as one
 * sample over the stack from here: the collector's frames (hidden by the
 * reader) over the thread's way out.  The event's count lags the thread's
 * clock by the scheduler's switches, a few microseconds each, so without
 * it a point passed just before the end is lost and threads shorter than I
 * are under-sampled.  Points passed earlier, whose expiries never came
 * (the thread held the signal), are the reader's to charge from the
 * thread's end record (<Unknown> for a thread never sampled).  The caller
 * holds the guard.
 */
__attribute__((noinline)) static void take_end(struct col_thread *t, uint64_t cpu_ns)
{
	if (!t->pcs || tls_wait_cpu || !sampler_interval_ns() || cpu_ns < t->next_grid_ns ||
	    cpu_ns - t->next_grid_ns > lag_bound(t))
		return;
	uint64_t now = col_now_ns(), w = sample_weight(t, cpu_ns, now);
	if (!w)
		return;
	ucontext_t uc;
	context_here(&uc);
	charge_sample(t, &uc, 0, now, w, 0);
	atomic_fetch_add(&col_counters()->end_samples, 1);
	__asm__ volatile("" ::: "memory"); /* keep this frame: no tail call */
}

int threads_guard_enter(void)
{
	int old = tls_guard;
	tls_guard = 1;
	return old;
}

void threads_guard_leave(int old)
{
	struct col_thread *t = tls_thread;
	if (!old && t && (t->deferred || t->hwc_deferred))
		take_deferred(t, 0); /* still under the guard */
	tls_guard = old;
}

void threads_count(enum threads_counter which)
{
	struct col_thread *t = tls_thread;
	if (!t) {
		atomic_fetch_add(&counts_ended[which], 1);
		return;
	}
	/* a load and a store, not a locked add: the slot is this thread's */
	_Atomic uint64_t *k = &t->counts[which];
	atomic_store_explicit(k, atomic_load_explicit(k, memory_order_relaxed) + 1, memory_order_relaxed);
}

uint64_t threads_count_sum(enum threads_counter which)
{
	uint64_t sum = atomic_load(&counts_ended[which]);
	for (uint32_t i = 0, n = slots_used(); thread_slots && i < n; i++) {
		struct col_thread *t = &thread_slots[i];
		if (atomic_load_explicit(&t->state, memory_order_acquire) != SLOT_FREE)
			sum += atomic_load_explicit(&t->counts[which], memory_order_relaxed);
	}
	return sum;
}

void threads_wait_leaf(uint64_t pc)
{
	tls_wait_leaf = pc;
}

uint64_t threads_wait_begin(void)
{
	uint64_t outer = tls_wait_cpu;
	struct col_thread *t = tls_thread;
	uint64_t sp = (uint64_t)(uintptr_t)__builtin_frame_address(0);
	if (!t || !sampler_interval_ns() ||
	    atomic_load_explicit(&t->state, memory_order_relaxed) != SLOT_LIVE ||
	    (t->uw.stack_hi && (sp < t->uw.stack_lo || sp >= t->uw.stack_hi)))
		return outer; /* no samples, or not this thread's stack (a raw clone child shares its TLS) */
	uint64_t cpu = col_thread_cpu_ns();
	tls_wait_cpu = cpu ? cpu : 1;
	return outer;
}

__attribute__((noinline)) void threads_wait_end(uint64_t pc)
{
	struct col_thread *t = tls_thread;
	uint64_t from = tls_wait_cpu;
	if (!from || !t || tls_guard || !t->pcs || atomic_load(&t->state) != SLOT_LIVE || !col_collecting())
		return;
	tls_guard = 1;
	uint64_t cpu = col_thread_cpu_ns(), now = col_now_ns();
	uint64_t w = recorded_since(t, wait_points(t, from, cpu) * sampler_interval_ns(), now);
	tls_wait_cpu = cpu;
	if (w) {
		uint64_t outer_leaf = tls_wait_leaf;
		tls_wait_leaf = pc;
		ucontext_t uc;
		context_here(&uc);
		charge_sample(t, &uc, 0, now, w, 1);
		tls_wait_leaf = outer_leaf;
		atomic_fetch_add(&col_counters()->wait_samples, 1);
	}
	if (t->deferred || t->hwc_deferred)
		take_deferred(t, 0); /* still under the guard */
	tls_guard = 0;
	__asm__ volatile("" ::: "memory"); /* keep this frame: no tail call */
}

void threads_wait_done(uint64_t outer)
{
	tls_wait_leaf = 0;
	tls_wait_cpu = outer;
}

void *threads_next_fn(void *_Atomic *slot, const char *name)
{
	void *p = atomic_load_explicit(slot, memory_order_acquire);
	if (!p) {
		int g = threads_guard_enter(); /* dlsym's own allocations are not the program's */
		p = dlsym(RTLD_NEXT, name);
		threads_guard_leave(g);
		atomic_store_explicit(slot, p, memory_order_release);
	}
	return p;
}

uint32_t threads_trace_tid(void)
{
	struct col_thread *t = tls_thread;
	return t ? t->tid : col_gettid();
}

int threads_trace_stack(struct threads_stackref *ref)
{
	return threads_trace_stack_leaf(ref, 0);
}

int threads_trace_stack_leaf(struct threads_stackref *ref, uint64_t leaf_pc)
{
	struct col_thread *t = tls_thread;
	if (!t || !t->pcs || atomic_load(&t->state) != SLOT_LIVE)
		return 0;
	uint32_t flags, max = col_config()->depth_limit, lead = leaf_pc && max > 1;
	struct exp_stack s = {.pcs = t->pcs};
	struct trace_memo *way = NULL;
	int hit;
	t->pcs[0] = leaf_pc;
	s.nframes = lead + unwind_here(t, t->pcs + lead, max - lead, &flags, leaf_pc, &way, &hit);
	if (hit) {
		*ref = way->ref;
		return 1;
	}
	s.flags = flags;
	s.id = record_stack_hash(s.pcs, s.nframes, s.flags);
	if (stack_ref(t, &s, ref) < 0) {
		if (way)
			way->uw.gen = 0;
		return -1;
	}
	if (way) {
		way->leaf_pc = leaf_pc;
		way->epoch = stacktab_epoch();
		way->ref = *ref;
	}
	return 1;
}

/* ------------------------------------------------------------ pthread_create */

/*
 * The new thread's first frame.  It must stay a real frame (no tail call):
 * its address ends every stack walk in the thread as complete.
 */
static void *thread_start_wrapper(void *p)
{
	struct col_thread *t = p;
	void *(*fn)(void *) = t->start_fn;
	void *arg = t->start_arg;
	if (!col_collecting()) {
		slot_free(t);
		return fn(arg);
	}
	thread_begin(t, t->creator_tid, (uint64_t)(uintptr_t)fn,
		     (uint64_t)(uintptr_t)__builtin_frame_address(0), 0, STARTUP_THREAD);
	void *r = fn(arg);
	__asm__ volatile("" : "+r"(r)::"memory");
	return r;
}

int threads_pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	const struct col_real *real = col_real();
	if (!real->pthread_create)
		return EAGAIN;
	if (!col_collecting())
		return real->pthread_create(th, attr, fn, arg);
	struct col_thread *t = slot_claim();
	if (!t)
		return real->pthread_create(th, attr, fn, arg);
	t->start_fn = fn;
	t->start_arg = arg;
	t->creator_tid = col_gettid();
	int r = real->pthread_create(th, attr, thread_start_wrapper, t);
	if (r != 0)
		slot_free(t);
	return r;
}

/* ------------------------------------------------------------ clone */

/*
 * A thread made by clone(CLONE_VM | CLONE_THREAD) directly: no pthread, and
 * unless CLONE_SETTLS it shares its creator's TLS, so it is identified by its
 * POSIX timer's value and guarded by its slot, never by TLS.
 */
static int raw_start_wrapper(void *p)
{
	struct col_thread *t = p;
	int (*fn)(void *) = t->raw_fn;
	void *arg = t->start_arg;
	if (!col_collecting()) {
		slot_free(t);
		return fn(arg);
	}
	thread_begin(t, t->creator_tid, (uint64_t)(uintptr_t)fn,
		     (uint64_t)(uintptr_t)__builtin_frame_address(0), 0, STARTUP_THREAD);
	int r = fn(arg);
	int expect = SLOT_LIVE;
	if (atomic_compare_exchange_strong(&t->state, &expect, SLOT_ENDING)) {
		t->raw_guard = 1;
		sampler_stop(&t->smp);
		thread_write_end(t, t->tid, col_thread_cpu_ns());
		thread_release(t);
		slot_free(t);
	}
	__asm__ volatile("" : "+r"(r)::"memory");
	return r;
}

void *threads_raw_prepare(int (*fn)(void *), void *arg, void *stack_top, int (**ret_fn)(void *))
{
	if (!col_collecting())
		return NULL;
	struct col_thread *t = slot_claim();
	if (!t)
		return NULL;
	t->raw = 1;
	t->raw_fn = fn;
	t->start_arg = arg;
	t->raw_stack_hi = (uint64_t)(uintptr_t)stack_top;
	t->creator_tid = col_gettid();
	*ret_fn = raw_start_wrapper;
	return t;
}

void threads_raw_cancel(void *slot)
{
	if (slot)
		slot_free(slot);
}

void threads_scan_hazards(void (*fn)(const void *hazard, void *ctx), void *ctx)
{
	if (!thread_slots)
		return;
	/* every slot: a hazard is NULL unless that thread is inside the handler */
	for (uint32_t i = 0, n = slots_used(); i < n; i++)
		fn(atomic_load_explicit(&thread_slots[i].uw.hazard, memory_order_seq_cst), ctx);
}
