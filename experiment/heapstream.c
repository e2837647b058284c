/*
 * heapstream.c - encoder and bounds-checked decoder of heap events (see
 * heapstream.h).
 */
#include "experiment/heapstream.h"

#include <errno.h>
#include <string.h>

#include "common/varint.h"

static int has_size(unsigned op)
{
	return op != EXP_HEAP_FREE;
}

static int has_stack(unsigned op)
{
	return op != EXP_HEAP_FREE && op != EXP_HEAP_MUNMAP;
}

void heapstream_begin(struct heapstream_state *s, uint64_t base_ns, unsigned version_minor)
{
	s->time_ns = base_ns;
	s->seq = 0;
	s->addr = 0;
	s->recent_on = version_minor >= EXP_HEAP_RECENT_MINOR;
	s->nrecent = 0;
	memset(s->recent, 0, sizeof s->recent); /* recent_rank reads whole groups */
}

_Static_assert(EXP_HEAP_RECENT_ADDRS % 8 == 0, "recent_rank compares groups of 8");

/*
 * The rank of addr among the recent addresses, or nrecent when it is not
 * there: compared 8 at a time, written out (no branch, no loop, each), then
 * the first match of the group.  A miss compares all 64: the loop that
 * stopped at the first match took 60% of the encoder, 13% of a traced
 * malloc loop (4M pairs: 0.93 s -> 0.83 s).
 */
static uint32_t recent_rank(const struct heapstream_state *s, uint64_t addr)
{
	uint32_t n = s->nrecent;
	for (uint32_t i = 0; i < n; i += 8) {
		const uint64_t *r = s->recent + i;
		unsigned m = (unsigned)(r[0] == addr) | (unsigned)(r[1] == addr) << 1 |
			     (unsigned)(r[2] == addr) << 2 | (unsigned)(r[3] == addr) << 3 |
			     (unsigned)(r[4] == addr) << 4 | (unsigned)(r[5] == addr) << 5 |
			     (unsigned)(r[6] == addr) << 6 | (unsigned)(r[7] == addr) << 7;
		if (n - i < 8)
			m &= (1u << (n - i)) - 1;
		if (m)
			return i + (uint32_t)__builtin_ctz(m);
	}
	return n;
}

/* Move the entry at rank to the front (rank == nrecent: a new address, the oldest drops out). */
static void recent_front(struct heapstream_state *s, uint32_t rank, uint64_t addr)
{
	if (rank == s->nrecent && s->nrecent < EXP_HEAP_RECENT_ADDRS)
		s->nrecent++;
	if (rank >= s->nrecent)
		rank = s->nrecent - 1;
	for (uint32_t i = rank; i > 0; i--)
		s->recent[i] = s->recent[i - 1];
	s->recent[0] = addr;
}

/*
 * Put the address field of an event at addr; returns its bytes.  With the
 * recent addresses: 2 * rank + 1, or 2 * zigzag(delta) for a new address,
 * or 0 and the address itself when that would not fit in 64 bits (a new
 * address never has delta 0: the previous one is always recent).
 */
static size_t addr_put(uint8_t *buf, struct heapstream_state *s, uint64_t addr)
{
	uint64_t delta = zigzag_encode((int64_t)(addr - s->addr));
	if (!s->recent_on)
		return varint_put(buf, delta);
	uint32_t rank = recent_rank(s, addr);
	int found = rank < s->nrecent;
	recent_front(s, rank, addr);
	if (found)
		return varint_put(buf, 2 * (uint64_t)rank + 1);
	if (delta && delta < (1ull << 63))
		return varint_put(buf, 2 * delta);
	buf[0] = 0;
	return 1 + varint_put(buf + 1, addr);
}

/* Read an address field into *ret; the position after it, or NULL if it is bad. */
static const uint8_t *addr_get(const uint8_t *p, const uint8_t *end, struct heapstream_state *s,
			       uint64_t *ret)
{
	uint64_t v;
	if (!(p = varint_get(p, end, &v)))
		return NULL;
	if (!s->recent_on) {
		*ret = s->addr + (uint64_t)zigzag_decode(v);
		return p;
	}
	if (v & 1) {
		uint64_t rank = v >> 1;
		if (rank >= s->nrecent)
			return NULL;
		*ret = s->recent[rank];
		recent_front(s, (uint32_t)rank, *ret);
		return p;
	}
	if (v)
		*ret = s->addr + (uint64_t)zigzag_decode(v >> 1);
	else if (!(p = varint_get(p, end, ret)))
		return NULL;
	recent_front(s, s->nrecent, *ret);
	return p;
}

uint64_t heapstream_time_step_ns(uint32_t interval_us)
{
	uint64_t step = (uint64_t)interval_us * 1000u;
	if (!step || step > EXP_HEAP_TIME_STEP_MAX_NS)
		return EXP_HEAP_TIME_STEP_MAX_NS;
	return step < EXP_HEAP_TIME_STEP_NS ? EXP_HEAP_TIME_STEP_NS : step;
}

int heapstream_time_due(const struct heapstream_state *s, uint64_t now_ns, uint64_t step_ns)
{
	return now_ns >= s->time_ns + step_ns;
}

static size_t encode_mark(uint8_t *buf, struct heapstream_state *s, uint64_t now_ns, uint64_t quantum)
{
	uint64_t dt = now_ns > s->time_ns ? now_ns - s->time_ns : 0;
	dt -= dt % quantum;
	buf[0] = EXP_HEAP_TIME;
	size_t n = 1 + varint_put(buf + 1, dt);
	s->time_ns += dt;
	return n;
}

size_t heapstream_encode_time(uint8_t *buf, struct heapstream_state *s, uint64_t now_ns)
{
	/* whole quanta: a few distinct values, which compress to almost nothing */
	return encode_mark(buf, s, now_ns, EXP_HEAP_TIME_QUANTUM_NS);
}

size_t heapstream_encode_time_exact(uint8_t *buf, struct heapstream_state *s, uint64_t now_ns)
{
	return encode_mark(buf, s, now_ns, 1);
}

size_t heapstream_encode(uint8_t *buf, struct heapstream_state *s, const struct exp_heap *h)
{
	unsigned op = h->op < EXP_HEAP_TIME ? h->op : EXP_HEAP_MALLOC;
	uint64_t z = zigzag_encode((int64_t)(h->seq - s->seq - 1));
	size_t n = 1;
	if (z < EXP_HEAP_SEQ_ESCAPE) {
		buf[0] = (uint8_t)(op | z << EXP_HEAP_OP_BITS);
	} else {
		buf[0] = (uint8_t)(op | EXP_HEAP_SEQ_ESCAPE << EXP_HEAP_OP_BITS);
		n += varint_put(buf + n, z - EXP_HEAP_SEQ_ESCAPE);
	}
	if (has_size(op))
		n += varint_put(buf + n, h->size);
	n += addr_put(buf + n, s, h->addr);
	if (op == EXP_HEAP_REALLOC)
		n += varint_put(buf + n,
				h->old_addr ? zigzag_encode((int64_t)(h->old_addr - h->addr)) + 1 : 0);
	if (has_stack(op)) {
		if (h->stack_kind == EXP_STACKREF_SLOT0) {
			n += varint_put(buf + n, (uint64_t)h->stack_slot + EXP_STACKREF_SLOT0);
		} else if (h->stack_kind == EXP_STACKREF_ID) {
			buf[n++] = EXP_STACKREF_ID;
			le64_put(buf + n, h->stack_id);
			n += 8;
		} else {
			buf[n++] = EXP_STACKREF_NONE;
		}
	}
	s->seq = h->seq;
	s->addr = h->addr;
	return n;
}

int heapstream_next(const uint8_t **pos, const uint8_t *end, struct heapstream_state *s, uint32_t tid,
		    struct exp_heap *ret)
{
	const uint8_t *p = *pos;
	for (;;) {
		if (p >= end)
			return 0;
		unsigned head = *p, op = head & ((1u << EXP_HEAP_OP_BITS) - 1);
		uint64_t z = head >> EXP_HEAP_OP_BITS;
		if (op != EXP_HEAP_TIME)
			break;
		uint64_t dt;
		const uint8_t *q = varint_get(p + 1, end, &dt);
		if (z || !q || dt > UINT64_MAX - s->time_ns)
			return -EBADMSG;
		s->time_ns += dt;
		p = q;
		*pos = p;
	}
	unsigned op = *p & ((1u << EXP_HEAP_OP_BITS) - 1);
	uint64_t z = *p++ >> EXP_HEAP_OP_BITS, v, ref = EXP_STACKREF_NONE;
	struct exp_heap h = {.ts_ns = s->time_ns, .tid = tid, .op = (uint8_t)op};
	if (z == EXP_HEAP_SEQ_ESCAPE) {
		if (!(p = varint_get(p, end, &v)) || v > UINT64_MAX - EXP_HEAP_SEQ_ESCAPE)
			return -EBADMSG;
		z = v + EXP_HEAP_SEQ_ESCAPE;
	}
	h.seq = s->seq + 1 + (uint64_t)zigzag_decode(z);
	if (has_size(op) && !(p = varint_get(p, end, &h.size)))
		return -EBADMSG;
	if (!(p = addr_get(p, end, s, &h.addr)))
		return -EBADMSG;
	if (op == EXP_HEAP_REALLOC) {
		if (!(p = varint_get(p, end, &v)))
			return -EBADMSG;
		h.old_addr = v ? h.addr + (uint64_t)zigzag_decode(v - 1) : 0;
	}
	if (has_stack(op)) {
		if (!(p = varint_get(p, end, &ref)))
			return -EBADMSG;
		if (ref == EXP_STACKREF_ID) {
			if (end - p < 8)
				return -EBADMSG;
			h.stack_id = le64_get(p);
			p += 8;
			h.stack_kind = EXP_STACKREF_ID;
		} else if (ref >= EXP_STACKREF_SLOT0) {
			if (ref - EXP_STACKREF_SLOT0 > UINT32_MAX)
				return -EBADMSG;
			h.stack_slot = (uint32_t)(ref - EXP_STACKREF_SLOT0);
			h.stack_kind = EXP_STACKREF_SLOT0;
		}
	}
	s->seq = h.seq;
	s->addr = h.addr;
	*ret = h;
	*pos = p;
	return 1;
}
