/*
 * The manual's Figure 2-1 and its recursion rules, from synthetic stacks.
 *
 *   main() { A(); 2 units; B(); }      A() { C(10); }
 *   B() { C(7.5); 5 units; C(7.5); }   C(arg): 20% in C, 40% in E, 40% in F
 *   F spends part of its time in G.
 * Expected: main incl 32 = 2 + A 10 + B 20; C incl 25 = excl 5 + E 10 + F 10;
 * C's callers A 10 and B 15.
 */
#include "analysis/metrics.h"

#include "tests/unit/check.h"

enum { TOTAL, MAIN, A, B, C, E, F, G, NFUNC };

static void add(struct metrics *m, uint64_t v, int n, ...)
{
	uint32_t f[16];
	__builtin_va_list ap;
	__builtin_va_start(ap, n);
	for (int i = 0; i < n; i++)
		f[i] = (uint32_t) __builtin_va_arg(ap, int);
	__builtin_va_end(ap);
	uint64_t vals[1] = {v};
	CHECK(metrics_add_stack(m, f, (size_t)n, vals) == 0);
}

static uint64_t edge(const struct metrics *m, uint32_t f, uint32_t g, int callees)
{
	const struct metrics_edge *e;
	size_t n = callees ? metrics_callees(m, f, &e) : metrics_callers(m, f, &e);
	for (size_t i = 0; i < n; i++)
		if (e[i].func == g)
			return e[i].values[0];
	return 0;
}

static uint64_t sum_edges(const struct metrics *m, uint32_t f, int callees)
{
	const struct metrics_edge *e;
	size_t n = callees ? metrics_callees(m, f, &e) : metrics_callers(m, f, &e);
	uint64_t s = 0;
	for (size_t i = 0; i < n; i++)
		s += e[i].values[0];
	return s;
}

static void test_figure_2_1(void)
{
	/* units x 10 to stay integral: C(10) = 2 in C, 4 in E, 4 in F (F: 2 self, 2 in G) */
	struct metrics *m = metrics_new(1, TOTAL, METRICS_ALL);
	CHECK(m != NULL);
	add(m, 20, 1, MAIN);             /* main's own 2 units */
	add(m, 20, 3, C, A, MAIN);       /* A -> C(10): 2 in C */
	add(m, 40, 4, E, C, A, MAIN);    /*   4 in E */
	add(m, 20, 4, F, C, A, MAIN);    /*   F self 2 */
	add(m, 20, 5, G, F, C, A, MAIN); /*   F -> G 2 */
	add(m, 50, 2, B, MAIN);          /* B's own 5 units */
	add(m, 30, 3, C, B, MAIN);       /* B -> C(7.5) twice: 1.5+1.5 in C */
	add(m, 60, 4, E, C, B, MAIN);    /*   3 in E */
	add(m, 30, 4, F, C, B, MAIN);    /*   F self 3 */
	add(m, 30, 5, G, F, C, B, MAIN); /*   F -> G 3 */

	CHECK_EQ_U64(metrics_total(m)[0], 320);
	CHECK_EQ_U64(metrics_inclusive(m, MAIN)[0], 320);
	CHECK_EQ_U64(metrics_exclusive(m, MAIN)[0], 20);
	CHECK_EQ_U64(edge(m, MAIN, A, 1), 100);
	CHECK_EQ_U64(edge(m, MAIN, B, 1), 200);
	CHECK_EQ_U64(metrics_exclusive(m, A)[0], 0);
	CHECK_EQ_U64(metrics_inclusive(m, C)[0], 250);
	CHECK_EQ_U64(metrics_exclusive(m, C)[0], 50);
	CHECK_EQ_U64(edge(m, C, E, 1), 100);
	CHECK_EQ_U64(edge(m, C, F, 1), 100);
	CHECK_EQ_U64(edge(m, C, A, 0), 100);
	CHECK_EQ_U64(edge(m, C, B, 0), 150);
	CHECK_EQ_U64(metrics_inclusive(m, E)[0], metrics_exclusive(m, E)[0]);
	CHECK(metrics_inclusive(m, F)[0] != metrics_exclusive(m, F)[0]);
	/* identities for every function */
	for (uint32_t f = MAIN; f < NFUNC; f++) {
		CHECK_EQ_U64(metrics_inclusive(m, f)[0], metrics_exclusive(m, f)[0] + sum_edges(m, f, 1));
		CHECK_EQ_U64(sum_edges(m, f, 0), metrics_inclusive(m, f)[0]);
	}
	/* <Total> is main's caller and the call tree's root */
	CHECK_EQ_U64(edge(m, MAIN, TOTAL, 0), 320);
	CHECK_EQ_U64(metrics_tree_node(m, 0)->values[0], 320);
	metrics_free(m);
}

/* main -> init -> R -> R -> R(leaf): all work in the final call. */
static void test_recursion(void)
{
	enum { INIT = 1, R = 2, M = 3 };
	struct metrics *m = metrics_new(1, 0, METRICS_ALL);
	add(m, 100, 5, R, R, R, INIT, M);
	CHECK_EQ_U64(metrics_inclusive(m, R)[0], 100); /* once, not three times */
	CHECK_EQ_U64(metrics_exclusive(m, R)[0], 100);
	CHECK_EQ_U64(edge(m, R, R, 0), 100);    /* attributed to itself ... */
	CHECK_EQ_U64(edge(m, R, INIT, 0), 0);   /* ... not to the initiating function */
	CHECK_EQ_U64(edge(m, INIT, R, 1), 100); /* init's callee R gets its share */
	CHECK_EQ_U64(metrics_inclusive(m, INIT)[0], 100);
	/* indirect recursion A -> B -> A(leaf) */
	struct metrics *m2 = metrics_new(1, 0, METRICS_ALL);
	add(m2, 7, 4, 1, 2, 1, 3);
	CHECK_EQ_U64(metrics_inclusive(m2, 1)[0], 7);
	CHECK_EQ_U64(metrics_inclusive(m2, 2)[0], 7);
	CHECK_EQ_U64(edge(m2, 1, 2, 0), 7); /* innermost A's caller is B */
	CHECK_EQ_U64(edge(m2, 2, 1, 1), 7);
	for (uint32_t f = 1; f <= 3; f++)
		CHECK_EQ_U64(sum_edges(m2, f, 0), metrics_inclusive(m2, f)[0]);
	/* call tree keeps each path: 4 nodes + root */
	CHECK_EQ_U64(metrics_tree_size(m2), 5);
	metrics_free(m);
	metrics_free(m2);
}

static void test_vectors_and_bounds(void)
{
	struct metrics *none = metrics_new(0, 0, METRICS_ALL); /* no metrics: stacks still make the tree */
	uint32_t g[1] = {3};
	CHECK(none && metrics_add_stack(none, g, 1, NULL) == 0);
	CHECK(metrics_seen(none, 3) && metrics_tree_size(none) == 2);
	metrics_free(none);
	struct metrics *m = metrics_new(2, 0, METRICS_ALL);
	uint32_t f[2] = {5, 6};
	uint64_t v[2] = {3, 4};
	CHECK(metrics_add_stack(m, f, 2, v) == 0);
	CHECK(metrics_add_stack(m, f, 0, v) == 0); /* empty stack: charged to the root */
	CHECK_EQ_U64(metrics_total(m)[1], 8);
	CHECK_EQ_U64(metrics_exclusive(m, 5)[1], 4);
	CHECK_EQ_U64(metrics_exclusive(m, 0)[1], 4);
	CHECK_EQ_U64(metrics_inclusive(m, 1000)[0], 0); /* unseen: zeros */
	CHECK(!metrics_seen(m, 1000));
	metrics_free(m);
}

/* A flat engine: the same exclusive and inclusive figures, no edges, the root alone as tree. */
static void test_flat(void)
{
	struct metrics *all = metrics_new(1, 0, METRICS_ALL), *flat = metrics_new(1, 0, METRICS_FLAT),
		       *edges = metrics_new(1, 0, METRICS_EDGES);
	CHECK(all && flat && edges);
	struct metrics *ms[3] = {all, flat, edges};
	for (size_t k = 0; k < 3; k++) {
		add(ms[k], 7, 4, 1, 2, 1, 3);
		add(ms[k], 5, 3, 4, 2, 3);
		add(ms[k], 2, 0);
	}
	for (uint32_t f = 0; f <= 4; f++) {
		CHECK_EQ_U64(metrics_exclusive(flat, f)[0], metrics_exclusive(all, f)[0]);
		CHECK_EQ_U64(metrics_inclusive(flat, f)[0], metrics_inclusive(all, f)[0]);
		CHECK_EQ_U64(metrics_seen(flat, f), metrics_seen(all, f));
		CHECK_EQ_U64(sum_edges(flat, f, 0) + sum_edges(flat, f, 1), 0);
		CHECK_EQ_U64(sum_edges(edges, f, 0), sum_edges(all, f, 0));
		CHECK_EQ_U64(sum_edges(edges, f, 1), sum_edges(all, f, 1));
	}
	CHECK_EQ_U64(metrics_total(flat)[0], 14);
	CHECK_EQ_U64(metrics_tree_size(flat), 1);
	CHECK_EQ_U64(metrics_tree_node(flat, 0)->values[0], 14);
	CHECK_EQ_U64(metrics_tree_size(edges), 1);
	CHECK(metrics_tree_size(all) > 1);
	metrics_free(all);
	metrics_free(flat);
	metrics_free(edges);
}

/* A ratio element: cycles (0) / insts (1) as IPC (2) and CPI (3), x 1000, everywhere. */
static void test_ratio(void)
{
	struct metrics *m = metrics_new(4, TOTAL, METRICS_ALL);
	CHECK(m != NULL);
	uint32_t s1[] = {C, A, MAIN}, s2[] = {E, C, B, MAIN}, s3[] = {G, MAIN};
	uint64_t v1[] = {1000, 3000, 0, 0}, v2[] = {4000, 1000, 0, 0}, v3[] = {500, 0, 0, 0};
	CHECK(metrics_add_stack(m, s1, 3, v1) == 0);
	CHECK(metrics_add_stack(m, s2, 4, v2) == 0);
	CHECK(metrics_add_stack(m, s3, 2, v3) == 0);
	metrics_ratio(m, 2, 1, 0); /* IPC = insts / cycles */
	metrics_ratio(m, 3, 0, 1); /* CPI = cycles / insts */
	metrics_ratio(m, 9, 0, 1); /* out of range: ignored */
	const uint64_t *t = metrics_total(m);
	CHECK_EQ_U64(t[0], 5500);
	CHECK_EQ_U64(t[1], 4000);
	CHECK_EQ_U64(t[2], 727);  /* 4000 x 1000 / 5500 */
	CHECK_EQ_U64(t[3], 1375); /* 5500 x 1000 / 4000 */
	CHECK_EQ_U64(metrics_exclusive(m, C)[2], 3000);
	CHECK_EQ_U64(metrics_exclusive(m, C)[3], 333);
	CHECK_EQ_U64(metrics_inclusive(m, C)[2], 800); /* 4000 / 5000 */
	CHECK_EQ_U64(metrics_inclusive(m, C)[3], 1250);
	CHECK_EQ_U64(metrics_exclusive(m, G)[2], 0); /* no instructions */
	CHECK_EQ_U64(metrics_exclusive(m, G)[3], 0); /* denominator 0 */
	CHECK_EQ_U64(metrics_exclusive(m, MAIN)[2], 0);
	/* attributed edges: C's callers A (1000, 3000) and B (4000, 1000) */
	const struct metrics_edge *e;
	size_t n = metrics_callers(m, C, &e);
	CHECK_EQ_U64(n, 2);
	for (size_t i = 0; i < n; i++)
		CHECK_EQ_U64(e[i].values[2], e[i].func == A ? 3000 : 250);
	n = metrics_callees(m, MAIN, &e);
	for (size_t i = 0; i < n; i++)
		if (e[i].func == G)
			CHECK_EQ_U64(e[i].values[3], 0);
	/* tree nodes: the root is the total, main below it too */
	CHECK_EQ_U64(metrics_tree_node(m, 0)->values[2], 727);
	const struct metrics_node *mn = metrics_tree_node(m, metrics_tree_node(m, 0)->first_child);
	CHECK_EQ_U64(mn->func, MAIN);
	CHECK_EQ_U64(mn->values[3], 1375);
	metrics_free(m);
}

int main(void)
{
	test_ratio();
	test_figure_2_1();
	test_flat();
	test_recursion();
	test_vectors_and_bounds();
	return check_done();
}
