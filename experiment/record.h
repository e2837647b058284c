/*
 * record.h - encode and decode the records of the experiment's binary data
 * files (layout in format.h and docs/experiment-format.md).
 *
 * Encoders write into caller-provided memory, never allocate, and are
 * SIGNAL_SAFE: the collector calls them from its sampling signal handler.  They return
 * the encoded size, or 0 if it would not fit in `room` bytes.  The record's
 * kind byte is NOT written by the encoders: the writer stores it last (see
 * record_publish) so that readers never see half a record.
 *
 * Decoders never trust their input: they check every length against the
 * buffer and return -EBADMSG for a malformed record.
 */
#ifndef EXPERIMENT_RECORD_H
#define EXPERIMENT_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "experiment/format.h"

/*
 * What a runtime (OpenMP, MPI, Java) said of the thread when a clock sample
 * was taken: its state (an OpenMP wait kind), the region or task it works
 * for, flags (EXP_CTX_IN_MPI) and aux (a Java stack id); runtime
 * EXP_RUNTIME_NONE: no context.  The numbers are the runtime's own.
 */
struct exp_sample_ctx {
	uint32_t runtime; /* enum exp_runtime */
	uint32_t state;
	uint32_t flags;
	uint64_t region;
	uint64_t aux;
};

struct exp_clock {
	uint64_t ts_ns; /* absolute CLOCK_MONOTONIC (decoders add the delta) */
	uint32_t tid;   /* from the block header */
	uint32_t cpu;
	uint64_t stack_id;
	uint64_t weight_ns; /* thread CPU time this sample stands for */
	/*
	 * Of it, the time in user mode (<= weight_ns; the rest is system
	 * time), from format 1.10, when has_user.
	 */
	uint64_t user_ns;
	int has_user;
	/* EXP_REC_CLOCK_CTX (record_clock_kind): the context; runtime 0 in a CLOCK */
	struct exp_sample_ctx ctx;
};

struct exp_thread_start {
	uint32_t tid;
	uint32_t creator_tid; /* 0 for the main thread */
	uint64_t start_ns;
	uint64_t start_pc; /* the start routine, 0 for the main thread */
};

struct exp_thread_end {
	uint32_t tid;
	uint64_t end_ns;
	uint64_t cpu_ns; /* the thread's CPU time at its end, measured */
	/*
	 * Its time waiting for a CPU while runnable (the run queue:
	 * /proc/.../schedstat's second figure), from format 1.9, when has_wait.
	 */
	uint64_t wait_ns;
	int has_wait;
};

struct exp_stack {
	uint64_t id;
	uint32_t flags;   /* EXP_STACK_* */
	uint32_t nframes; /* <= EXP_MAX_FRAMES */
	uint64_t *pcs;    /* leaf first; caller-owned storage */
};

struct exp_sample {
	uint64_t ts_ns;
	uint64_t number; /* 0 = start of collection, 1.. in order */
	uint64_t utime_ns, stime_ns;
	uint64_t minflt, majflt, nswap, inblock, oublock;
	uint64_t msgsnd, msgrcv, nsignals, nvcsw, nivcsw;
	uint64_t maxrss_kb;
	/* EXP_REC_SAMPLE_POINT only (a SAMPLE decodes as reason START or END, no label): */
	uint32_t reason;      /* enum exp_sample_reason */
	uint32_t label_bytes; /* <= EXP_SAMPLE_LABEL_MAX */
	const char *label;    /* not NUL-terminated; the decoder points into the payload */
};

struct exp_stack_slot {
	uint32_t slot;
	uint64_t stack_id;
};

/* A synchronization wait (collect -s): started at ts_ns, lasted wait_ns. */
struct exp_sync {
	uint64_t ts_ns; /* absolute CLOCK_MONOTONIC when the wait began (decoders add the delta) */
	uint32_t tid;   /* from the block header */
	uint32_t func;  /* enum exp_sync_func */
	uint64_t wait_ns;
	uint64_t object; /* the synchronization object's address (the mutex, the thread joined, ...) */
	uint64_t stack_id;
};

/*
 * A sampled acquisition (SYNC_ACQ) of an object that had a recorded wait:
 * func took it at ts_ns, from stack_id.
 */
struct exp_sync_acq {
	uint64_t ts_ns; /* absolute CLOCK_MONOTONIC (decoders add the delta) */
	uint32_t tid;   /* from the block header */
	uint32_t func;  /* enum exp_sync_func */
	uint64_t object;
	uint64_t stack_id;
};

/* A watched object's acquisitions (SYNC_COUNT), 1 in sample_every of them sampled per thread. */
struct exp_sync_count {
	uint64_t object;
	uint64_t acquisitions;
	uint64_t sample_every;
};

/* Bytes needed for the record header of a payload of n bytes (kind + varint). */
size_t record_header_bytes(size_t payload_bytes);

/*
 * Encoders.  `buf` receives kind placeholder (0), length and payload; `prev_ns`
 * is the timestamp the delta is taken from (block base or previous event).
 * SIGNAL_SAFE.
 */
/* A clock sample with a context (c->ctx.runtime) is a CLOCK_CTX, else a CLOCK. */
size_t record_encode_clock(uint8_t *buf, size_t room, uint64_t prev_ns, const struct exp_clock *c);
/* The kind to publish record_encode_clock's record as: EXP_REC_CLOCK_CTX or EXP_REC_CLOCK. SIGNAL_SAFE. */
enum exp_record_kind record_clock_kind(const struct exp_clock *c);
size_t record_encode_thread_start(uint8_t *buf, size_t room, const struct exp_thread_start *t);
size_t record_encode_thread_end(uint8_t *buf, size_t room, const struct exp_thread_end *t);
size_t record_encode_stack(uint8_t *buf, size_t room, const struct exp_stack *s);
size_t record_encode_sample(uint8_t *buf, size_t room, const struct exp_sample *s);
/* EXP_REC_SAMPLE_POINT: the sample with its reason and label (cut to EXP_SAMPLE_LABEL_MAX). */
size_t record_encode_sample_point(uint8_t *buf, size_t room, const struct exp_sample *s);
size_t record_encode_stack_slot(uint8_t *buf, size_t room, const struct exp_stack_slot *s);
/* prev_ns: the block's base or the previous sync record's ts_ns (ts_ns must not be before it). */
size_t record_encode_sync(uint8_t *buf, size_t room, uint64_t prev_ns, const struct exp_sync *s);
/* prev_ns as for record_encode_sync: SYNC and SYNC_ACQ records share the block's running time. */
size_t record_encode_sync_acq(uint8_t *buf, size_t room, uint64_t prev_ns, const struct exp_sync_acq *a);
size_t record_encode_sync_count(uint8_t *buf, size_t room, const struct exp_sync_count *c);

/* Store the kind byte of an encoded record with release ordering. SIGNAL_SAFE. */
void record_publish(uint8_t *buf, enum exp_record_kind kind);

/*
 * One record as found in a block by record_next: kind and payload span.
 */
struct exp_record {
	enum exp_record_kind kind;
	const uint8_t *payload;
	size_t payload_bytes;
};

/*
 * Read the record at *pos within [*pos, end).  Returns 1 and advances *pos on a
 * record, 0 at the end of the block's complete records (kind 0 or end), and
 * -EBADMSG if the record is malformed (unknown kind, length past the end).
 */
int record_next(const uint8_t **pos, const uint8_t *end, struct exp_record *ret);

/* Payload decoders; -EBADMSG if the payload does not hold a valid record. */
/* A CLOCK or a CLOCK_CTX (whose runtime is never 0). */
int record_decode_clock(const struct exp_record *r, uint64_t prev_ns, uint32_t tid, struct exp_clock *ret);
int record_decode_thread_start(const struct exp_record *r, struct exp_thread_start *ret);
int record_decode_thread_end(const struct exp_record *r, struct exp_thread_end *ret);
/*
 * Decode a stack; ret->pcs must have room for `cap` frames.  Returns -EBADMSG
 * if malformed, -E2BIG if it has more than `cap` frames.
 */
int record_decode_stack(const struct exp_record *r, uint64_t *pcs, uint32_t cap, struct exp_stack *ret);
int record_decode_sample(const struct exp_record *r, struct exp_sample *ret);
int record_decode_stack_slot(const struct exp_record *r, struct exp_stack_slot *ret);
/* func must be below EXP_SYNC_FUNC_LIMIT. */
int record_decode_sync(const struct exp_record *r, uint64_t prev_ns, uint32_t tid, struct exp_sync *ret);
int record_decode_sync_acq(const struct exp_record *r, uint64_t prev_ns, uint32_t tid,
			   struct exp_sync_acq *ret);
/* sample_every must not be 0. */
int record_decode_sync_count(const struct exp_record *r, struct exp_sync_count *ret);

/* The API name of a sync function ("pthread_mutex_lock"), "?" when out of range. */
const char *record_sync_func_name(unsigned func);

/* An I/O call (collect -i): started at ts_ns, lasted dur_ns. */
struct exp_io {
	uint64_t ts_ns; /* absolute CLOCK_MONOTONIC when the call began (decoders add the delta) */
	uint32_t tid;   /* from the block header */
	uint32_t func;  /* enum exp_io_func */
	uint64_t dur_ns;
	int32_t fd;     /* the descriptor the call was about (the new one for an open), -1 for none */
	uint32_t vfd;   /* its virtual id (EXP_REC_IO_FILE), 0 for none */
	uint64_t bytes; /* bytes transferred (a read's or write's return value), else 0 */
	uint32_t err;   /* errno when the call failed, else 0 */
	uint64_t stack_id;
};

/* A descriptor's life begins (collect -i): its virtual id and name. */
struct exp_io_file {
	uint32_t vfd;     /* 1, 2, ... in the order descriptors appeared in the process */
	int32_t fd;       /* the descriptor number, -1 for a failed open */
	uint32_t origin;  /* a duplicate's original vfd, else 0 */
	uint32_t how;     /* enum exp_io_how */
	const char *name; /* not NUL-terminated: name_bytes bytes (decoded: points into the payload) */
	uint32_t name_bytes;
};

/* prev_ns: the block's base or the previous I/O record's ts_ns. */
size_t record_encode_io(uint8_t *buf, size_t room, uint64_t prev_ns, const struct exp_io *e);
/* The name is cut to what fits in a payload. */
size_t record_encode_io_file(uint8_t *buf, size_t room, const struct exp_io_file *f);

/* func must be below EXP_IO_FUNC_LIMIT. */
int record_decode_io(const struct exp_record *r, uint64_t prev_ns, uint32_t tid, struct exp_io *ret);
/* how must be below EXP_IO_HOW_LIMIT; ret->name points into r's payload. */
int record_decode_io_file(const struct exp_record *r, struct exp_io_file *ret);

/*
 * What an I/O function does, for the metrics: a call that failed is an error
 * whatever it is.  A copy (copy_file_range, sendfile) reads and writes the
 * same bytes in the kernel: it counts as one read and one write of its bytes,
 * its time as write time only (so the time metrics still add up to the time
 * spent in I/O calls).
 */
enum exp_io_class { EXP_IO_CLASS_READ, EXP_IO_CLASS_WRITE, EXP_IO_CLASS_OTHER, EXP_IO_CLASS_COPY };
enum exp_io_class record_io_class(unsigned func);

/* The API name of an I/O function ("openat64"), "?" when out of range. */
const char *record_io_func_name(unsigned func);

/*
 * Overflows of a counter (collect -h): `overflows` overflows of counter
 * `counter` (log.xml's <hwcounter id=>) with the thread at stack_id; each
 * stands for the counter's interval of events.
 */
struct exp_hwc {
	uint64_t ts_ns; /* absolute CLOCK_MONOTONIC (decoders add the delta) */
	uint32_t tid;   /* from the block header */
	uint32_t counter;
	uint64_t overflows; /* >= 1 */
	uint64_t stack_id;
};

/* prev_ns: the block's base or the previous HWC record's ts_ns. SIGNAL_SAFE. */
size_t record_encode_hwc(uint8_t *buf, size_t room, uint64_t prev_ns, const struct exp_hwc *h);
/* counter must be below EXP_HWC_MAX_COUNTERS, overflows at least 1. */
int record_decode_hwc(const struct exp_record *r, uint64_t prev_ns, uint32_t tid, struct exp_hwc *ret);

/* The 64-bit id the collector gives a stack: a hash of flags and pcs. SIGNAL_SAFE. */
uint64_t record_stack_hash(const uint64_t *pcs, uint32_t nframes, uint32_t flags);

#endif
