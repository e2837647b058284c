/*
 * blockw.c - block writer (see blockw.h).  Only raw system calls in the
 * append path: it runs in the sampling signal handler.
 */
#include "collector/blockw.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collector/fdkeep.h"
#include "collector/fsize.h"
#include "common/varint.h"
#include "experiment/heapstream.h"
#include "experiment/record.h"

/* Longest distance past a record's end that an encoder may have scribbled on. */
#define STALE_BYTES (1 + VARINT_MAX_BYTES)

static size_t path_join(char *dst, size_t room, const char *dir, const char *name)
{
	size_t a = strlen(dir), b = strlen(name);
	if (a + 1 + b + 1 > room)
		return 0;
	memcpy(dst, dir, a);
	dst[a] = '/';
	memcpy(dst + a + 1, name, b + 1);
	return a + 1 + b;
}

void blockw_health_init(struct blockw_health *h, int64_t fault_blocks, const char *stop_path,
			void (*on_fail)(int err, uint64_t now_ns))
{
	atomic_store(&h->err, 0);
	atomic_store(&h->since_ns, 0);
	atomic_store(&h->fsize_limit_bytes, 0);
	atomic_store(&h->fault_left, fault_blocks);
	atomic_store(&h->transient_err, 0);
	atomic_store(&h->transient_since_ns, 0);
	h->stop_path[0] = 0;
	if (stop_path && strlen(stop_path) < sizeof h->stop_path)
		strcpy(h->stop_path, stop_path);
	h->on_fail = on_fail;
}

int blockw_file_create(struct blockw_file *f, struct blockw_health *hl, const char *dir, const char *name,
		       enum exp_file_kind kind, uint32_t pid, uint64_t start_ns)
{
	if (!path_join(f->path, sizeof f->path, dir, name))
		return -ENAMETOOLONG;
	f->kind = kind;
	f->health = hl;
	atomic_store(&f->next_block, 1);
	atomic_store(&f->failure_count, 0);
	if (!fsize_allows(EXP_BLOCK_BYTES))
		return -EFBIG; /* block 0 alone would pass the file size limit */
	int fd = open(f->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	uint8_t h[EXP_FILE_HEADER_BYTES] = {0};
	memcpy(h + EXP_FH_MAGIC, EXP_FILE_MAGIC, EXP_FILE_MAGIC_BYTES);
	le16_put(h + EXP_FH_VERSION_MAJOR, EXP_FORMAT_VERSION_MAJOR);
	le16_put(h + EXP_FH_VERSION_MINOR, EXP_FORMAT_VERSION_MINOR);
	le32_put(h + EXP_FH_FILE_KIND, (uint32_t)kind);
	le32_put(h + EXP_FH_BLOCK_BYTES, EXP_BLOCK_BYTES);
	le32_put(h + EXP_FH_PID, pid);
	le64_put(h + EXP_FH_START_NS, start_ns);
	int r = 0;
	/* the whole header block, so a reader sees a complete block 0 */
	if (pwrite(fd, h, sizeof h, 0) != (ssize_t)sizeof h || pwrite(fd, "", 1, EXP_BLOCK_BYTES - 1) != 1)
		r = errno ? -errno : -EIO;
	close(fd);
	if (r < 0)
		unlink(f->path); /* no half header for a reader (or collect's compression) to meet */
	else
		(void)fdkeep_add(f->path, O_RDWR); /* for claims when the program leaves none free */
	return r;
}

static void *sys_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	long r = syscall(SYS_mmap, addr, len, prot, flags, fd, off);
	return (r < 0 && r > -4096) ? MAP_FAILED : (void *)r;
}

void blockw_cursor_release(struct blockw_cursor *c)
{
	if (c->block)
		syscall(SYS_munmap, c->block, (size_t)EXP_BLOCK_BYTES);
	c->block = NULL;
	c->pos = 0;
}

void blockw_cursor_forget(struct blockw_cursor *c)
{
	c->block = NULL;
	c->pos = 0;
	c->seq = 0;
}

static const uint8_t zeros[4096];

/*
 * Give the block at off its disk space, so that storing into its mapping
 * can never fault for want of space.  0 or -errno.
 */
static int reserve(int fd, off_t off)
{
	if (syscall(SYS_fallocate, fd, 0, off, (off_t)EXP_BLOCK_BYTES) == 0)
		return 0;
	int e = errno;
	if (e != EOPNOTSUPP && e != ENOSYS)
		return -e;
	/* a filesystem without fallocate: write the zeros */
	for (off_t o = 0; o < (off_t)EXP_BLOCK_BYTES; o += (off_t)sizeof zeros) {
		long n = syscall(SYS_pwrite64, fd, zeros, sizeof zeros, off + o);
		if (n != (long)sizeof zeros)
			return n < 0 ? -errno : -ENOSPC;
	}
	return 0;
}

/* Stop every file under h with error e (the first caller reports it). */
static int fail_health(struct blockw_health *h, int e, uint64_t now_ns)
{
	int expect = 0;
	if (atomic_compare_exchange_strong(&h->err, &expect, e)) {
		atomic_store(&h->since_ns, now_ns);
		if (h->on_fail)
			h->on_fail(e, now_ns);
	}
	return -atomic_load(&h->err);
}

/* 0, or the errno that forbids claiming a block under h now. */
static int health_check(struct blockw_health *h)
{
	int e = atomic_load_explicit(&h->err, memory_order_relaxed);
	if (e)
		return e;
	if (atomic_load_explicit(&h->fault_left, memory_order_relaxed) >= 0 &&
	    atomic_fetch_sub(&h->fault_left, 1) <= 0)
		return ENOSPC; /* injected */
	if (h->stop_path[0] && syscall(SYS_faccessat, AT_FDCWD, h->stop_path, F_OK) != 0 && errno == ENOENT)
		return ENOSPC; /* another process of the tree ran out of space */
	return 0;
}

/* Claim, reserve, map and initialise a fresh block for the cursor. */
static int claim(struct blockw_file *f, struct blockw_cursor *c, uint32_t tid, uint64_t now_ns)
{
	uint32_t seq = c->block ? c->seq + 1 : c->seq;
	blockw_cursor_release(c);
	struct blockw_health *h = f->health;
	int e = health_check(h);
	if (e) {
		c->seq = seq;
		return h->err ? -e : fail_health(h, e, now_ns);
	}
	int kept;
	int fd = fdkeep_open(f->path, O_RDWR, &kept);
	if (fd < 0) {
		e = -fd;
		goto fail;
	}
	uint32_t b = atomic_fetch_add(&f->next_block, 1);
	off_t off = (off_t)b * EXP_BLOCK_BYTES;
	uint64_t limit = fsize_limit_bytes();
	if ((uint64_t)off + EXP_BLOCK_BYTES > limit) {
		/* the kernel would send the target SIGXFSZ: a full disk, for us */
		fdkeep_done(fd, kept);
		uint64_t zero = 0;
		atomic_compare_exchange_strong(&h->fsize_limit_bytes, &zero, limit);
		e = EFBIG;
		goto fail;
	}
	int r = reserve(fd, off);
	if (r < 0) {
		fdkeep_done(fd, kept);
		e = -r;
		goto fail;
	}
	uint8_t *p = sys_mmap(NULL, EXP_BLOCK_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off);
	e = errno;
	fdkeep_done(fd, kept);
	if (p == MAP_FAILED)
		goto fail;
	syscall(SYS_madvise, p, (size_t)EXP_BLOCK_BYTES, MADV_DONTFORK); /* a fork child never writes here */
	/*
	 * No read-ahead: the block's first store would fault in a window of
	 * the fresh (unwritten) space around it, zero-filled, 70 us of the
	 * thread's CPU (4x the claim) inside the sample that made the claim:
	 * a short thread's one sample then stretched its life past the grid.
	 */
	syscall(SYS_madvise, p, (size_t)EXP_BLOCK_BYTES, MADV_RANDOM);
	le32_put(p + EXP_BH_TID, tid);
	le32_put(p + EXP_BH_SEQ, seq);
	le32_put(p + EXP_BH_USED, 0);
	le64_put(p + EXP_BH_BASE_NS, now_ns);
	atomic_store_explicit((_Atomic uint32_t *)(void *)(p + EXP_BH_MAGIC), EXP_BLOCK_MAGIC,
			      memory_order_release);
	c->block = p;
	c->pos = EXP_BLOCK_HEADER_BYTES;
	c->seq = seq;
	c->prev_ns = now_ns;
	return 0;
fail:
	atomic_fetch_add(&f->failure_count, 1);
	c->seq = seq;
	if (e == EMFILE || e == ENFILE) {
		/*
		 * No descriptor free, and none kept that still works: this
		 * record is lost, the next claim tries again; nothing stops.
		 */
		uint64_t zero = 0;
		if (atomic_compare_exchange_strong(&h->transient_since_ns, &zero, now_ns))
			atomic_store(&h->transient_err, e);
		return -e;
	}
	return fail_health(h, e ? e : EIO, now_ns);
}

int blockw_append(struct blockw_file *f, struct blockw_cursor *c, uint32_t tid, uint64_t now_ns,
		  enum exp_record_kind kind, blockw_encode_fn encode, const void *rec, uint64_t clock_ts_ns)
{
	/* stopped: nothing more, not even into a block that still has room */
	int e = atomic_load_explicit(&f->health->err, memory_order_relaxed);
	if (e)
		return -e;
	for (int attempt = 0; attempt < 2; attempt++) {
		if (!c->block || attempt == 1) {
			/* a fresh block holds any record a smaller one cannot */
			if (c->block && c->pos == EXP_BLOCK_HEADER_BYTES) {
				/* a failed encoder may have scribbled on the free space */
				memset(c->block + c->pos, 0, EXP_BLOCK_BYTES - c->pos);
				return -E2BIG;
			}
			int r = claim(f, c, tid, now_ns);
			if (r < 0)
				return r;
		}
		uint8_t *p = c->block + c->pos;
		size_t room = EXP_BLOCK_BYTES - c->pos;
		/* keep one byte after the record: the reader's kind-0 terminator */
		if (room < 2)
			continue;
		size_t n = encode(p, room - 1, c->prev_ns, rec);
		if (!n)
			continue;
		/*
		 * An encoder may leave payload bytes it moved just past the
		 * record's end; clear them before the record becomes visible so
		 * that the next kind byte reads 0.
		 */
		size_t z = n + STALE_BYTES <= room ? n + STALE_BYTES : room;
		for (size_t i = n; i < z; i++)
			p[i] = 0;
		record_publish(p, kind);
		c->pos += (uint32_t)n;
		if (clock_ts_ns) /* a record timed as a delta from the last one */
			c->prev_ns = clock_ts_ns;
		return 0;
	}
	return -E2BIG;
}

/* A heap cursor's next append claims a fresh block (none yet, or too little room for a mark and an event). */
static int heap_needs_block(const struct blockw_cursor *c)
{
	return !c->block || EXP_BLOCK_BYTES - c->pos < 2 * EXP_HEAP_EVENT_MAX_BYTES;
}

int blockw_heap_time_needed(const struct blockw_heap_cursor *hc, uint64_t latest_ns, uint64_t exact_after_ns,
			    uint64_t step_ns)
{
	return heap_needs_block(&hc->c) || exact_after_ns > hc->heap.time_ns ||
	       heapstream_time_due(&hc->heap, latest_ns, step_ns);
}

int blockw_append_heap(struct blockw_file *f, struct blockw_heap_cursor *hc, const struct exp_heap *h,
		       uint64_t now_ns, uint64_t exact_after_ns, uint64_t step_ns)
{
	/*
	 * Coded in place, with the running state advanced as it goes (no copy
	 * of the state, no retry): a block with less room than the longest
	 * mark and event is left for a fresh one.  The bytes become visible
	 * only when EXP_BH_USED covers them.
	 */
	struct blockw_cursor *c = &hc->c;
	int e = atomic_load_explicit(&f->health->err, memory_order_relaxed);
	if (e)
		return -e;
	if (heap_needs_block(c)) {
		int r = claim(f, c, h->tid, now_ns);
		if (r < 0)
			return r;
		heapstream_begin(&hc->heap, now_ns, EXP_FORMAT_VERSION_MINOR);
	}
	uint8_t *p = c->block + c->pos;
	size_t n = 0;
	if (exact_after_ns > hc->heap.time_ns && now_ns > hc->heap.time_ns)
		n += heapstream_encode_time_exact(p, &hc->heap, now_ns);
	else if (heapstream_time_due(&hc->heap, now_ns, step_ns))
		n += heapstream_encode_time(p, &hc->heap, now_ns);
	n += heapstream_encode(p + n, &hc->heap, h);
	c->pos += (uint32_t)n;
	/* the bytes first, then the count that makes them visible */
	atomic_store_explicit((_Atomic uint32_t *)(void *)(c->block + EXP_BH_USED),
			      c->pos - EXP_BLOCK_HEADER_BYTES, memory_order_release);
	return 0;
}
