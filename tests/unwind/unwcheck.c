/*
 * unwcheck.c - libunwcheck.so: compares the collector's CFI unwinder with
 * libunwind on the same signal context (see unwcheck.h).  Built together
 * with collector/cfi.c, unwtab.c and unwind.c, linked with
 * -Wl,--wrap=mmap,--wrap=munmap so the table memory can be accounted, and
 * with the few collector functions those files call stubbed below.
 *
 * The handler stores one small record per sample (time, depths, verdict) in
 * a preallocated array and the full stacks of the first problem samples;
 * everything else (symbolizing, percentiles, printing) happens at exit.
 */
#include "tests/unwind/unwcheck.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "collector/cfi.h"
#include "collector/state.h"
#include "collector/logxml.h"
#include "collector/unwind.h"
#include "collector/unwtab.h"
#include "experiment/format.h"

#define MAXT 64
#define MAXD_CAP 512
#define SAMPLES_MAX (1u << 20)
#define PROBLEMS_MAX 48
#define LIBS_MAX 16
#define LIB_RANGES 16
#define ALT_BYTES (256 * 1024)

enum verdict {
	V_EXACT,       /* identical frame lists */
	V_PREFIX,      /* ours is a prefix of the reference and says "truncated" */
	V_MISMATCH,    /* a frame differs in the common prefix */
	V_SHORT_CLAIM, /* ours is a shorter prefix but claims complete (flags 0) */
	V_LONGER,      /* ours goes on after the reference stopped */
	V_NOREF,       /* reference disabled */
	V_COUNT
};
static const char *const verdict_name[V_COUNT] = {
	"exact", "prefix_truncated", "mismatch", "short_claims_complete", "ours_longer", "no_reference"};

enum root { ROOT_NONE, ROOT_OK, ROOT_FLAGGED, ROOT_MISSED }; /* see handler */

struct sample {
	uint32_t ticks;   /* rdtsc ticks of unwind_from_context */
	uint16_t n, nref; /* frames: ours, reference */
	uint8_t flags, src, verdict, root;
	uint8_t sigframe; /* a frame is the signal trampoline */
	uint8_t thread;
	uint8_t stale;     /* dlopen stress: a PC in a watched library this thread is not in */
	uint8_t unknown;   /* PCs (frame >= 1) of ours outside every object of the snapshot */
	uint8_t self_root; /* ours reaches the root function with flags 0 */
	uint64_t leaf;
};

struct problem {
	uint32_t sample;
	uint16_t n, nref;
	uint32_t flags;
	uint64_t ours[MAXD_CAP], ref[MAXD_CAP];
	uint8_t kind[MAXD_CAP]; /* rule kind of ours at each frame (255: no object) */
	int16_t fp_off[MAXD_CAP];
	int32_t cfa_off[MAXD_CAP];
};

struct rec {
	struct unwind_thread uw;
	_Atomic int state; /* 0 free, 1 sampled, 2 ended */
	pid_t tid;
	timer_t timer;
	int has_timer;
	uint64_t root_lo, root_hi;
	void *alt;
	volatile int in_lib;
};

struct librange {
	char name[64];
	_Atomic uint32_t n;
	uint64_t lo[LIB_RANGES], hi[LIB_RANGES];
};

static struct rec recs[MAXT];
static _Atomic uint32_t nrecs;
static __thread struct rec *self;
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t tab_lock = PTHREAD_MUTEX_INITIALIZER;

static struct sample *samples;
static _Atomic uint32_t nsamples;
static struct problem *problems;
static _Atomic uint32_t nproblems;
static _Atomic uint64_t dropped, ref_errors;

static struct librange libs[LIBS_MAX];

static int opt_ref = 1, opt_maxd = 256, opt_selftest;
static long opt_kick_us, opt_timer_us = 1000;
static const char *opt_out, *opt_tag = "unwcheck";
static uint64_t restorer;
static uint64_t tsc0, ns0;
static pthread_t kicker;
static _Atomic int kicker_run;
static int kicker_started;

/* table memory (every mmap/munmap of the collector files goes through these) */
static _Atomic int64_t map_live, map_peak;
static _Atomic uint64_t map_calls, unmap_calls;
static int64_t map_after_init;

void *__real_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
int __real_munmap(void *addr, size_t len);
void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
int __wrap_munmap(void *addr, size_t len);

void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	void *p = __real_mmap(addr, len, prot, flags, fd, off);
	if (p != MAP_FAILED) {
		int64_t live = atomic_fetch_add(&map_live, (int64_t)len) + (int64_t)len;
		int64_t peak = atomic_load(&map_peak);
		while (live > peak && !atomic_compare_exchange_weak(&map_peak, &peak, live))
			;
		atomic_fetch_add(&map_calls, 1);
	}
	return p;
}

int __wrap_munmap(void *addr, size_t len)
{
	int r = __real_munmap(addr, len);
	if (r == 0) {
		atomic_fetch_sub(&map_live, (int64_t)len);
		atomic_fetch_add(&unmap_calls, 1);
	}
	return r;
}

/* ------------------------------------------------------------ collector stubs */

uint64_t col_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void logxml_note(const char *element, const char *id, const char *text)
{
	fprintf(stderr, "unwcheck: logxml %s %s: %s\n", element, id, text);
}

/* No experiment: every table is built here, none shared (collector/cfishare.c). */
const char *lineage_experiment(void)
{
	return "";
}

static void scan_hazards(void (*fn)(const void *hazard, void *ctx), void *ctx)
{
	uint32_t n = atomic_load(&nrecs);
	for (uint32_t i = 0; i < n; i++)
		fn(atomic_load_explicit(&recs[i].uw.hazard, memory_order_seq_cst), ctx);
}

/* ------------------------------------------------------------ tables */

static int scan_one(struct dl_phdr_info *info, size_t size, void *ctx)
{
	(void)size;
	(void)ctx;
	unwtab_seen(info);
	const char *name = info->dlpi_name ? info->dlpi_name : "";
	for (int k = 1; k < LIBS_MAX; k++) {
		struct librange *l = &libs[k];
		if (!l->name[0] || !strstr(name, l->name))
			continue;
		uint64_t lo = UINT64_MAX, hi = 0;
		for (int i = 0; i < info->dlpi_phnum; i++) {
			const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
			if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
				continue;
			uint64_t a = info->dlpi_addr + ph->p_vaddr;
			lo = a < lo ? a : lo;
			hi = a + ph->p_memsz > hi ? a + ph->p_memsz : hi;
		}
		uint32_t n = atomic_load(&l->n);
		int known = 0;
		for (uint32_t j = 0; j < n; j++)
			known |= l->lo[j] == lo && l->hi[j] == hi;
		if (!known && n < LIB_RANGES) {
			l->lo[n] = lo;
			l->hi[n] = hi;
			atomic_store(&l->n, n + 1);
		}
	}
	return 0;
}

void unwcheck_rescan(void)
{
	pthread_mutex_lock(&tab_lock);
	unwtab_begin();
	dl_iterate_phdr(scan_one, NULL);
	unwtab_commit();
	pthread_mutex_unlock(&tab_lock);
}

void unwcheck_watch_lib(const char *name, int k)
{
	if (k <= 0 || k >= LIBS_MAX)
		return;
	snprintf(libs[k].name, sizeof libs[k].name, "%s", name);
}

void unwcheck_set_lib(int k)
{
	if (self)
		self->in_lib = k;
}

/* ------------------------------------------------------------ the handler */

static int in_watched(uint64_t pc, int k)
{
	uint32_t n = atomic_load(&libs[k].n);
	for (uint32_t j = 0; j < n; j++)
		if (pc >= libs[k].lo[j] && pc < libs[k].hi[j])
			return 1;
	return 0;
}

static void record_problem(uint32_t idx, const uint64_t *ours, uint32_t n, uint32_t flags,
			   const uint64_t *ref, uint32_t nref, struct rec *t)
{
	uint32_t k = atomic_fetch_add(&nproblems, 1);
	if (k >= PROBLEMS_MAX)
		return;
	struct problem *p = &problems[k];
	p->sample = idx;
	p->n = (uint16_t)n;
	p->nref = (uint16_t)nref;
	p->flags = flags;
	memcpy(p->ours, ours, n * sizeof *ours);
	memcpy(p->ref, ref, nref * sizeof *ref);
	const struct unwtab_snap *s = unwtab_acquire(&t->uw.hazard);
	for (uint32_t i = 0; i < n; i++) {
		uint64_t key = i == 0 ? ours[i] : ours[i] - 1;
		const struct unwtab_obj *o = s ? unwtab_find(s, key) : NULL;
		const struct cfi_rule *r = o && o->table ? cfi_lookup(o->table, key) : NULL;
		p->kind[i] = o ? (r ? r->kind : CFI_NO_INFO) : 255;
		p->fp_off[i] = r ? r->fp_off : 0;
		p->cfa_off[i] = r ? r->cfa_off : 0;
	}
	unwtab_release(&t->uw.hazard);
}

static void on_prof(int sig, siginfo_t *si, void *ucv)
{
	(void)sig;
	int saved_errno = errno;
	struct rec *t = self;
	if (!t || atomic_load_explicit(&t->state, memory_order_acquire) != 1) {
		atomic_fetch_add(&dropped, 1);
		errno = saved_errno;
		return;
	}
	ucontext_t *uc = ucv;
	uint64_t ours[MAXD_CAP], ref[MAXD_CAP];
	uint32_t flags = 0, max = (uint32_t)opt_maxd;

	_mm_lfence();
	uint64_t a = __rdtsc();
	_mm_lfence();
	uint32_t n = unwind_from_context(uc, &t->uw, ours, max, &flags);
	_mm_lfence();
	uint64_t b = __rdtsc();

	/*
	 * libunwind calls dl_iterate_phdr, which would deadlock if this thread was
	 * interrupted inside dlopen/dlclose holding (or taking) the loader's lock:
	 * no reference inside a library load..unload window.
	 */
	int do_ref = opt_ref && !t->in_lib;
	uint32_t nref = 0;
	if (do_ref) {
		unw_cursor_t c;
		if (unw_init_local2(&c, (unw_context_t *)uc, UNW_INIT_SIGNAL_FRAME) == 0) {
			do {
				unw_word_t ip = 0;
				if (unw_get_reg(&c, UNW_REG_IP, &ip) < 0 || ip == 0)
					break;
				ref[nref++] = ip;
			} while (nref < max && unw_step(&c) > 0);
		} else {
			atomic_fetch_add(&ref_errors, 1);
		}
	}

	uint32_t idx = atomic_fetch_add(&nsamples, 1);
	if (idx >= SAMPLES_MAX) {
		errno = saved_errno;
		return;
	}
	if (opt_selftest && idx % 100 == 7 && n > 2)
		ours[n / 2] += 1; /* negative control: the harness must see this */
	struct sample *s = &samples[idx];
	s->ticks = (uint32_t)(b - a > UINT32_MAX ? UINT32_MAX : b - a);
	s->n = (uint16_t)n;
	s->nref = (uint16_t)nref;
	s->flags = (uint8_t)flags;
	s->src = si->si_code == SI_TIMER ? 0 : 1;
	s->thread = (uint8_t)(t - recs);
	s->leaf = n ? ours[0] : 0;

	int v;
	uint32_t m = n < nref ? n : nref, diff = UINT32_MAX;
	for (uint32_t i = 0; i < m; i++)
		if (ours[i] != ref[i]) {
			diff = i;
			break;
		}
	if (!do_ref)
		v = V_NOREF;
	else if (diff != UINT32_MAX)
		v = V_MISMATCH;
	else if (n == nref)
		v = V_EXACT;
	else if (n < nref)
		v = flags ? V_PREFIX : V_SHORT_CLAIM;
	else
		v = V_LONGER;
	s->verdict = (uint8_t)v;

	/* does the reference reach the thread's root function, and ours? */
	int root = ROOT_NONE;
	for (uint32_t i = 0; i < nref; i++) {
		uint64_t pc = i ? ref[i] - 1 : ref[i];
		if (pc >= t->root_lo && pc < t->root_hi) {
			if (i < n && ours[i] == ref[i] && (diff == UINT32_MAX || diff > i))
				root = flags == 0 ? ROOT_OK : ROOT_FLAGGED;
			else
				root = ROOT_MISSED;
			break;
		}
	}
	s->root = (uint8_t)root;
	int self_root = 0; /* ours alone reaches the root and says complete */
	for (uint32_t i = 1; i < n && !self_root; i++)
		self_root = ours[i] - 1 >= t->root_lo && ours[i] - 1 < t->root_hi && flags == 0;
	s->self_root = (uint8_t)self_root;

	int sigf = 0;
	for (uint32_t i = 1; i < n && !sigf; i++)
		sigf = ours[i] >= restorer && ours[i] < restorer + 16;
	for (uint32_t i = 1; i < nref && !sigf; i++)
		sigf = ref[i] >= restorer && ref[i] < restorer + 16;
	s->sigframe = (uint8_t)sigf;

	/* dlopen stress: PCs in watched libraries the thread is not executing */
	int stale = 0, unknown = 0;
	const struct unwtab_snap *snap = unwtab_acquire(&t->uw.hazard);
	for (uint32_t i = 0; i < n; i++) {
		for (int k = 1; k < LIBS_MAX; k++) {
			/* a thread outside every load..unload window cannot be in any library */
			if (libs[k].name[0] && !t->in_lib && in_watched(ours[i], k))
				stale = 1;
		}
		if (i && snap && !unwtab_find(snap, ours[i] - 1))
			unknown++;
	}
	unwtab_release(&t->uw.hazard);
	s->stale = (uint8_t)stale;
	s->unknown = (uint8_t)(unknown > 255 ? 255 : unknown);

	if (v == V_MISMATCH || v == V_SHORT_CLAIM || v == V_LONGER || root == ROOT_MISSED ||
	    root == ROOT_FLAGGED || stale || (v == V_NOREF && opt_ref && !self_root))
		record_problem(idx, ours, n, flags, ref, nref, t);
	errno = saved_errno;
}

/* ------------------------------------------------------------ threads */

static void *kick_main(void *arg)
{
	(void)arg;
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	uint32_t next = 0;
	struct timespec ts = {0, opt_kick_us * 1000};
	pid_t pid = getpid();
	while (atomic_load(&kicker_run)) {
		nanosleep(&ts, NULL);
		uint32_t n = atomic_load(&nrecs);
		for (uint32_t j = 0; j < n; j++) {
			struct rec *r = &recs[(next + j) % n];
			pthread_mutex_lock(&reg_lock);
			int ok = atomic_load(&r->state) == 1;
			if (ok)
				syscall(SYS_tgkill, pid, r->tid, SIGPROF);
			pthread_mutex_unlock(&reg_lock);
			if (ok) {
				next = (next + j + 1) % n;
				break;
			}
		}
	}
	return NULL;
}

static void fn_range(void *fn, uint64_t *lo, uint64_t *hi)
{
	Dl_info di;
	const ElfW(Sym) *sym = NULL;
	*lo = *hi = 0;
	if (fn && dladdr1(fn, &di, (void **)&sym, RTLD_DL_SYMENT) && sym && sym->st_size) {
		*lo = (uint64_t)(uintptr_t)di.dli_saddr;
		*hi = *lo + sym->st_size;
	} else if (fn) {
		fprintf(stderr, "unwcheck: no symbol size for root %p (build the fixture with -rdynamic)\n",
			fn);
	}
}

static void prime_libunwind(void)
{
	unw_context_t ctx;
	unw_cursor_t c;
	unw_getcontext(&ctx);
	if (unw_init_local(&c, &ctx) == 0)
		while (unw_step(&c) > 0)
			;
}

void unwcheck_thread_start(void *root_fn)
{
	uint32_t i = atomic_load(&nrecs);
	pthread_mutex_lock(&reg_lock);
	i = atomic_load(&nrecs);
	if (i >= MAXT) {
		pthread_mutex_unlock(&reg_lock);
		fprintf(stderr, "unwcheck: too many threads\n");
		return;
	}
	struct rec *r = &recs[i];
	memset(r, 0, sizeof *r);
	atomic_store(&nrecs, i + 1);
	pthread_mutex_unlock(&reg_lock);

	r->tid = (pid_t)syscall(SYS_gettid);
	pthread_attr_t at;
	void *addr;
	size_t size;
	if (pthread_getattr_np(pthread_self(), &at) == 0) {
		pthread_attr_getstack(&at, &addr, &size);
		pthread_attr_destroy(&at);
		r->uw.stack_lo = (uint64_t)(uintptr_t)addr;
		r->uw.stack_hi = r->uw.stack_lo + size;
	}
	fn_range(root_fn, &r->root_lo, &r->root_hi);
	prime_libunwind();

	r->alt = malloc(ALT_BYTES);
	stack_t ss = {.ss_sp = r->alt, .ss_size = ALT_BYTES};
	sigaltstack(&ss, NULL);
	self = r;
	atomic_store_explicit(&r->state, 1, memory_order_release);

	struct sigevent sev = {.sigev_notify = SIGEV_THREAD_ID, .sigev_signo = SIGPROF};
	sev._sigev_un._tid = r->tid;
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &r->timer) == 0) {
		r->has_timer = 1;
		struct itimerspec its = {{opt_timer_us / 1000000, (opt_timer_us % 1000000) * 1000},
					 {opt_timer_us / 1000000, (opt_timer_us % 1000000) * 1000}};
		timer_settime(r->timer, 0, &its, NULL);
	} else {
		perror("unwcheck: timer_create");
	}
	if (opt_kick_us > 0) {
		pthread_mutex_lock(&reg_lock);
		if (!kicker_started) {
			kicker_started = 1;
			atomic_store(&kicker_run, 1);
			pthread_create(&kicker, NULL, kick_main, NULL);
		}
		pthread_mutex_unlock(&reg_lock);
	}
}

void unwcheck_thread_end(void)
{
	struct rec *r = self;
	if (!r)
		return;
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGPROF);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (r->has_timer)
		timer_delete(r->timer);
	pthread_mutex_lock(&reg_lock);
	atomic_store(&r->state, 2);
	pthread_mutex_unlock(&reg_lock);
	self = NULL;
	stack_t ss = {.ss_flags = SS_DISABLE};
	sigaltstack(&ss, NULL);
	/* r->alt is leaked on purpose: a pending SIGPROF dies with the thread */
}

/* ------------------------------------------------------------ table report */

struct marena {
	void *blocks[4096];
	int n;
	size_t bytes;
};

static void *marena_alloc(void *ctx, size_t bytes)
{
	struct marena *a = ctx;
	if (a->n >= 4096)
		return NULL;
	void *p = aligned_alloc(16, (bytes + 15) & ~(size_t)15);
	if (p) {
		memset(p, 0, bytes);
		a->blocks[a->n++] = p;
		a->bytes += bytes;
	}
	return p;
}

static void marena_free(struct marena *a)
{
	for (int i = 0; i < a->n; i++)
		free(a->blocks[i]);
	a->n = 0;
	a->bytes = 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int report_one(struct dl_phdr_info *info, size_t size, void *ctx)
{
	(void)size;
	int reps = *(int *)ctx;
	const char *name = info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name : "(exe)";
	const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
	uint64_t olo = UINT64_MAX, ohi = 0, text = 0;
	const ElfW(Phdr) *eh = NULL;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_GNU_EH_FRAME)
			eh = ph;
		if (ph->p_type != PT_LOAD)
			continue;
		uint64_t a = info->dlpi_addr + ph->p_vaddr, b = a + ph->p_memsz;
		olo = a < olo ? a : olo;
		ohi = b > ohi ? b : ohi;
		if (ph->p_flags & PF_X)
			text += ph->p_memsz;
	}
	if (!eh) {
		printf("  %-28s %8.1f KiB text  no PT_GNU_EH_FRAME (the collector tries .debug_frame)\n",
		       base, text / 1024.0);
		return 0;
	}
	static struct marena ar;
	uint64_t ns[64];
	struct cfi_table t = {0};
	int r = 0;
	if (reps > 64)
		reps = 64;
	for (int k = 0; k < reps; k++) {
		struct cfi_alloc al = {marena_alloc, &ar};
		memset(&t, 0, sizeof t);
		uint64_t t0 = col_now_ns();
		r = cfi_build_eh_frame_hdr((const uint8_t *)(info->dlpi_addr + eh->p_vaddr), eh->p_memsz, olo,
					   ohi, &al, &t);
		ns[k] = col_now_ns() - t0;
		if (k + 1 < reps)
			marena_free(&ar);
	}
	qsort(ns, (size_t)reps, sizeof ns[0], cmp_u64);
	printf("  %-28s %8.1f KiB text %6u FDEs %7u rows %8.1f KiB %5.1f B/row %3u unsup  build %8.1f us "
	       "(min %.1f) %5.0f ns/FDE%s\n",
	       base, text / 1024.0, t.nfde, t.nrows, t.bytes / 1024.0,
	       t.nrows ? (double)t.bytes / t.nrows : 0.0, t.unsupported, ns[reps / 2] / 1000.0,
	       ns[0] / 1000.0, t.nfde ? (double)ns[reps / 2] / t.nfde : 0.0, r ? " (error)" : "");
	if (opt_out) {
		FILE *f = fopen(opt_out, "a");
		if (f) {
			fprintf(f, "table %s fdes=%u rows=%u bytes=%zu unsupported=%u build_ns=%llu rc=%d\n",
				base, t.nfde, t.nrows, t.bytes, t.unsupported,
				(unsigned long long)ns[reps / 2], r);
			fclose(f);
		}
	}
	marena_free(&ar);
	return 0;
}

void unwcheck_table_report(int reps)
{
	printf("unwind tables per load object (cfi_build_eh_frame_hdr, median of %d builds, malloc arena):\n",
	       reps);
	dl_iterate_phdr(report_one, &reps);
	struct unwtab_stats st;
	unwtab_get_stats(&st);
	printf("  unwtab at init: %u objects (%u without CFI), %llu rows, %.1f KiB, %llu unsupported rows, "
	       "build %.2f ms total\n",
	       st.objects, st.objects_without_cfi, (unsigned long long)st.rows, st.bytes / 1024.0,
	       (unsigned long long)st.unsupported, st.build_ns / 1e6);
}

/* ------------------------------------------------------------ setup and summary */

static long env_long(const char *name, long def)
{
	const char *s = getenv(name);
	return s && *s ? strtol(s, NULL, 10) : def;
}

__attribute__((constructor)) static void unwcheck_init(void)
{
	opt_ref = (int)env_long("UNWCHECK_REF", 1);
	opt_maxd = (int)env_long("UNWCHECK_MAXD", 256);
	opt_selftest = (int)env_long("UNWCHECK_SELFTEST", 0);
	if (opt_maxd < 2 || opt_maxd > MAXD_CAP)
		opt_maxd = 256;
	opt_kick_us = env_long("UNWCHECK_KICK_US", 0);
	opt_timer_us = env_long("UNWCHECK_TIMER_US", 1000);
	opt_out = getenv("UNWCHECK_OUT");
	if (getenv("UNWCHECK_TAG"))
		opt_tag = getenv("UNWCHECK_TAG");
	samples = __real_mmap(NULL, sizeof(struct sample) * SAMPLES_MAX, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	problems = __real_mmap(NULL, sizeof(struct problem) * PROBLEMS_MAX, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (samples == MAP_FAILED || problems == MAP_FAILED) {
		fprintf(stderr, "unwcheck: out of memory\n");
		abort();
	}
	if (unwtab_init(scan_hazards) != 0) {
		fprintf(stderr, "unwcheck: unwtab_init failed\n");
		abort();
	}
	unwcheck_rescan();
	map_after_init = atomic_load(&map_live);
	prime_libunwind();

	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_prof;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGPROF, &sa, NULL);
	struct sigaction cur;
	sigaction(SIGPROF, NULL, &cur);
	restorer = (uint64_t)(uintptr_t)cur.sa_restorer;
	tsc0 = __rdtsc();
	ns0 = col_now_ns();
}

static const char *obj_of(uint64_t pc, char *buf, size_t room)
{
	Dl_info di;
	if (!pc || !dladdr((void *)(uintptr_t)pc, &di) || !di.dli_fname)
		return "(unloaded/unknown)";
	const char *b = strrchr(di.dli_fname, '/') ? strrchr(di.dli_fname, '/') + 1 : di.dli_fname;
	if (!b[0])
		b = "(exe)";
	snprintf(buf, room, "%s", b);
	return buf;
}

static void sym(uint64_t pc, int ret_addr, char *buf, size_t room)
{
	Dl_info di;
	uint64_t q = ret_addr ? pc - 1 : pc;
	if (pc >= restorer && pc < restorer + 16) {
		snprintf(buf, room, "__restore_rt+%#llx", (unsigned long long)(pc - restorer));
		return;
	}
	if (pc && dladdr((void *)(uintptr_t)q, &di) && di.dli_fname) {
		const char *b = strrchr(di.dli_fname, '/') ? strrchr(di.dli_fname, '/') + 1 : di.dli_fname;
		if (di.dli_sname)
			snprintf(buf, room, "%s+%#llx (%s)", di.dli_sname,
				 (unsigned long long)(pc - (uint64_t)(uintptr_t)di.dli_saddr),
				 b[0] ? b : "exe");
		else
			snprintf(buf, room, "%s+%#llx", b[0] ? b : "exe",
				 (unsigned long long)(pc - (uint64_t)(uintptr_t)di.dli_fbase));
	} else {
		snprintf(buf, room, "?");
	}
}

static const char *kind_name(int k)
{
	static const char *const names[] = {"NO_INFO", "CFA_SP", "CFA_FP", "PLT", "SIGNAL", "OUTERMOST"};
	return k == 255 ? "no-object" : k >= 0 && k <= 5 ? names[k] : "?";
}

static void print_problem(const struct problem *p)
{
	const struct sample *s = &samples[p->sample];
	fprintf(stderr, "--- sample %u: %s, root=%d, flags=%u, ours %u frames, libunwind %u frames%s\n",
		p->sample, verdict_name[s->verdict], s->root, p->flags, p->n, p->nref,
		s->stale ? ", STALE library PC" : "");
	uint32_t m = p->n > p->nref ? p->n : p->nref, first = m;
	for (uint32_t i = 0; i < m && first == m; i++)
		if (i >= p->n || i >= p->nref || p->ours[i] != p->ref[i])
			first = i;
	int gap = 0;
	for (uint32_t i = 0; i < m; i++) {
		char a[160] = "", b[160] = "";
		if (!(i < 16 || i + 4 >= m || (i + 4 >= first && i <= first + 6))) {
			if (!gap)
				fprintf(stderr, "  ...\n");
			gap = 1;
			continue;
		}
		gap = 0;
		if (i < p->n)
			sym(p->ours[i], i > 0, a, sizeof a);
		if (i < p->nref)
			sym(p->ref[i], i > 0, b, sizeof b);
		int same = i < p->n && i < p->nref && p->ours[i] == p->ref[i];
		fprintf(stderr, "  %3u %c %#14llx %-46.46s", i, same ? ' ' : '*',
			(unsigned long long)(i < p->n ? p->ours[i] : 0), a);
		if (i < p->n)
			fprintf(stderr, " [%s cfa%+d fp%s%d]", kind_name(p->kind[i]), p->cfa_off[i],
				p->fp_off[i] == CFI_FP_SAME ? "=same" : "@",
				p->fp_off[i] == CFI_FP_SAME ? 0 : p->fp_off[i]);
		if (!same && i < p->nref)
			fprintf(stderr, "  | ref %#llx %s", (unsigned long long)p->ref[i], b);
		fprintf(stderr, "\n");
	}
}

static double pct(uint64_t *v, uint32_t n, double q)
{
	if (!n)
		return 0;
	uint32_t i = (uint32_t)(q * (n - 1) + 0.5);
	return (double)v[i];
}

__attribute__((destructor)) static void unwcheck_fini(void)
{
	if (kicker_started) {
		atomic_store(&kicker_run, 0);
		pthread_join(kicker, NULL);
	}
	/* stop sampling whatever thread is still registered (e.g. main did not call thread_end) */
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGPROF);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	uint32_t n = atomic_load(&nsamples);
	if (n > SAMPLES_MAX)
		n = SAMPLES_MAX;
	double tick_ns = (double)(col_now_ns() - ns0) / (double)(__rdtsc() - tsc0);

	uint64_t verdicts[V_COUNT] = {0}, roots[4] = {0}, src[2] = {0}, sigf = 0, sigf_exact = 0, stale = 0,
		 unknown = 0, frames = 0, noref = 0, noref_root = 0;
	uint64_t *ns = malloc(sizeof(uint64_t) * (n + 1)), *pf = malloc(sizeof(uint64_t) * (n + 1));
	uint32_t nt = 0;
	/* leaf object classes */
	struct {
		char name[64];
		uint64_t n, cmp, agree;
	} cls[24];
	int ncls = 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct sample *s = &samples[i];
		verdicts[s->verdict]++;
		roots[s->root]++;
		src[s->src]++;
		frames += s->n;
		sigf += s->sigframe;
		sigf_exact += s->sigframe && s->verdict == V_EXACT;
		stale += s->stale;
		noref += s->verdict == V_NOREF;
		noref_root += s->verdict == V_NOREF && s->self_root;
		unknown += s->unknown != 0;
		ns[nt] = (uint64_t)(s->ticks * tick_ns + 0.5);
		pf[nt++] =
			s->n ? (uint64_t)(s->ticks * tick_ns * 1000 / s->n) : 0; /* picoseconds per frame */
		char buf[64];
		const char *o = obj_of(s->leaf, buf, sizeof buf);
		int c;
		for (c = 0; c < ncls && strcmp(cls[c].name, o) != 0; c++)
			;
		if (c == ncls && ncls < 24)
			snprintf(cls[ncls++].name, sizeof cls[0].name, "%s", o),
				cls[c].n = cls[c].cmp = cls[c].agree = 0;
		if (c < 24) {
			cls[c].n++;
			cls[c].cmp += s->verdict != V_NOREF;
			cls[c].agree += s->verdict == V_EXACT || s->verdict == V_PREFIX;
		}
	}
	uint64_t agree = verdicts[V_EXACT] + verdicts[V_PREFIX];
	uint64_t compared = n - verdicts[V_NOREF];
	uint64_t root_total = roots[ROOT_OK] + roots[ROOT_FLAGGED] + roots[ROOT_MISSED];
	qsort(ns, nt, sizeof ns[0], cmp_u64);
	qsort(pf, nt, sizeof pf[0], cmp_u64);
	struct unwtab_stats st;
	unwtab_get_stats(&st);

	fprintf(stderr,
		"unwcheck[%s]: %u samples (timer %llu, kick %llu, dropped %llu), %.1f frames/sample\n",
		opt_tag, n, (unsigned long long)src[0], (unsigned long long)src[1],
		(unsigned long long)atomic_load(&dropped), n ? (double)frames / n : 0.0);
	if (opt_ref) {
		fprintf(stderr, "unwcheck[%s]: agreement %.3f%% (%llu/%llu): ", opt_tag,
			compared ? 100.0 * agree / compared : 0, (unsigned long long)agree,
			(unsigned long long)compared);
		for (int v = 0; v < V_COUNT; v++)
			if (verdicts[v])
				fprintf(stderr, "%s=%llu ", verdict_name[v], (unsigned long long)verdicts[v]);
		fprintf(stderr,
			"\nunwcheck[%s]: reference reaches root in %llu: ours complete %llu, reached but "
			"flagged truncated %llu, missed %llu\n",
			opt_tag, (unsigned long long)root_total, (unsigned long long)roots[ROOT_OK],
			(unsigned long long)roots[ROOT_FLAGGED], (unsigned long long)roots[ROOT_MISSED]);
		fprintf(stderr,
			"unwcheck[%s]: through a signal frame %llu (exact %llu); leaf object agree/compared:",
			opt_tag, (unsigned long long)sigf, (unsigned long long)sigf_exact);
		for (int c = 0; c < ncls; c++)
			fprintf(stderr, " %s %llu/%llu", cls[c].name, (unsigned long long)cls[c].agree,
				(unsigned long long)cls[c].cmp);
		fprintf(stderr, "\n");
	}
	fprintf(stderr,
		"unwcheck[%s]: ours ns/sample p50 %.0f p90 %.0f p99 %.0f max %.0f; ns/frame p50 %.1f p99 %.1f\n",
		opt_tag, pct(ns, nt, 0.5), pct(ns, nt, 0.9), pct(ns, nt, 0.99), pct(ns, nt, 1.0),
		pct(pf, nt, 0.5) / 1000, pct(pf, nt, 0.99) / 1000);
	fprintf(stderr,
		"unwcheck[%s]: stale-library PCs in %llu samples; samples with a PC outside every object %llu\n",
		opt_tag, (unsigned long long)stale, (unsigned long long)unknown);
	if (noref)
		fprintf(stderr,
			"unwcheck[%s]: %llu samples without reference (thread inside dlopen/dlclose): ours "
			"complete to the root in %llu\n",
			opt_tag, (unsigned long long)noref, (unsigned long long)noref_root);
	fprintf(stderr,
		"unwcheck[%s]: tables: %u objects built (cumulative), table mmap live %lld KiB (after init %lld, "
		"peak %lld), mmaps %llu munmaps %llu\n",
		opt_tag, st.objects, (long long)atomic_load(&map_live) / 1024,
		(long long)map_after_init / 1024, (long long)atomic_load(&map_peak) / 1024,
		(unsigned long long)atomic_load(&map_calls), (unsigned long long)atomic_load(&unmap_calls));
	uint32_t np = atomic_load(&nproblems);
	for (uint32_t i = 0; i < np && i < 10; i++)
		print_problem(&problems[i]);
	if (opt_out) {
		FILE *f = fopen(opt_out, "a");
		if (f) {
			fprintf(f,
				"run %s samples=%u compared=%llu agree=%llu exact=%llu mismatch=%llu short_claim=%llu "
				"longer=%llu root_total=%llu root_ok=%llu root_flagged=%llu root_missed=%llu "
				"sigframe=%llu stale=%llu unknown=%llu ns_p50=%.0f ns_p99=%.0f ps_frame_p50=%.0f "
				"ps_frame_p99=%.0f frames_avg=%.2f map_live=%lld map_after_init=%lld map_peak=%lld "
				"munmaps=%llu objects_built=%u noref=%llu noref_root=%llu\n",
				opt_tag, n, (unsigned long long)compared, (unsigned long long)agree,
				(unsigned long long)verdicts[V_EXACT],
				(unsigned long long)verdicts[V_MISMATCH],
				(unsigned long long)verdicts[V_SHORT_CLAIM],
				(unsigned long long)verdicts[V_LONGER], (unsigned long long)root_total,
				(unsigned long long)roots[ROOT_OK], (unsigned long long)roots[ROOT_FLAGGED],
				(unsigned long long)roots[ROOT_MISSED], (unsigned long long)sigf,
				(unsigned long long)stale, (unsigned long long)unknown, pct(ns, nt, 0.5),
				pct(ns, nt, 0.99), pct(pf, nt, 0.5), pct(pf, nt, 0.99),
				n ? (double)frames / n : 0.0, (long long)atomic_load(&map_live),
				(long long)map_after_init, (long long)atomic_load(&map_peak),
				(unsigned long long)atomic_load(&unmap_calls), st.objects,
				(unsigned long long)noref, (unsigned long long)noref_root);
			fclose(f);
		}
	}
	free(ns);
	free(pf);
}
