/*
 * heap_pack.c - heap calls packed in memory (heap_pack.h).
 */
#include "analysis/heap_pack.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/varint.h"

#define HEAD_OP_MASK 0x0fu
#define HEAD_SAME_THREAD 0x10u
#define HEAD_SAME_TIME 0x20u
#define HEAD_SEQ_NEXT 0x40u /* seq is the previous one's + 1 */
#define HEAD_RESTART 0x80u  /* a run starts: coded against zero values */
/* head, thread, seq, time, size, addr, old, stack */
#define CALL_MAX_BYTES (1 + 5 * VARINT_MAX_BYTES + 4 + 4)

static int allocates(uint8_t op)
{
	return op != EXP_HEAP_FREE && op != EXP_HEAP_MUNMAP;
}

void heap_pack_restart(struct exp_heap_pack *p)
{
	memset(&p->prev, 0, sizeof p->prev);
	p->restart = 1;
}

static int reserve(struct exp_heap_pack *p, size_t more)
{
	if (p->cap - p->nbytes >= more)
		return 0;
	size_t cap = p->cap ? p->cap : 1u << 16;
	while (cap - p->nbytes < more) {
		if (cap > SIZE_MAX / 2)
			return -ENOMEM;
		cap *= 2;
	}
	uint8_t *b = realloc(p->bytes, cap);
	if (!b)
		return -ENOMEM;
	p->bytes = b;
	p->cap = cap;
	return 0;
}

int heap_pack_append(struct exp_heap_pack *p, const struct exp_heap_event *e)
{
	if (reserve(p, CALL_MAX_BYTES) < 0)
		return -ENOMEM;
	const struct exp_heap_event *q = &p->prev;
	uint8_t *b = p->bytes + p->nbytes, *w = b + 1;
	uint8_t head = (uint8_t)((e->op & HEAD_OP_MASK) | (p->restart ? HEAD_RESTART : 0));
	p->restart = 0;
	if (e->thread == q->thread)
		head |= HEAD_SAME_THREAD;
	else
		w += varint_put(w, e->thread);
	if (e->seq == q->seq + 1)
		head |= HEAD_SEQ_NEXT;
	else
		w += varint_put(w, zigzag_encode((int64_t)(e->seq - q->seq)));
	if (e->ts_ns == q->ts_ns)
		head |= HEAD_SAME_TIME;
	else
		w += varint_put(w, zigzag_encode((int64_t)(e->ts_ns - q->ts_ns)));
	w += varint_put(w, e->size_bytes);
	w += varint_put(w, zigzag_encode((int64_t)(e->addr - q->addr)));
	if (e->op == EXP_HEAP_REALLOC)
		w += varint_put(w, zigzag_encode((int64_t)(e->old_addr - e->addr)));
	if (allocates(e->op)) {
		le32_put(w, e->stack);
		w += 4;
	}
	*b = head;
	p->nbytes += (size_t)(w - b);
	p->count++;
	p->prev = *e;
	return 0;
}

void heap_pack_release(struct exp_heap_pack *p)
{
	free(p->bytes);
	free((void *)p->thread_map);
	memset(p, 0, sizeof *p);
}

void exp_heap_iter_run(struct exp_heap_iter *it, const struct exp_heap_pack *p, size_t pos, size_t count)
{
	memset(it, 0, sizeof *it);
	it->p = p;
	it->pos = pos;
	it->left = p ? count : 0;
	it->stack_pos = SIZE_MAX;
}

void exp_heap_iter_begin(struct exp_heap_iter *it, const struct exp_heap_pack *p)
{
	exp_heap_iter_run(it, p, 0, p ? p->count : 0);
}

/* A varint into *v (most are one byte); NULL when the bytes end early. */
static inline const uint8_t *get_uint(const uint8_t *r, const uint8_t *end, uint64_t *v)
{
	if (r < end && *r < 0x80) {
		*v = *r;
		return r + 1;
	}
	return varint_get(r, end, v);
}

/* A zigzag varint added to *v; NULL when the bytes end early. */
static inline const uint8_t *get_step(const uint8_t *r, const uint8_t *end, uint64_t *v)
{
	uint64_t z;
	if (!(r = get_uint(r, end, &z)))
		return NULL;
	*v += (uint64_t)zigzag_decode(z);
	return r;
}

int exp_heap_iter_next(struct exp_heap_iter *it, struct exp_heap_event *ev)
{
	if (!it->left)
		return 0;
	const struct exp_heap_pack *p = it->p;
	const uint8_t *r = p->bytes + it->pos, *end = p->bytes + p->nbytes;
	if (r >= end)
		goto stop;
	uint8_t head = *r++;
	struct exp_heap_event e = it->prev;
	if (head & HEAD_RESTART)
		memset(&e, 0, sizeof e);
	uint64_t v;
	e.op = head & HEAD_OP_MASK;
	if (!(head & HEAD_SAME_THREAD)) {
		if (!(r = get_uint(r, end, &v)))
			goto stop;
		e.thread = (uint32_t)v;
	}
	if (head & HEAD_SEQ_NEXT)
		e.seq++;
	else if (!(r = get_step(r, end, &e.seq)))
		goto stop;
	if (!(head & HEAD_SAME_TIME) && !(r = get_step(r, end, &e.ts_ns)))
		goto stop;
	if (!(r = get_uint(r, end, &e.size_bytes)) || !(r = get_step(r, end, &e.addr)))
		goto stop;
	e.old_addr = e.op == EXP_HEAP_REALLOC ? e.addr : 0; /* a realloc's is a step from addr */
	if (e.op == EXP_HEAP_REALLOC && !(r = get_step(r, end, &e.old_addr)))
		goto stop;
	it->stack_pos = SIZE_MAX;
	if (allocates(e.op)) {
		if (end - r < 4)
			goto stop;
		it->stack_pos = (size_t)(r - p->bytes);
		e.stack = le32_get(r);
		r += 4;
	} else {
		e.stack = EXP_HEAP_NO_STACK;
	}
	it->prev = e;
	it->pos = (size_t)(r - p->bytes);
	it->left--;
	*ev = e;
	if (p->thread_map)
		ev->thread = e.thread < p->nthreads ? p->thread_map[e.thread] : 0;
	return 1;
stop:
	it->left = 0;
	return 0;
}

void exp_heap_iter_set_stack(struct exp_heap_iter *it, uint32_t stack)
{
	if (it->stack_pos == SIZE_MAX)
		return;
	le32_put(it->p->bytes + it->stack_pos, stack);
	it->prev.stack = stack;
}
