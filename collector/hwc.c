/*
 * hwc.c - counter overflow profiling (see hwc.h).  The counters are parsed
 * from PA_PARAMS when the tracer starts (outside signal context); the
 * per-thread events live in the threads' slots; the handler side (owns,
 * drain, record) touches only the rings, the thread's cursor and atomic
 * counters.
 */
#include "collector/hwc.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collector/logxml.h"
#include "collector/sampler.h"
#include "collector/state.h"
#include "experiment/hwcdesc.h"
#include "experiment/record.h"

#define PAGE_BYTES 4096u
#define RING_DATA_BYTES (2u * PAGE_BYTES) /* 1024 header-only samples between two drains */
#define RING_BYTES (PAGE_BYTES + RING_DATA_BYTES)

static struct hwcdesc hwc_defs[EXP_HWC_MAX_COUNTERS];
static unsigned hwc_count;
static struct blockw_file *hwc_file; /* NULL: not started in this process */

static _Atomic uint64_t hwc_overflows;   /* overflows recorded */
static _Atomic uint64_t hwc_records;     /* HWC records written */
static _Atomic uint64_t hwc_lost;        /* overflows not recorded: no block, no stack, thread ending */
static _Atomic uint64_t hwc_kernel_lost; /* ... of which the kernel could not write to the ring */
static _Atomic uint64_t hwc_throttled;   /* times the kernel throttled a counter (events uncounted) */
static _Atomic uint64_t hwc_open_failures;
static _Atomic uint64_t
	hwc_at_end; /* overflows after a thread's last drain (its recording's own), not recorded */

int hwc_active(void)
{
	return hwc_file != NULL && hwc_count > 0;
}

/* Counter k of thread tid: opened, signalling the thread, mapped, enabled; the mapping or NULL. */
static void *open_counter(unsigned k, uint32_t tid, int sig, int *ret_fd)
{
	struct perf_event_attr a;
	hwcdesc_attr(&hwc_defs[k], &a);
	int fd = (int)syscall(SYS_perf_event_open, &a, (pid_t)tid, -1, -1,
			      (unsigned long)PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return NULL;
	fd = sampler_move_high(fd);
	struct f_owner_ex owner = {F_OWNER_TID, (pid_t)tid};
	void *ring = MAP_FAILED;
	if (fcntl(fd, F_SETSIG, sig) == 0 && fcntl(fd, F_SETOWN_EX, &owner) == 0 &&
	    fcntl(fd, F_SETFL, O_ASYNC) == 0)
		ring = mmap(NULL, RING_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (ring == MAP_FAILED || ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) != 0) {
		if (ring != MAP_FAILED)
			munmap(ring, RING_BYTES);
		close(fd);
		return NULL;
	}
	*ret_fd = fd;
	return ring;
}

void hwc_thread_start(struct hwc_thread *h, uint32_t tid)
{
	for (unsigned k = 0; k < EXP_HWC_MAX_COUNTERS; k++) {
		atomic_store(&h->ring[k], NULL);
		h->fd_num[k] = -1;
	}
	h->sig = sampler_signal();
	if (!hwc_active())
		return;
	for (unsigned k = 0; k < hwc_count; k++) {
		int fd = -1;
		void *ring = open_counter(k, tid, h->sig, &fd);
		if (!ring) {
			if (atomic_fetch_add(&hwc_open_failures, 1) == 0)
				logxml_note("warning", "hwc_open",
					    "a thread could not open one of its counters (perf_event_open "
					    "failed): it has no data for that counter (collector_end "
					    "hwc_open_failures counts them)");
			continue;
		}
		h->fd_num[k] = fd; /* still open: hwc_thread_started closes it */
		atomic_store(&h->ring[k], ring);
	}
}

void hwc_thread_started(struct hwc_thread *h)
{
	for (unsigned k = 0; k < hwc_count; k++)
		if (h->fd_num[k] >= 0)
			close(h->fd_num[k]); /* the mapping keeps the event, the signals the number */
}

int hwc_owns(const struct hwc_thread *h, int sig, const siginfo_t *si)
{
	if (si->si_code != POLL_IN && si->si_code != POLL_HUP)
		return 0;
	for (unsigned k = 0; k < hwc_count; k++)
		if ((sig == h->sig && h->fd_num[k] >= 0 && si->si_fd == h->fd_num[k]) ||
		    (sig == h->retired_sig && h->retired_fd[k] > 0 && si->si_fd == h->retired_fd[k]))
			return 1;
	return 0;
}

/* Read 8 bytes at offset off of a ring's data area (records may wrap). */
static uint64_t ring_u64(const uint8_t *data, uint64_t off)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < 8; i++)
		v |= (uint64_t)data[(off + i) % RING_DATA_BYTES] << (8 * i);
	return v;
}

/* The overflows in one ring since its tail; advances the tail. SIGNAL_SAFE. */
static uint64_t drain_ring(void *ring)
{
	struct perf_event_mmap_page *m = ring;
	const uint8_t *data = (const uint8_t *)ring + PAGE_BYTES;
	uint64_t head = __atomic_load_n(&m->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = m->data_tail, n = 0;
	while (tail < head) {
		uint64_t hdr = ring_u64(data, tail); /* u32 type, u16 misc, u16 size */
		uint32_t type = (uint32_t)hdr;
		uint16_t size = (uint16_t)(hdr >> 48);
		if (size < 8 || size > head - tail)
			break; /* cannot happen with a sane kernel: stop here */
		if (type == PERF_RECORD_SAMPLE) {
			n++;
		} else if (type == PERF_RECORD_LOST && size >= 24) {
			uint64_t lost = ring_u64(data, tail + 16); /* after u64 id */
			n += lost;
			atomic_fetch_add(&hwc_kernel_lost, lost);
		} else if (type == PERF_RECORD_THROTTLE) {
			atomic_fetch_add(&hwc_throttled, 1);
		}
		tail += size;
	}
	__atomic_store_n(&m->data_tail, head, __ATOMIC_RELEASE);
	return n;
}

uint64_t hwc_drain(struct hwc_thread *h, uint64_t counts[EXP_HWC_MAX_COUNTERS])
{
	uint64_t total = 0;
	for (unsigned k = 0; k < EXP_HWC_MAX_COUNTERS; k++) {
		void *ring = k < hwc_count ? atomic_load_explicit(&h->ring[k], memory_order_relaxed) : NULL;
		counts[k] = ring ? drain_ring(ring) : 0;
		total += counts[k];
	}
	return total;
}

static size_t encode_hwc(uint8_t *buf, size_t room, uint64_t prev_ns, const void *rec)
{
	return record_encode_hwc(buf, room, prev_ns, rec);
}

void hwc_record(struct hwc_thread *h, uint32_t tid, uint64_t now_ns, uint64_t stack_id,
		const uint64_t counts[EXP_HWC_MAX_COUNTERS])
{
	for (unsigned k = 0; k < hwc_count; k++) {
		if (!counts[k])
			continue;
		struct exp_hwc r = {.ts_ns = now_ns,
				    .tid = tid,
				    .counter = k,
				    .overflows = counts[k],
				    .stack_id = stack_id};
		if (!stack_id || !hwc_file ||
		    blockw_append(hwc_file, &h->cur, tid, now_ns, EXP_REC_HWC, encode_hwc, &r, now_ns) < 0) {
			atomic_fetch_add(&hwc_lost, counts[k]);
			continue;
		}
		atomic_fetch_add(&hwc_records, 1);
		atomic_fetch_add(&hwc_overflows, counts[k]);
	}
}

void hwc_thread_stop(struct hwc_thread *h)
{
	for (unsigned k = 0; k < EXP_HWC_MAX_COUNTERS; k++) {
		void *ring = atomic_exchange(&h->ring[k], NULL);
		if (!ring)
			continue;
		uint64_t left = drain_ring(ring); /* came after the thread's last drain */
		if (left)
			atomic_fetch_add(&hwc_at_end, left);
		syscall(SYS_munmap, ring, (size_t)RING_BYTES); /* the last reference: the event goes */
		h->retired_fd[k] = h->fd_num[k];
		h->retired_sig = h->sig;
		h->fd_num[k] = -1;
	}
	blockw_cursor_release(&h->cur);
}

void hwc_thread_forget(struct hwc_thread *h)
{
	/* perf mappings are not copied into a child (VM_DONTCOPY), nor are its blocks */
	for (unsigned k = 0; k < EXP_HWC_MAX_COUNTERS; k++) {
		atomic_store(&h->ring[k], NULL);
		h->fd_num[k] = -1;
	}
	blockw_cursor_forget(&h->cur);
}

/* ------------------------------------------------------------ the tracer */

static void hwc_start(struct blockw_file *file, const struct exp_params *params)
{
	hwc_count = (unsigned)params->hwc_count;
	memcpy(hwc_defs, params->hwc, sizeof hwc_defs);
	hwc_file = hwc_count ? file : NULL;
}

static void hwc_fork_child(void)
{
	hwc_file = NULL;
	atomic_store(&hwc_overflows, 0);
	atomic_store(&hwc_records, 0);
	atomic_store(&hwc_lost, 0);
	atomic_store(&hwc_kernel_lost, 0);
	atomic_store(&hwc_throttled, 0);
	atomic_store(&hwc_open_failures, 0);
	atomic_store(&hwc_at_end, 0);
}

static void hwc_log_start(struct xmlw *w)
{
	xmlw_attr_u64(w, "hwc_counters", hwc_count);
}

static void hwc_log_more(void)
{
	for (unsigned k = 0; k < hwc_count; k++) {
		const struct hwcdesc *d = &hwc_defs[k];
		char buf[512];
		struct xmlw w;
		xmlw_init(&w, buf, sizeof buf);
		xmlw_raw(&w, "  <hwcounter");
		xmlw_attr_u64(&w, "id", k);
		xmlw_attr(&w, "name", d->name);
		xmlw_attr_u64(&w, "type", d->type);
		xmlw_attr_u64(&w, "config", d->config);
		xmlw_attr_u64(&w, "config1", d->config1);
		xmlw_attr_u64(&w, "config2", d->config2);
		xmlw_attr_u64(&w, "interval", d->interval);
		xmlw_attr_u64(&w, "precise", (uint64_t)d->precise);
		xmlw_attr_u64(&w, "exclude_kernel", (uint64_t)d->exclude_kernel);
		/* software task-clock and cpu-clock count nanoseconds */
		int ns = d->type == PERF_TYPE_SOFTWARE &&
			 (d->config == PERF_COUNT_SW_TASK_CLOCK || d->config == PERF_COUNT_SW_CPU_CLOCK);
		xmlw_attr(&w, "unit", ns ? "nanoseconds" : "events");
		xmlw_raw(&w, "/>\n");
		logxml_append(&w);
	}
}

static uint64_t hwc_lost_count(void)
{
	return atomic_load(&hwc_lost);
}

static void hwc_log_end(struct xmlw *w)
{
	xmlw_attr_u64(w, "hwc_overflows", atomic_load(&hwc_overflows));
	xmlw_attr_u64(w, "hwc_records", atomic_load(&hwc_records));
	xmlw_attr_u64(w, "hwc_lost", atomic_load(&hwc_lost));
	xmlw_attr_u64(w, "hwc_kernel_lost", atomic_load(&hwc_kernel_lost));
	xmlw_attr_u64(w, "hwc_throttled", atomic_load(&hwc_throttled));
	xmlw_attr_u64(w, "hwc_open_failures", atomic_load(&hwc_open_failures));
	xmlw_attr_u64(w, "hwc_at_end", atomic_load(&hwc_at_end));
}

const struct col_tracer hwc_tracer = {
	.name = "hwc",
	.param = EXP_PARAMS_HWC,
	.file_name = EXP_FILE_NAME_HWC,
	.file_kind = EXP_FILE_HWC,
	.start = hwc_start,
	.fork_child = hwc_fork_child,
	.thread_end = NULL, /* threads.c stops a thread's counters with its sampler */
	.log_start = hwc_log_start,
	.log_more = hwc_log_more,
	.lost = hwc_lost_count,
	.log_end = hwc_log_end,
};
