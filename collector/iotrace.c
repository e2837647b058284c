/*
 * iotrace.c - I/O tracing (see iotrace.h and tracer.h).  The interposers
 * live in libcollector-io.so (iowrap.c), which calls iotrace_record after
 * each real call; here the descriptor table is kept and the call recorded
 * with its stack.  Nothing here allocates or takes a lock.
 */
#include "collector/iotrace.h"

#include <errno.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collector/state.h"
#include "collector/threads.h"
#include "experiment/format.h"
#include "experiment/record.h"

static struct blockw_file *io_file; /* NULL: not started in this process */

static _Atomic uint32_t io_vfd[IOTRACE_FDS]; /* descriptor -> virtual id, 0: none known */
static _Atomic uint32_t io_vfd_top;          /* one past the highest descriptor io_vfd ever named */
static _Atomic uint32_t io_next_vfd;

/* calls recorded: threads_count(THREADS_COUNT_IO_CALLS), per thread */
static _Atomic uint64_t io_dropped; /* calls lost: no block (the data files stopped) */
static _Atomic uint64_t io_stackless;

static __thread struct blockw_cursor tls_io;
static __thread int tls_io_ended;

int iotrace_active(void)
{
	return io_file && col_recording();
}

static size_t encode_io(uint8_t *buf, size_t room, uint64_t prev_ns, const void *rec)
{
	return record_encode_io(buf, room, prev_ns, rec);
}

static size_t encode_io_file(uint8_t *buf, size_t room, uint64_t prev_ns, const void *rec)
{
	(void)prev_ns;
	return record_encode_io_file(buf, room, rec);
}

static int fd_ok(int fd)
{
	return fd >= 0 && fd < IOTRACE_FDS;
}

/* A new virtual id for fd (how, origin, name): its IO_FILE record, then the table. */
static uint32_t fd_begin(int fd, uint32_t how, uint32_t origin, const char *name, uint64_t now)
{
	uint32_t vfd = atomic_fetch_add(&io_next_vfd, 1) + 1;
	struct exp_io_file f = {.vfd = vfd,
				.fd = fd,
				.origin = origin,
				.how = how,
				.name = name ? name : "",
				.name_bytes = name ? (uint32_t)strlen(name) : 0};
	if (blockw_append(io_file, &tls_io, threads_trace_tid(), now, EXP_REC_IO_FILE, encode_io_file, &f,
			  0) < 0)
		atomic_fetch_add(&io_dropped, 1);
	if (fd_ok(fd)) {
		uint32_t top = atomic_load_explicit(&io_vfd_top, memory_order_relaxed);
		while (top < (uint32_t)fd + 1 &&
		       !atomic_compare_exchange_weak_explicit(&io_vfd_top, &top, (uint32_t)fd + 1,
							      memory_order_relaxed, memory_order_relaxed))
			;
		atomic_store(&io_vfd[fd], vfd);
	}
	return vfd;
}

/* fd's virtual id; a descriptor not met before gets one named by /proc/self/fd. */
static uint32_t fd_lookup(int fd, uint64_t now)
{
	if (!fd_ok(fd))
		return 0;
	uint32_t vfd = atomic_load(&io_vfd[fd]);
	if (vfd)
		return vfd;
	char link[32] = "/proc/self/fd/", name[4096], digits[12];
	size_t k = strlen(link), nd = 0;
	for (unsigned v = (unsigned)fd; nd == 0 || v; v /= 10)
		digits[nd++] = (char)('0' + v % 10);
	while (nd)
		link[k++] = digits[--nd];
	link[k] = '\0';
	long n = syscall(SYS_readlinkat, AT_FDCWD, link, name, sizeof name - 1);
	name[n > 0 ? n : 0] = '\0';
	return fd_begin(fd, EXP_IO_HOW_INHERITED, 0, name, now);
}

/* func makes a new descriptor by name (an open's record carries its path) */
static int is_open(unsigned func)
{
	switch (func) {
	case EXP_IO_OPEN:
	case EXP_IO_OPEN64:
	case EXP_IO_OPENAT:
	case EXP_IO_OPENAT64:
	case EXP_IO_CREAT:
	case EXP_IO_CREAT64:
	case EXP_IO_FOPEN:
	case EXP_IO_FOPEN64:
	case EXP_IO_FREOPEN:
	case EXP_IO_FREOPEN64:
	case EXP_IO_TMPFILE:
	case EXP_IO_TMPFILE64:
	case EXP_IO_MKSTEMP:
	case EXP_IO_MKSTEMP64:
	case EXP_IO_MKOSTEMP:
	case EXP_IO_MKOSTEMP64:
	case EXP_IO_MKSTEMPS:
	case EXP_IO_MKSTEMPS64:
	case EXP_IO_MKOSTEMPS:
	case EXP_IO_MKOSTEMPS64: return 1;
	default: return 0;
	}
}

static uint32_t open_how(const struct pa_io_call *c)
{
	if (c->failed)
		return EXP_IO_HOW_FAILED;
	return c->func == EXP_IO_TMPFILE || c->func == EXP_IO_TMPFILE64 ? EXP_IO_HOW_TMPFILE
									: EXP_IO_HOW_OPEN;
}

/*
 * A close of fd, whose id was vfd at the call (0: unknown, take the current
 * one): the slot is cleared only if it still holds that id, since another
 * thread's open may have been given the same number since the real close.
 */
static uint32_t fd_end(int fd, uint32_t vfd, uint64_t now)
{
	if (!vfd)
		vfd = fd_lookup(fd, now);
	uint32_t expect = vfd;
	if (fd_ok(fd))
		atomic_compare_exchange_strong(&io_vfd[fd], &expect, 0);
	return vfd;
}

/* The descriptor table's part of a call: the virtual id the record names. */
static uint32_t track(const struct pa_io_call *c, uint64_t now)
{
	unsigned f = c->func;
	if (is_open(f))
		return fd_begin(c->failed ? -1 : c->fd, open_how(c), 0, c->path, now);
	if (c->failed)
		return c->vfd ? c->vfd : fd_ok(c->fd) ? atomic_load(&io_vfd[c->fd]) : 0;
	switch (f) {
	case EXP_IO_CLOSE:
	case EXP_IO_FCLOSE: return fd_end(c->fd, c->vfd, now);
	case EXP_IO_DUP:
	case EXP_IO_DUP2:
	case EXP_IO_DUP3: return fd_begin(c->fd, EXP_IO_HOW_DUP, fd_lookup(c->fd2, now), NULL, now);
	case EXP_IO_PIPE:
	case EXP_IO_PIPE2: {
		uint32_t vfd = fd_begin(c->fd, EXP_IO_HOW_PIPE, 0, "<pipe>", now);
		fd_begin(c->fd2, EXP_IO_HOW_PIPE, 0, "<pipe>", now);
		return vfd;
	}
	case EXP_IO_SOCKETPAIR: {
		uint32_t vfd = fd_begin(c->fd, EXP_IO_HOW_SOCKET, 0, "<socket>", now);
		fd_begin(c->fd2, EXP_IO_HOW_SOCKET, 0, "<socket>", now);
		return vfd;
	}
	case EXP_IO_SOCKET:
	case EXP_IO_ACCEPT: return fd_begin(c->fd, EXP_IO_HOW_SOCKET, 0, "<socket>", now);
	default: return fd_lookup(c->fd, now);
	}
}

void iotrace_record(const struct pa_io_call *c)
{
	struct blockw_file *file = io_file;
	if (!file || !col_recording())
		return;
	int g = threads_guard_enter();
	if (g) { /* the collector's own call */
		threads_guard_leave(g);
		return;
	}
	int saved_errno = errno;
	uint64_t now = c->start_ns;
	struct exp_io e = {.ts_ns = c->start_ns,
			   .func = c->func,
			   .dur_ns = c->dur_ns,
			   .fd = c->failed && is_open(c->func) ? -1 : c->fd,
			   .bytes = c->failed ? 0 : c->bytes,
			   .err = c->failed ? (uint32_t)c->err : 0};
	e.vfd = track(c, now);
	struct threads_stackref ref;
	if (threads_trace_stack_leaf(&ref, c->leaf_pc) > 0)
		e.stack_id = ref.id;
	else
		atomic_fetch_add(&io_stackless, 1);
	if (blockw_append(file, &tls_io, threads_trace_tid(), now, EXP_REC_IO, encode_io, &e, c->start_ns) <
	    0)
		atomic_fetch_add(&io_dropped, 1);
	else
		threads_count(THREADS_COUNT_IO_CALLS);
	if (tls_io_ended)
		blockw_cursor_release(&tls_io); /* no thread end will release it */
	threads_guard_leave(g);
	errno = saved_errno;
}

uint32_t iotrace_vfd(int fd)
{
	if (!fd_ok(fd) || !io_file || !col_collecting())
		return 0;
	uint32_t vfd = atomic_load(&io_vfd[fd]);
	if (vfd)
		return vfd;
	int g = threads_guard_enter();
	if (g) { /* the collector's own call */
		threads_guard_leave(g);
		return 0;
	}
	int saved_errno = errno;
	vfd = fd_lookup(fd, col_now_ns());
	if (tls_io_ended)
		blockw_cursor_release(&tls_io);
	threads_guard_leave(g);
	errno = saved_errno;
	return vfd;
}

static void io_start(struct blockw_file *file, const struct exp_params *params)
{
	(void)params;
	io_file = file;
}

static void io_fork_child(void)
{
	/* the child's descriptors are the parent's, but its experiment is its own: ids start over */
	io_file = NULL;
	blockw_cursor_forget(&tls_io);
	tls_io_ended = 0;
	/* only the part ever written: the rest is still the zero pages (256 KiB touched in every
	 * fork child copied them, untraced processes included) */
	uint32_t top = atomic_load(&io_vfd_top);
	for (size_t i = 0; i < top && i < IOTRACE_FDS; i++)
		atomic_store_explicit(&io_vfd[i], 0, memory_order_relaxed);
	atomic_store(&io_next_vfd, 0);
	atomic_store(&io_dropped, 0);
	atomic_store(&io_stackless, 0);
}

static void io_thread_end(void)
{
	blockw_cursor_release(&tls_io);
	tls_io_ended = 1;
}

static uint64_t io_lost(void)
{
	return atomic_load(&io_dropped);
}

static void io_log_end(struct xmlw *w)
{
	xmlw_attr_u64(w, "io_calls", threads_count_sum(THREADS_COUNT_IO_CALLS));
	xmlw_attr_u64(w, "io_dropped", atomic_load(&io_dropped));
	xmlw_attr_u64(w, "io_stackless", atomic_load(&io_stackless));
}

const struct col_tracer iotrace_tracer = {
	.name = "io",
	.param = EXP_PARAMS_IO,
	.file_name = EXP_FILE_NAME_IO,
	.file_kind = EXP_FILE_IO,
	.start = io_start,
	.fork_child = io_fork_child,
	.thread_end = io_thread_end,
	.log_start = NULL,
	.lost = io_lost,
	.log_end = io_log_end,
};
