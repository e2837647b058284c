/*
 * fuzz_gopcln - the collector's reader of Go's pclntab (collector/gopcln.c,
 * with the block index of collector/cfi.c, linked from
 * libcollector-core.a like tests/unit/test_gopcln.c): the header, the function table, _func
 * entries in both layouts, names and pcsp programs.  The first byte picks
 * the code range the functions must lie in: even, any (the 1 GiB cap
 * applies); odd, [0x401000, 0x411000).  The rest is the table, in an exactly
 * sized copy, so ASan sees any read past the end.  Checked, whatever the
 * return value: the rows start at 0 and rise strictly inside [lo, hi), inside
 * the code range; every rule has a known kind; cfi_lookup finds each row's
 * rule at its first and last byte and nothing outside.  A violation calls
 * abort().
 */
#include "collector/cfi.h"
#include "collector/gopcln.h"

#include <errno.h>
#include <stdlib.h>

#include "tests/fuzz/fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void *fz_alloc(void *ctx, size_t bytes)
{
	void **keep = ctx; /* one table: two blocks, freed after the input */
	for (int i = 0; i < 2; i++)
		if (!keep[i])
			return keep[i] = calloc(1, bytes ? bytes : 1);
	return NULL;
}

static void check_table(const struct cfi_table *t, uint64_t code_lo, uint64_t code_hi)
{
	if (t->nrows == 0)
		return;
	if (t->hi <= t->lo || t->pc_off[0] != 0 || t->lo < code_lo || t->hi > code_hi)
		abort();
	for (uint32_t i = 0; i < t->nrows; i++) {
		if (i && t->pc_off[i] <= t->pc_off[i - 1])
			abort();
		if (t->lo + t->pc_off[i] >= t->hi || t->rule[i].kind > CFI_CFA_SP_INJECTED)
			abort();
		if (cfi_lookup(t, t->lo + t->pc_off[i]) != &t->rule[i])
			abort();
		uint64_t end = i + 1 < t->nrows ? t->lo + t->pc_off[i + 1] : t->hi;
		if (cfi_lookup(t, end - 1) != &t->rule[i])
			abort();
	}
	if (cfi_lookup(t, t->hi) != NULL || (t->lo > 0 && cfi_lookup(t, t->lo - 1) != NULL))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t mode;
	size_t n;
	uint8_t *copy = fuzz_input(data, size, &mode, &n);
	if (!copy)
		return 0;
	void *keep[2] = {NULL, NULL};
	struct cfi_alloc a = {fz_alloc, keep};
	struct cfi_table t;
	struct gopcln_info gi;
	uint64_t lo = mode & 1 ? 0x401000 : 0, hi = mode & 1 ? 0x411000 : UINT64_MAX;
	int rc = gopcln_build(copy, n, lo, hi, &a, &t, &gi);
	if (rc != 0 && rc != -EBADMSG && rc != -ENOTSUP && rc != -ENOMEM)
		abort();
	if (rc == -ENOMEM && t.nrows != 0)
		abort();
	if (rc != -ENOMEM && (gi.nfunc != t.nfde || gi.top + gi.spwrite + gi.bad > gi.nfunc))
		abort();
	check_table(&t, lo, hi);
	free(keep[0]);
	free(keep[1]);
	free(copy);
	return 0;
}
