/*
 * blockw.h - the block writer of the collector: appends records to the
 * experiment's binary data files (layout in experiment/format.h).
 *
 * A data file is a sequence of EXP_BLOCK_BYTES blocks.  A writer (one cursor,
 * owned by one thread) claims the next block number with an atomic counter,
 * reserves the block's disk space with fallocate (or by writing zeros where
 * the filesystem cannot; never ftruncate: racing extensions must never
 * shrink the file), maps the block MAP_SHARED with raw syscalls, writes the
 * block header with its magic last, then appends records whose kind byte is
 * stored last.  MAP_SHARED data survives _exit, abort and SIGKILL, so nothing
 * is ever flushed.  Because the space is reserved before the block is mapped,
 * a full disk or quota is an error of the claim, never a SIGBUS in the
 * target.  The file is reopened by path for each block, so the target closing
 * our fds (close_range) cannot redirect writes into its own files.
 *
 * A claim reopens the file by path (collector/fdkeep.h: or uses a descriptor
 * kept for when the program leaves none free).  A claim that finds no
 * descriptor at all loses its block and is counted; the next one tries again.
 * The first claim that fails otherwise (no space, quota, I/O error, no address space,
 * or a block that would end past the file size limit, collector/fsize.h: that
 * claim never reaches the kernel, which would send the target SIGXFSZ) stops
 * every file of the process that share one struct blockw_health: the
 * stacks and the records naming them stop together, and later appends fail
 * at once, without a system call, even into a block that still has room (a
 * thread's end record after lost samples would charge their time to the
 * last recorded sample).
 *
 * Every function here is SIGNAL_SAFE (open, pwrite, mmap, munmap, close only),
 * except blockw_file_create.  A cursor must not be used by two contexts at
 * once: callers hold the thread's reentrancy guard.
 */
#ifndef COLLECTOR_BLOCKW_H
#define COLLECTOR_BLOCKW_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "experiment/format.h"
#include "experiment/heapstream.h"

/* The write state shared by the data files of one process. */
struct blockw_health {
	_Atomic int err;            /* 0, or the errno of the first failed claim */
	_Atomic uint64_t since_ns;  /* its time (the now_ns of that claim) */
	_Atomic int64_t fault_left; /* fault injection: claims that may succeed; < 0 no limit */
	/*
	 * When err is EFBIG because the block would pass the soft RLIMIT_FSIZE
	 * (rather than the filesystem's largest file): that limit, in bytes.
	 */
	_Atomic uint64_t fsize_limit_bytes;
	/*
	 * The first claim that failed for want of a descriptor (EMFILE,
	 * ENFILE; collector/fdkeep.h had none that still worked) and its time:
	 * that block is lost, but nothing stops.
	 */
	_Atomic int transient_err;
	_Atomic uint64_t transient_since_ns;
	/*
	 * When set: a file that exists while the experiment tree has room; once
	 * it is gone (a process of the tree ran out of space and deleted it to
	 * free room for the logs), every claim fails with ENOSPC.
	 */
	char stop_path[PATH_MAX];
	/* Called once, by the thread whose claim failed first. SIGNAL_SAFE. */
	void (*on_fail)(int err, uint64_t now_ns);
};

/*
 * Reset h: no failure, no injected fault (fault_blocks < 0) or fault_blocks
 * claims before an injected ENOSPC, no stop file, on_fail called on failure.
 */
void blockw_health_init(struct blockw_health *h, int64_t fault_blocks, const char *stop_path,
			void (*on_fail)(int err, uint64_t now_ns));

struct blockw_file {
	char path[PATH_MAX];
	enum exp_file_kind kind;
	struct blockw_health *health;   /* shared by the process's files */
	_Atomic uint32_t next_block;    /* next block number to claim (1..) */
	_Atomic uint64_t failure_count; /* blocks that could not be extended or mapped */
};

struct blockw_cursor {
	uint8_t *block;   /* mapped block, NULL before the first claim */
	uint32_t pos;     /* offset of the next record in the block */
	uint32_t seq;     /* the owner's block sequence number of `block` */
	uint64_t prev_ns; /* clock records' running timestamp: block base or last ts */
};

/*
 * A heaptrace cursor: its block and what the next event is coded against
 * (kept apart from blockw_cursor, which every thread slot holds two of).
 */
struct blockw_heap_cursor {
	struct blockw_cursor c;
	struct heapstream_state heap;
};

/*
 * Create `dir`/`name` with O_CREAT|O_EXCL|O_CLOEXEC and write its file header
 * (block 0); its blocks are claimed under health h.  Returns 0, -EEXIST if it
 * exists, -EFBIG if the file size limit is below one block (nothing is
 * created), or another -errno (a file that could not be written whole is
 * removed again).
 */
int blockw_file_create(struct blockw_file *f, struct blockw_health *h, const char *dir, const char *name,
		       enum exp_file_kind kind, uint32_t pid, uint64_t start_ns);

/*
 * Encode one record with `encode` (an experiment/record.h encoder adapter
 * that returns 0 when the record does not fit in `room`) into the cursor's
 * block, claiming a new block (header tid, base now_ns) when it does not fit,
 * then publish it as `kind`.  A record encoded as a delta from the previous
 * one (EXP_REC_CLOCK, SYNC, SYNC_ACQ, IO: any whose decoder takes prev_ns)
 * passes its time as `clock_ts_ns`, which becomes the cursor's running
 * timestamp; any other passes 0.  Returns 0, -E2BIG if
 * the record fits in no block, or the -errno of the failed claim (the file's
 * health: -ENOSPC, -EDQUOT, -EIO, -ENOMEM, ...).  SIGNAL_SAFE.
 */
typedef size_t (*blockw_encode_fn)(uint8_t *buf, size_t room, uint64_t prev_ns, const void *rec);
int blockw_append(struct blockw_file *f, struct blockw_cursor *c, uint32_t tid, uint64_t now_ns,
		  enum exp_record_kind kind, blockw_encode_fn encode, const void *rec, uint64_t clock_ts_ns);

/*
 * Append heap event h (experiment/heapstream.h) to a heaptrace block,
 * preceded by a time mark when step_ns (heapstream_time_step_ns) has passed
 * since the last one at now_ns (an exact one, not whole quanta, when the
 * last mark is older than exact_after_ns: the load map changed since, and
 * the reader needs the event after the change), then publish it by
 * storing the block's EXP_BH_USED with release ordering.  Returns as
 * blockw_append.  SIGNAL_SAFE.
 */
int blockw_append_heap(struct blockw_file *f, struct blockw_heap_cursor *hc, const struct exp_heap *h,
		       uint64_t now_ns, uint64_t exact_after_ns, uint64_t step_ns);

/*
 * 1 if blockw_append_heap at a time no later than latest_ns could use its
 * now_ns (to claim a block, or for a time mark, exact or due); 0 when any
 * now_ns up to latest_ns would append the same bytes, so the caller need not
 * read the clock.  SIGNAL_SAFE.
 */
int blockw_heap_time_needed(const struct blockw_heap_cursor *hc, uint64_t latest_ns, uint64_t exact_after_ns,
			    uint64_t step_ns);

/* Unmap the cursor's block (the data stays in the file). SIGNAL_SAFE. */
void blockw_cursor_release(struct blockw_cursor *c);

/*
 * In a fork child: drop the cursor without touching its block.  Blocks are
 * mapped MADV_DONTFORK, so the child has no mapping of its parent's blocks
 * and can never write into the parent's data.
 */
void blockw_cursor_forget(struct blockw_cursor *c);

#endif
