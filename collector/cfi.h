/*
 * cfi.h - compact unwind tables built from an object's DWARF call-frame
 * information (.eh_frame via .eh_frame_hdr, or .debug_frame), for the
 * collector's signal-handler unwinder (shared/DESIGN.md decision 2,
 * shared/reference/unwinding-research.md section 7).  x86-64.
 *
 * Building (cfi_build_*) runs outside signal context: it parses untrusted
 * bytes with every read bounds-checked, executes CIE/FDE programs tracking
 * only the CFA (register + offset, or the PLT expression), the rules of %rbp,
 * %rbx and of the return address, and emits one row per PC range.  It allocates
 * only through the caller's struct cfi_alloc (the collector uses mmap'd
 * arenas; it never calls malloc, which it may interpose).
 *
 * Looking up (cfi_lookup) is SIGNAL_SAFE: no allocation, no locks, reads only
 * the table, O(log n) via a per-256-byte block index.
 */
#ifndef COLLECTOR_CFI_H
#define COLLECTOR_CFI_H

#include <stddef.h>
#include <stdint.h>

enum cfi_kind {
	CFI_NO_INFO = 0,   /* no usable CFI here: the unwinder falls back to frame pointers */
	CFI_CFA_SP = 1,    /* CFA = rsp + cfa_off; return address at CFA - 8 */
	CFI_CFA_FP = 2,    /* CFA = rbp + cfa_off; return address at CFA - 8 */
	CFI_PLT = 3,       /* PLT stub: CFA = rsp + 8 + ((rip & 15) >= plt_threshold ? 8 : 0) */
	CFI_SIGNAL = 4,    /* signal trampoline (CIE augmentation 'S', e.g. __restore_rt):
	                  * the interrupted context is the ucontext at rsp + 40 (x86-64) */
	CFI_OUTERMOST = 5, /* return address undefined (e.g. _start, clone's child): the stack ends here */
	CFI_CFA_BX = 6,    /* CFA = rbx + cfa_off (ld.so's lazy-binding trampolines, which realign rsp) */
	/*
	 * The walk cannot go past this frame: it moves rsp in a way no row
	 * says (Go's stack-switching functions, flagged SPWRITE: systemstack,
	 * mcall, morestack, asmcgocall, ...).  The stack is truncated here.
	 */
	CFI_STOP = 7,
	/*
	 * CFA = rsp + cfa_off like CFI_CFA_SP, but the return address is an
	 * interrupted PC, not a call's: the caller's rule is looked up at it,
	 * not at it - 1 (Go's asyncPreempt, which the runtime's signal handler
	 * makes the preempted code call).
	 */
	CFI_CFA_SP_INJECTED = 8,
};

#define CFI_FP_SAME INT16_MIN   /* %rbp is unchanged in this frame (not saved) */
#define CFI_BX_SAME 0           /* %rbx is unchanged in this frame (not saved) */
#define CFI_BX_UNKNOWN INT8_MIN /* %rbx is saved in a way we do not model: unknown in the caller */

struct cfi_rule {
	uint8_t kind; /* enum cfi_kind */
	union {
		uint8_t plt_threshold; /* CFI_PLT: 10 or 11, from the expression */
		/* CFI_CFA_*: the caller's %rbx is saved at CFA + 8 * bx_slot (< 0),
		 * or CFI_BX_SAME, or CFI_BX_UNKNOWN */
		int8_t bx_slot;
	};
	int16_t fp_off; /* caller's %rbp saved at CFA + fp_off, or CFI_FP_SAME */
	int32_t cfa_off;
};

struct cfi_alloc {
	/* Return `bytes` of zeroed memory aligned to 16, or NULL. Never freed one by one. */
	void *(*alloc)(void *ctx, size_t bytes);
	void *ctx;
};

struct cfi_table {
	uint64_t lo, hi; /* run-time PC range the rows cover: [lo, hi) */
	uint32_t nrows;
	const uint32_t *pc_off; /* row i covers [lo + pc_off[i], lo + pc_off[i+1]) (the last: to hi) */
	const struct cfi_rule *rule;
	const uint32_t *blk; /* blk[b] = first row whose range overlaps [lo + 256 b, lo + 256 (b+1)) */
	uint32_t nblk;
	/* statistics, for the log and the benchmarks */
	uint32_t nfde;        /* FDEs read */
	uint32_t unsupported; /* rows made CFI_NO_INFO because of rules we do not model */
	uint32_t skipped;     /* FDEs left out: unsupported CIE/encoding, or overlapping an earlier one */
	size_t bytes;         /* memory taken from the allocator */
};

/*
 * Build from a loaded object's .eh_frame_hdr (PT_GNU_EH_FRAME).  `hdr` is the
 * section's run-time address (bias + p_vaddr) and `hdr_bytes` its size (p_memsz);
 * the .eh_frame it points to is read in place (it is mapped: it lies in a
 * PT_LOAD of the same object), bounded by [`obj_lo`, `obj_hi`), the object's
 * mapped run-time range (every byte of it must be readable: pass the PT_LOAD
 * holding .eh_frame_hdr/.eh_frame, or a span whose holes are readable).  The
 * binary-search table is used when it is datarel|sdata4 and sorted, else
 * .eh_frame is walked linearly to its zero terminator (or obj_hi).
 * [lo, hi) is [lowest FDE start, highest FDE end); gaps between FDEs get
 * CFI_NO_INFO rows; an FDE overlapping an earlier one, or whose CIE uses an
 * augmentation/encoding we do not handle ("eh", textrel, ...), is left out
 * (`skipped`).  Caps: 2^24 rows, 1 GiB of code per table.
 * Returns 0; -EBADMSG for malformed data (header version, a CIE/FDE running
 * past the bounds, a CIE pointer out of bounds); -ENOTSUP for a header
 * encoding we do not handle or a cap reached; -ENOMEM if a->alloc failed.
 * After -EBADMSG/-ENOTSUP the table is still consistent and usable: it holds
 * the FDEs that could be read (possibly none); after -ENOMEM it is empty.
 * The allocator is called at most twice (FDE list for a linear walk, then
 * one block for rows, rules and block index); `bytes` is their sum.
 */
int cfi_build_eh_frame_hdr(const uint8_t *hdr, size_t hdr_bytes, uint64_t obj_lo, uint64_t obj_hi,
			   const struct cfi_alloc *a, struct cfi_table *ret);

/*
 * Build from a .debug_frame section image (e.g. read from a separate debug
 * file) for an object whose ELF virtual addresses map to run time as
 * vaddr + bias.  CIE id 0xffffffff (64-bit DWARF: all ones), CIE pointers
 * are section offsets, CIE versions 1, 3, 4 (address size 8 or 4), absolute
 * addresses (pcrel cannot be resolved in a copy: such FDEs are skipped).
 * Same rows and errors as above; the image is only read during the call.
 */
int cfi_build_debug_frame(const uint8_t *debug_frame, size_t bytes, uint64_t bias, const struct cfi_alloc *a,
			  struct cfi_table *ret);

/*
 * For builders of other sources (gopcln.c): with lo, hi, nrows >= 1, pc_off
 * (rising, pc_off[0] == 0, all < hi - lo <= 1 GiB) and rule set, allocate
 * and fill the block index (nblk, blk) and add its size to `bytes`.
 * 0 or -ENOMEM (the table is then left without rows).
 */
int cfi_table_index(struct cfi_table *t, const struct cfi_alloc *a);

/* The rule for run-time address pc, or NULL if pc is outside [lo, hi). SIGNAL_SAFE. */
const struct cfi_rule *cfi_lookup(const struct cfi_table *t, uint64_t pc);

#endif
