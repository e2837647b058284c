/*
 * format.h - constants of the experiment format, shared by the collector
 * (writer) and libanalysis (reader).  docs/experiment-format.md describes every
 * byte; tests/unit/test_format_doc.c keeps that document and these values in
 * sync.
 *
 * An experiment is a directory (NAME.er) holding log.xml, map.xml, notes and
 * the binary data files "profile", "stacks" and "overview".  Every binary data
 * file is a sequence of EXP_BLOCK_BYTES blocks, all integers little-endian:
 *
 *   block 0        file header (EXP_FILE_HEADER_BYTES used, the rest zero)
 *   block 1..n     a block header (EXP_BLOCK_HEADER_BYTES) then records
 *
 * Each block is written by one thread only.  A record is
 *   u8 kind | varint payload_bytes | payload
 * and the writer stores the kind byte last, so a reader that finds kind 0
 * has reached the end of what is complete in that block.  The heaptrace file
 * is the exception: its blocks hold a stream of heap events without record
 * framing (experiment/heapstream.h), and the block header's EXP_BH_USED says
 * how many bytes of it are complete.
 */
#ifndef EXPERIMENT_FORMAT_H
#define EXPERIMENT_FORMAT_H

#include <stdint.h>

#define EXP_FORMAT_VERSION_MAJOR 1
#define EXP_FORMAT_VERSION_MINOR 11

/* File header (block 0). */
#define EXP_FILE_MAGIC "PAEXPDAT" /* 8 bytes, no NUL */
#define EXP_FILE_MAGIC_BYTES 8
#define EXP_FILE_HEADER_BYTES 32
/* offsets inside the file header */
#define EXP_FH_MAGIC 0          /* u8[8] */
#define EXP_FH_VERSION_MAJOR 8  /* u16 */
#define EXP_FH_VERSION_MINOR 10 /* u16 */
#define EXP_FH_FILE_KIND 12     /* u32, enum exp_file_kind */
#define EXP_FH_BLOCK_BYTES 16   /* u32 */
#define EXP_FH_PID 20           /* u32, the writing process */
#define EXP_FH_START_NS 24      /* u64, CLOCK_MONOTONIC at creation */

#define EXP_BLOCK_BYTES 65536u

/* Block header. */
#define EXP_BLOCK_MAGIC 0x314b4c42u /* "BLK1" as a little-endian u32 */
#define EXP_BLOCK_HEADER_BYTES 24
#define EXP_BH_MAGIC 0    /* u32, written last when the block is claimed */
#define EXP_BH_TID 4      /* u32, the thread that owns the block */
#define EXP_BH_SEQ 8      /* u32, the owner's block sequence number (0, 1, ...) */
#define EXP_BH_USED 12    /* u32, heaptrace: bytes of complete events after the header; else 0 */
#define EXP_BH_BASE_NS 16 /* u64, CLOCK_MONOTONIC; first event delta is from here */

enum exp_file_kind {
	EXP_FILE_PROFILE = 1,  /* "profile": clock samples, thread starts/ends */
	EXP_FILE_STACKS = 2,   /* "stacks": each distinct call stack once */
	EXP_FILE_OVERVIEW = 3, /* "overview": sample points with resource usage */
	EXP_FILE_HEAP = 4,     /* "heaptrace": heap calls (collect -H) */
	EXP_FILE_SYNC = 5,     /* "synctrace": synchronization waits (collect -s), from format 1.3 */
	EXP_FILE_IO = 6,       /* "iotrace": I/O calls (collect -i), from format 1.5 */
	EXP_FILE_HWC = 7,      /* "hwctrace": counter overflows (collect -h), from format 1.7 */
};

#define EXP_FILE_NAME_PROFILE "profile"
#define EXP_FILE_NAME_STACKS "stacks"
#define EXP_FILE_NAME_OVERVIEW "overview"
#define EXP_FILE_NAME_HEAP "heaptrace"
#define EXP_FILE_NAME_SYNC "synctrace"
#define EXP_FILE_NAME_IO "iotrace"
#define EXP_FILE_NAME_HWC "hwctrace"
#define EXP_FILE_NAME_LOG "log.xml"
#define EXP_FILE_NAME_MAP "map.xml"
#define EXP_FILE_NAME_NOTES "notes"
/* The founder's list of every process of the run, followed or not (XML lines, no root). */
#define EXP_FILE_NAME_PROCESSES "processes.xml"
/*
 * In the founder while the run lasts: space set aside (a few pages) for the
 * logs' last lines.  The first process of the tree whose data runs out of
 * room deletes it; its absence then stops every process's data files.
 */
#define EXP_FILE_NAME_RESERVE ".space_reserve"
#define EXP_RESERVE_BYTES 16384u
/* A descendant's subexperiment: "_" LINEAGE ".er" inside the founder, e.g. "_f1_x1.er". */
#define EXP_SUBEXP_PREFIX "_"

enum exp_record_kind {
	EXP_REC_END = 0, /* not a record: no more complete records in this block */
	/* profile */
	EXP_REC_CLOCK = 1,        /* varint dt_ns, varint cpu, u64 stack_id, varint weight_ns,
				     [varint user_ns (format 1.10)] */
	EXP_REC_THREAD_START = 2, /* varint tid, varint start_ns, varint creator_tid, varint start_pc */
	EXP_REC_THREAD_END = 3,   /* varint tid, varint end_ns, varint cpu_ns */
	/* stacks */
	EXP_REC_STACK = 4, /* u64 stack_id, varint flags, varint nframes, varint pc0, zigzag deltas */
	/* overview */
	EXP_REC_SAMPLE = 5, /* varint ts_ns, varint number, rusage fields (see exp_sample) */
	/* 6: not used (format 1.0 framed heap calls as records) */
	/* stacks */
	EXP_REC_STACK_SLOT = 7, /* varint slot, u64 stack_id: the process's compact name for a stack */
	/* synctrace (format 1.3) */
	EXP_REC_SYNC = 8, /* varint dt_ns, varint wait_ns, varint func, u64 object, u64 stack_id */
	/* synctrace (format 1.4): the acquisitions of objects that had a recorded wait */
	EXP_REC_SYNC_ACQ = 9,    /* varint dt_ns, varint func, u64 object, u64 stack_id: one sampled */
	EXP_REC_SYNC_COUNT = 10, /* u64 object, varint acquisitions, varint sample_every: the exact count */
	/* iotrace (format 1.5) */
	EXP_REC_IO = 11, /* varint dt_ns, varint dur_ns, varint func, zigzag fd, varint vfd, varint bytes,
			    varint errno, u64 stack_id */
	EXP_REC_IO_FILE = 12, /* varint vfd, zigzag fd, varint origin_vfd, varint how, name bytes (no NUL) */
	/* hwctrace (format 1.7) */
	EXP_REC_HWC = 13, /* varint dt_ns, varint counter, varint overflows, u64 stack_id */
	/* 14: not used (reserved for hardware counters) */
	/* overview (format 1.8): a sample point with why it was taken and its label */
	EXP_REC_SAMPLE_POINT = 15, /* the 15 SAMPLE varints, varint reason, the label's bytes (no NUL) */
	/*
	 * profile: a CLOCK sample taken while a runtime had set the thread's
	 * context (struct exp_sample_ctx); written only then, so that a run
	 * without one has CLOCK records alone.
	 */
	EXP_REC_CLOCK_CTX = 16, /* varint runtime, varint state, varint flags, varint region,
				   varint aux, then the CLOCK fields */
	EXP_REC_KIND_LIMIT
};

/*
 * The runtime that set a sample's context (exp_sample_ctx.runtime): what its
 * state, region and aux mean is that runtime's (docs/experiment-format.md).
 * EXP_RUNTIME_PRIVATE and above: for tests and experiments of the reader's
 * own, never written by the collector.
 */
enum exp_runtime {
	EXP_RUNTIME_NONE = 0,
	EXP_RUNTIME_OPENMP = 1,
	EXP_RUNTIME_MPI = 2,
	EXP_RUNTIME_JAVA = 3,
	EXP_RUNTIME_PRIVATE = 128,
};

/* exp_sample_ctx.flags */
#define EXP_CTX_IN_MPI 0x1u /* the thread is inside an MPI call */

/*
 * Why a sample point (EXP_REC_SAMPLE_POINT) was taken.  The data between a
 * PAUSE point and the next RESUME (or the end) was not recorded.
 */
enum exp_sample_reason {
	EXP_SAMPLE_START = 0,    /* the collection started */
	EXP_SAMPLE_PERIODIC = 1, /* collect -S */
	EXP_SAMPLE_SIGNAL = 2,   /* collect -l SIGNAL */
	EXP_SAMPLE_API = 3,      /* collector_sample(name) */
	EXP_SAMPLE_PAUSE = 4,    /* collector_pause, or collect -y SIGNAL */
	EXP_SAMPLE_RESUME = 5,   /* collector_resume, or collect -y SIGNAL */
	EXP_SAMPLE_END = 6,      /* the collection ended (exit, exec, collector_terminate_expt) */
	EXP_SAMPLE_REASON_LIMIT
};
/* A sample point's label is cut to this many bytes. */
#define EXP_SAMPLE_LABEL_MAX 64u

/* Flags of a stack record. */
#define EXP_STACK_TRUNCATED 0x1u /* stack was cut: depth limit or an unwalkable frame */
#define EXP_STACK_FAILED 0x2u    /* not even the caller of the leaf could be found */
/*
 * A clock sample that arrived while the thread ran the collector's own code
 * (a heap record, a dlopen's tables), taken when that code returned: its
 * pcs start in the collector (frames readers hide) and its time is the
 * collector's overhead (reported as <Collector-overhead> over the program's
 * stack).
 */
#define EXP_STACK_COLLECTOR 0x4u
/*
 * CPU time of a new image before its collector could sample it (the
 * kernel's exec, the dynamic loader, the constructors before the
 * collector's; with EXP_STACK_COLLECTOR, the collector's own start):
 * reported as <Process-start> (format 1.11).  Its one frame is the
 * dynamic loader's entry.
 */
#define EXP_STACK_STARTUP 0x8u

/*
 * Heap events (heaptrace blocks, experiment/heapstream.h).  An event starts
 * with a head byte: op in the low EXP_HEAP_OP_BITS bits, above them the
 * zigzag of (seq - previous seq - 1), or EXP_HEAP_SEQ_ESCAPE and a varint of
 * the excess.  seq is the process-wide order of heap calls.
 */
enum exp_heap_op {
	EXP_HEAP_MALLOC = 0,   /* malloc, and C++ new through it */
	EXP_HEAP_CALLOC = 1,   /* calloc, reallocarray's allocation */
	EXP_HEAP_REALLOC = 2,  /* realloc: frees old_addr (if not 0), allocates addr */
	EXP_HEAP_FREE = 3,     /* free: size 0, no stack */
	EXP_HEAP_MEMALIGN = 4, /* memalign, posix_memalign, aligned_alloc, valloc, pvalloc */
	EXP_HEAP_MMAP = 5,     /* mmap (anonymous), counted as an allocation */
	EXP_HEAP_MUNMAP = 6,   /* munmap: size = length unmapped */
	EXP_HEAP_TIME = 7,     /* not a call: a time mark, varint ns since the previous mark */
	EXP_HEAP_OP_LIMIT
};
#define EXP_HEAP_OP_BITS 3
#define EXP_HEAP_SEQ_ESCAPE 31u
/*
 * The writer marks the time before an event when a step passed since the
 * last mark: the clock-profiling interval, within [STEP, STEP_MAX] (STEP_MAX
 * without clock profiling); a mark advances the time by whole quanta (an
 * event's time is at most step + QUANTUM early).  Readers need neither.
 */
#define EXP_HEAP_TIME_STEP_NS 1000000u
#define EXP_HEAP_TIME_STEP_MAX_NS 10000000u
#define EXP_HEAP_TIME_QUANTUM_NS 10000u
/* From format 1.2, heap event addresses are coded by rank among the block's recent ones. */
#define EXP_HEAP_RECENT_MINOR 2u
#define EXP_HEAP_RECENT_ADDRS 64u
/* Longest encoded event (a time mark and an event are written together). */
#define EXP_HEAP_EVENT_MAX_BYTES 64u

/*
 * The function of a synchronization wait (EXP_REC_SYNC's func): the API the
 * program called, whichever symbol version it bound to.
 */
enum exp_sync_func {
	EXP_SYNC_MUTEX_LOCK = 0,
	EXP_SYNC_MUTEX_TIMEDLOCK = 1,
	EXP_SYNC_MUTEX_CLOCKLOCK = 2,
	EXP_SYNC_COND_WAIT = 3,
	EXP_SYNC_COND_TIMEDWAIT = 4,
	EXP_SYNC_COND_CLOCKWAIT = 5,
	EXP_SYNC_RWLOCK_RDLOCK = 6,
	EXP_SYNC_RWLOCK_WRLOCK = 7,
	EXP_SYNC_RWLOCK_TIMEDRDLOCK = 8,
	EXP_SYNC_RWLOCK_TIMEDWRLOCK = 9,
	EXP_SYNC_RWLOCK_CLOCKRDLOCK = 10,
	EXP_SYNC_RWLOCK_CLOCKWRLOCK = 11,
	EXP_SYNC_BARRIER_WAIT = 12,
	EXP_SYNC_JOIN = 13,
	EXP_SYNC_TIMEDJOIN = 14,
	EXP_SYNC_CLOCKJOIN = 15,
	EXP_SYNC_SEM_WAIT = 16,
	EXP_SYNC_SEM_TIMEDWAIT = 17,
	EXP_SYNC_SEM_CLOCKWAIT = 18,
	EXP_SYNC_SPIN_LOCK = 19,
	EXP_SYNC_MTX_LOCK = 20,
	EXP_SYNC_MTX_TIMEDLOCK = 21,
	EXP_SYNC_CND_WAIT = 22,
	EXP_SYNC_CND_TIMEDWAIT = 23,
	EXP_SYNC_THRD_JOIN = 24,
	EXP_SYNC_FUNC_LIMIT
};
/* The format minor version that has synctrace files. */
#define EXP_SYNC_MINOR 3u
/* The format minor version from which synctrace files may hold SYNC_ACQ and SYNC_COUNT records. */
#define EXP_SYNC_ACQ_MINOR 4u
/* The collector records 1 in this many of a thread's acquisitions of a watched object. */
#define EXP_SYNC_ACQ_SAMPLE_EVERY 16u

/*
 * The function of an I/O call (EXP_REC_IO's func): the API the program
 * called (a _FORTIFY_SOURCE variant, __read_chk, counts as its function).
 * Values are appended, never renumbered; 45 on (the stdio family, the
 * mkstemp family, llseek) came with format 1.6.
 */
enum exp_io_func {
	EXP_IO_OPEN = 0,
	EXP_IO_OPEN64 = 1,
	EXP_IO_OPENAT = 2,
	EXP_IO_OPENAT64 = 3,
	EXP_IO_CREAT = 4,
	EXP_IO_CREAT64 = 5,
	EXP_IO_CLOSE = 6,
	EXP_IO_READ = 7,
	EXP_IO_WRITE = 8,
	EXP_IO_PREAD = 9,
	EXP_IO_PREAD64 = 10,
	EXP_IO_PWRITE = 11,
	EXP_IO_PWRITE64 = 12,
	EXP_IO_READV = 13,
	EXP_IO_WRITEV = 14,
	EXP_IO_LSEEK = 15,
	EXP_IO_LSEEK64 = 16,
	EXP_IO_FSYNC = 17,
	EXP_IO_FDATASYNC = 18,
	EXP_IO_DUP = 19,
	EXP_IO_DUP2 = 20,
	EXP_IO_DUP3 = 21,
	EXP_IO_PIPE = 22,
	EXP_IO_PIPE2 = 23,
	EXP_IO_SOCKET = 24,
	EXP_IO_SOCKETPAIR = 25,
	EXP_IO_ACCEPT = 26,
	EXP_IO_CONNECT = 27,
	EXP_IO_SEND = 28,
	EXP_IO_RECV = 29,
	EXP_IO_SENDTO = 30,
	EXP_IO_RECVFROM = 31,
	EXP_IO_COPY_FILE_RANGE = 32,
	EXP_IO_SENDFILE = 33,
	EXP_IO_SENDFILE64 = 34,
	EXP_IO_PREADV = 35,
	EXP_IO_PREADV64 = 36,
	EXP_IO_PWRITEV = 37,
	EXP_IO_PWRITEV64 = 38,
	EXP_IO_PREADV2 = 39,
	EXP_IO_PREADV64V2 = 40,
	EXP_IO_PWRITEV2 = 41,
	EXP_IO_PWRITEV64V2 = 42,
	EXP_IO_SENDMSG = 43,
	EXP_IO_RECVMSG = 44,
	EXP_IO_FOPEN = 45,
	EXP_IO_FOPEN64 = 46,
	EXP_IO_FDOPEN = 47,
	EXP_IO_FREOPEN = 48,
	EXP_IO_FREOPEN64 = 49,
	EXP_IO_FCLOSE = 50,
	EXP_IO_FREAD = 51,
	EXP_IO_FWRITE = 52,
	EXP_IO_FGETS = 53,
	EXP_IO_FPUTS = 54,
	EXP_IO_FPRINTF = 55,
	EXP_IO_VFPRINTF = 56,
	EXP_IO_GETLINE = 57,
	EXP_IO_GETDELIM = 58,
	EXP_IO_PRINTF = 59,
	EXP_IO_VPRINTF = 60,
	EXP_IO_PUTS = 61,
	EXP_IO_FFLUSH = 62,
	EXP_IO_TMPFILE = 63,
	EXP_IO_TMPFILE64 = 64,
	EXP_IO_FREAD_UNLOCKED = 65,
	EXP_IO_FWRITE_UNLOCKED = 66,
	EXP_IO_FGETS_UNLOCKED = 67,
	EXP_IO_FPUTS_UNLOCKED = 68,
	EXP_IO_MKSTEMP = 69,
	EXP_IO_MKSTEMP64 = 70,
	EXP_IO_MKOSTEMP = 71,
	EXP_IO_MKOSTEMP64 = 72,
	EXP_IO_MKSTEMPS = 73,
	EXP_IO_MKSTEMPS64 = 74,
	EXP_IO_MKOSTEMPS = 75,
	EXP_IO_MKOSTEMPS64 = 76,
	EXP_IO_LLSEEK = 77,
	EXP_IO_FPUTC = 78,   /* fputc, fputc_unlocked */
	EXP_IO_PUTC = 79,    /* putc, _IO_putc, putc_unlocked */
	EXP_IO_PUTCHAR = 80, /* putchar, putchar_unlocked */
	EXP_IO_FGETC = 81,   /* fgetc, fgetc_unlocked */
	EXP_IO_GETC = 82,    /* getc, _IO_getc, getc_unlocked */
	EXP_IO_GETCHAR = 83, /* getchar, getchar_unlocked */
	EXP_IO_FUNC_LIMIT
};

/* How an EXP_REC_IO_FILE's descriptor came to be (its `how`). */
enum exp_io_how {
	EXP_IO_HOW_OPEN = 0,      /* opened by name: the name is the path as given */
	EXP_IO_HOW_FAILED = 1,    /* an open that failed (fd -1): the path as given */
	EXP_IO_HOW_DUP = 2,       /* a duplicate of origin_vfd (dup, dup2, dup3): no name */
	EXP_IO_HOW_PIPE = 3,      /* an end of a pipe: "<pipe>" */
	EXP_IO_HOW_SOCKET = 4,    /* socket, socketpair, accept: "<socket>" */
	EXP_IO_HOW_INHERITED = 5, /* open before tracing began: /proc/self/fd's link, or empty */
	EXP_IO_HOW_TMPFILE = 6,   /* tmpfile, tmpfile64 (format 1.6): "<tmpfile>" */
	EXP_IO_HOW_LIMIT
};
/* The format minor version that has iotrace files. */
#define EXP_IO_MINOR 5u
/* The format minor version from which iotrace files may hold funcs 45 on and EXP_IO_HOW_TMPFILE. */
#define EXP_IO_STDIO_MINOR 6u

/*
 * Counter overflow profiling (collect -h): the counters are listed in
 * log.xml's <hwcounter> elements, numbered from 0 in the order given; an
 * HWC record says that `overflows` (>= 1) overflows of counter `counter`
 * happened with the thread at stack_id, each standing for the counter's
 * interval of events.
 */
#define EXP_HWC_MINOR 7u
#define EXP_HWC_MAX_COUNTERS 8u

/*
 * A stack reference in a heap event: 0 no stack, 1 a u64 stack id follows,
 * n >= 2 the stack named by slot n - 2 in a STACK_SLOT record of the same
 * process (1-3 bytes instead of 8).
 */
#define EXP_STACKREF_NONE 0u
#define EXP_STACKREF_ID 1u
#define EXP_STACKREF_SLOT0 2u

/* Caps that decoders enforce on untrusted input. */
#define EXP_MAX_FRAMES 65536u
#define EXP_MAX_PAYLOAD_BYTES (EXP_BLOCK_BYTES - EXP_BLOCK_HEADER_BYTES - 1 - 3)

#endif
