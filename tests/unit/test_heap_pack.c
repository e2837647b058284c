/*
 * test_heap_pack.c - heap calls packed in memory (analysis/heap_pack.h):
 * every call reads back as appended, over runs, extreme values and
 * steps back; the stack rewrite stays in place; short bytes end it.
 */
#include "analysis/heap_pack.h"

#include <stdlib.h>
#include <string.h>

#include "tests/unit/check.h"

static uint64_t rng = 88172645463325252ull;

static uint64_t next_rand(void)
{
	return check_rand(&rng);
}

/* A call as a reader would make it: NO_STACK unless it allocates, old_addr only on realloc. */
static struct exp_heap_event random_call(const struct exp_heap_event *prev)
{
	static const uint64_t extremes[] = {0, 1, UINT64_MAX, UINT64_MAX / 2, 1ull << 63, 0x7fffffffffffull};
	struct exp_heap_event e = *prev;
	uint64_t r = next_rand();
	e.op = (uint8_t)(r % 7);
	e.thread = r >> 8 & 1 ? prev->thread : (uint32_t)(next_rand() % 5);
	e.seq = r >> 9 & 1 ? prev->seq + 1 : next_rand() % 4 ? prev->seq + next_rand() % 100 : next_rand();
	e.ts_ns = r >> 10 & 1 ? prev->ts_ns : prev->ts_ns + (next_rand() % 20000) - 5000; /* steps back too */
	e.size_bytes = r >> 11 & 1 ? next_rand() % 200 : extremes[next_rand() % 6];
	e.addr = r >> 12 & 1 ? prev->addr + (next_rand() % 4096) - 2048 : extremes[next_rand() % 6];
	e.old_addr =
		e.op == EXP_HEAP_REALLOC ? (r >> 13 & 1 ? 0 : extremes[next_rand() % 6] ^ next_rand()) : 0;
	e.stack = e.op == EXP_HEAP_FREE || e.op == EXP_HEAP_MUNMAP ? EXP_HEAP_NO_STACK
		  : r >> 14 & 1                                    ? (uint32_t)(next_rand() % 1000)
								   : UINT32_MAX - 1;
	return e;
}

static int same(const struct exp_heap_event *a, const struct exp_heap_event *b)
{
	return a->ts_ns == b->ts_ns && a->seq == b->seq && a->size_bytes == b->size_bytes &&
	       a->addr == b->addr && a->old_addr == b->old_addr && a->thread == b->thread &&
	       a->stack == b->stack && a->op == b->op;
}

static void test_roundtrip(void)
{
	enum { N = 20000, RUN = 997 };
	struct exp_heap_event *want = calloc(N, sizeof *want);
	size_t *run_pos = calloc(N / RUN + 2, sizeof *run_pos);
	CHECK(want && run_pos);
	struct exp_heap_pack p = {0};
	struct exp_heap_event prev = {0};
	for (size_t i = 0; i < N; i++) {
		if (i % RUN == 0) {
			run_pos[i / RUN] = p.nbytes;
			heap_pack_restart(&p);
		}
		want[i] = random_call(&prev);
		prev = want[i];
		CHECK(heap_pack_append(&p, &want[i]) == 0);
	}
	CHECK_EQ_U64(p.count, N);
	CHECK(p.nbytes < N * sizeof(struct exp_heap_event) / 2);
	struct exp_heap_iter it;
	struct exp_heap_event ev;
	size_t n = 0;
	exp_heap_iter_begin(&it, &p);
	while (exp_heap_iter_next(&it, &ev) > 0) {
		CHECK(n < N && same(&ev, &want[n]));
		n++;
	}
	CHECK_EQ_U64(n, N);
	/* each run alone, from its own start */
	size_t k = 7;
	exp_heap_iter_run(&it, &p, run_pos[k], RUN);
	for (size_t i = 0; i < RUN; i++)
		CHECK(exp_heap_iter_next(&it, &ev) == 1 && same(&ev, &want[k * RUN + i]));
	CHECK(exp_heap_iter_next(&it, &ev) == 0);
	/* rewriting a stack in place changes that call and nothing after it */
	exp_heap_iter_begin(&it, &p);
	size_t alloc = SIZE_MAX;
	for (size_t i = 0; i < N && exp_heap_iter_next(&it, &ev) > 0; i++)
		if (i > 100 && ev.stack != EXP_HEAP_NO_STACK) {
			exp_heap_iter_set_stack(&it, 424242);
			alloc = i;
			break;
		}
	CHECK(alloc != SIZE_MAX);
	want[alloc].stack = 424242;
	exp_heap_iter_begin(&it, &p);
	for (size_t i = 0; i < N; i++)
		CHECK(exp_heap_iter_next(&it, &ev) == 1 && same(&ev, &want[i]));
	/* a free has no stack to rewrite */
	exp_heap_iter_begin(&it, &p);
	while (exp_heap_iter_next(&it, &ev) > 0 && ev.op != EXP_HEAP_FREE)
		;
	size_t before = p.nbytes;
	exp_heap_iter_set_stack(&it, 7);
	CHECK_EQ_U64(p.nbytes, before);
	/* thread indices as mapped */
	uint32_t *map = malloc(5 * sizeof *map);
	CHECK(map != NULL);
	for (uint32_t t = 0; t < 5; t++)
		map[t] = 10 + t;
	p.thread_map = map;
	p.nthreads = 5;
	exp_heap_iter_begin(&it, &p);
	CHECK(exp_heap_iter_next(&it, &ev) == 1 && ev.thread == 10 + want[0].thread);
	/* bytes that end inside a call end the iteration */
	p.nbytes -= 1;
	n = 0;
	exp_heap_iter_begin(&it, &p);
	while (exp_heap_iter_next(&it, &ev) > 0)
		n++;
	CHECK_EQ_U64(n, N - 1);
	heap_pack_release(&p);
	CHECK(p.bytes == NULL && p.count == 0 && p.thread_map == NULL);
	/* none */
	exp_heap_iter_begin(&it, NULL);
	CHECK(exp_heap_iter_next(&it, &ev) == 0);
	free(want);
	free(run_pos);
}

int main(void)
{
	test_roundtrip();
	return check_done();
}
