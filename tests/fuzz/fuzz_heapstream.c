/*
 * fuzz_heapstream - the heap event stream of a heaptrace block
 * (experiment/heapstream.h), without the block around it.  Every input is
 * used two ways:
 *   1. as the event bytes of a block: heapstream_next must stay inside
 *      them, give only call ops, and the events it accepts, encoded again
 *      (with a time mark wherever the time moved), must decode to the same
 *      events;
 *   2. as the fields of events (41 bytes each: op, seq, size, addr,
 *      old_addr, stack), the way the collector's interposers fill them:
 *      encoded and decoded, each must come back with every field the
 *      format keeps for its op.
 * A difference calls abort().
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/varint.h"
#include "experiment/heapstream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_EVENTS 4096

static struct exp_heap events[MAX_EVENTS];
static uint8_t stream[MAX_EVENTS * (2 * EXP_HEAP_EVENT_MAX_BYTES)];

/* The fields an event of its op carries (others are 0 when decoded), as heapstream.h codes them. */
static struct exp_heap kept(const struct exp_heap *h)
{
	struct exp_heap k = {.ts_ns = h->ts_ns, .seq = h->seq, .tid = h->tid, .op = h->op, .addr = h->addr};
	if (h->op != EXP_HEAP_FREE)
		k.size = h->size;
	/* zigzag(old - addr) + 1 wraps to 0, "no old block", for the one difference 2^63 */
	if (h->op == EXP_HEAP_REALLOC && h->old_addr - h->addr != UINT64_C(1) << 63)
		k.old_addr = h->old_addr;
	if (h->op != EXP_HEAP_FREE && h->op != EXP_HEAP_MUNMAP) {
		k.stack_kind = h->stack_kind;
		if (h->stack_kind == EXP_STACKREF_ID)
			k.stack_id = h->stack_id;
		else if (h->stack_kind == EXP_STACKREF_SLOT0)
			k.stack_slot = h->stack_slot;
	}
	return k;
}

static int same(const struct exp_heap *a, const struct exp_heap *b)
{
	return a->ts_ns == b->ts_ns && a->seq == b->seq && a->tid == b->tid && a->op == b->op &&
	       a->size == b->size && a->addr == b->addr && a->old_addr == b->old_addr &&
	       a->stack_kind == b->stack_kind && a->stack_id == b->stack_id && a->stack_slot == b->stack_slot;
}

/* The coding of this input's addresses: format 1.1 (deltas) or the current one (recent ranks). */
static unsigned minor;

/*
 * Encode events[0..n) from base_ns, marking the time before each event whose
 * time moved.  The marks are written here, exactly: the writer's
 * heapstream_encode_time rounds to whole quanta, which a decoded stream's
 * arbitrary marks need not be.
 */
static size_t encode(size_t n, uint64_t base_ns)
{
	struct heapstream_state s;
	heapstream_begin(&s, base_ns, minor);
	size_t len = 0;
	for (size_t i = 0; i < n; i++) {
		if (events[i].ts_ns != s.time_ns) {
			stream[len++] = EXP_HEAP_TIME;
			len += varint_put(stream + len, events[i].ts_ns - s.time_ns);
			s.time_ns = events[i].ts_ns;
		}
		len += heapstream_encode(stream + len, &s, &events[i]);
	}
	return len;
}

/* Decode stream[0..len) and compare with kept(events[i]); abort on any difference. */
static void decode_same(size_t len, size_t n, uint64_t base_ns)
{
	struct heapstream_state s;
	heapstream_begin(&s, base_ns, minor);
	const uint8_t *pos = stream, *end = stream + len;
	struct exp_heap h;
	size_t i = 0;
	int r;
	while ((r = heapstream_next(&pos, end, &s, 9, &h)) > 0) {
		struct exp_heap want = kept(&events[i]);
		if (i >= n || !same(&h, &want))
			abort();
		i++;
	}
	if (r != 0 || i != n || pos != end)
		abort();
}

static void as_stream(const uint8_t *data, size_t size)
{
	uint64_t base_ns = size >= 8 ? le64_get(data) : 1000;
	struct heapstream_state s;
	heapstream_begin(&s, base_ns, minor);
	const uint8_t *pos = data, *end = data + size, *prev = pos;
	size_t n = 0;
	int r;
	while (n < MAX_EVENTS && (r = heapstream_next(&pos, end, &s, 9, &events[n])) > 0) {
		const struct exp_heap *h = &events[n];
		if (pos <= prev || pos > end || h->op >= EXP_HEAP_TIME || h->tid != 9 || h->ts_ns < base_ns ||
		    h->stack_kind > EXP_STACKREF_SLOT0 || (n && h->ts_ns < events[n - 1].ts_ns))
			abort();
		prev = pos;
		n++;
	}
	if (pos < data || pos > end)
		abort();
	decode_same(encode(n, base_ns), n, base_ns);
}

static void as_fields(const uint8_t *data, size_t size)
{
	size_t n = 0;
	uint64_t t = 5000;
	for (const uint8_t *p = data; p + 41 <= data + size && n < MAX_EVENTS; p += 41, n++) {
		struct exp_heap *h = &events[n];
		*h = (struct exp_heap){.tid = 9,
				       .op = p[0] % EXP_HEAP_TIME,
				       .seq = le64_get(p + 1),
				       .size = le64_get(p + 9),
				       .addr = le64_get(p + 17),
				       .old_addr = le64_get(p + 25)};
		uint64_t stack = le64_get(p + 33);
		h->stack_kind = (uint32_t)(stack % 3);
		h->stack_id = stack;
		h->stack_slot = (uint32_t)(stack >> 32);
		t += (p[0] >> 3) * 40000ull; /* time marks now and then */
		h->ts_ns = t;
	}
	decode_same(encode(n, 5000), n, 5000);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	minor = size & 1 ? 1 : EXP_FORMAT_VERSION_MINOR;
	as_stream(data, size);
	as_fields(data, size);
	return 0;
}
