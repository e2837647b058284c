/*
 * gopcln.h - unwind rows for Go code from the Go runtime's own function
 * table (the pclntab, what the runtime's tracebacks read), for the
 * collector's unwinder (unwind.c).
 *
 * Go code has no .eh_frame (only the cgo part of a binary has), and its
 * .debug_frame is compressed by default and absent from binaries linked
 * with -s or -w.  The pclntab is always there, mapped and uncompressed, and
 * says more: the SP delta at every PC of every function (pcsp, from which
 * the linker makes .debug_frame), which functions start a stack (TOPFRAME:
 * goexit, mstart, rt0_go) and which switch stacks (SPWRITE: systemstack,
 * mcall, morestack, asmcgocall, the vDSO callers...).
 *
 * Formats: Go 1.18-1.19 (magic 0xfffffff0) and Go 1.20 and later
 * (0xfffffff1, whose _func has one more word), little-endian, 8-byte
 * pointers, PC quantum 1 (x86-64).  Older formats are not handled (Go code
 * then unwinds by frame pointers).
 *
 * Building runs outside signal context, reads the table in place (the
 * caller passes the mapped image) with every read bounds-checked, and
 * allocates only through the caller's struct cfi_alloc.  Lookups are
 * cfi_lookup on the table it makes (SIGNAL_SAFE).
 */
#ifndef COLLECTOR_GOPCLN_H
#define COLLECTOR_GOPCLN_H

#include <stddef.h>
#include <stdint.h>

#include "collector/cfi.h"

struct gopcln_info {
	unsigned version;      /* 118 (Go 1.18-1.19) or 120 (1.20 and later); 0 if not recognised */
	uint32_t nfunc;        /* functions with rows */
	uint32_t top, spwrite; /* of them: stack tops (CFI_OUTERMOST), stack switchers (CFI_STOP) */
	uint32_t bad; /* functions without pcsp, or whose pcsp could not be read or is absurd (CFI_STOP) */
};

/*
 * Build *ret from the pclntab image [tab, tab + bytes) of a module whose
 * code lies at run time in [code_lo, code_hi): the header's textStart is
 * the run-time address of the functions' entry offsets (the caller passes
 * the relocated, mapped table).  One row per pcsp run: CFI_CFA_SP with
 * cfa_off = delta + 8 (CFI_CFA_SP_INJECTED in runtime.asyncPreempt, whose
 * caller's PC is the interrupted one); CFI_OUTERMOST over TOPFRAME functions
 * but the signal handler runtime.sigtramp (its caller is the kernel's
 * signal frame, which the walk goes through); CFI_STOP over SPWRITE
 * functions, where a pcsp table is missing, cannot be read or is absurd, and
 * over the padding between a function's last instruction and the next one.
 * %rbp and %rbx are "same" in every row: Go's tables do not say where a
 * frame saved %rbp, and the walk leaves Go code only at those stops, at a
 * top frame or through a signal frame, which restores every register.
 * [lo, hi) is [first function's entry, last one's end).
 * Returns 0; -ENOTSUP for a format not handled (*ret empty) or a cap
 * reached (2^24 rows, 1 GiB of code: the functions before it are kept);
 * -EBADMSG for malformed data (offsets out of bounds, entries not rising or
 * outside [code_lo, code_hi): the functions before the first bad one are
 * kept); -ENOMEM if a->alloc failed (*ret empty).  The allocator is called
 * twice (rows and rules, block index).  *ret_info may be NULL.
 */
int gopcln_build(const uint8_t *tab, size_t bytes, uint64_t code_lo, uint64_t code_hi,
		 const struct cfi_alloc *a, struct cfi_table *ret, struct gopcln_info *ret_info);

#endif
