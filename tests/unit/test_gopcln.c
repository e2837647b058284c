/*
 * test_gopcln.c - unwind rows from Go's pclntab (collector/gopcln.c and the
 * block index of collector/cfi.c, linked from libcollector-core.a).  A
 * synthetic table in both layouts (Go 1.18-1.19 and 1.20+) with the cases
 * the builder distinguishes: frameless and framed functions, a stack top
 * (goexit), a stack switcher (systemstack), a top frame that is a signal
 * handler (sigtramp), asyncPreempt, a function
 * without pcsp, one whose pcsp ends early, one with an absurd SP delta.
 * Then every truncation and random mutations under ASan (the table stays
 * consistent), headers it must refuse, code outside the object, allocator
 * failures.  The rows of real Go binaries are checked against readelf's
 * reading of their .debug_frame by tests/e2e/unwind_go.sh.
 */
#include "collector/cfi.h"
#include "collector/gopcln.h"

#include <errno.h>
#include <stdlib.h>

#include "tests/unit/check.h"

/* ------------------------------------------------------------ allocator */

struct talloc {
	void *p[8];
	int n, fail_at, calls;
};

static void *t_alloc(void *ctx, size_t bytes)
{
	struct talloc *t = ctx;
	if (t->calls++ == t->fail_at || t->n == 8)
		return NULL;
	void *p = calloc(1, bytes ? bytes : 1);
	if (p)
		t->p[t->n++] = p;
	return p;
}

static void t_free(struct talloc *t)
{
	for (int i = 0; i < t->n; i++)
		free(t->p[i]);
	t->n = 0;
	t->calls = 0;
}

/* ------------------------------------------------------------ a synthetic pclntab */

#define TEXT 0x401000ull

struct fn {
	const char *name;
	uint32_t size;       /* bytes of code */
	uint8_t flag;        /* TOPFRAME 1, SPWRITE 2 */
	const int32_t *runs; /* pcsp: (value, length) pairs, ending with length 0; NULL: no pcsp */
	int truncate_pcsp;   /* drop the table's last pair (it ends early) */
};

struct img {
	uint8_t b[4096];
	size_t n;
};

static void put(struct img *m, size_t at, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		m->b[at + (size_t)i] = (uint8_t)(v >> (8 * i));
}

static void uvarint(struct img *m, uint32_t v)
{
	while (v >= 0x80) {
		m->b[m->n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	m->b[m->n++] = (uint8_t)v;
}

/* The pcsp program of runs, at the image's end; returns its offset in pctab (pctab starts at base). */
static uint32_t pcsp(struct img *m, size_t base, const int32_t *runs, int truncate)
{
	uint32_t off = (uint32_t)(m->n - base);
	int32_t val = -1;
	int k = 0;
	while (runs[2 * k + 1])
		k++;
	if (truncate)
		k--;
	for (int i = 0; i < k; i++) {
		int32_t d = runs[2 * i] - val;
		uvarint(m, ((uint32_t)d << 1) ^ (uint32_t)(d >> 31)); /* zigzag */
		uvarint(m, (uint32_t)runs[2 * i + 1]);
		val = runs[2 * i];
	}
	m->b[m->n++] = 0;
	return off;
}

static const int32_t r_leaf[] = {0, 16, 0, 0};
static const int32_t r_frame[] = {0, 4, 24, 26, 0, 2, 24, 8, 0, 0};
static const int32_t r_async[] = {0, 1, 8, 4, 384, 20, 8, 2, 0, 3, 0, 0};
static const int32_t r_sigtramp[] = {0, 4, 48, 20, 0, 8, 0, 0};
static const int32_t r_short[] = {0, 4, 40, 8, 0, 0};
static const int32_t r_absurd[] = {0, 4, 0x7ff00000, 8, 0, 4, 0, 0};

static const struct fn fns[] = {
	{"main.leaf", 16, 0, r_leaf, 0},
	{"main.frame", 40, 0, r_frame, 0},
	{"runtime.goexit", 8, 1, r_leaf, 0},
	{"runtime.systemstack", 32, 2, r_leaf, 0},
	{"runtime.asyncPreempt", 30, 0, r_async, 0},
	{"runtime.sigtramp", 32, 1, r_sigtramp, 0},
	{"main.nopcsp", 8, 0, NULL, 0},
	{"main.short", 24, 0, r_short, 1},
	{"main.absurd", 16, 0, r_absurd, 0},
	{"runtime.rt0_go", 16, 3, r_leaf, 0},
};
#define NFN (sizeof fns / sizeof fns[0])

/* Build the image: header, names, pctab, functab + _funcs. go120: the 1.20 layout. */
static void build_img(struct img *m, int go120)
{
	memset(m, 0, sizeof *m);
	m->n = 72;
	size_t names = m->n;
	uint32_t nameoff[NFN];
	for (size_t i = 0; i < NFN; i++) {
		nameoff[i] = (uint32_t)(m->n - names);
		size_t k = strlen(fns[i].name) + 1;
		memcpy(m->b + m->n, fns[i].name, k);
		m->n += k;
	}
	size_t pctab = m->n;
	m->b[m->n++] = 0; /* offset 0 means "no table" */
	uint32_t sp[NFN];
	for (size_t i = 0; i < NFN; i++)
		sp[i] = fns[i].runs ? pcsp(m, pctab, fns[i].runs, fns[i].truncate_pcsp) : 0;
	m->n = (m->n + 7) & ~(size_t)7;
	size_t ftab = m->n, fsize = go120 ? 48 : 44;
	size_t funcs = ftab + 8 * NFN + 4;
	funcs = (funcs + 3) & ~(size_t)3;
	uint32_t entry = 0;
	for (size_t i = 0; i < NFN; i++) {
		size_t f = funcs + i * fsize;
		put(m, ftab + 8 * i, entry, 4);
		put(m, ftab + 8 * i + 4, f - ftab, 4);
		put(m, f, entry, 4);
		put(m, f + 4, nameoff[i], 4);
		put(m, f + 16, sp[i], 4);
		m->b[f + (go120 ? 41 : 37)] = fns[i].flag;
		entry += fns[i].size;
	}
	put(m, ftab + 8 * NFN, entry, 4);
	m->n = funcs + NFN * fsize;
	put(m, 0, go120 ? 0xfffffff1u : 0xfffffff0u, 4);
	m->b[6] = 1;
	m->b[7] = 8;
	put(m, 8, NFN, 8);
	put(m, 24, TEXT, 8);
	put(m, 32, names, 8);
	put(m, 56, pctab, 8);
	put(m, 64, ftab, 8);
}

static uint64_t entry_of(size_t i)
{
	uint64_t e = TEXT;
	for (size_t k = 0; k < i; k++)
		e += fns[k].size;
	return e;
}

/* The rule at function i + off. */
static const struct cfi_rule *at(const struct cfi_table *t, size_t i, uint64_t off)
{
	return cfi_lookup(t, entry_of(i) + off);
}

static int is_sp(const struct cfi_rule *r, uint8_t kind, int32_t cfa)
{
	return r && r->kind == kind && r->cfa_off == cfa && r->fp_off == CFI_FP_SAME &&
	       r->bx_slot == CFI_BX_SAME;
}

static void check_rows(const struct cfi_table *t)
{
	CHECK_EQ_U64(t->lo, TEXT);
	CHECK_EQ_U64(t->hi, entry_of(NFN));
	CHECK(cfi_lookup(t, TEXT - 1) == NULL);
	CHECK(cfi_lookup(t, entry_of(NFN)) == NULL);
	/* main.leaf: CFA = rsp + 8 everywhere */
	CHECK(is_sp(at(t, 0, 0), CFI_CFA_SP, 8));
	CHECK(is_sp(at(t, 0, 15), CFI_CFA_SP, 8));
	/* main.frame: 0 for 4 bytes, 24 for 26, 0 for 2, 24 for 8 */
	CHECK(is_sp(at(t, 1, 3), CFI_CFA_SP, 8));
	CHECK(is_sp(at(t, 1, 4), CFI_CFA_SP, 32));
	CHECK(is_sp(at(t, 1, 29), CFI_CFA_SP, 32));
	CHECK(is_sp(at(t, 1, 30), CFI_CFA_SP, 8));
	CHECK(is_sp(at(t, 1, 32), CFI_CFA_SP, 32));
	CHECK(is_sp(at(t, 1, 39), CFI_CFA_SP, 32));
	/* stack top, stack switcher */
	CHECK(at(t, 2, 0) && at(t, 2, 0)->kind == CFI_OUTERMOST && at(t, 2, 7)->kind == CFI_OUTERMOST);
	CHECK(at(t, 3, 0) && at(t, 3, 0)->kind == CFI_STOP && at(t, 3, 31)->kind == CFI_STOP);
	/* asyncPreempt: its caller's PC is exact */
	CHECK(is_sp(at(t, 4, 0), CFI_CFA_SP_INJECTED, 8));
	CHECK(is_sp(at(t, 4, 1), CFI_CFA_SP_INJECTED, 16));
	CHECK(is_sp(at(t, 4, 5), CFI_CFA_SP_INJECTED, 392));
	CHECK(is_sp(at(t, 4, 27), CFI_CFA_SP_INJECTED, 8));
	/* sigtramp is TOPFRAME but walked through: its caller is the signal frame */
	CHECK(is_sp(at(t, 5, 4), CFI_CFA_SP, 56));
	CHECK(is_sp(at(t, 5, 24), CFI_CFA_SP, 8));
	/* no pcsp; pcsp ending early (padding after the function's code); an absurd delta */
	CHECK(at(t, 6, 0) && at(t, 6, 0)->kind == CFI_STOP);
	CHECK(is_sp(at(t, 7, 0), CFI_CFA_SP, 8));
	CHECK(at(t, 7, 4) && at(t, 7, 4)->kind == CFI_STOP && at(t, 7, 23)->kind == CFI_STOP);
	CHECK(is_sp(at(t, 8, 3), CFI_CFA_SP, 8));
	CHECK(at(t, 8, 4) && at(t, 8, 4)->kind == CFI_STOP);
	CHECK(is_sp(at(t, 8, 12), CFI_CFA_SP, 8));
	/* TOPFRAME and SPWRITE (rt0_go): the stack ends there */
	CHECK(at(t, 9, 0) && at(t, 9, 0)->kind == CFI_OUTERMOST);
}

static void test_layouts(void)
{
	for (int go120 = 0; go120 <= 1; go120++) {
		struct img m;
		build_img(&m, go120);
		struct talloc ta = {.fail_at = -1};
		struct cfi_alloc a = {t_alloc, &ta};
		struct cfi_table t;
		struct gopcln_info gi;
		CHECK(gopcln_build(m.b, m.n, TEXT, TEXT + 4096, &a, &t, &gi) == 0);
		CHECK_EQ_U64(gi.version, go120 ? 120 : 118);
		CHECK_EQ_U64(gi.nfunc, NFN);
		CHECK_EQ_U64(gi.top, 2);
		CHECK_EQ_U64(gi.spwrite, 1);
		CHECK_EQ_U64(gi.bad, 2); /* no pcsp, an absurd delta (main.short's table just ends early) */
		CHECK_EQ_U64(t.nfde, NFN);
		CHECK_EQ_U64(ta.calls, 2);
		check_rows(&t);
		t_free(&ta);
	}
}

/* Rows rise inside [lo, hi), start at 0, each found at its first and last byte. */
static int consistent(const struct cfi_table *t)
{
	if (t->nrows == 0)
		return 1;
	if (t->hi <= t->lo || t->pc_off[0] != 0)
		return 0;
	for (uint32_t i = 0; i < t->nrows; i++) {
		if ((i && t->pc_off[i] <= t->pc_off[i - 1]) || t->lo + t->pc_off[i] >= t->hi)
			return 0;
		uint64_t end = i + 1 < t->nrows ? t->lo + t->pc_off[i + 1] : t->hi;
		if (cfi_lookup(t, t->lo + t->pc_off[i]) != &t->rule[i] ||
		    cfi_lookup(t, end - 1) != &t->rule[i])
			return 0;
		if (t->rule[i].kind > CFI_CFA_SP_INJECTED)
			return 0;
	}
	return 1;
}

/* Run on an exactly sized heap copy of b[0..n), so that ASan sees any read past it. */
static int build_copy(const uint8_t *b, size_t n, uint64_t lo, uint64_t hi, struct talloc *ta,
		      struct cfi_table *t)
{
	uint8_t *copy = malloc(n ? n : 1);
	memcpy(copy, b, n);
	struct cfi_alloc a = {t_alloc, ta};
	int r = gopcln_build(copy, n, lo, hi, &a, t, NULL);
	free(copy);
	return r;
}

static void test_truncated(void)
{
	struct img m;
	build_img(&m, 0);
	int bad = 0;
	for (size_t n = 0; n < m.n; n++) {
		struct talloc ta = {.fail_at = -1};
		struct cfi_table t;
		int r = build_copy(m.b, n, TEXT, TEXT + 4096, &ta, &t);
		bad += !(r == -ENOTSUP || r == -EBADMSG || r == 0) || !consistent(&t);
		t_free(&ta);
	}
	CHECK(bad == 0);
}

static void test_mutated(void)
{
	struct img m;
	build_img(&m, 1);
	uint64_t s = 0x9e3779b97f4a7c15ull;
	int bad = 0;
	for (int k = 0; k < 20000; k++) {
		struct img x = m;
		for (int j = 0; j < 1 + k % 4; j++) {
			s ^= s << 13;
			s ^= s >> 7;
			s ^= s << 17;
			x.b[s % x.n] ^= (uint8_t)(s >> 32);
		}
		struct talloc ta = {.fail_at = -1};
		struct cfi_table t;
		int r = build_copy(x.b, x.n, TEXT, TEXT + 4096, &ta, &t);
		bad += !(r == -ENOTSUP || r == -EBADMSG || r == 0) || !consistent(&t);
		t_free(&ta);
	}
	CHECK(bad == 0);
}

static void test_refused(void)
{
	struct img m;
	build_img(&m, 0);
	struct talloc ta = {.fail_at = -1};
	struct cfi_alloc a = {t_alloc, &ta};
	struct cfi_table t;
	struct gopcln_info gi;
	struct img x = m;
	put(&x, 0, 0xfffffffau, 4); /* Go 1.16's layout */
	CHECK(gopcln_build(x.b, x.n, TEXT, TEXT + 4096, &a, &t, &gi) == -ENOTSUP && t.nrows == 0 &&
	      gi.version == 0);
	x = m;
	x.b[7] = 4; /* 4-byte pointers */
	CHECK(gopcln_build(x.b, x.n, TEXT, TEXT + 4096, &a, &t, NULL) == -ENOTSUP && t.nrows == 0);
	x = m;
	x.b[6] = 4; /* PC quantum 4 (arm64) */
	CHECK(gopcln_build(x.b, x.n, TEXT, TEXT + 4096, &a, &t, NULL) == -ENOTSUP && t.nrows == 0);
	x = m;
	put(&x, 8, 1u << 30, 8); /* more functions than the table holds */
	CHECK(gopcln_build(x.b, x.n, TEXT, TEXT + 4096, &a, &t, NULL) == -EBADMSG && t.nrows == 0);
	/* code beyond the object's: the functions before it are kept */
	CHECK(gopcln_build(m.b, m.n, TEXT, entry_of(3) + 4, &a, &t, &gi) == -EBADMSG);
	CHECK_EQ_U64(gi.nfunc, 3);
	CHECK_EQ_U64(t.hi, entry_of(3));
	CHECK(is_sp(cfi_lookup(&t, entry_of(1) + 4), CFI_CFA_SP, 32));
	CHECK(cfi_lookup(&t, entry_of(3)) == NULL);
	/* below it: nothing */
	CHECK(gopcln_build(m.b, m.n, TEXT + 1, TEXT + 4096, &a, &t, NULL) == -EBADMSG && t.nrows == 0);
	/* a text start whose entries wrap around the address space */
	x = m;
	put(&x, 24, UINT64_MAX - 20, 8);
	CHECK(gopcln_build(x.b, x.n, 0, UINT64_MAX, &a, &t, &gi) == -EBADMSG && gi.nfunc == 1 && t.nrows > 0);
	CHECK(t.hi == UINT64_MAX - 20 + 16); /* main.leaf fits, main.frame would wrap */
	/* entries that do not rise */
	x = m;
	size_t ftab = (size_t)(x.b[64] | x.b[65] << 8);
	put(&x, ftab + 8 * 2, 10, 4); /* function 2 starts before function 1 */
	CHECK(gopcln_build(x.b, x.n, TEXT, TEXT + 4096, &a, &t, &gi) == -EBADMSG && gi.nfunc == 1);
	t_free(&ta);
}

static void test_alloc_failure(void)
{
	struct img m;
	build_img(&m, 0);
	for (int fail = 0; fail < 2; fail++) {
		struct talloc ta = {.fail_at = fail};
		struct cfi_alloc a = {t_alloc, &ta};
		struct cfi_table t;
		struct gopcln_info gi;
		CHECK(gopcln_build(m.b, m.n, TEXT, TEXT + 4096, &a, &t, &gi) == -ENOMEM);
		CHECK(t.nrows == 0 && gi.nfunc == 0);
		t_free(&ta);
	}
}

int main(void)
{
	test_layouts();
	test_truncated();
	test_mutated();
	test_refused();
	test_alloc_failure();
	return check_done();
}
