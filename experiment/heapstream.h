/*
 * heapstream.h - the heap events of a heaptrace block (collect -H on).
 *
 * A heaptrace block holds, after its header, a stream of events without
 * record framing; the header's EXP_BH_USED counts the bytes of complete
 * events (the writer stores it with release ordering after each event, so a
 * reader that loads it with acquire ordering sees only complete events, even
 * while the experiment is being written).  Every event starts with a head
 * byte (experiment/format.h):
 *
 *   head = op | z << EXP_HEAP_OP_BITS      z = zigzag(seq - previous seq - 1),
 *                                          or EXP_HEAP_SEQ_ESCAPE and a
 *                                          varint z - EXP_HEAP_SEQ_ESCAPE
 *
 * then, by op (a = the address, see below, r = varint stackref [, u64 stack
 * id when it is EXP_STACKREF_ID]):
 *
 *   MALLOC, CALLOC, MEMALIGN, MMAP   [esc] varint size, a, r
 *   REALLOC                          [esc] varint size, a, varint old, r
 *                                    (old: 0 = no old block, else
 *                                    zigzag(old_addr - addr) + 1; the
 *                                    one difference it cannot hold,
 *                                    2^63, reads back as no old block:
 *                                    user-space addresses never differ
 *                                    by that much)
 *   FREE                             [esc] a
 *   MUNMAP                           [esc] varint size, a
 *   TIME (z must be 0)               varint ns since the previous mark
 *
 * The address a: in format 1.1, the zigzag varint of addr - the previous
 * event's addr.  From format 1.2 (EXP_HEAP_RECENT_MINOR) the coder keeps the
 * EXP_HEAP_RECENT_ADDRS most recent distinct addresses of the block, most
 * recent first, and a is the varint 2 * rank + 1 of an address found there,
 * else 2 * zigzag(addr - the previous event's addr); either way the address
 * then moves to the front.  malloc hands out the block just freed and a free
 * releases a block allocated a few calls before, so most addresses become a
 * small rank that repeats with the program's allocation pattern and
 * compresses to little (sqlite3: a quarter of the compressed trace).
 *
 * At the start of a block the previous seq and addr are 0, the recent
 * addresses none, and the time is
 * the header's base_ns; an event's time is that of the latest mark before
 * it (the writer marks the time whenever its step, heapstream_time_step_ns,
 * has passed since the last mark, so an event's time is at most that early).  Events
 * are ordered across threads by seq, which is exact: a call that gives a
 * block back takes its seq before the block can be reused.
 *
 * Encoders are SIGNAL_SAFE; decoders are bounds-checked and never read past
 * `end`.
 */
#ifndef EXPERIMENT_HEAPSTREAM_H
#define EXPERIMENT_HEAPSTREAM_H

#include <stddef.h>
#include <stdint.h>

#include "experiment/format.h"

struct exp_heap {
	uint64_t ts_ns;      /* decoders: the latest time mark's time */
	uint64_t seq;        /* process-wide order of heap calls, from 1 */
	uint32_t tid;        /* from the block header */
	uint8_t op;          /* enum exp_heap_op, never EXP_HEAP_TIME */
	uint64_t size;       /* bytes requested (munmap: unmapped; free: 0) */
	uint64_t addr;       /* the block (free/munmap: the one released) */
	uint64_t old_addr;   /* realloc only: the block given back, 0 if none */
	uint32_t stack_slot; /* with stack_kind EXP_STACKREF_SLOT0 */
	uint32_t stack_kind; /* EXP_STACKREF_NONE, _ID or _SLOT0 */
	uint64_t stack_id;   /* with EXP_STACKREF_ID */
};

/* The running values an event is coded against; reset at each block. */
struct heapstream_state {
	uint64_t time_ns;   /* the block's base_ns, then the latest mark */
	uint64_t seq;       /* the previous event's seq, 0 first */
	uint64_t addr;      /* the previous event's addr, 0 first */
	uint32_t recent_on; /* format >= 1.2: addresses by rank in recent[] */
	uint32_t nrecent;
	uint64_t recent[EXP_HEAP_RECENT_ADDRS]; /* most recent first */
};

/*
 * State at the start of a block whose header says base_ns, in a file of
 * format 1.version_minor (the writer: EXP_FORMAT_VERSION_MINOR). SIGNAL_SAFE.
 */
void heapstream_begin(struct heapstream_state *s, uint64_t base_ns, unsigned version_minor);

/*
 * The writer's step between time marks for a clock-profiling interval of
 * interval_us (0: off): the interval within [EXP_HEAP_TIME_STEP_NS,
 * EXP_HEAP_TIME_STEP_MAX_NS], the maximum when off.  Heap events are then
 * timed as finely as the samples: each mark breaks the repetition that makes
 * a stream compress (sqlite3: marks every 1 ms were an eighth of its trace).
 */
uint64_t heapstream_time_step_ns(uint32_t interval_us);

/* 1 if the writer should mark the time `now_ns` before its next event. SIGNAL_SAFE. */
int heapstream_time_due(const struct heapstream_state *s, uint64_t now_ns, uint64_t step_ns);

/*
 * Encode a time mark into buf: now_ns rounded down to whole
 * EXP_HEAP_TIME_QUANTUM_NS after the last mark (exactly now_ns with
 * _exact, which the writer uses after the load map changed); returns its
 * bytes (at most EXP_HEAP_EVENT_MAX_BYTES) and advances *s.  SIGNAL_SAFE.
 */
size_t heapstream_encode_time(uint8_t *buf, struct heapstream_state *s, uint64_t now_ns);
size_t heapstream_encode_time_exact(uint8_t *buf, struct heapstream_state *s, uint64_t now_ns);

/*
 * Encode event h (its seq, op, size, addr, old_addr and stack; not ts_ns)
 * into buf, which has room for EXP_HEAP_EVENT_MAX_BYTES; returns its bytes
 * and advances *s.  SIGNAL_SAFE.
 */
size_t heapstream_encode(uint8_t *buf, struct heapstream_state *s, const struct exp_heap *h);

/*
 * Decode the next heap event of [*pos, end), consuming time marks before it.
 * Returns 1 with *ret (tid set to `tid`) and *pos advanced, 0 at the end,
 * -EBADMSG if the bytes are not a complete, valid event (*pos then points
 * at the bad event).
 */
int heapstream_next(const uint8_t **pos, const uint8_t *end, struct heapstream_state *s, uint32_t tid,
		    struct exp_heap *ret);

#endif
