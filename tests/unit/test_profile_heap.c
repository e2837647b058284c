/*
 * test_profile_heap - analysis/profile_heap.h's replay on a synthetic
 * experiment (tests/tools/mkexp) whose every figure follows from the
 * semantics in the header: allocations, a failed call, a temporary
 * allocation, a realloc that moves a block, an unknown free, an allocation
 * at a still-live address, a partly unmapped mapping, leaks and the peak.
 */
#include "analysis/experiment_internal.h"
#include "analysis/profile_heap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "analysis/profile.h"
#include "tests/unit/check.h"
#include "tests/unit/fixture.h"

/* Leaf frames of the stacks: A..E. */
#define A 0xa000u
#define B 0xb000u
#define C 0xc000u
#define D 0xd000u
#define E 0xe000u

static const char script[] = "thread 1\n"
			     "heap 1 malloc 100 0x1000 0xa000 0x1\n"         /*  1 ms: A, temporary */
			     "heap 1 free 0 0x1000\n"                        /*  2 */
			     "heap 1 malloc 200 0x2000 0xb000 0x1\n"         /*  3 */
			     "heap 1 malloc 300 0x3000 0xb000 0x1\n"         /*  4 */
			     "heap 1 free 0 0x2000\n"                        /*  5: not the last allocation */
			     "heap 1 realloc 400 0x4000/0x3000 0xc000 0x1\n" /* 6: moves 0x3000 */
			     "heap 1 free 0 0x9999\n"                        /*  7: unknown free */
			     "heap 1 malloc 50 0x0 0xa000 0x1\n"             /*  8: failed */
			     "heap 1 malloc 64 0x5000 0xd000 0x1\n"          /*  9 */
			     "heap 1 malloc 32 0x5000 0xd000 0x1\n"   /* 10: 0x5000 still live: reused */
			     "heap 1 mmap 8192 0x100000 0xe000 0x1\n" /* 11: the peak, 8624 bytes */
			     "heap 1 munmap 4096 0x100000\n"          /* 12: half of it */
			     "end 1 50000000\n";

/* The heap figures of the stack whose leaf is `leaf`; NULL if none. */
static const struct heap_stack_stat *stack_of(const struct profile *p, uint64_t leaf)
{
	const struct experiment *x = profile_experiment(p, 0);
	for (uint32_t s = 0; s < x->nstacks; s++)
		if (x->stacks[s].nframes && x->stacks[s].pcs[0] == leaf)
			return profile_heap_stack(p, 0, s);
	return NULL;
}

int main(void)
{
	const char *build = getenv("PA_BUILD");
	char dir[] = "/tmp/pa-unit-heap.XXXXXX";
	CHECK(build && mkdtemp(dir));
	if (!build)
		return check_done();
	char spath[4200];
	snprintf(spath, sizeof spath, "%s/script", dir);
	FILE *sf = fopen(spath, "w");
	CHECK(sf && fputs(script, sf) >= 0);
	fclose(sf);
	CHECK(sh("'%s/tests/tools/mkexp' '%s/h.er' < '%s'", build, dir, spath) == 0);

	struct profile *p;
	char *err = NULL;
	char epath[4200];
	snprintf(epath, sizeof epath, "%s/h.er", dir);
	CHECK(profile_new(&p) == 0);
	CHECK(profile_add_experiment(p, epath, &err) == 0);
	free(err);
	CHECK(profile_compute(p) == 0);

	const struct heap_summary *h = profile_heap_summary(p);
	CHECK(h && h->has_heap);
	CHECK_EQ_U64(h->alloc_count, 7); /* the failed call is none */
	CHECK_EQ_U64(h->alloc_bytes, 100 + 200 + 300 + 400 + 64 + 32 + 8192);
	CHECK_EQ_U64(h->failed_count, 1);
	CHECK_EQ_U64(h->unknown_free_count, 1);
	CHECK_EQ_U64(h->reused_count, 1);
	CHECK_EQ_U64(h->leak_count, 3); /* 0x4000, 0x5000 (the second block), what is left of the mapping */
	CHECK_EQ_U64(h->leak_bytes, 400 + 32 + 4096);
	CHECK_EQ_U64(h->alloc_min_bytes, 32);
	CHECK_EQ_U64(h->alloc_max_bytes, 8192);
	CHECK_EQ_U64(h->leak_min_bytes, 32);
	CHECK_EQ_U64(h->leak_max_bytes, 4096);
	CHECK_EQ_U64(h->peak_bytes, 400 + 32 + 8192);
	CHECK_EQ_U64(h->peak_ns, 11000000);
	CHECK_EQ_U64(h->alloc_classes[heap_size_class(100)], 6); /* all but the mapping: under 1 KB */
	CHECK_EQ_U64(h->alloc_classes[heap_size_class(8192)], 1);
	/* gprofng's classes include their upper bound: 1024 is "0KB - 1KB", 8192 "1KB - 8KB" */
	CHECK_EQ_U64(heap_size_class(1024), 0);
	CHECK_EQ_U64(heap_size_class(1025), 1);
	CHECK_EQ_U64(heap_size_class(8192), 1);
	CHECK_EQ_U64(heap_size_class(8193), 2);

	const struct heap_stack_stat *a = stack_of(p, A), *b = stack_of(p, B), *c = stack_of(p, C),
				     *d = stack_of(p, D), *e = stack_of(p, E);
	CHECK(a && b && c && d && e);
	if (a && b && c && d && e) {
		CHECK_EQ_U64(a->alloc_count, 1);
		CHECK_EQ_U64(a->temp_count,
			     1); /* freed by the next releasing call, nothing allocated between */
		CHECK_EQ_U64(a->temp_bytes, 100);
		CHECK_EQ_U64(a->leak_count, 0);
		CHECK_EQ_U64(b->alloc_count, 2);
		CHECK_EQ_U64(b->alloc_bytes, 500);
		CHECK_EQ_U64(b->leak_count, 0);
		CHECK_EQ_U64(c->alloc_count, 1);
		CHECK_EQ_U64(c->leak_bytes, 400);
		CHECK_EQ_U64(c->peak_bytes, 400);
		CHECK_EQ_U64(d->alloc_count, 2);
		CHECK_EQ_U64(d->leak_count, 1);
		CHECK_EQ_U64(d->leak_bytes, 32);
		CHECK_EQ_U64(d->peak_bytes, 32);
		CHECK_EQ_U64(e->alloc_bytes, 8192);
		CHECK_EQ_U64(e->leak_count, 1);
		CHECK_EQ_U64(e->leak_bytes, 4096); /* the unmapped half is released, the rest leaks */
		CHECK_EQ_U64(e->peak_bytes, 8192);
	}
	profile_free(p);
	CHECK(sh("rm -rf '%s'", dir) == 0);
	return check_done();
}
