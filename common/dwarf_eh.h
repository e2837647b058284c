/*
 * dwarf_eh.h - the low-level encodings of .eh_frame, .eh_frame_hdr and
 * .debug_frame: fixed-size and LEB128 values, DW_EH_PE pointer encodings,
 * and CIE headers with their augmentation ("zR", "zPLR", "eh", ...).
 *
 * Shared by the collector's unwind tables (collector/cfi.c, bytes read in
 * place at their run-time address) and analysis's FDE ranges
 * (analysis/symtab.c, bytes of a file seen at their link-time address).
 * Everything here is pure: no allocation, no I/O, no printing; every
 * function is SIGNAL_SAFE and never reads outside [r->p, r->end).
 */
#ifndef COMMON_DWARF_EH_H
#define COMMON_DWARF_EH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* EH_PE_*: the value format (low nibble) ... */
#define EH_PE_absptr 0x00
#define EH_PE_uleb128 0x01
#define EH_PE_udata2 0x02
#define EH_PE_udata4 0x03
#define EH_PE_udata8 0x04
#define EH_PE_sleb128 0x09
#define EH_PE_sdata2 0x0a
#define EH_PE_sdata4 0x0b
#define EH_PE_sdata8 0x0c
/* ... what it is relative to (bits 4-6) ... */
#define EH_PE_pcrel 0x10
#define EH_PE_textrel 0x20
#define EH_PE_datarel 0x30
#define EH_PE_funcrel 0x40
#define EH_PE_aligned 0x50
/* ... whether it is the address of the value, and "no value". */
#define EH_PE_indirect 0x80
#define EH_PE_omit 0xff

/*
 * A bounded reader.  The address of *p (for EH_PE_pcrel) is
 * (uintptr_t)p + addr_bias, so bytes of a file can be read as if they were
 * at their virtual address.  `err` is sticky: once a read failed every
 * further read returns 0 and leaves p alone.
 */
struct eh_reader {
	const uint8_t *p, *end;
	uint64_t addr_bias;
	unsigned addr_size; /* 4 or 8: the size of EH_PE_absptr; 4 truncates pointers to 32 bits */
	bool big;           /* multi-byte fields are big-endian */
	int err;            /* 0, or -EBADMSG once a read ran past end */
};

/* A reader over [p, end) whose first byte is at address `addr`. */
void eh_reader_init(struct eh_reader *r, const uint8_t *p, const uint8_t *end, uint64_t addr,
		    unsigned addr_size, bool big);

/* The address of the next byte (r->p). */
uint64_t eh_reader_addr(const struct eh_reader *r);

/* An n-byte (n <= 8) unsigned value in the reader's byte order; 0 and r->err = -EBADMSG if it does not fit. */
uint64_t eh_read_fixed(struct eh_reader *r, unsigned n);

/* Unsigned LEB128 of at most 10 bytes that fits in 64 bits; else 0 and r->err = -EBADMSG. */
uint64_t eh_read_uleb(struct eh_reader *r);

/* Signed LEB128 of at most 10 bytes (bits past 64 are dropped); else 0 and r->err = -EBADMSG. */
int64_t eh_read_sleb(struct eh_reader *r);

/* Step over n bytes; r->err = -EBADMSG (and p unchanged) if fewer are left. */
void eh_skip(struct eh_reader *r, uint64_t n);

/* Which bases an encoded pointer may be relative to. */
#define EH_BASE_PC 1u   /* EH_PE_pcrel: the address of the value itself (eh_reader_addr) */
#define EH_BASE_TEXT 2u /* EH_PE_textrel: bases.text */
#define EH_BASE_DATA 4u /* EH_PE_datarel: bases.data */
#define EH_BASE_FUNC 8u /* EH_PE_funcrel: bases.func */

struct eh_bases {
	unsigned valid; /* EH_BASE_* */
	uint64_t text, data, func;
};

/*
 * Read one DW_EH_PE-encoded pointer with encoding enc and apply its base.
 * `bases` may be NULL (no relative encoding allowed: pass enc & 0x0f to read
 * just the value, e.g. an FDE's pc_range or a personality pointer to skip).
 * The result is truncated to 32 bits when r->addr_size is 4.
 * Returns 0 with *ret set, or: -EBADMSG the value runs past r->end
 * (r->err set); -ENOTSUP enc is EH_PE_omit or has an unknown value
 * format (nothing read), or a base that is not in
 * bases->valid, EH_PE_aligned, or EH_PE_indirect (the value was read,
 * so r->p is past it, but the pointer cannot be resolved here).
 */
int eh_read_pointer(struct eh_reader *r, uint8_t enc, const struct eh_bases *bases, uint64_t *ret);

/* A parsed CIE header. */
struct eh_cie {
	uint8_t version;   /* 1, 3 or 4 */
	uint8_t addr_size; /* the reader's, or the CIE's own (version 4) */
	uint64_t code_align;
	int64_t data_align;
	uint64_t ra_reg;
	uint8_t fde_enc;         /* 'R', else EH_PE_absptr */
	uint8_t lsda_enc;        /* 'L', else EH_PE_omit */
	uint8_t personality_enc; /* 'P', else EH_PE_omit */
	bool has_z;              /* 'z': FDEs carry an augmentation data length */
	bool has_fde_enc;        /* 'R' was seen */
	bool eh_data;            /* the old GCC "eh" augmentation (a pointer, skipped) */
	bool signal;             /* 'S': a signal frame */
	bool aug_unknown;        /* after 'z', a letter we do not know: what follows it is not parsed */
	const uint8_t *insn, *insn_end; /* the initial instructions */
};

/*
 * Parse a CIE from the reader, positioned just after the CIE id field, with
 * r->end at the end of the CIE (the caller reads the length and id, whose
 * layout differs between .eh_frame and .debug_frame).  Understood
 * augmentation letters: "eh" first, then 'z' followed by any of L, P, R, S,
 * B (AArch64 BTI), G (memory tagging); without 'z', only S, B and G.  After
 * 'z' an unknown letter sets aug_unknown and stops the augmentation (the 'z'
 * length still finds the instructions).
 * Returns 0 with *ret filled; -EBADMSG a field runs past the end (or the
 * augmentation data length does); -ENOTSUP a version other than 1, 3, 4, a
 * version 4 address size other than 4 or 8 or a segment selector, an unknown
 * letter without 'z', or a personality encoding with an unknown format.
 * *ret is undefined after an error.
 */
int eh_cie_parse(struct eh_reader *r, struct eh_cie *ret);

#endif
