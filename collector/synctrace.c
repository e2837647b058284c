/*
 * synctrace.c - synchronization wait tracing (see synctrace.h and
 * tracer.h).  The interposers live in libcollector-sync.so (syncwrap.c),
 * which calls synctrace_record only for a call that blocked (its
 * non-blocking attempt failed); here the wait is compared with the
 * threshold, counted, and recorded with its stack.  Nothing here allocates
 * or takes a lock.
 */
#include "collector/synctrace.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "collector/state.h"
#include "collector/threads.h"
#include "experiment/format.h"
#include "experiment/record.h"

#define CALIBRATE_ROUNDS 2000
#define CALIBRATE_FACTOR 6 /* the Oracle manual's factor */
#define THRESHOLD_FLOOR_NS 1000u
/* Watched objects: at most half the slots used, so that a lookup that misses stays short. */
#define SYNC_WATCH_MAX 1024u
#define WATCH_SLOTS (2 * SYNC_WATCH_MAX) /* a power of 2 */

static struct blockw_file *sync_file; /* NULL: not started in this process */
static uint64_t sync_threshold;       /* ns */
static int sync_calibrated;           /* 1: measured, 0: given (w=) */

static _Atomic uint64_t sync_waits;   /* waits recorded */
static _Atomic uint64_t sync_calls;   /* calls that blocked, recorded or not */
static _Atomic uint64_t sync_dropped; /* waits lost: no block (the data files stopped) */
static _Atomic uint64_t sync_stackless;

static __thread struct blockw_cursor tls_sync;
static __thread int tls_sync_ended;

/* A watched object (0: free slot) and its acquisitions since its first recorded wait. */
struct watch_slot {
	_Atomic uint64_t object;
	_Atomic uint64_t acquisitions;
};
static struct watch_slot watch[WATCH_SLOTS];
static _Atomic uint32_t watch_used;       /* slots claimed */
static _Atomic uint64_t watch_unwatched;  /* objects not watched: the table was full */
static _Atomic uint64_t sync_acq_sampled; /* SYNC_ACQ records written */
static __thread uint32_t tls_acq_skip;    /* the thread's acquisitions to skip before the next sample */

int synctrace_active(void)
{
	return sync_file && col_recording();
}

static size_t encode_sync(uint8_t *buf, size_t room, uint64_t prev_ns, const void *rec)
{
	return record_encode_sync(buf, room, prev_ns, rec);
}

static size_t encode_sync_acq(uint8_t *buf, size_t room, uint64_t prev_ns, const void *rec)
{
	return record_encode_sync_acq(buf, room, prev_ns, rec);
}

static size_t encode_sync_count(uint8_t *buf, size_t room, uint64_t prev_ns, const void *rec)
{
	(void)prev_ns;
	return record_encode_sync_count(buf, room, rec);
}

/* The functions that take their object when they return 0 (not a wait for an event). */
static int func_takes(unsigned func)
{
	switch (func) {
	case EXP_SYNC_COND_WAIT:
	case EXP_SYNC_COND_TIMEDWAIT:
	case EXP_SYNC_COND_CLOCKWAIT:
	case EXP_SYNC_BARRIER_WAIT:
	case EXP_SYNC_JOIN:
	case EXP_SYNC_TIMEDJOIN:
	case EXP_SYNC_CLOCKJOIN:
	case EXP_SYNC_CND_WAIT:
	case EXP_SYNC_CND_TIMEDWAIT:
	case EXP_SYNC_THRD_JOIN: return 0;
	default: return 1;
	}
}

static uint32_t watch_hash(uint64_t object)
{
	uint64_t h = object * 0x9e3779b97f4a7c15ull;
	return (uint32_t)(h >> 40) & (WATCH_SLOTS - 1);
}

/* object's slot, or NULL when it is not watched.  Lock-free.  SIGNAL_SAFE. */
static struct watch_slot *watch_find(uint64_t object)
{
	if (!object || !atomic_load_explicit(&watch_used, memory_order_relaxed))
		return NULL;
	for (uint32_t i = watch_hash(object), k = 0; k < WATCH_SLOTS; i = (i + 1) & (WATCH_SLOTS - 1), k++) {
		uint64_t o = atomic_load_explicit(&watch[i].object, memory_order_acquire);
		if (o == object)
			return &watch[i];
		if (!o)
			return NULL;
	}
	return NULL;
}

/* Watch object (if not yet): its slot, or NULL when the table is full. SIGNAL_SAFE. */
static struct watch_slot *watch_add(uint64_t object)
{
	struct watch_slot *w = watch_find(object);
	if (w || !object)
		return w;
	for (uint32_t i = watch_hash(object), k = 0; k < WATCH_SLOTS; i = (i + 1) & (WATCH_SLOTS - 1), k++) {
		uint64_t o = atomic_load_explicit(&watch[i].object, memory_order_acquire);
		if (o == object)
			return &watch[i];
		if (o)
			continue;
		/* a free slot: claim it if the table has room (used stays at most SYNC_WATCH_MAX) */
		uint32_t u = atomic_load_explicit(&watch_used, memory_order_relaxed);
		do {
			if (u >= SYNC_WATCH_MAX) {
				atomic_fetch_add_explicit(&watch_unwatched, 1, memory_order_relaxed);
				return NULL;
			}
		} while (!atomic_compare_exchange_weak(&watch_used, &u, u + 1));
		if (atomic_compare_exchange_strong(&watch[i].object, &o, object))
			return &watch[i];
		atomic_fetch_sub(&watch_used, 1); /* another thread took the slot: look on */
		if (o == object)
			return &watch[i];
	}
	return NULL;
}

/* Record a sampled acquisition of object with the calling thread's stack. */
static void record_acq(struct blockw_file *file, unsigned func, uint64_t object, uint64_t leaf_pc)
{
	int g = threads_guard_enter();
	if (g) { /* the collector's own call */
		threads_guard_leave(g);
		return;
	}
	uint64_t now = col_now_ns();
	struct exp_sync_acq a = {.ts_ns = now, .func = func, .object = object};
	struct threads_stackref ref;
	if (threads_trace_stack_leaf(&ref, leaf_pc) > 0)
		a.stack_id = ref.id;
	else
		atomic_fetch_add(&sync_stackless, 1);
	if (blockw_append(file, &tls_sync, threads_trace_tid(), now, EXP_REC_SYNC_ACQ, encode_sync_acq, &a,
			  now) < 0)
		atomic_fetch_add(&sync_dropped, 1);
	else
		atomic_fetch_add(&sync_acq_sampled, 1);
	if (tls_sync_ended)
		blockw_cursor_release(&tls_sync);
	threads_guard_leave(g);
}

void synctrace_acquired(unsigned func, uint64_t object, uint64_t leaf_pc)
{
	struct blockw_file *file = sync_file;
	if (!file || !col_recording())
		return;
	struct watch_slot *w = watch_find(object);
	if (!w)
		return;
	atomic_fetch_add_explicit(&w->acquisitions, 1, memory_order_relaxed);
	if (tls_acq_skip) {
		tls_acq_skip--;
		return;
	}
	tls_acq_skip = EXP_SYNC_ACQ_SAMPLE_EVERY - 1;
	int saved_errno = errno;
	record_acq(file, func, object, leaf_pc);
	errno = saved_errno;
}

int synctrace_record(unsigned func, uint64_t object, uint64_t start_ns, uint64_t wait_ns, uint64_t leaf_pc)
{
	struct blockw_file *file = sync_file;
	if (!file || !col_recording())
		return 0;
	atomic_fetch_add_explicit(&sync_calls, 1, memory_order_relaxed);
	if (wait_ns < sync_threshold)
		return watch_find(object) != NULL;
	int g = threads_guard_enter();
	if (g) { /* the collector's own call */
		threads_guard_leave(g);
		return watch_find(object) != NULL;
	}
	int saved_errno = errno;
	struct exp_sync y = {.ts_ns = start_ns, .func = func, .wait_ns = wait_ns, .object = object};
	struct threads_stackref ref;
	int r = threads_trace_stack_leaf(&ref, leaf_pc);
	if (r > 0)
		y.stack_id = ref.id;
	else
		atomic_fetch_add(&sync_stackless, 1);
	/* the block's base is the wait's start, so the first delta is never negative */
	if (blockw_append(file, &tls_sync, threads_trace_tid(), start_ns, EXP_REC_SYNC, encode_sync, &y,
			  start_ns) < 0)
		atomic_fetch_add(&sync_dropped, 1);
	else
		atomic_fetch_add(&sync_waits, 1);
	if (tls_sync_ended)
		blockw_cursor_release(&tls_sync); /* no thread end will release it */
	int watched = func_takes(func) ? watch_add(object) != NULL : watch_find(object) != NULL;
	threads_guard_leave(g);
	errno = saved_errno;
	return watched;
}

/* Six times an uncontended lock/unlock timed as the slow path times a wait, in whole us. */
static uint64_t calibrate(void)
{
	int (*lock)(pthread_mutex_t *) = col_real()->pthread_mutex_lock;
	if (!lock)
		return THRESHOLD_FLOOR_NS;
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	uint64_t sum = 0;
	for (int i = 0; i < CALIBRATE_ROUNDS; i++) {
		uint64_t a = col_now_ns();
		lock(&m);
		pthread_mutex_unlock(&m);
		sum += col_now_ns() - a;
	}
	uint64_t t = sum / CALIBRATE_ROUNDS * CALIBRATE_FACTOR;
	t = (t + 999) / 1000 * 1000;
	return t < THRESHOLD_FLOOR_NS ? THRESHOLD_FLOOR_NS : t;
}

static void sync_start(struct blockw_file *file, const struct exp_params *params)
{
	/* w=<us>: the threshold given; without it, calibrated */
	sync_calibrated = !params->sync_threshold_set;
	sync_threshold = sync_calibrated ? calibrate() : params->sync_threshold_us * 1000u;
	sync_file = file;
}

static void sync_fork_child(void)
{
	sync_file = NULL;
	blockw_cursor_forget(&tls_sync);
	tls_sync_ended = 0;
	atomic_store(&sync_waits, 0);
	atomic_store(&sync_calls, 0);
	atomic_store(&sync_dropped, 0);
	atomic_store(&sync_stackless, 0);
	/* none used (no -s, or no lock watched yet): its pages were never written, and writing
	 * them would copy them into every fork child */
	for (uint32_t i = 0; atomic_load(&watch_used) && i < WATCH_SLOTS; i++) {
		atomic_store(&watch[i].object, 0);
		atomic_store(&watch[i].acquisitions, 0);
	}
	atomic_store(&watch_used, 0);
	atomic_store(&watch_unwatched, 0);
	atomic_store(&sync_acq_sampled, 0);
	tls_acq_skip = 0;
}

/* Collection stopped: each watched object's exact count, as a SYNC_COUNT record. */
static void sync_stop(void)
{
	static struct blockw_cursor cursor; /* stop runs once */
	struct blockw_file *file = sync_file;
	if (!file)
		return;
	for (uint32_t i = 0; i < WATCH_SLOTS; i++) {
		struct exp_sync_count c = {.object = atomic_load(&watch[i].object),
					   .acquisitions = atomic_load(&watch[i].acquisitions),
					   .sample_every = EXP_SYNC_ACQ_SAMPLE_EVERY};
		if (c.object && blockw_append(file, &cursor, threads_trace_tid(), col_now_ns(),
					      EXP_REC_SYNC_COUNT, encode_sync_count, &c, 0) < 0)
			atomic_fetch_add(&sync_dropped, 1);
	}
	blockw_cursor_release(&cursor);
}

static void sync_thread_end(void)
{
	blockw_cursor_release(&tls_sync);
	tls_sync_ended = 1;
}

static void sync_log_start(struct xmlw *w)
{
	xmlw_attr_u64(w, "sync_threshold_ns", sync_threshold);
	xmlw_attr(w, "sync_mode", sync_calibrated ? "calibrated" : sync_threshold ? "fixed" : "all");
	xmlw_attr_u64(w, "sync_acq_every", EXP_SYNC_ACQ_SAMPLE_EVERY);
	xmlw_attr_u64(w, "sync_watch_max", SYNC_WATCH_MAX);
}

static uint64_t sync_lost(void)
{
	return atomic_load(&sync_dropped);
}

static void sync_log_end(struct xmlw *w)
{
	xmlw_attr_u64(w, "sync_waits", atomic_load(&sync_waits));
	xmlw_attr_u64(w, "sync_calls", atomic_load(&sync_calls));
	xmlw_attr_u64(w, "sync_dropped", atomic_load(&sync_dropped));
	xmlw_attr_u64(w, "sync_stackless", atomic_load(&sync_stackless));
	xmlw_attr_u64(w, "sync_watched", atomic_load(&watch_used));
	xmlw_attr_u64(w, "sync_unwatched", atomic_load(&watch_unwatched));
	xmlw_attr_u64(w, "sync_acq_sampled", atomic_load(&sync_acq_sampled));
}

const struct col_tracer synctrace_tracer = {
	.name = "sync",
	.param = EXP_PARAMS_SYNC,
	.file_name = EXP_FILE_NAME_SYNC,
	.file_kind = EXP_FILE_SYNC,
	.start = sync_start,
	.fork_child = sync_fork_child,
	.thread_end = sync_thread_end,
	.stop = sync_stop,
	.log_start = sync_log_start,
	.lost = sync_lost,
	.log_end = sync_log_end,
};
