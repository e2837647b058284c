/*
 * test_filter - the filter expression language (analysis/filter.h): every
 * operator, C precedence, IN lists with ranges, time suffixes, the CPU rule
 * for events without a CPU, every parse error with its column, and a timing
 * print of 1M evaluations (not asserted).
 */
#include "analysis/filter.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/check.h"
#include "tests/unit/fixture.h"

/* The event every expression below is evaluated on. */
static const uint64_t ev[FILTER_NPROPS] = {
	[FILTER_THRID] = 2,  [FILTER_LWPID] = 4321,        [FILTER_CPU] = 3,
	[FILTER_SAMPLE] = 5, [FILTER_TSTAMP] = 1500000000, [FILTER_EXPID] = 1,
};

/* 1 or 0 for a valid expression, -1 when it does not compile. */
static int eval_on(const char *text, const uint64_t *v)
{
	struct filter *f;
	char *err;
	int r = filter_compile(text, &f, &err);
	if (r < 0) {
		fprintf(stderr, "'%s': %s\n", text, err ? err : "(no message)");
		free(err);
		return -1;
	}
	CHECK_EQ_STR(filter_text(f), text);
	r = filter_eval(f, v);
	filter_free(f);
	return r;
}

static int eval(const char *text)
{
	return eval_on(text, ev);
}

/* The message of an expression that must not compile. */
static void expect_error(const char *text, const char *msg)
{
	struct filter *f = NULL;
	char *err = NULL;
	CHECK_EQ_U64(filter_compile(text, &f, &err), (uint64_t)-EINVAL);
	CHECK(f == NULL);
	CHECK_EQ_STR(err, msg);
	free(err);
}

static void test_operators(void)
{
	CHECK_EQ_U64(eval("1"), 1);
	CHECK_EQ_U64(eval("0"), 0);
	CHECK_EQ_U64(eval("THRID==2"), 1);
	CHECK_EQ_U64(eval("THRID == 3"), 0);
	CHECK_EQ_U64(eval("THRID!=3"), 1);
	CHECK_EQ_U64(eval("THRID!=2"), 0);
	CHECK_EQ_U64(eval("CPU<3"), 0);
	CHECK_EQ_U64(eval("CPU<4"), 1);
	CHECK_EQ_U64(eval("CPU<=3"), 1);
	CHECK_EQ_U64(eval("CPU<=2"), 0);
	CHECK_EQ_U64(eval("CPU>3"), 0);
	CHECK_EQ_U64(eval("CPU>2"), 1);
	CHECK_EQ_U64(eval("CPU>=3"), 1);
	CHECK_EQ_U64(eval("CPU>=4"), 0);
	CHECK_EQ_U64(eval("THRID==2 && CPU==3"), 1);
	CHECK_EQ_U64(eval("THRID==2 && CPU==4"), 0);
	CHECK_EQ_U64(eval("THRID==1 || CPU==3"), 1);
	CHECK_EQ_U64(eval("THRID==1 || CPU==4"), 0);
	CHECK_EQ_U64(eval("!(THRID==1)"), 1);
	CHECK_EQ_U64(eval("!(THRID==2)"), 0);
	CHECK_EQ_U64(eval("!0"), 1);
	CHECK_EQ_U64(eval("!!7"), 1);
	/* every property, names in any case, CPUID = CPU */
	CHECK_EQ_U64(eval("LWPID==4321 && SAMPLE==5 && TSTAMP==1500000000 && EXPID==1"), 1);
	CHECK_EQ_U64(eval("thrid==2 && CpuId==3"), 1);
	/* literals: hex, suffixes scale to ns */
	CHECK_EQ_U64(eval("LWPID==0x10e1"), 1);
	CHECK_EQ_U64(eval("TSTAMP==1500ms"), 1);
	CHECK_EQ_U64(eval("TSTAMP==1500000us && TSTAMP==1500000000ns"), 1);
	CHECK_EQ_U64(eval("TSTAMP>1s && TSTAMP<2s"), 1);
	/* a decimal fraction with a unit, to the ns */
	CHECK_EQ_U64(eval("TSTAMP==1.5s && TSTAMP==1500.0ms && TSTAMP==1500000.000us"), 1);
	CHECK_EQ_U64(eval("TSTAMP>1.4999999999s && TSTAMP<1.50000001s"), 1);
	CHECK_EQ_U64(eval("18446744073709551615 > 0"), 1);
}

static void test_in_lists(void)
{
	CHECK_EQ_U64(eval("THRID IN (1,2,3)"), 1);
	CHECK_EQ_U64(eval("THRID in (1, 3)"), 0);
	CHECK_EQ_U64(eval("SAMPLE IN (1:4)"), 0);
	CHECK_EQ_U64(eval("SAMPLE IN (1:4, 5:9)"), 1);
	CHECK_EQ_U64(eval("SAMPLE IN (5:5)"), 1);
	CHECK_EQ_U64(eval("TSTAMP IN (1s:2s)"), 1);
	CHECK_EQ_U64(eval("!(THRID IN (2)) || CPU IN (0,3)"), 1);
	CHECK_EQ_U64(eval("(THRID IN (2)) == 1"), 1);
}

static void test_precedence(void)
{
	/* && binds tighter than || */
	CHECK_EQ_U64(eval("1 || 0 && 0"), 1);
	CHECK_EQ_U64(eval("(1 || 0) && 0"), 0);
	CHECK_EQ_U64(eval("0 && 0 || 1"), 1);
	/* comparisons tighter than &&; relational tighter than equality (as in C) */
	CHECK_EQ_U64(eval("THRID==2 && CPU==3 || 0"), 1);
	CHECK_EQ_U64(eval("1 == 2 < 3"), 1);  /* 1 == (2 < 3) */
	CHECK_EQ_U64(eval("3 > 2 == 1"), 1);  /* (3 > 2) == 1 */
	CHECK_EQ_U64(eval("0 == 0 == 1"), 1); /* left to right: (0 == 0) == 1 */
	/* ! binds tightest, as in C: !THRID==0 is (!THRID)==0 */
	CHECK_EQ_U64(eval("!THRID==0"), 1);
	CHECK_EQ_U64(eval("!THRID==2"), 0);
	CHECK_EQ_U64(eval("((((THRID))))==((2))"), 1);
}

static void test_no_cpu(void)
{
	uint64_t v[FILTER_NPROPS];
	memcpy(v, ev, sizeof v);
	v[FILTER_CPU] = FILTER_NO_CPU;
	CHECK_EQ_U64(eval_on("CPU==3", v), 0);
	CHECK_EQ_U64(eval_on("!(CPU==3)", v), 0);
	CHECK_EQ_U64(eval_on("CPU==3 || THRID==2", v), 0);
	CHECK_EQ_U64(eval_on("THRID==2", v), 1);
	struct filter *f;
	char *err;
	CHECK(filter_compile("THRID==1 && CPUID>0", &f, &err) == 0);
	CHECK_EQ_U64(filter_props(f), (1u << FILTER_THRID) | (1u << FILTER_CPU));
	filter_free(f);
}

static void test_errors(void)
{
	expect_error("",
		     "column 1: expected a number, a property, '(' or '!', found the end of the expression");
	expect_error("THRID==",
		     "column 8: expected a number, a property, '(' or '!', found the end of the expression");
	expect_error("THREAD==1",
		     "column 1: unknown property 'THREAD' (known: THRID, LWPID, CPU, SAMPLE, TSTAMP, EXPID)");
	expect_error("THRID=1", "column 6: '=' is not an operator (use == to compare)");
	expect_error("THRID==1 & CPU==2", "column 10: '&' and '|' are not operators (use && or ||)");
	expect_error("THRID==1 | CPU==2", "column 10: '&' and '|' are not operators (use && or ||)");
	expect_error("(THRID==1", "column 10: expected ')', found the end of the expression");
	expect_error("THRID==1)", "column 9: expected an operator or the end of the expression, found ')'");
	expect_error("THRID 1", "column 7: expected an operator or the end of the expression, found '1'");
	expect_error("THRID IN 1", "column 10: expected '(' after IN, found '1'");
	expect_error("THRID IN ()", "column 11: expected a number in the IN list, found ')'");
	expect_error("THRID IN (1,)", "column 13: expected a number in the IN list, found ')'");
	expect_error("THRID IN (1 2)", "column 13: expected ',' or ')' in the IN list, found '2)'");
	expect_error("THRID IN (3:1)", "column 13: range end below its start");
	expect_error("THRID IN (3:)", "column 13: expected the end of the range lo:hi, found ')'");
	expect_error("TSTAMP < 3 hours",
		     "column 12: expected an operator or the end of the expression, found 'hours'");
	expect_error("TSTAMP < 3h", "column 11: unknown suffix after a number (expected ns, us, ms or s)");
	expect_error("THRID == 0x", "column 10: expected hex digits after 0x");
	expect_error("TSTAMP < 1.5",
		     "column 10: a number with a fraction needs a time unit (ns, us, ms or s)");
	expect_error("1 == 18446744073709551616", "column 6: number too large");
	expect_error("TSTAMP < 18446744073709551s", "column 10: number too large");
	expect_error("THRID == -1", "column 10: expected a number, a property, '(' or '!', found '-1'");
	/* nesting is bounded, so is the stack */
	char deep[256];
	memset(deep, '(', 100);
	strcpy(deep + 100, "1");
	CHECK(strlen(deep) == 101);
	struct filter *f;
	char *err = NULL;
	CHECK_EQ_U64(filter_compile(deep, &f, &err), (uint64_t)-EINVAL);
	CHECK(err && strstr(err, "nested too deeply"));
	free(err);
	char wide[1024] = "";
	for (int i = 0; i < 70; i++) /* 1==(1==(1==(... right-nested: 70 values on the stack */
		strcat(wide, "1==(");
	strcat(wide, "1");
	for (int i = 0; i < 70; i++)
		strcat(wide, ")");
	err = NULL;
	CHECK(filter_compile(wide, &f, &err) == -EINVAL);
	CHECK(err != NULL);
	free(err);
}

/* 1M evaluations of a typical filter: a figure, not an assertion. */
static void time_million(void)
{
	struct filter *f;
	char *err;
	CHECK(filter_compile("THRID IN (1,3:5) && CPU != 2 && TSTAMP >= 100ms || EXPID == 9", &f, &err) == 0);
	uint64_t v[FILTER_NPROPS] = {0};
	uint64_t pass = 0;
	double t0 = now_s();
	for (uint64_t i = 0; i < 1000000; i++) {
		v[FILTER_THRID] = i % 7;
		v[FILTER_CPU] = i % 4;
		v[FILTER_TSTAMP] = i * 1000;
		pass += (uint64_t)filter_eval(f, v);
	}
	double dt = now_s() - t0;
	/* threads 1,3,4,5 of 7, CPUs 0,1,3 of 4, from event 100000 on */
	uint64_t want = 0;
	for (uint64_t i = 100000; i < 1000000; i++) {
		uint64_t t = i % 7;
		want += (t == 1 || (t >= 3 && t <= 5)) && i % 4 != 2;
	}
	CHECK_EQ_U64(pass, want);
	printf("# 1M filter evaluations: %.3f s\n", dt);
	filter_free(f);
}

int main(void)
{
	test_operators();
	test_in_lists();
	test_precedence();
	test_no_cpu();
	test_errors();
	time_million();
	CHECK_EQ_STR(filter_property_name(FILTER_TSTAMP), "TSTAMP");
	CHECK(filter_property_help(FILTER_CPU) != NULL);
	return check_done();
}
