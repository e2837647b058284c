/*
 * test_heapstream - heap events (experiment/heapstream.h): every op round
 * trips with its fields, seq deltas of every size and sign, realloc's old
 * block in all three forms, stack ids and slots, time marks; the sizes
 * the format promises; every truncation and a bad time mark are rejected.
 */
#include "experiment/heapstream.h"

#include <errno.h>
#include <stdlib.h>

#include "tests/unit/check.h"

#define N 12

static const struct exp_heap events[N] = {
	{.seq = 1,
	 .op = EXP_HEAP_MALLOC,
	 .size = 24,
	 .addr = 0x5555aaa0,
	 .stack_kind = EXP_STACKREF_SLOT0,
	 .stack_slot = 300},
	{.seq = 2, .op = EXP_HEAP_FREE, .addr = 0x5555aaa0},
	{.seq = 3,
	 .op = EXP_HEAP_CALLOC,
	 .size = 4096,
	 .addr = 0x5555c000,
	 .stack_kind = EXP_STACKREF_ID,
	 .stack_id = 0xdeadbeefcafe},
	{.seq = 40, /* another thread made 36 calls in between: escaped */
	 .op = EXP_HEAP_REALLOC,
	 .size = 8000,
	 .addr = 0x5555e000,
	 .old_addr = 0x5555c000,
	 .stack_kind = EXP_STACKREF_SLOT0},
	{.seq = 39, /* a signal handler's call took its seq before the realloc's record */
	 .op = EXP_HEAP_REALLOC,
	 .size = 10,
	 .addr = 0x5555e000,
	 .old_addr = 0x5555e000, /* in place */
	 .stack_kind = EXP_STACKREF_NONE},
	{.seq = 41, .op = EXP_HEAP_REALLOC, .size = 10, .addr = 0x10, .old_addr = 0 /* realloc(NULL) */},
	{.seq = 42,
	 .op = EXP_HEAP_MEMALIGN,
	 .size = 1,
	 .addr = 0x7f0000001000,
	 .stack_kind = EXP_STACKREF_SLOT0,
	 .stack_slot = UINT32_MAX},
	{.seq = 43, .op = EXP_HEAP_MMAP, .size = 1ull << 40, .addr = 0x7f1000000000},
	{.seq = 44, .op = EXP_HEAP_MUNMAP, .size = 4096, .addr = 0x7f1000000000},
	{.seq = UINT64_MAX, .op = EXP_HEAP_FREE, .addr = UINT64_MAX},
	{.seq = 5, .op = EXP_HEAP_FREE, .addr = 0},
	{.seq = 6, .op = EXP_HEAP_MALLOC, .size = UINT64_MAX, .addr = 0x8000000000000000ull},
};
/* a time mark before these events, at these times */
static const uint64_t mark_ns[N] = {0, 0, 2500000, 0, 0, 0, 10000000000ull, 0, 0, 0, 0, UINT64_MAX - 1};

static size_t encode_all(uint8_t *buf, size_t *ends)
{
	struct heapstream_state s;
	heapstream_begin(&s, 1000, EXP_FORMAT_VERSION_MINOR);
	size_t n = 0;
	for (int i = 0; i < N; i++) {
		if (mark_ns[i]) {
			CHECK(heapstream_time_due(&s, mark_ns[i], EXP_HEAP_TIME_STEP_NS));
			n += heapstream_encode_time(buf + n, &s, mark_ns[i]);
		}
		size_t k = heapstream_encode(buf + n, &s, &events[i]);
		CHECK(k > 0 && k <= EXP_HEAP_EVENT_MAX_BYTES);
		n += k;
		ends[i] = n;
	}
	return n;
}

static void test_round_trip(void)
{
	uint8_t buf[N * 2 * EXP_HEAP_EVENT_MAX_BYTES];
	size_t ends[N];
	size_t n = encode_all(buf, ends);
	struct heapstream_state s;
	heapstream_begin(&s, 1000, EXP_FORMAT_VERSION_MINOR);
	const uint8_t *pos = buf, *end = buf + n;
	uint64_t now = 1000;
	for (int i = 0; i < N; i++) {
		struct exp_heap d;
		CHECK(heapstream_next(&pos, end, &s, 77, &d) == 1);
		const struct exp_heap *e = &events[i];
		if (mark_ns[i]) /* a mark advances the time by whole quanta */
			now += (mark_ns[i] - now) / EXP_HEAP_TIME_QUANTUM_NS * EXP_HEAP_TIME_QUANTUM_NS;
		CHECK_EQ_U64(pos - buf, ends[i]);
		CHECK_EQ_U64(d.ts_ns, now);
		CHECK_EQ_U64(d.tid, 77);
		CHECK_EQ_U64(d.seq, e->seq);
		CHECK_EQ_U64(d.op, e->op);
		CHECK_EQ_U64(d.size, e->op == EXP_HEAP_FREE ? 0 : e->size);
		CHECK_EQ_U64(d.addr, e->addr);
		CHECK_EQ_U64(d.old_addr, e->op == EXP_HEAP_REALLOC ? e->old_addr : 0);
		int stack = e->op != EXP_HEAP_FREE && e->op != EXP_HEAP_MUNMAP;
		CHECK_EQ_U64(d.stack_kind, stack ? e->stack_kind : EXP_STACKREF_NONE);
		CHECK_EQ_U64(d.stack_slot, stack && e->stack_kind == EXP_STACKREF_SLOT0 ? e->stack_slot : 0);
		CHECK_EQ_U64(d.stack_id, stack && e->stack_kind == EXP_STACKREF_ID ? e->stack_id : 0);
	}
	struct exp_heap d;
	CHECK(heapstream_next(&pos, end, &s, 77, &d) == 0);
	CHECK(pos == end);
}

static void test_sizes(void)
{
	/* the common case: the next seq, a nearby address, a slot under 126 */
	uint8_t buf[2 * EXP_HEAP_EVENT_MAX_BYTES];
	struct heapstream_state s;
	heapstream_begin(&s, 0, EXP_FORMAT_VERSION_MINOR);
	s.seq = 10;
	s.addr = 0x5555a000;
	struct exp_heap m = {.seq = 11,
			     .op = EXP_HEAP_MALLOC,
			     .size = 40,
			     .addr = 0x5555a030,
			     .stack_kind = EXP_STACKREF_SLOT0,
			     .stack_slot = 5};
	CHECK_EQ_U64(heapstream_encode(buf, &s, &m), 5); /* head, size, addr (a 2-byte delta), ref */
	CHECK_EQ_U64(buf[0], EXP_HEAP_MALLOC);           /* seq + 1: z = 0 */
	struct exp_heap f = {.seq = 12, .op = EXP_HEAP_FREE, .addr = 0x5555a030};
	CHECK_EQ_U64(heapstream_encode(buf, &s, &f), 2); /* head, addr: rank 0 of the recent ones */
	CHECK_EQ_U64(buf[1], 1);
	f.addr = 0x5555a000;
	f.seq = 12;
	s.seq = 11;
	CHECK_EQ_U64(heapstream_encode(buf, &s, &f), 3); /* not recent: a delta */
	struct exp_heap r = {.seq = 13,
			     .op = EXP_HEAP_REALLOC,
			     .size = 40,
			     .addr = 0x5555a000,
			     .stack_kind = EXP_STACKREF_SLOT0,
			     .stack_slot = 5};
	CHECK_EQ_U64(heapstream_encode(buf, &s, &r), 5); /* realloc(NULL): old is one byte */
	/* seq deltas: z < 31 in the head, else an escape varint */
	struct exp_heap g = {.seq = 13 + 16, .op = EXP_HEAP_FREE, .addr = 0x5555a000};
	CHECK_EQ_U64(heapstream_encode(buf, &s, &g), 2);
	CHECK_EQ_U64(buf[0] >> EXP_HEAP_OP_BITS, 30); /* zigzag(15) */
	g.seq += 17;
	CHECK_EQ_U64(heapstream_encode(buf, &s, &g), 3);
	CHECK_EQ_U64(buf[0] >> EXP_HEAP_OP_BITS, EXP_HEAP_SEQ_ESCAPE);
	/* format 1.1: plain deltas */
	struct heapstream_state o;
	heapstream_begin(&o, 0, 1);
	o.seq = 10;
	o.addr = 0x5555a000;
	CHECK_EQ_U64(heapstream_encode(buf, &o, &m), 4);
	/* the recent addresses: rank 2 after two others */
	struct heapstream_state q;
	heapstream_begin(&q, 0, EXP_FORMAT_VERSION_MINOR);
	uint64_t addrs[] = {0x1000, 0x2000, 0x3000, 0x1000};
	uint8_t stream[4 * EXP_HEAP_EVENT_MAX_BYTES];
	size_t len = 0;
	for (int i = 0; i < 4; i++) {
		struct exp_heap e = {.seq = (uint64_t)i + 1, .op = EXP_HEAP_FREE, .addr = addrs[i]};
		size_t k = heapstream_encode(stream + len, &q, &e);
		if (i == 3)
			CHECK_EQ_U64(stream[len + 1], 2 * 2 + 1);
		len += k;
	}
	heapstream_begin(&q, 0, EXP_FORMAT_VERSION_MINOR);
	const uint8_t *rp = stream;
	for (int i = 0; i < 4; i++) {
		struct exp_heap d;
		CHECK(heapstream_next(&rp, stream + len, &q, 1, &d) == 1);
		CHECK_EQ_U64(d.addr, addrs[i]);
	}
	/* a rank past the recent ones is damage */
	uint8_t badrank[2] = {EXP_HEAP_FREE, 2 * 3 + 1};
	heapstream_begin(&q, 0, EXP_FORMAT_VERSION_MINOR);
	rp = badrank;
	struct exp_heap bd;
	CHECK(heapstream_next(&rp, badrank + 2, &q, 1, &bd) == -EBADMSG);
	/* a time mark only when due */
	CHECK(!heapstream_time_due(&s, EXP_HEAP_TIME_STEP_NS - 1, EXP_HEAP_TIME_STEP_NS));
	CHECK(heapstream_time_due(&s, EXP_HEAP_TIME_STEP_NS, EXP_HEAP_TIME_STEP_NS));
	CHECK(!heapstream_time_due(&s, EXP_HEAP_TIME_STEP_NS, 2 * EXP_HEAP_TIME_STEP_NS));
	/* the step follows the clock interval within [STEP, STEP_MAX] */
	CHECK_EQ_U64(heapstream_time_step_ns(10000), 10000000);
	CHECK_EQ_U64(heapstream_time_step_ns(1000), EXP_HEAP_TIME_STEP_NS);
	CHECK_EQ_U64(heapstream_time_step_ns(100), EXP_HEAP_TIME_STEP_NS);
	CHECK_EQ_U64(heapstream_time_step_ns(4000), 4000000);
	CHECK_EQ_U64(heapstream_time_step_ns(100000), EXP_HEAP_TIME_STEP_MAX_NS);
	CHECK_EQ_U64(heapstream_time_step_ns(0), EXP_HEAP_TIME_STEP_MAX_NS);
	CHECK_EQ_U64(heapstream_encode_time(buf, &s, EXP_HEAP_TIME_QUANTUM_NS + 7), 3);
	CHECK_EQ_U64(buf[0], EXP_HEAP_TIME);
	CHECK_EQ_U64(s.time_ns, EXP_HEAP_TIME_QUANTUM_NS);     /* whole quanta */
	CHECK_EQ_U64(heapstream_encode_time(buf, &s, 200), 2); /* never backwards */
	CHECK_EQ_U64(s.time_ns, EXP_HEAP_TIME_QUANTUM_NS);
}

static void test_damage(void)
{
	uint8_t buf[N * 2 * EXP_HEAP_EVENT_MAX_BYTES];
	size_t ends[N];
	size_t n = encode_all(buf, ends);
	/* every cut inside an event is an error, at an event boundary the end */
	size_t bad = 0, clean = 0;
	for (size_t cut = 0; cut < n; cut++) {
		uint8_t *copy = malloc(cut ? cut : 1); /* ASan sees any read past the cut */
		memcpy(copy, buf, cut);
		struct heapstream_state s;
		heapstream_begin(&s, 1000, EXP_FORMAT_VERSION_MINOR);
		const uint8_t *pos = copy, *end = copy + cut;
		struct exp_heap d;
		int r;
		int got = 0;
		while ((r = heapstream_next(&pos, end, &s, 1, &d)) > 0)
			got++;
		int boundary = cut == 0;
		for (int i = 0; i < N; i++)
			boundary |= ends[i] == cut;
		if (r == -EBADMSG)
			bad++;
		else if (r == 0 && boundary)
			clean++;
		else if (r == 0 && cut + 1 <= n && got < N && mark_ns[got]) /* after a whole time mark */
			clean++;
		free(copy);
	}
	CHECK_EQ_U64(bad + clean, n);
	CHECK(bad > n / 2);
	/* a time mark with a seq field, an unknown head after a mark */
	uint8_t tm[3] = {EXP_HEAP_TIME | 1u << EXP_HEAP_OP_BITS, 5, 0};
	struct heapstream_state s;
	heapstream_begin(&s, 0, EXP_FORMAT_VERSION_MINOR);
	const uint8_t *pos = tm;
	struct exp_heap d;
	CHECK(heapstream_next(&pos, tm + 3, &s, 1, &d) == -EBADMSG);
	CHECK(pos == tm);
	/* a time that would wrap */
	uint8_t wrap[11] = {EXP_HEAP_TIME, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
	heapstream_begin(&s, 5, EXP_FORMAT_VERSION_MINOR);
	pos = wrap;
	CHECK(heapstream_next(&pos, wrap + 11, &s, 1, &d) == -EBADMSG);
	/* a stack slot past u32 */
	uint8_t slot[9] = {EXP_HEAP_MALLOC, 1, 2, 0x82, 0x80, 0x80, 0x80, 0x10};
	heapstream_begin(&s, 5, EXP_FORMAT_VERSION_MINOR);
	pos = slot;
	CHECK(heapstream_next(&pos, slot + 8, &s, 1, &d) == -EBADMSG);
}

int main(void)
{
	test_round_trip();
	test_sizes();
	test_damage();
	return check_done();
}
