/*
 * unwind.c - frame-pointer walker (x86-64).  A frame is [fp] = caller's fp,
 * [fp + 8] = return address; frame pointers must be 8-aligned, strictly
 * increasing and inside [max(sp, stack_lo), stack_hi).  Reads below the
 * interrupted sp are refused: the main thread's stack range is its rlimit and
 * only the part above sp is known to be mapped.
 */
#include "collector/unwind.h"

#include "experiment/format.h"

uint32_t unwind_from_context(const ucontext_t *uc, const struct unwind_thread *t, uint64_t *pcs, uint32_t max,
			     uint32_t *ret_flags)
{
	*ret_flags = EXP_STACK_TRUNCATED | EXP_STACK_FAILED;
	if (max == 0)
		return 0;
#if defined(__x86_64__)
	uint64_t pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	uint64_t sp = (uint64_t)uc->uc_mcontext.gregs[REG_RSP];
	uint64_t fp = (uint64_t)uc->uc_mcontext.gregs[REG_RBP];
#else
#error "unwind.c: only x86-64 is supported"
#endif
	uint32_t n = 0;
	pcs[n++] = pc;
	uint64_t lo = sp > t->stack_lo ? sp : t->stack_lo, hi = t->stack_hi;
	for (;;) {
		if (fp == 0 || (t->outer_fp && fp == t->outer_fp)) {
			*ret_flags = 0;
			return n;
		}
		if (n >= max || (fp & 7) || fp < lo || fp > hi || hi - fp < 16)
			break;
		const uint64_t *f = (const uint64_t *)(uintptr_t)fp;
		uint64_t next = f[0], ret = f[1];
		if (ret == 0)
			break;
		pcs[n++] = ret;
		if (next != 0 && next <= fp)
			break;
		fp = next;
	}
	*ret_flags = n > 1 ? EXP_STACK_TRUNCATED : EXP_STACK_TRUNCATED | EXP_STACK_FAILED;
	return n;
}
