/*
 * check.h - the unit-test harness: CHECK* macros count failures and print
 * "not ok" lines with file:line; a test file's main ends with
 * `return check_done();`, which prints a one-line summary and returns the exit
 * status tests/run.sh reads (0 = pass).
 */
#ifndef TESTS_UNIT_CHECK_H
#define TESTS_UNIT_CHECK_H

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int check_failures, check_count;

#define CHECK(cond)                                                                       \
	do {                                                                              \
		check_count++;                                                            \
		if (!(cond)) {                                                            \
			check_failures++;                                                 \
			fprintf(stderr, "not ok %s:%d: %s\n", __FILE__, __LINE__, #cond); \
		}                                                                         \
	} while (0)

#define CHECK_EQ_U64(a, b)                                                                                 \
	do {                                                                                               \
		uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);                                           \
		check_count++;                                                                             \
		if (a_ != b_) {                                                                            \
			check_failures++;                                                                  \
			fprintf(stderr, "not ok %s:%d: %s == %s (%" PRIu64 " != %" PRIu64 ")\n", __FILE__, \
				__LINE__, #a, #b, a_, b_);                                                 \
		}                                                                                          \
	} while (0)

#define CHECK_EQ_STR(a, b)                                                                                 \
	do {                                                                                               \
		const char *a_ = (a), *b_ = (b);                                                           \
		check_count++;                                                                             \
		if (!a_ || !b_ || strcmp(a_, b_) != 0) {                                                   \
			check_failures++;                                                                  \
			fprintf(stderr, "not ok %s:%d: %s == %s (\"%s\" != \"%s\")\n", __FILE__, __LINE__, \
				#a, #b, a_ ? a_ : "(null)", b_ ? b_ : "(null)");                           \
		}                                                                                          \
	} while (0)

#define CHECK_NEAR(a, b, eps)                                                                             \
	do {                                                                                              \
		double a_ = (a), b_ = (b);                                                                \
		check_count++;                                                                            \
		if (fabs(a_ - b_) > (eps)) {                                                              \
			check_failures++;                                                                 \
			fprintf(stderr, "not ok %s:%d: %s ~ %s (%g vs %g)\n", __FILE__, __LINE__, #a, #b, \
				a_, b_);                                                                  \
		}                                                                                         \
	} while (0)

/* A deterministic pseudo-random sequence (xorshift64) over *state, which must not be 0. */
static inline uint64_t check_rand(uint64_t *state)
{
	uint64_t x = *state;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *state = x;
}

static inline int check_done(void)
{
	printf("%d checks, %d failed\n", check_count, check_failures);
	return check_failures || check_count == 0 ? 1 : 0;
}

#endif
