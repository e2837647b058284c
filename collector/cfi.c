/*
 * cfi.c - compact unwind rows from .eh_frame (via .eh_frame_hdr) or
 * .debug_frame (see cfi.h).  Building lists the FDEs (the sorted
 * .eh_frame_hdr table, or a linear walk then a heap sort), then runs every
 * FDE program twice: once to count the merged rows, once to fill the arrays
 * taken from the caller's allocator in one piece.  Every read goes through a
 * cursor bounded by the object (or the .debug_frame buffer).  cfi_lookup is
 * SIGNAL_SAFE: it reads the table only and calls nothing.
 */
#include "collector/cfi.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "common/dwarf_eh.h"

#define CFI_MAX_ROWS (1u << 24)    /* rows per table */
#define CFI_MAX_RANGE (1ull << 30) /* bytes of code per table (block index <= 16 MiB) */
#define CFI_MAX_FDES (1u << 24)
#define CFI_STACK_DEPTH 16 /* DW_CFA_remember_state nesting */

#define REG_RBX 3
#define REG_RBP 6
#define REG_RSP 7
#define REG_RA 16

/* ------------------------------------------------------------ CIE / FDE */

/* The collector reads CFI in place: addresses are the bytes' own, little-endian. */
static void reader_init(struct eh_reader *r, const uint8_t *p, const uint8_t *end, unsigned addr_size)
{
	eh_reader_init(r, p, end, (uint64_t)(uintptr_t)p, addr_size, false);
}

struct fde {
	uint64_t start, end; /* run-time PC range */
	const uint8_t *insn, *insn_end;
	const struct eh_cie *cie;
};

struct ctx {
	const uint8_t *lo, *hi; /* readable bytes */
	bool debug_frame;       /* .debug_frame: absolute CIE offsets from `lo`, CIE id all ones */
	uint64_t bias;          /* .debug_frame: added to addresses */
	const uint8_t *cie_at;  /* the last CIE parsed (a one-entry cache) ... */
	struct eh_cie cie;      /* ... and what it says */
	bool cie_ok;
};

/*
 * Parse one entry header at p: the length (32- or 64-bit DWARF) and the
 * CIE id / pointer.  Returns 0 with *ret_end = one past the entry, 1 for the
 * zero terminator, -EBADMSG.
 */
static int entry_head(const struct ctx *c, const uint8_t *p, const uint8_t **ret_end, uint64_t *ret_id,
		      unsigned *ret_offsz, const uint8_t **ret_idp)
{
	if ((uintptr_t)p < (uintptr_t)c->lo || (uintptr_t)p > (uintptr_t)c->hi)
		return -EBADMSG;
	struct eh_reader r;
	reader_init(&r, p, c->hi, 8);
	uint64_t len = eh_read_fixed(&r, 4);
	unsigned offsz = 4;
	if (r.err)
		return -EBADMSG;
	if (len == 0)
		return 1;
	if (len == 0xffffffff) {
		len = eh_read_fixed(&r, 8);
		offsz = 8;
	}
	if (r.err || len < offsz || len > (uint64_t)(c->hi - r.p))
		return -EBADMSG;
	*ret_end = r.p + len;
	*ret_idp = r.p;
	*ret_id = eh_read_fixed(&r, offsz);
	*ret_offsz = offsz;
	return r.err;
}

static bool is_cie_id(const struct ctx *c, uint64_t id, unsigned offsz)
{
	if (!c->debug_frame)
		return id == 0;
	return offsz == 4 ? id == 0xffffffffu : id == ~0ull;
}

/* Parse the CIE at p into c->cie.  0, -EBADMSG or -ENOTSUP (augmentation we cannot read). */
static int cie_parse(struct ctx *c, const uint8_t *p)
{
	if (c->cie_ok && c->cie_at == p)
		return 0;
	c->cie_ok = false;
	const uint8_t *end, *idp;
	uint64_t id;
	unsigned offsz;
	if (entry_head(c, p, &end, &id, &offsz, &idp) || !is_cie_id(c, id, offsz))
		return -EBADMSG;
	struct eh_reader r;
	reader_init(&r, idp + offsz, end, 8);
	struct eh_cie *e = &c->cie;
	int err = eh_cie_parse(&r, e);
	if (err)
		return err;
	if (e->eh_data || e->aug_unknown || e->code_align == 0 || e->code_align > 0xffff ||
	    e->data_align == 0 || e->data_align > 0xffff || e->data_align < -0xffff)
		return -ENOTSUP;
	c->cie_at = p;
	c->cie_ok = true;
	return 0;
}

/*
 * Parse the FDE at p.  Returns 0, 1 (a CIE or the terminator: not an FDE),
 * -EBADMSG, -ENOTSUP (its CIE or encoding is not handled).  *ret_next is
 * set whenever the entry's length was readable.
 */
static int fde_parse(struct ctx *c, const uint8_t *p, struct fde *ret, const uint8_t **ret_next)
{
	const uint8_t *end, *idp;
	uint64_t id;
	unsigned offsz;
	int err = entry_head(c, p, &end, &id, &offsz, &idp);
	if (err)
		return err;
	*ret_next = end;
	if (is_cie_id(c, id, offsz))
		return 1;
	const uint8_t *cp;
	if (c->debug_frame) {
		if (id >= (uint64_t)(c->hi - c->lo))
			return -EBADMSG;
		cp = c->lo + id;
	} else {
		if (id > (uint64_t)(idp - c->lo))
			return -EBADMSG;
		cp = idp - id;
	}
	err = cie_parse(c, cp);
	if (err)
		return err;
	const struct eh_cie *e = &c->cie;
	struct eh_reader r;
	reader_init(&r, idp + offsz, end, e->addr_size);
	struct eh_bases b = {.valid = c->debug_frame ? 0 : EH_BASE_PC};
	uint64_t start, range;
	err = eh_read_pointer(&r, e->fde_enc, &b, &start);
	if (err)
		return err;
	err = eh_read_pointer(&r, e->fde_enc & 0x0f, NULL, &range);
	if (err)
		return err;
	if (e->has_z) {
		uint64_t n = eh_read_uleb(&r);
		eh_skip(&r, n);
	}
	if (r.err)
		return -EBADMSG;
	if (c->debug_frame)
		start += c->bias;
	if (range > CFI_MAX_RANGE || start + range < start)
		return -EBADMSG;
	ret->start = start;
	ret->end = start + range;
	ret->insn = r.p;
	ret->insn_end = end;
	ret->cie = e;
	return 0;
}

/* ------------------------------------------------------------ CFA programs */

enum { R_UNSET, R_UNDEF, R_SAME, R_OFF, R_UNSUP };
enum { C_NONE, C_REG, C_PLT, C_UNSUP };

struct reg_rule {
	uint8_t how;
	int64_t off;
};

struct state {
	uint8_t cfa_how, cfa_reg, plt;
	int64_t cfa_off;
	struct reg_rule fp, bx, ra;
};

/* %rbx's rule as a row stores it: a slot of 8 bytes below the CFA, same, or unknown. */
static int8_t bx_slot(const struct reg_rule *bx)
{
	if (bx->how == R_UNSET || bx->how == R_SAME)
		return CFI_BX_SAME;
	if (bx->how == R_OFF && bx->off < 0 && bx->off % 8 == 0 && bx->off / 8 > CFI_BX_UNKNOWN)
		return (int8_t)(bx->off / 8);
	return CFI_BX_UNKNOWN;
}

/* The rule of a row; *ret_unsup set when it is NO_INFO because of something we do not model. */
static struct cfi_rule state_rule(const struct state *s, bool *ret_unsup)
{
	struct cfi_rule no = {.kind = CFI_NO_INFO};
	*ret_unsup = true;
	if (s->ra.how == R_UNDEF) {
		*ret_unsup = false;
		return (struct cfi_rule){.kind = CFI_OUTERMOST, .fp_off = CFI_FP_SAME};
	}
	if (s->ra.how != R_OFF || s->ra.off != -8)
		return no;
	struct cfi_rule r = {.fp_off = CFI_FP_SAME};
	if (s->fp.how == R_OFF) {
		if (s->fp.off <= INT16_MIN || s->fp.off > INT16_MAX)
			return no;
		r.fp_off = (int16_t)s->fp.off;
	} else if (s->fp.how != R_UNSET && s->fp.how != R_UNDEF && s->fp.how != R_SAME) {
		return no;
	}
	switch (s->cfa_how) {
	case C_REG:
		if (s->cfa_reg != REG_RSP && s->cfa_reg != REG_RBP && s->cfa_reg != REG_RBX)
			return no;
		if (s->cfa_off < INT32_MIN || s->cfa_off > INT32_MAX)
			return no;
		r.kind = s->cfa_reg == REG_RSP ? CFI_CFA_SP : s->cfa_reg == REG_RBP ? CFI_CFA_FP : CFI_CFA_BX;
		r.cfa_off = (int32_t)s->cfa_off;
		r.bx_slot = bx_slot(&s->bx);
		break;
	case C_PLT:
		r.kind = CFI_PLT;
		r.plt_threshold = s->plt;
		r.cfa_off = 8;
		break;
	default: return no;
	}
	*ret_unsup = false;
	return r;
}

/* The row emitter: counts (pc_off == NULL) or stores, merging equal neighbours. */
struct out {
	uint64_t lo;
	uint32_t *pc_off;
	struct cfi_rule *rule;
	uint32_t n, unsupported;
	struct cfi_rule last;
};

static bool rule_eq(struct cfi_rule a, struct cfi_rule b)
{
	return a.kind == b.kind && a.plt_threshold == b.plt_threshold /* or bx_slot */ &&
	       a.fp_off == b.fp_off && a.cfa_off == b.cfa_off;
}

static void emit(struct out *o, uint64_t pc, struct cfi_rule r)
{
	if (o->n && rule_eq(o->last, r))
		return;
	if (o->pc_off) {
		o->pc_off[o->n] = (uint32_t)(pc - o->lo);
		o->rule[o->n] = r;
	}
	o->last = r;
	o->n++;
}

static void emit_state(struct out *o, uint64_t pc, const struct state *s)
{
	bool unsup;
	struct cfi_rule r = state_rule(s, &unsup);
	o->unsupported += unsup;
	emit(o, pc, r);
}

static const uint8_t plt_expr[11] = {0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22};

static void set_reg(struct state *s, uint64_t reg, uint8_t how, int64_t off)
{
	struct reg_rule rr = {how, off};
	if (reg == REG_RBP)
		s->fp = rr;
	else if (reg == REG_RBX)
		s->bx = rr;
	else if (reg == REG_RA)
		s->ra = rr;
}

/* DW_CFA_restore: the register's rule after the CIE's program. */
static void restore_reg(struct state *s, uint64_t reg, const struct state *init)
{
	const struct reg_rule *rr = reg == REG_RBP ? &init->fp : reg == REG_RBX ? &init->bx : &init->ra;
	set_reg(s, reg, rr->how, rr->off);
}

/* Register `reg` saved at CFA + v * f (R_UNSUP on overflow). */
static void set_off(struct state *s, uint64_t reg, int64_t v, int64_t f)
{
	int64_t off;
	if (__builtin_mul_overflow(v, f, &off))
		set_reg(s, reg, R_UNSUP, 0);
	else
		set_reg(s, reg, R_OFF, off);
}

/* v * f into *ret; false on overflow. */
static bool factored(int64_t v, int64_t f, int64_t *ret)
{
	return !__builtin_mul_overflow(v, f, ret);
}

/* The interpreter's state through one CFA program. */
struct vm {
	const struct eh_cie *e;
	struct eh_reader r;
	struct eh_bases b;
	struct state *s;
	const struct state *init; /* the state after the CIE (NULL: running the CIE) */
	bool rows;                /* an FDE's program: DW_CFA_set_loc allowed */
	uint64_t loc;
	struct state stack[CFI_STACK_DEPTH];
	unsigned depth;
};

/* What one instruction did. */
enum step {
	STEP_NEXT,    /* changed the state, or nothing */
	STEP_ADVANCE, /* advanced the location by *delta */
	STEP_STOP,    /* something we do not understand, or a bad operand */
	STEP_OTHER,   /* not this group's instruction */
};

/* DW_CFA_set_loc and advance_loc1/2/4. */
static enum step op_advance(struct vm *m, uint8_t op, uint64_t *delta)
{
	const struct eh_cie *e = m->e;
	switch (op) {
	case 0x01: { /* set_loc */
		uint64_t to;
		if (!m->rows || eh_read_pointer(&m->r, e->fde_enc, &m->b, &to) || to < m->loc)
			return STEP_STOP;
		*delta = to - m->loc;
		return STEP_ADVANCE;
	}
	case 0x02: *delta = eh_read_fixed(&m->r, 1) * e->code_align; return STEP_ADVANCE;
	case 0x03: *delta = eh_read_fixed(&m->r, 2) * e->code_align; return STEP_ADVANCE;
	case 0x04: *delta = eh_read_fixed(&m->r, 4) * e->code_align; return STEP_ADVANCE;
	default: return STEP_OTHER;
	}
}

/* The CFA's rule (def_cfa*) and remember/restore_state. */
static enum step op_cfa(struct vm *m, uint8_t op)
{
	struct state *s = m->s;
	uint64_t reg;
	switch (op) {
	case 0x0a: /* remember_state */
		if (m->depth == CFI_STACK_DEPTH)
			return STEP_STOP;
		m->stack[m->depth++] = *s;
		return STEP_NEXT;
	case 0x0b: /* restore_state */
		if (m->depth == 0)
			return STEP_STOP;
		*s = m->stack[--m->depth];
		return STEP_NEXT;
	case 0x0c: /* def_cfa */
		reg = eh_read_uleb(&m->r);
		s->cfa_reg = reg < 256 ? (uint8_t)reg : 255;
		s->cfa_how = C_REG;
		s->cfa_off = (int64_t)eh_read_uleb(&m->r);
		if (s->cfa_off < 0)
			s->cfa_how = C_UNSUP;
		return STEP_NEXT;
	case 0x0d: /* def_cfa_register */
		reg = eh_read_uleb(&m->r);
		s->cfa_reg = reg < 256 ? (uint8_t)reg : 255;
		s->cfa_how = s->cfa_how == C_REG || s->cfa_how == C_NONE ? C_REG : C_UNSUP;
		return STEP_NEXT;
	case 0x0e: /* def_cfa_offset */
		s->cfa_off = (int64_t)eh_read_uleb(&m->r);
		if (s->cfa_off < 0)
			s->cfa_how = C_UNSUP;
		return STEP_NEXT;
	case 0x12: /* def_cfa_sf */
		reg = eh_read_uleb(&m->r);
		s->cfa_reg = reg < 256 ? (uint8_t)reg : 255;
		s->cfa_how = factored(eh_read_sleb(&m->r), m->e->data_align, &s->cfa_off) ? C_REG : C_UNSUP;
		return STEP_NEXT;
	case 0x13: /* def_cfa_offset_sf */
		if (!factored(eh_read_sleb(&m->r), m->e->data_align, &s->cfa_off))
			s->cfa_how = C_UNSUP;
		return STEP_NEXT;
	default: return STEP_OTHER;
	}
}

/* DW_CFA_def_cfa_expression: only the PLT's expression is understood. */
static enum step op_cfa_expression(struct vm *m)
{
	struct state *s = m->s;
	uint64_t n = eh_read_uleb(&m->r);
	const uint8_t *x = m->r.p;
	eh_skip(&m->r, n);
	if (m->r.err)
		return STEP_STOP;
	s->cfa_how = C_UNSUP;
	if (n == sizeof plt_expr && !memcmp(x, plt_expr, 6) && (x[6] == 0x3b || x[6] == 0x3a) &&
	    !memcmp(x + 7, plt_expr + 7, 4)) {
		s->cfa_how = C_PLT;
		s->plt = x[6] == 0x3b ? 11 : 10;
	}
	return STEP_NEXT;
}

/* The registers' rules (the extended and GNU forms). */
static enum step op_reg(struct vm *m, uint8_t op)
{
	struct state *s = m->s;
	int64_t da = m->e->data_align;
	uint64_t reg;
	switch (op) {
	case 0x05: /* offset_extended */
		reg = eh_read_uleb(&m->r);
		set_off(s, reg, (int64_t)eh_read_uleb(&m->r), da);
		return STEP_NEXT;
	case 0x06: /* restore_extended */
		reg = eh_read_uleb(&m->r);
		if (m->init)
			restore_reg(s, reg, m->init);
		return STEP_NEXT;
	case 0x07: set_reg(s, eh_read_uleb(&m->r), R_UNDEF, 0); return STEP_NEXT;
	case 0x08: set_reg(s, eh_read_uleb(&m->r), R_SAME, 0); return STEP_NEXT;
	case 0x09: /* register */
		reg = eh_read_uleb(&m->r);
		eh_read_uleb(&m->r);
		set_reg(s, reg, R_UNSUP, 0);
		return STEP_NEXT;
	case 0x10: /* expression */
	case 0x16: /* val_expression */
		reg = eh_read_uleb(&m->r);
		eh_skip(&m->r, eh_read_uleb(&m->r));
		set_reg(s, reg, R_UNSUP, 0);
		return STEP_NEXT;
	case 0x11: /* offset_extended_sf */
		reg = eh_read_uleb(&m->r);
		set_off(s, reg, eh_read_sleb(&m->r), da);
		return STEP_NEXT;
	case 0x14: /* val_offset */
		set_reg(s, eh_read_uleb(&m->r), R_UNSUP, 0);
		eh_read_uleb(&m->r);
		return STEP_NEXT;
	case 0x15: /* val_offset_sf */
		set_reg(s, eh_read_uleb(&m->r), R_UNSUP, 0);
		eh_read_sleb(&m->r);
		return STEP_NEXT;
	case 0x2e: eh_read_uleb(&m->r); return STEP_NEXT; /* GNU_args_size */
	case 0x2f:                                        /* GNU_negative_offset_extended */
		reg = eh_read_uleb(&m->r);
		set_off(s, reg, -(int64_t)(eh_read_uleb(&m->r) & INT64_MAX), da);
		return STEP_NEXT;
	default: return STEP_OTHER;
	}
}

/* One instruction, its opcode op already read. */
static enum step op_one(struct vm *m, uint8_t op, uint64_t *delta)
{
	switch (op >> 6) {
	case 1: /* advance_loc */ *delta = (uint64_t)(op & 0x3f) * m->e->code_align; return STEP_ADVANCE;
	case 2: /* offset */
		set_off(m->s, op & 0x3f, (int64_t)eh_read_uleb(&m->r), m->e->data_align);
		return STEP_NEXT;
	case 3: /* restore */
		if (m->init)
			restore_reg(m->s, op & 0x3f, m->init);
		return STEP_NEXT;
	default: break;
	}
	if (op == 0x00) /* nop */
		return STEP_NEXT;
	if (op == 0x0f)
		return op_cfa_expression(m);
	enum step st = op_advance(m, op, delta);
	if (st == STEP_OTHER)
		st = op_cfa(m, op);
	if (st == STEP_OTHER)
		st = op_reg(m, op);
	return st == STEP_OTHER ? STEP_STOP : st;
}

/*
 * Run a CFA program.  For a CIE's initial instructions `o` is NULL (no rows,
 * advances ignored).  For an FDE, rows are emitted for [f->start, f->end);
 * `init` is the state after the CIE.  Returns false if the program stopped on
 * something we do not understand (the caller ends the FDE with NO_INFO).
 */
static bool run(const struct eh_cie *e, const uint8_t *p, const uint8_t *pend, struct state *s,
		const struct state *init, const struct fde *f, struct out *o, uint64_t *ret_loc)
{
	struct vm m = {
		.e = e,
		.b = {.valid = EH_BASE_PC},
		.s = s,
		.init = init,
		.rows = o != NULL,
		.loc = f ? f->start : 0,
	};
	reader_init(&m.r, p, pend, e->addr_size);
	*ret_loc = m.loc;
	while (m.r.p < m.r.end) {
		uint64_t delta = 0;
		enum step st = op_one(&m, *m.r.p++, &delta);
		if (st == STEP_STOP || m.r.err)
			return false;
		if (st != STEP_ADVANCE || !o || delta == 0)
			continue;
		emit_state(o, m.loc, s);
		if (delta >= f->end - m.loc)
			return true; /* the rest of the program is past the FDE's end */
		m.loc += delta;
		*ret_loc = m.loc;
	}
	if (o)
		emit_state(o, m.loc, s);
	return true;
}

/* Rows of one FDE (with a NO_INFO tail if its program stops early). */
static void fde_rows(const struct fde *f, struct out *o)
{
	const struct eh_cie *e = f->cie;
	struct cfi_rule no = {.kind = CFI_NO_INFO};
	if (e->signal) {
		emit(o, f->start, (struct cfi_rule){.kind = CFI_SIGNAL, .fp_off = CFI_FP_SAME});
		return;
	}
	struct state s = {0}, init;
	uint64_t loc;
	/* an error in the CIE's program: every row of its FDEs is NO_INFO */
	if (!run(e, e->insn, e->insn_end, &s, NULL, NULL, NULL, &loc)) {
		o->unsupported++;
		emit(o, f->start, no);
		return;
	}
	init = s;
	if (!run(e, f->insn, f->insn_end, &s, &init, f, o, &loc)) {
		o->unsupported++;
		emit(o, loc, no);
	}
}

/* ------------------------------------------------------------ FDE lists */

struct fde_ref {
	uint64_t start;
	const uint8_t *at;
};

/* The FDEs in PC order: the .eh_frame_hdr search table (datarel|sdata4 pairs) or a sorted array. */
struct list {
	const uint8_t *tab, *hdr;
	const struct fde_ref *refs;
	uint32_t n;
};

static bool readable(const struct ctx *c, uint64_t a)
{
	return a >= (uint64_t)(uintptr_t)c->lo && a < (uint64_t)(uintptr_t)c->hi;
}

static int32_t get_s32(const uint8_t *p)
{
	return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
}

/* The i-th FDE's address, or NULL if the table points outside the object. */
static const uint8_t *list_at(const struct ctx *c, const struct list *l, uint32_t i)
{
	if (l->refs)
		return l->refs[i].at;
	uint64_t a = (uint64_t)(uintptr_t)l->hdr + (uint64_t)(int64_t)get_s32(l->tab + 8 * (size_t)i + 4);
	return readable(c, a) ? (const uint8_t *)(uintptr_t)a : NULL;
}

static void sift(struct fde_ref *v, size_t i, size_t n)
{
	for (;;) {
		size_t k = 2 * i + 1;
		if (k >= n)
			return;
		if (k + 1 < n && v[k + 1].start > v[k].start)
			k++;
		if (v[i].start >= v[k].start)
			return;
		struct fde_ref t = v[i];
		v[i] = v[k];
		v[k] = t;
		i = k;
	}
}

/* Heap sort (no qsort: glibc's may call malloc). */
static void sort_refs(struct fde_ref *v, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		sift(v, i, n);
	for (size_t i = n; i-- > 1;) {
		struct fde_ref t = v[0];
		v[0] = v[i];
		v[i] = t;
		sift(v, 0, i);
	}
}

/*
 * Walk the entries from p to the terminator (or c->hi): count the FDEs
 * (refs == NULL) or store the parsable ones.  Returns the count; *err gets
 * -EBADMSG if the walk stopped on a malformed entry; *skipped counts FDEs
 * whose CIE or encoding we do not handle.
 */
static uint32_t walk(struct ctx *c, const uint8_t *p, struct fde_ref *refs, uint32_t cap, int *err,
		     uint32_t *skipped)
{
	uint32_t n = 0;
	while ((uintptr_t)p < (uintptr_t)c->hi) {
		struct fde f;
		const uint8_t *next = NULL;
		int rc = fde_parse(c, p, &f, &next);
		if (!next) { /* the terminator, or a length we cannot trust: the walk ends */
			if (rc != 1)
				*err = -EBADMSG;
			break;
		}
		if (rc == 0) {
			if (n == cap)
				break;
			if (refs)
				refs[n] = (struct fde_ref){f.start, p};
			n++;
		} else if (rc == -EBADMSG) {
			*err = -EBADMSG;
		} else if (rc < 0) {
			(*skipped)++;
		}
		p = next;
	}
	return n;
}

/* ------------------------------------------------------------ building */

struct pass {
	uint64_t lo, end; /* the first FDE's start; the last kept FDE's end */
	uint32_t nfde, limit, skipped;
	int err;
};

static void run_pass(struct ctx *c, const struct list *l, struct pass *ps, struct out *o, bool first)
{
	struct cfi_rule no = {.kind = CFI_NO_INFO};
	ps->nfde = 0;
	ps->skipped = 0;
	ps->end = 0;
	for (uint32_t i = 0; i < ps->limit; i++) {
		const uint8_t *at = list_at(c, l, i);
		struct fde f;
		const uint8_t *next = NULL;
		int rc = at ? fde_parse(c, at, &f, &next) : -EBADMSG;
		if (rc == 1 || rc == -EBADMSG) {
			ps->err = -EBADMSG;
			continue;
		}
		if (rc < 0 || (ps->nfde && f.start < ps->end)) {
			ps->skipped++; /* unsupported CIE/encoding, or overlapping the previous FDE */
			continue;
		}
		if (f.end == f.start)
			continue;
		if (!ps->nfde)
			ps->lo = f.start;
		if (f.end - ps->lo > CFI_MAX_RANGE) {
			ps->err = -ENOTSUP;
			ps->limit = i;
			break;
		}
		struct out save = *o;
		if (ps->nfde && f.start > ps->end)
			emit(o, ps->end, no);
		fde_rows(&f, o);
		if (first && o->n > CFI_MAX_ROWS) {
			*o = save;
			ps->err = -ENOTSUP;
			ps->limit = i;
			break;
		}
		ps->end = f.end;
		ps->nfde++;
	}
}

/* blk[b] = the first row whose range overlaps [256 b, 256 (b+1)) (offsets from lo). */
static void fill_index(const uint32_t *pc_off, uint32_t nrows, uint32_t *blk, uint32_t nblk)
{
	for (uint32_t b = 0, k = 0; b < nblk; b++) {
		while (k + 1 < nrows && pc_off[k + 1] <= (uint64_t)b * 256)
			k++;
		blk[b] = k;
	}
}

static int build(struct ctx *c, const struct list *l, const struct cfi_alloc *a, struct cfi_table *t, int err)
{
	struct pass ps = {.limit = l->n, .err = err};
	struct out o = {0};
	run_pass(c, l, &ps, &o, true);
	t->nfde = ps.nfde;
	t->skipped += ps.skipped;
	if (!ps.nfde || !o.n)
		return ps.err;
	uint64_t span = ps.end - ps.lo;
	uint32_t nblk = (uint32_t)((span + 255) / 256), nrows = o.n;
	size_t bytes = (size_t)nrows * sizeof(struct cfi_rule) + (size_t)nrows * 4 + (size_t)nblk * 4;
	uint8_t *m = a->alloc(a->ctx, bytes);
	if (!m)
		return -ENOMEM;
	t->bytes += bytes;
	struct cfi_rule *rule = (struct cfi_rule *)(void *)m;
	uint32_t *pc_off = (uint32_t *)(void *)(m + (size_t)nrows * sizeof(struct cfi_rule));
	uint32_t *blk = pc_off + nrows;
	o = (struct out){.lo = ps.lo, .pc_off = pc_off, .rule = rule};
	run_pass(c, l, &ps, &o, false);
	if (o.n != nrows) /* cannot happen: both passes read the same bytes */
		return -EBADMSG;
	fill_index(pc_off, nrows, blk, nblk);
	t->lo = ps.lo;
	t->hi = ps.end;
	t->nrows = nrows;
	t->pc_off = pc_off;
	t->rule = rule;
	t->blk = blk;
	t->nblk = nblk;
	t->unsupported = o.unsupported;
	return ps.err;
}

/* Build from a linear walk starting at p. */
static int build_linear(struct ctx *c, const uint8_t *p, const struct cfi_alloc *a, struct cfi_table *t)
{
	int err = 0;
	uint32_t skipped = 0;
	uint32_t n = walk(c, p, NULL, CFI_MAX_FDES, &err, &skipped);
	struct list l = {0};
	if (n) {
		struct fde_ref *refs = a->alloc(a->ctx, (size_t)n * sizeof *refs);
		if (!refs)
			return -ENOMEM;
		t->bytes += (size_t)n * sizeof *refs;
		err = 0;
		skipped = 0;
		n = walk(c, p, refs, n, &err, &skipped);
		sort_refs(refs, n);
		l.refs = refs;
		l.n = n;
	}
	t->skipped = skipped;
	return build(c, &l, a, t, err);
}

int cfi_build_eh_frame_hdr(const uint8_t *hdr, size_t hdr_bytes, uint64_t obj_lo, uint64_t obj_hi,
			   const struct cfi_alloc *a, struct cfi_table *ret)
{
	memset(ret, 0, sizeof *ret);
	if (obj_hi <= obj_lo || obj_hi > UINTPTR_MAX)
		return -EBADMSG;
	struct ctx c = {.lo = (const uint8_t *)(uintptr_t)obj_lo, .hi = (const uint8_t *)(uintptr_t)obj_hi};
	struct eh_reader r;
	reader_init(&r, hdr, hdr + hdr_bytes, 8);
	uint8_t version = (uint8_t)eh_read_fixed(&r, 1);
	uint8_t ptr_enc = (uint8_t)eh_read_fixed(&r, 1);
	uint8_t count_enc = (uint8_t)eh_read_fixed(&r, 1);
	uint8_t tab_enc = (uint8_t)eh_read_fixed(&r, 1);
	if (r.err || version != 1)
		return -EBADMSG;
	struct eh_bases b = {.valid = EH_BASE_PC | EH_BASE_DATA, .data = (uint64_t)(uintptr_t)hdr};
	uint64_t eh, count = 0;
	int rc = eh_read_pointer(&r, ptr_enc, &b, &eh);
	if (rc)
		return rc;
	if (!readable(&c, eh))
		return -EBADMSG;
	const uint8_t *eh_frame = (const uint8_t *)(uintptr_t)eh;
	if (count_enc == EH_PE_omit || tab_enc != (EH_PE_datarel | EH_PE_sdata4) ||
	    eh_read_pointer(&r, count_enc, &b, &count) || count > CFI_MAX_FDES ||
	    count * 8 > (uint64_t)(r.end - r.p))
		return build_linear(&c, eh_frame, a, ret);
	for (uint64_t i = 1; i < count; i++)
		if (get_s32(r.p + 8 * i) < get_s32(r.p + 8 * (i - 1)))
			return build_linear(&c, eh_frame, a, ret);
	struct list l = {.tab = r.p, .hdr = hdr, .n = (uint32_t)count};
	return build(&c, &l, a, ret, 0);
}

int cfi_build_debug_frame(const uint8_t *debug_frame, size_t bytes, uint64_t bias, const struct cfi_alloc *a,
			  struct cfi_table *ret)
{
	memset(ret, 0, sizeof *ret);
	struct ctx c = {.lo = debug_frame, .hi = debug_frame + bytes, .debug_frame = true, .bias = bias};
	return build_linear(&c, debug_frame, a, ret);
}

int cfi_table_index(struct cfi_table *t, const struct cfi_alloc *a)
{
	uint64_t span = t->hi - t->lo;
	uint32_t nblk = (uint32_t)((span + 255) / 256);
	uint32_t *blk = a->alloc(a->ctx, (size_t)nblk * 4);
	if (!blk) {
		t->nrows = 0;
		return -ENOMEM;
	}
	t->bytes += (size_t)nblk * 4;
	fill_index(t->pc_off, t->nrows, blk, nblk);
	t->blk = blk;
	t->nblk = nblk;
	return 0;
}

const struct cfi_rule *cfi_lookup(const struct cfi_table *t, uint64_t pc)
{
	if (pc < t->lo || pc >= t->hi || !t->nrows)
		return NULL;
	uint64_t off = pc - t->lo;
	uint64_t b = off >> 8;
	if (b >= t->nblk)
		return NULL;
	uint32_t i = t->blk[b], j = b + 1 < t->nblk ? t->blk[b + 1] : t->nrows - 1;
	while (i < j) {
		uint32_t m = i + (j - i + 1) / 2;
		if (t->pc_off[m] <= off)
			i = m;
		else
			j = m - 1;
	}
	return &t->rule[i];
}
