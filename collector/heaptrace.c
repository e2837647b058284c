/*
 * heaptrace.c - heap tracing, the collector's first tracer (see heaptrace.h
 * and tracer.h).  What it records is unchanged from when it lived in
 * threads.c and collector.c: the same events, stacks, time marks, order
 * numbers and <collector_start>/<collector_end> attributes.
 */
#include "collector/heaptrace.h"

#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <time.h>

#include "collector/state.h"
#include "collector/threads.h"
#include "experiment/format.h"
#include "experiment/heapstream.h"

static struct blockw_file *heap_file; /* NULL: not started in this process */
static uint64_t heap_step_ns;         /* between the stream's time marks (heapstream_time_step_ns) */
/*
 * CLOCK_MONOTONIC_COARSE's resolution (a tick), 0 when it is no use: the
 * coarse clock is the last tick's time, never later than CLOCK_MONOTONIC
 * and a tick earlier at most (a tick that comes late delays a mark by as
 * much), and reading it costs no rdtsc (20 ns on a VM, a sixth of a traced
 * call): while coarse + tick is short of the next mark, no mark can be due
 * and the exact time is not needed (4M malloc/free pairs: 1.04 s -> 0.91 s).
 */
static uint64_t heap_coarse_ns;

static _Atomic uint64_t heap_records;   /* heap calls recorded */
static _Atomic uint64_t heap_dropped;   /* heap calls lost: no block (the data files stopped) */
static _Atomic uint64_t heap_stackless; /* heap calls recorded without their stack */

/*
 * One counter for all threads: its modification order agrees with
 * happens-before, so a free that a malloc's caller made possible gets a
 * later number even from another thread.
 */
static _Atomic uint64_t heap_seq;

/*
 * Heap records of this thread.  In TLS, not in the thread's slot: a thread
 * also allocates and frees before its slot is set up and after it is
 * released (other keys' destructors); after its end each record gets its
 * own block.
 */
static __thread struct blockw_heap_cursor tls_heap;
static __thread int tls_heap_ended;

uint64_t heaptrace_stamp(void)
{
	return atomic_fetch_add_explicit(&heap_seq, 1, memory_order_relaxed) + 1;
}

/*
 * Active while collecting, paused or not: a block allocated before a pause
 * and freed during it is not a leak, so frees are recorded while paused
 * (allocations are not; freeing one of those is a free of an unknown block,
 * which the reader ignores).
 */
int heaptrace_active(void)
{
	return heap_file && col_collecting();
}

void heaptrace_record(unsigned op, uint64_t size, uint64_t addr, uint64_t old_addr, uint64_t stamp)
{
	struct blockw_file *file = heap_file;
	if (!file || !col_collecting())
		return;
	if (col_paused()) { /* only what gives a block back */
		if (op == EXP_HEAP_REALLOC && old_addr && old_addr != addr) {
			op = EXP_HEAP_FREE; /* the old block went back; the new one is not recorded */
			addr = old_addr;
			old_addr = 0;
			size = 0;
		} else if (op != EXP_HEAP_FREE && op != EXP_HEAP_MUNMAP) {
			return;
		}
	}
	int g = threads_guard_enter();
	if (g) { /* the collector's own call */
		threads_guard_leave(g);
		return;
	}
	int saved_errno = errno;
	struct exp_heap h = {
		.seq = stamp ? stamp : heaptrace_stamp(),
		.tid = threads_trace_tid(),
		.op = (uint8_t)op,
		.size = size,
		.addr = addr,
		.old_addr = old_addr,
		.stack_kind = EXP_STACKREF_NONE,
	};
	if (op != EXP_HEAP_FREE && op != EXP_HEAP_MUNMAP) {
		struct threads_stackref ref;
		int r = threads_trace_stack(&ref);
		if (r > 0) {
			h.stack_kind = ref.kind;
			h.stack_slot = ref.slot;
			h.stack_id = ref.id;
		} else if (r < 0) {
			atomic_fetch_add(&heap_stackless, 1);
		}
	}
	uint64_t exact_after = col_map_change_ns(), now = 0;
	struct timespec ts;
	if (heap_coarse_ns && clock_gettime(CLOCK_MONOTONIC_COARSE, &ts) == 0) {
		now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec +
		      heap_coarse_ns; /* >= the time */
		if (blockw_heap_time_needed(&tls_heap, now, exact_after, heap_step_ns))
			now = 0;
	}
	if (!now)
		now = col_now_ns();
	if (blockw_append_heap(file, &tls_heap, &h, now, exact_after, heap_step_ns) < 0)
		atomic_fetch_add(&heap_dropped, 1);
	else
		atomic_fetch_add(&heap_records, 1);
	if (tls_heap_ended)
		blockw_cursor_release(&tls_heap.c); /* no thread end will release it */
	threads_guard_leave(g);
	errno = saved_errno;
}

static void heap_start(struct blockw_file *file, const struct exp_params *params)
{
	(void)params;
	heap_step_ns = heapstream_time_step_ns(col_config()->interval_us);
	struct timespec res;
	heap_coarse_ns = 0;
	if (clock_getres(CLOCK_MONOTONIC_COARSE, &res) == 0 && res.tv_sec == 0 &&
	    (uint64_t)res.tv_nsec < heap_step_ns / 2)
		heap_coarse_ns = (uint64_t)res.tv_nsec;
	heap_file = file;
}

static void heap_fork_child(void)
{
	heap_file = NULL;
	blockw_cursor_forget(&tls_heap.c);
	tls_heap_ended = 0;
	atomic_store(&heap_records, 0);
	atomic_store(&heap_dropped, 0);
	atomic_store(&heap_stackless, 0);
	atomic_store(&heap_seq, 0);
}

static void heap_thread_end(void)
{
	blockw_cursor_release(&tls_heap.c);
	tls_heap_ended = 1;
}

static void heap_log_start(struct xmlw *w)
{
	xmlw_attr_u64(w, "heap_time_step_ns", heap_step_ns);
}

static uint64_t heap_lost(void)
{
	return atomic_load(&heap_dropped);
}

static void heap_log_end(struct xmlw *w)
{
	xmlw_attr_u64(w, "heap_records", atomic_load(&heap_records));
	xmlw_attr_u64(w, "heap_dropped", atomic_load(&heap_dropped));
	xmlw_attr_u64(w, "heap_stackless", atomic_load(&heap_stackless));
}

const struct col_tracer heaptrace_tracer = {
	.name = "heap",
	.param = EXP_PARAMS_HEAP,
	.file_name = EXP_FILE_NAME_HEAP,
	.file_kind = EXP_FILE_HEAP,
	.start = heap_start,
	.fork_child = heap_fork_child,
	.thread_end = heap_thread_end,
	.log_start = heap_log_start,
	.lost = heap_lost,
	.log_end = heap_log_end,
};
