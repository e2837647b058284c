/*
 * fuzz_cfi - the collector's unwind-table builder (collector/cfi.c, linked
 * from libcollector-core.a like tests/unit/test_cfi.c): CIE and FDE headers, augmentations,
 * and the CFA programs it interprets.  The first byte picks the entry point:
 *   even: cfi_build_debug_frame over the rest (a .debug_frame image);
 *   odd:  cfi_build_eh_frame_hdr, the rest being the memory from
 *         .eh_frame_hdr to the end of .eh_frame (what a loaded object maps),
 *         bounded by exactly that range.
 * Each from an exactly sized copy, so ASan sees any read past the end.
 * Checked, whatever the return value: the table's rows start at 0 and rise
 * strictly inside [lo, hi); every
 * rule has a known kind; cfi_lookup (through the block index) finds each
 * row's rule at its first and last byte inside [lo, hi) and
 * nothing outside.  A violation calls abort().
 */
#include "collector/cfi.h"

#include <errno.h>
#include <stdlib.h>

#include "tests/fuzz/fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void *fz_alloc(void *ctx, size_t bytes)
{
	void **keep = ctx; /* one table: at most two blocks, freed after the input */
	for (int i = 0; i < 2; i++)
		if (!keep[i])
			return keep[i] = calloc(1, bytes ? bytes : 1);
	return NULL;
}

static void check_table(const struct cfi_table *t)
{
	if (t->nrows == 0)
		return;
	if (t->hi <= t->lo || t->pc_off[0] != 0)
		abort();
	for (uint32_t i = 0; i < t->nrows; i++) {
		if (i && t->pc_off[i] <= t->pc_off[i - 1])
			abort();
		if (t->lo + t->pc_off[i] >= t->hi || t->rule[i].kind > CFI_CFA_BX)
			abort();
		uint64_t pc = t->lo + t->pc_off[i];
		if (cfi_lookup(t, pc) != &t->rule[i])
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
	memset(&t, 0, sizeof t);
	int rc;
	if (mode & 1) {
		uint64_t lo = (uint64_t)(uintptr_t)copy;
		/* the header: at most its fixed part plus a table the input holds */
		rc = cfi_build_eh_frame_hdr(copy, n, lo, lo + n, &a, &t);
	} else {
		rc = cfi_build_debug_frame(copy, n, 0x400000, &a, &t);
	}
	if (rc != 0 && rc != -EBADMSG && rc != -ENOTSUP && rc != -ENOMEM)
		abort();
	if (rc != -ENOMEM)
		check_table(&t);
	free(keep[0]);
	free(keep[1]);
	free(copy);
	return 0;
}
