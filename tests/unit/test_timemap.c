/*
 * test_timemap.c - time-aware load maps (analysis/exp_timemap.h): which
 * object a PC belongs to at a time when objects were loaded one after the
 * other at the same address, including before a load is recorded (a
 * constructor inside dlopen) and between an unload and the next load; and
 * how exp_timemap_apply pins stacks: one copy per distinct mapping, events
 * and heap calls pointing at the copy for their time, nothing done when no
 * address was shared; and which objects a stack's frames use
 * (experiment_used_objects), with and without the pins.
 */
#include "analysis/experiment_internal.h"
#include "analysis/exp_timemap.h"
#include "analysis/heap_pack.h"

#include <stdlib.h>

#include "tests/unit/check.h"

static void add_obj(struct experiment *x, uint64_t vaddr, uint64_t size, uint64_t load, uint64_t unload)
{
	x->objs = realloc(x->objs, (x->nobjs + 1) * sizeof *x->objs);
	struct exp_loadobj *o = &x->objs[x->nobjs++];
	memset(o, 0, sizeof *o);
	o->id = (uint32_t)x->nobjs;
	o->path = strdup("/lib/x.so");
	o->name = strdup("x.so");
	o->base = vaddr;
	o->load_ns = load;
	o->unload_ns = unload;
	o->segs = calloc(1, sizeof *o->segs);
	o->segs[0].vaddr = vaddr;
	o->segs[0].memsz = size;
	o->nsegs = 1;
}

static void add_stack(struct experiment *x, uint64_t leaf, uint64_t ret)
{
	x->stacks = realloc(x->stacks, (x->nstacks + 1) * sizeof *x->stacks);
	struct exp_callstack *cs = &x->stacks[x->nstacks++];
	memset(cs, 0, sizeof *cs);
	cs->id = 1000 + x->nstacks;
	cs->nframes = 2;
	cs->pcs = malloc(2 * sizeof *cs->pcs);
	cs->pcs[0] = leaf;
	cs->pcs[1] = ret;
}

static void add_event(struct experiment *x, uint64_t ts, uint32_t stack)
{
	struct exp_table *t = &x->tables[EXP_TABLE_CLOCK];
	t->rows = realloc(t->rows, (t->count + 1) * sizeof(struct exp_event));
	t->stride = sizeof(struct exp_event);
	struct exp_event ev = {.ts_ns = ts, .weight_ns = 10, .stack = stack};
	EXP_ROWS(x, CLOCK)[EXP_COUNT(x, CLOCK)++] = ev;
}

static void release_heap(void *rows, size_t count)
{
	(void)count;
	heap_pack_release(rows);
}

static long obj_index(const struct experiment *x, const struct exp_loadobj *o)
{
	return o ? (long)(o - x->objs) : -1;
}

/* experiment_used_objects as a string of 0/1 per object, and its count. */
static const char *used_of(const struct experiment *x, long *ret_n)
{
	static char out[16];
	uint8_t used[16];
	*ret_n = experiment_used_objects(x, used);
	for (size_t i = 0; i < x->nobjs; i++)
		out[i] = used[i] ? '1' : '0';
	out[x->nobjs] = '\0';
	return out;
}

static void test_used(void)
{
	long n;
	struct experiment *z = calloc(1, sizeof *z);
	z->path = strdup("z.er");
	z->name = strdup("z.er");
	add_obj(z, 0x400000, 0x1000, 0, 0);       /* 0: the executable */
	add_obj(z, 0x7f0000, 0x2000, 1000, 2000); /* 1: plugin a */
	add_obj(z, 0x7f0000, 0x2000, 3000, 0);    /* 2: plugin b, same place, later */
	add_obj(z, 0x900000, 0x1000, 500, 0);     /* 3: a library no frame is in */
	add_obj(z, 0xa00000, 0x1000, 500, 0);     /* 4: a return address just past its end */
	add_obj(z, 0xa01000, 0x1000, 500, 0);     /* 5: ... is in this one's first byte */
	CHECK_EQ_STR(used_of(z, &n), "000000");
	CHECK_EQ_U64(n, 0);
	add_stack(z, 0x7f0100, 0x400020);
	add_stack(z, 0x400030, 0xa01000); /* called from 4's last instruction */
	/* no event times (experiment_open_stacks): a shared address marks every object there */
	CHECK_EQ_STR(used_of(z, &n), "111010");
	CHECK_EQ_U64(n, 4);
	/* pinned by the events' times, only plugin a ran */
	add_event(z, 1200, 0);
	add_event(z, 1300, 1);
	CHECK(exp_timemap_apply(z) == 0);
	CHECK_EQ_STR(used_of(z, &n), "110010");
	CHECK_EQ_U64(n, 3);
	/* a leaf at an object's first byte is that object's */
	add_stack(z, 0xa01000, 0x400020);
	CHECK_EQ_STR(used_of(z, &n), "110011");
	CHECK_EQ_U64(n, 4);
	experiment_free(z);
}

int main(void)
{
	test_used();
	struct experiment *x = calloc(1, sizeof *x);
	x->path = strdup("t.er");
	x->name = strdup("t.er");
	add_obj(x, 0x400000, 0x1000, 0, 0);       /* 0: the executable, always there */
	add_obj(x, 0x7f0000, 0x2000, 1000, 2000); /* 1: plugin a */
	add_obj(x, 0x7f0000, 0x2000, 3000, 0);    /* 2: plugin b, same place */
	add_obj(x, 0x900000, 0x1000, 500, 0);     /* 3: another library, never shared */

	/* by time */
	CHECK_EQ_U64(obj_index(x, experiment_find_object_at(x, 0x7f0100, 1500)), 1);
	CHECK_EQ_U64(obj_index(x, experiment_find_object_at(x, 0x7f0100, 3500)), 2);
	CHECK_EQ_U64(obj_index(x, experiment_find_object_at(x, 0x7f0100, 990)), 1);  /* a's constructor */
	CHECK_EQ_U64(obj_index(x, experiment_find_object_at(x, 0x7f0100, 2100)), 1); /* nearer a's unload */
	CHECK_EQ_U64(obj_index(x, experiment_find_object_at(x, 0x7f0100, 2900)), 2); /* nearer b's load */
	CHECK_EQ_U64(obj_index(x, experiment_find_object_at(x, 0x7f0100, 2500)), 2); /* a tie: the later */
	CHECK_EQ_U64(obj_index(x, experiment_find_object_at(x, 0x400010, 2500)), 0);
	CHECK(experiment_find_object_at(x, 0x100, 1500) == NULL);
	/* without a time: the latest */
	CHECK_EQ_U64(obj_index(x, experiment_find_object(x, 0x7f0100)), 2);

	/* stacks: 0 runs in the plugin, 1 only in the executable */
	add_stack(x, 0x7f0100, 0x400020);
	add_stack(x, 0x400030, 0x400040);
	add_event(x, 1200, 0);
	add_event(x, 1300, 1);
	add_event(x, 1400, 0);
	add_event(x, 3200, 0);
	add_event(x, 3300, 0);
	struct exp_heap_pack *hp = calloc(1, sizeof *hp);
	CHECK(hp != NULL);
	const struct exp_heap_event calls[] = {
		{.ts_ns = 1500, .seq = 1, .addr = 0x1000, .size_bytes = 8, .stack = 0, .op = EXP_HEAP_CALLOC},
		{.ts_ns = 3400, .seq = 2, .addr = 0x1000, .stack = EXP_HEAP_NO_STACK, .op = EXP_HEAP_FREE},
		{.ts_ns = 3500,
		 .seq = 3,
		 .addr = 0x2000,
		 .size_bytes = 16,
		 .stack = 0,
		 .op = EXP_HEAP_MALLOC},
	};
	for (size_t i = 0; i < 3; i++)
		CHECK(heap_pack_append(hp, &calls[i]) == 0);
	x->tables[EXP_TABLE_HEAP].rows = hp;
	x->tables[EXP_TABLE_HEAP].release = release_heap;
	EXP_COUNT(x, HEAP) = hp->count;

	CHECK(exp_timemap_apply(x) == 0);
	CHECK_EQ_U64(x->nstacks, 3); /* stack 0 for a, its copy for b */
	CHECK(x->stacks[1].objs == NULL);
	CHECK(x->stacks[0].objs && x->stacks[0].objs[0] == 1 && x->stacks[0].objs[1] == EXP_OBJ_BY_PC);
	CHECK(x->stacks[2].objs && x->stacks[2].objs[0] == 2 && x->stacks[2].objs[1] == EXP_OBJ_BY_PC);
	CHECK_EQ_U64(x->stacks[2].id, x->stacks[0].id);
	CHECK(x->stacks[2].pcs[0] == 0x7f0100 && x->stacks[2].pcs[1] == 0x400020);
	CHECK_EQ_U64(EXP_ROWS(x, CLOCK)[0].stack, 0);
	CHECK_EQ_U64(EXP_ROWS(x, CLOCK)[1].stack, 1);
	CHECK_EQ_U64(EXP_ROWS(x, CLOCK)[2].stack, 0);
	CHECK_EQ_U64(EXP_ROWS(x, CLOCK)[3].stack, 2);
	CHECK_EQ_U64(EXP_ROWS(x, CLOCK)[4].stack, 2);
	struct exp_heap_iter it;
	struct exp_heap_event ev;
	exp_heap_iter_begin(&it, EXP_ROWS(x, HEAP));
	CHECK(exp_heap_iter_next(&it, &ev) == 1 && ev.stack == 0); /* a's time */
	CHECK(exp_heap_iter_next(&it, &ev) == 1 && ev.stack == EXP_HEAP_NO_STACK && ev.op == EXP_HEAP_FREE);
	CHECK(exp_heap_iter_next(&it, &ev) == 1 && ev.stack == 2 && ev.addr == 0x2000 && ev.size_bytes == 16);
	CHECK(exp_heap_iter_next(&it, &ev) == 0);
	/* the frame's object follows the pin */
	CHECK_EQ_U64(obj_index(x, experiment_frame_object(x, &x->stacks[0], 0, 0x7f0100)), 1);
	CHECK_EQ_U64(obj_index(x, experiment_frame_object(x, &x->stacks[2], 0, 0x7f0100)), 2);
	CHECK_EQ_U64(obj_index(x, experiment_frame_object(x, &x->stacks[2], 1, 0x40001f)), 0);
	/* applying again changes nothing */
	CHECK(exp_timemap_apply(x) == 0);
	CHECK_EQ_U64(x->nstacks, 3);
	experiment_free(x);

	/* no shared addresses: nothing is pinned */
	struct experiment *y = calloc(1, sizeof *y);
	y->path = strdup("u.er");
	y->name = strdup("u.er");
	add_obj(y, 0x400000, 0x1000, 0, 0);
	add_obj(y, 0x7f0000, 0x2000, 1000, 2000);
	add_stack(y, 0x7f0100, 0x400020);
	add_event(y, 1200, 0);
	CHECK(exp_timemap_apply(y) == 0);
	CHECK(y->nstacks == 1 && y->stacks[0].objs == NULL);
	experiment_free(y);
	return check_done();
}
