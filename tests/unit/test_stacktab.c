/*
 * test_stacktab.c - the collector's set of stacks already written
 * (collector/stacktab.h), linked from libcollector-core.a: insert and
 * contains, slots that never change their id, the probe bound and a full
 * table (-ENOSPC: the caller writes the stack again), the once-per-slot duty
 * of writing a STACK_SLOT record, and a reset that forgets every id and
 * advances the epoch.  Slots are known: linear probing from id mod size.
 * Then four threads inserting overlapping ids: every id ends in exactly one
 * slot of its own (two racing inserts of one id may both say "added"; the
 * reader deduplicates a stack written twice).
 */
#include "collector/stacktab.h"

#include <errno.h>
#include <pthread.h>

#include "tests/unit/check.h"

static void test_basic(void)
{
	CHECK_EQ_U64(stacktab_contains(0x1234), 0);
	CHECK_EQ_U64(stacktab_find_slot(0x1234), -ENOENT);
	CHECK_EQ_U64(stacktab_insert(0x1234), 1);
	CHECK_EQ_U64(stacktab_insert(0x1234), 0);
	CHECK_EQ_U64(stacktab_contains(0x1234), 1);
	CHECK_EQ_U64(stacktab_contains(0x1235), 0);
	long s = stacktab_find_slot(0x1234);
	CHECK_EQ_U64(s, 4);
	CHECK_EQ_U64(stacktab_insert_slot(0x1234), s); /* the same slot, not a second one */
	long t = stacktab_insert_slot(0x9999);
	CHECK_EQ_U64(t, 9);
	CHECK_EQ_U64(stacktab_find_slot(0x9999), t);
	CHECK_EQ_U64(stacktab_contains(0x9999), 1);
	/* a collision takes the next free slot; the others are still found */
	CHECK_EQ_U64(stacktab_insert_slot(0x4444), 5);
	CHECK_EQ_U64(stacktab_insert_slot(0x5555), 6);
	CHECK_EQ_U64(stacktab_find_slot(0x4444), 5);
	CHECK_EQ_U64(stacktab_find_slot(0x1234), 4);
	CHECK_EQ_U64(stacktab_find_slot(0x3334), -ENOENT); /* probes 4, 5, 6, stops at empty 7 */

	/* the duty of writing a slot's record: once, until given back */
	CHECK_EQ_U64(stacktab_claim_slot((uint32_t)s), 1);
	CHECK_EQ_U64(stacktab_claim_slot((uint32_t)s), 0);
	CHECK_EQ_U64(stacktab_claim_slot((uint32_t)t), 1);
	stacktab_unclaim_slot((uint32_t)s);
	CHECK_EQ_U64(stacktab_claim_slot((uint32_t)s), 1);
}

static void test_full(void)
{
	/* 16 slots: 16 distinct ids fill it, the 17th has no room */
	int added = 0;
	for (uint64_t id = 1; id <= 16; id++)
		added += stacktab_insert(id * 0x10001) == 1;
	CHECK_EQ_U64(added, 16);
	CHECK_EQ_U64(stacktab_insert(0x777777), -ENOSPC);
	CHECK_EQ_U64(stacktab_insert_slot(0x777777), -ENOSPC);
	CHECK_EQ_U64(stacktab_contains(0x777777), 0);
	for (uint64_t id = 1; id <= 16; id++) {
		CHECK_EQ_U64(stacktab_find_slot(id * 0x10001), id % 16); /* its home slot */
		CHECK_EQ_U64(stacktab_insert(id * 0x10001), 0);
	}
}

static void test_reset(void)
{
	uint64_t e = stacktab_epoch();
	stacktab_reset();
	CHECK_EQ_U64(stacktab_epoch(), e + 1);
	for (uint64_t id = 1; id <= 16; id++)
		CHECK_EQ_U64(stacktab_contains(id * 0x10001), 0);
	CHECK_EQ_U64(stacktab_insert(0x10001), 1);
	long s = stacktab_find_slot(0x10001);
	CHECK(s >= 0);
	CHECK_EQ_U64(stacktab_claim_slot((uint32_t)s), 1); /* the old claims are gone too */
}

#define NTHREADS 4
#define PER_THREAD 3000

static uint64_t id_of(uint64_t i)
{
	return i * 0x9e3779b97f4a7c15ull | 1;
}

static void *inserter(void *arg)
{
	uintptr_t k = (uintptr_t)arg;
	/* each thread inserts ids 1..2*PER_THREAD starting at a different point */
	for (uint64_t i = 0; i < 2 * PER_THREAD; i++)
		if (stacktab_insert_slot(id_of(1 + (i + k * 997) % (2 * PER_THREAD))) < 0)
			return (void *)1;
	return NULL;
}

static void test_threads(void)
{
	stacktab_reset();
	pthread_t t[NTHREADS];
	for (uintptr_t k = 0; k < NTHREADS; k++)
		CHECK(pthread_create(&t[k], NULL, inserter, (void *)k) == 0);
	for (int k = 0; k < NTHREADS; k++) {
		void *r;
		pthread_join(t[k], &r);
		CHECK(r == NULL);
	}
	static uint8_t used[1 << 16];
	int found = 0, shared = 0;
	for (uint64_t i = 1; i <= 2 * PER_THREAD; i++) {
		long s = stacktab_find_slot(id_of(i));
		if (s < 0)
			continue;
		found++;
		shared += used[s]++ != 0;
	}
	CHECK_EQ_U64(found, 2 * PER_THREAD);
	CHECK_EQ_U64(shared, 0);
}

int main(void)
{
	CHECK_EQ_U64(stacktab_init(4), 0);
	test_basic();
	stacktab_reset();
	test_full();
	test_reset();
	/* a table large enough that the probe bound is never met below half full */
	CHECK_EQ_U64(stacktab_init(16), 0);
	test_threads();
	return check_done();
}
