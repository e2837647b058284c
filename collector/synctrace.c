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

static struct blockw_file *sync_file; /* NULL: not started in this process */
static uint64_t sync_threshold;       /* ns */
static int sync_calibrated;           /* 1: measured, 0: given (w=) */

static _Atomic uint64_t sync_waits;   /* waits recorded */
static _Atomic uint64_t sync_calls;   /* calls that blocked, recorded or not */
static _Atomic uint64_t sync_dropped; /* waits lost: no block (the data files stopped) */
static _Atomic uint64_t sync_stackless;

static __thread struct blockw_cursor tls_sync;
static __thread int tls_sync_ended;

int synctrace_active(void)
{
	return sync_file && col_collecting();
}

static size_t encode_sync(uint8_t *buf, size_t room, uint64_t prev_ns, const void *rec)
{
	return record_encode_sync(buf, room, prev_ns, rec);
}

void synctrace_record(unsigned func, uint64_t object, uint64_t start_ns, uint64_t wait_ns, uint64_t leaf_pc)
{
	struct blockw_file *file = sync_file;
	if (!file || !col_collecting())
		return;
	atomic_fetch_add_explicit(&sync_calls, 1, memory_order_relaxed);
	if (wait_ns < sync_threshold)
		return;
	int g = threads_guard_enter();
	if (g) { /* the collector's own call */
		threads_guard_leave(g);
		return;
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
	threads_guard_leave(g);
	errno = saved_errno;
}

/* PA_PARAMS's w=<us>: the threshold given; 0 when absent (then calibrated). */
static int given_threshold(uint64_t *ret_ns)
{
	for (const char *s = getenv("PA_PARAMS"); s && *s;) {
		if (s[0] == 'w' && s[1] == '=') {
			uint64_t v = 0;
			for (s += 2; *s >= '0' && *s <= '9'; s++)
				v = v * 10 + (uint64_t)(*s - '0');
			*ret_ns = v * 1000u;
			return 1;
		}
		while (*s && *s != ';')
			s++;
		if (*s == ';')
			s++;
	}
	return 0;
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

static void sync_start(struct blockw_file *file)
{
	uint64_t t;
	sync_calibrated = !given_threshold(&t);
	sync_threshold = sync_calibrated ? calibrate() : t;
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
}

const struct col_tracer synctrace_tracer = {
	.name = "sync",
	.param = 's',
	.file_name = EXP_FILE_NAME_SYNC,
	.file_kind = EXP_FILE_SYNC,
	.start = sync_start,
	.fork_child = sync_fork_child,
	.thread_end = sync_thread_end,
	.log_start = sync_log_start,
	.lost = sync_lost,
	.log_end = sync_log_end,
};
