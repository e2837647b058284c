/*
 * gopcln.c - unwind rows from Go's pclntab (see gopcln.h).  The layout is
 * the one runtime/symtab.go and cmd/link/internal/ld/pcln.go define: a
 * header (pcHeader), then tables at offsets it gives; the function table is
 * nfunc (entry offset, _func offset) pairs and a final entry offset (the
 * end of the text), sorted by entry.  Building walks it twice: once to count
 * the merged rows, once to fill the arrays taken from the caller's allocator.
 * Every read is checked against the image's size first.
 */
#include "collector/gopcln.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#define GO118_MAGIC 0xfffffff0u
#define GO120_MAGIC 0xfffffff1u
#define HDR_BYTES 72u /* magic, pad, minLC, ptrSize, then 8 words */

#define FLAG_TOPFRAME 1u
#define FLAG_SPWRITE 2u

#define GOPCLN_MAX_ROWS (1u << 24)
#define GOPCLN_MAX_RANGE (1ull << 30)
#define GOPCLN_MAX_FUNCS (1u << 24)
#define GOPCLN_MAX_FRAME ((1 << 30) + 4096) /* beyond the 1 GB stack limit: garbage */

struct pcln {
	const uint8_t *tab;
	size_t bytes;
	uint64_t text;         /* run-time address entry offsets are relative to */
	uint64_t names, pctab; /* offsets in the image of funcnametab, pctab */
	uint64_t ftab;         /* offset of the function table */
	uint32_t nfunc;
	unsigned flag_off; /* offset of _func.flag: 37 (1.18) or 41 (1.20) */
	uint64_t code_lo, code_hi;
};

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

/* The 4 bytes at off, if inside the image. */
static bool rd32(const struct pcln *t, uint64_t off, uint32_t *ret)
{
	if (off > t->bytes || t->bytes - off < 4)
		return false;
	*ret = get32(t->tab + off);
	return true;
}

static int header(struct pcln *t, const uint8_t *tab, size_t bytes, unsigned *ret_version)
{
	*ret_version = 0;
	if (bytes < HDR_BYTES)
		return -ENOTSUP;
	uint32_t magic = get32(tab);
	if (magic != GO118_MAGIC && magic != GO120_MAGIC)
		return -ENOTSUP;
	if (tab[4] != 0 || tab[5] != 0 || tab[6] != 1 || tab[7] != 8)
		return -ENOTSUP; /* x86-64 only: PC quantum 1, 8-byte pointers */
	*ret_version = magic == GO118_MAGIC ? 118 : 120;
	t->tab = tab;
	t->bytes = bytes;
	uint64_t nfunc = get64(tab + 8);
	t->text = get64(tab + 24);
	t->names = get64(tab + 32);
	t->pctab = get64(tab + 56);
	t->ftab = get64(tab + 64);
	t->flag_off = magic == GO118_MAGIC ? 37 : 41;
	if (nfunc == 0 || nfunc > GOPCLN_MAX_FUNCS || t->names >= bytes || t->pctab >= bytes ||
	    t->ftab >= bytes || (bytes - t->ftab - 4) / 8 < nfunc)
		return -EBADMSG;
	t->nfunc = (uint32_t)nfunc;
	return 0;
}

/* Function i's name is exactly s (a NUL-terminated string inside the image). */
static bool name_is(const struct pcln *t, uint64_t nameoff, const char *s)
{
	size_t n = strlen(s) + 1;
	uint64_t at = t->names + nameoff;
	if (at < t->names || at > t->bytes || t->bytes - at < n)
		return false;
	return memcmp(t->tab + at, s, n) == 0;
}

/* An unsigned LEB128 varint of at most 32 bits at *p; false past the end or too long. */
static bool varint(const struct pcln *t, uint64_t *p, uint32_t *ret)
{
	uint32_t v = 0;
	for (unsigned shift = 0; shift < 35; shift += 7) {
		if (*p >= t->bytes)
			return false;
		uint8_t b = t->tab[(*p)++];
		v |= (uint32_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*ret = v;
			return true;
		}
	}
	return false;
}

/* The row emitter: counts (pc_off == NULL) or stores, merging equal neighbours. */
struct rows {
	uint64_t lo;
	uint32_t *pc_off;
	struct cfi_rule *rule;
	uint32_t n;
	struct cfi_rule last;
};

static bool rows_same(struct cfi_rule a, struct cfi_rule b)
{
	return a.kind == b.kind && a.bx_slot == b.bx_slot && a.fp_off == b.fp_off && a.cfa_off == b.cfa_off;
}

static void add_row(struct rows *o, uint64_t pc, struct cfi_rule r)
{
	if (o->n && rows_same(o->last, r))
		return;
	if (o->pc_off) {
		o->pc_off[o->n] = (uint32_t)(pc - o->lo);
		o->rule[o->n] = r;
	}
	o->last = r;
	o->n++;
}

static struct cfi_rule only(uint8_t kind)
{
	return (struct cfi_rule){.kind = kind, .fp_off = CFI_FP_SAME};
}

/*
 * The rows of a function at [entry, end) from its pcsp table at offset off
 * of pctab.  The table ends at the function's last instruction: the rest,
 * alignment padding up to the next function, gets a CFI_STOP row.  false if
 * the table could not be read to its end or says something absurd (CFI_STOP
 * there).
 */
static bool pcsp_rows(const struct pcln *t, uint32_t off, uint64_t entry, uint64_t end, uint8_t kind,
		      struct rows *o)
{
	uint64_t p = t->pctab + off, pc = entry;
	int64_t val = -1;
	bool first = true, sane = true, ended = false;
	while (pc < end) {
		uint32_t uv, pcdelta;
		if (!varint(t, &p, &uv))
			break;
		if (uv == 0 && !first) {
			ended = true; /* the table's end */
			break;
		}
		first = false;
		val += (int64_t)(-(int32_t)(uv & 1) ^ (int32_t)(uv >> 1));
		if (!varint(t, &p, &pcdelta))
			break;
		uint64_t next = pc + pcdelta < end ? pc + pcdelta : end;
		if (next == pc)
			continue;
		sane &= val >= 0 && val <= GOPCLN_MAX_FRAME;
		if (val < 0 || val > GOPCLN_MAX_FRAME)
			add_row(o, pc, only(CFI_STOP));
		else
			add_row(o, pc,
				(struct cfi_rule){
					.kind = kind, .fp_off = CFI_FP_SAME, .cfa_off = (int32_t)val + 8});
		pc = next;
	}
	if (pc < end)
		add_row(o, pc, only(CFI_STOP));
	return sane && (pc == end || ended);
}

struct scan {
	uint64_t lo, hi; /* first entry, last end */
	uint32_t nfunc;  /* functions emitted */
	struct gopcln_info info;
	int err;
};

/* Function i: 0 with its rows emitted, or -EBADMSG / -ENOTSUP (stop before it). */
static int one_func(const struct pcln *t, uint32_t i, struct scan *ps, struct rows *o)
{
	uint32_t eoff, foff, eoff_next;
	uint64_t fe = t->ftab + 8 * (uint64_t)i;
	if (!rd32(t, fe, &eoff) || !rd32(t, fe + 4, &foff) || !rd32(t, fe + 8, &eoff_next) ||
	    eoff_next <= eoff)
		return -EBADMSG;
	uint64_t entry = t->text + eoff, end = t->text + eoff_next;
	if (end < t->text || entry < t->code_lo || end > t->code_hi || (ps->nfunc && entry < ps->hi))
		return -EBADMSG; /* (entry < end unless the addition wrapped) */
	uint64_t f = t->ftab + foff;
	uint32_t f_entry, nameoff, pcsp;
	if (!rd32(t, f, &f_entry) || !rd32(t, f + 4, &nameoff) || !rd32(t, f + 16, &pcsp) ||
	    f + t->flag_off >= t->bytes || f_entry != eoff)
		return -EBADMSG;
	if (end - (ps->nfunc ? ps->lo : entry) > GOPCLN_MAX_RANGE)
		return -ENOTSUP;
	uint8_t flag = t->tab[f + t->flag_off];
	if (!ps->nfunc)
		ps->lo = entry;
	if ((flag & FLAG_TOPFRAME) && !name_is(t, nameoff, "runtime.sigtramp")) {
		add_row(o, entry, only(CFI_OUTERMOST));
		ps->info.top++;
	} else if (flag & FLAG_SPWRITE) {
		add_row(o, entry, only(CFI_STOP));
		ps->info.spwrite++;
	} else if (pcsp == 0) {
		add_row(o, entry, only(CFI_STOP));
		ps->info.bad++;
	} else {
		uint8_t kind = name_is(t, nameoff, "runtime.asyncPreempt") ? CFI_CFA_SP_INJECTED : CFI_CFA_SP;
		if (!pcsp_rows(t, pcsp, entry, end, kind, o))
			ps->info.bad++;
	}
	ps->hi = end;
	ps->nfunc++;
	return 0;
}

static void scan_funcs(const struct pcln *t, struct scan *ps, struct rows *o, uint32_t limit)
{
	*ps = (struct scan){.info = ps->info};
	ps->info.top = ps->info.spwrite = ps->info.bad = 0;
	for (uint32_t i = 0; i < limit; i++) {
		struct rows save = *o;
		int r = one_func(t, i, ps, o);
		if (r == 0 && o->n > GOPCLN_MAX_ROWS) {
			*o = save;
			r = -ENOTSUP;
		}
		if (r < 0) {
			ps->err = r;
			return;
		}
	}
}

int gopcln_build(const uint8_t *tab, size_t bytes, uint64_t code_lo, uint64_t code_hi,
		 const struct cfi_alloc *a, struct cfi_table *ret, struct gopcln_info *ret_info)
{
	memset(ret, 0, sizeof *ret);
	struct pcln t = {.code_lo = code_lo, .code_hi = code_hi};
	struct scan ps = {0};
	int err = header(&t, tab, bytes, &ps.info.version);
	if (ret_info)
		*ret_info = ps.info;
	if (err < 0)
		return err;
	struct rows o = {0};
	scan_funcs(&t, &ps, &o, t.nfunc);
	uint32_t nfunc = ps.nfunc, nrows = o.n;
	err = ps.err;
	if (nfunc == 0 || nrows == 0)
		goto out;
	size_t rows_bytes = (size_t)nrows * (sizeof(struct cfi_rule) + 4);
	uint8_t *m = a->alloc(a->ctx, rows_bytes);
	if (!m) {
		err = -ENOMEM;
		goto out;
	}
	struct cfi_rule *rule = (struct cfi_rule *)(void *)m;
	uint32_t *pc_off = (uint32_t *)(void *)(m + (size_t)nrows * sizeof(struct cfi_rule));
	o = (struct rows){.lo = ps.lo, .pc_off = pc_off, .rule = rule};
	scan_funcs(&t, &ps, &o, nfunc);
	if (o.n != nrows || ps.nfunc != nfunc) { /* cannot happen: both passes read the same bytes */
		err = -EBADMSG;
		goto out;
	}
	ret->lo = ps.lo;
	ret->hi = ps.hi;
	ret->nrows = nrows;
	ret->pc_off = pc_off;
	ret->rule = rule;
	ret->nfde = nfunc;
	ret->bytes = rows_bytes;
	if (cfi_table_index(ret, a) < 0) {
		memset(ret, 0, sizeof *ret);
		err = -ENOMEM;
		goto out;
	}
	ps.info.nfunc = nfunc;
out:
	if (err == -ENOMEM)
		ps.info.nfunc = 0;
	if (ret_info)
		*ret_info = ps.info;
	return err;
}
