/*
 * dwarf_eh.c - DWARF CFI encodings (contract in dwarf_eh.h).  Every read
 * checks the bytes left before touching them and leaves a sticky error, so
 * callers can read a run of fields and check once.
 */
#include "common/dwarf_eh.h"

#include <errno.h>
#include <string.h>

#include "common/varint.h"

void eh_reader_init(struct eh_reader *r, const uint8_t *p, const uint8_t *end, uint64_t addr,
		    unsigned addr_size, bool big)
{
	r->p = p;
	r->end = end;
	r->addr_bias = addr - (uint64_t)(uintptr_t)p;
	r->addr_size = addr_size;
	r->big = big;
	r->err = 0;
}

uint64_t eh_reader_addr(const struct eh_reader *r)
{
	return (uint64_t)(uintptr_t)r->p + r->addr_bias;
}

uint64_t eh_read_fixed(struct eh_reader *r, unsigned n)
{
	if (r->err || n > 8 || (size_t)(r->end - r->p) < n) {
		r->err = -EBADMSG;
		return 0;
	}
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)r->p[i] << (8 * (r->big ? n - 1 - i : i));
	r->p += n;
	return v;
}

uint64_t eh_read_uleb(struct eh_reader *r)
{
	uint64_t v;
	const uint8_t *p = r->err ? NULL : varint_get(r->p, r->end, &v);
	if (!p) {
		r->err = -EBADMSG;
		return 0;
	}
	r->p = p;
	return v;
}

int64_t eh_read_sleb(struct eh_reader *r)
{
	uint64_t v = 0;
	const uint8_t *p = r->p;
	for (unsigned shift = 0; !r->err && p < r->end && shift < 70; shift += 7) {
		uint8_t b = *p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			if (shift + 7 < 64 && (b & 0x40))
				v |= ~0ull << (shift + 7);
			r->p = p;
			return (int64_t)v;
		}
	}
	r->err = -EBADMSG;
	return 0;
}

void eh_skip(struct eh_reader *r, uint64_t n)
{
	if (r->err || (uint64_t)(r->end - r->p) < n) {
		r->err = -EBADMSG;
		return;
	}
	r->p += n;
}

static uint64_t sign_extend(uint64_t v, unsigned bits)
{
	uint64_t m = (uint64_t)1 << (bits - 1);
	return (v ^ m) - m;
}

/* The value of the format in enc's low nibble; -ENOTSUP for an unknown one. */
static int read_value(struct eh_reader *r, uint8_t enc, uint64_t *ret)
{
	switch (enc & 0x0f) {
	case EH_PE_absptr: *ret = eh_read_fixed(r, r->addr_size); break;
	case EH_PE_uleb128: *ret = eh_read_uleb(r); break;
	case EH_PE_udata2: *ret = eh_read_fixed(r, 2); break;
	case EH_PE_udata4: *ret = eh_read_fixed(r, 4); break;
	case EH_PE_udata8:
	case EH_PE_sdata8: *ret = eh_read_fixed(r, 8); break;
	case EH_PE_sleb128: *ret = (uint64_t)eh_read_sleb(r); break;
	case EH_PE_sdata2: *ret = sign_extend(eh_read_fixed(r, 2), 16); break;
	case EH_PE_sdata4: *ret = sign_extend(eh_read_fixed(r, 4), 32); break;
	default: return -ENOTSUP;
	}
	return r->err;
}

/* The base of enc's application bits (0 for none); -ENOTSUP if not allowed. */
static int base_of(uint8_t enc, const struct eh_bases *b, uint64_t pc, uint64_t *ret)
{
	unsigned need;
	switch (enc & 0x70) {
	case EH_PE_absptr: *ret = 0; return 0;
	case EH_PE_pcrel: need = EH_BASE_PC, *ret = pc; break;
	case EH_PE_textrel: need = EH_BASE_TEXT, *ret = b ? b->text : 0; break;
	case EH_PE_datarel: need = EH_BASE_DATA, *ret = b ? b->data : 0; break;
	case EH_PE_funcrel: need = EH_BASE_FUNC, *ret = b ? b->func : 0; break;
	default: return -ENOTSUP; /* EH_PE_aligned and the undefined 0x60, 0x70 */
	}
	return b && (b->valid & need) ? 0 : -ENOTSUP;
}

int eh_read_pointer(struct eh_reader *r, uint8_t enc, const struct eh_bases *bases, uint64_t *ret)
{
	if (enc == EH_PE_omit)
		return -ENOTSUP;
	uint64_t pc = eh_reader_addr(r), v, base;
	int err = read_value(r, enc, &v);
	if (err)
		return err;
	if ((enc & EH_PE_indirect) || base_of(enc, bases, pc, &base))
		return -ENOTSUP;
	v += base;
	*ret = r->addr_size == 4 ? v & 0xffffffffu : v;
	return 0;
}

/* One augmentation letter after 'z'.  1 when the letter is unknown (stop). */
static int aug_letter(struct eh_reader *r, char letter, struct eh_cie *e)
{
	uint64_t v;
	switch (letter) {
	case 'L': e->lsda_enc = (uint8_t)eh_read_fixed(r, 1); break;
	case 'P': {
		e->personality_enc = (uint8_t)eh_read_fixed(r, 1);
		int err = r->err ? r->err : eh_read_pointer(r, e->personality_enc & 0x0f, NULL, &v);
		if (err)
			return err;
		break;
	}
	case 'R':
		e->fde_enc = (uint8_t)eh_read_fixed(r, 1);
		e->has_fde_enc = true;
		break;
	case 'S': e->signal = true; break;
	case 'B': /* AArch64 BTI */
	case 'G': /* memory tagging */ break;
	default: e->aug_unknown = true; return 1;
	}
	return r->err;
}

/* The letters of aug after 'z', bounded by the augmentation data length. */
static int aug_data(struct eh_reader *r, const char *aug, struct eh_cie *e)
{
	uint64_t n = eh_read_uleb(r);
	if (r->err || n > (uint64_t)(r->end - r->p))
		return -EBADMSG;
	const uint8_t *aug_end = r->p + n, *end = r->end;
	r->end = aug_end;
	e->has_z = true;
	int err = 0;
	for (; *aug && err == 0; aug++)
		err = aug_letter(r, *aug, e);
	if (err < 0)
		return err;
	r->p = aug_end;
	r->end = end;
	return 0;
}

/* Version 4's address and segment selector sizes. */
static int read_sizes(struct eh_reader *r, struct eh_cie *e)
{
	e->addr_size = (uint8_t)eh_read_fixed(r, 1);
	unsigned seg = (unsigned)eh_read_fixed(r, 1);
	if (r->err)
		return -EBADMSG;
	if ((e->addr_size != 8 && e->addr_size != 4) || seg != 0)
		return -ENOTSUP;
	r->addr_size = e->addr_size;
	return 0;
}

int eh_cie_parse(struct eh_reader *r, struct eh_cie *ret)
{
	struct eh_cie *e = ret;
	memset(e, 0, sizeof *e);
	e->fde_enc = EH_PE_absptr;
	e->lsda_enc = e->personality_enc = EH_PE_omit;
	e->addr_size = (uint8_t)r->addr_size;
	e->version = (uint8_t)eh_read_fixed(r, 1);
	if (r->err)
		return -EBADMSG;
	if (e->version != 1 && e->version != 3 && e->version != 4)
		return -ENOTSUP;
	const char *aug = (const char *)r->p;
	const uint8_t *nul = memchr(r->p, 0, (size_t)(r->end - r->p));
	if (!nul)
		return -EBADMSG;
	r->p = nul + 1;
	int err = e->version == 4 ? read_sizes(r, e) : 0;
	if (err)
		return err;
	if (aug[0] == 'e' && aug[1] == 'h') {
		eh_read_fixed(r, r->addr_size);
		e->eh_data = true;
		aug += 2;
	}
	e->code_align = eh_read_uleb(r);
	e->data_align = eh_read_sleb(r);
	e->ra_reg = e->version == 1 ? eh_read_fixed(r, 1) : eh_read_uleb(r);
	if (r->err)
		return -EBADMSG;
	if (aug[0] == 'z')
		err = aug_data(r, aug + 1, e);
	else if (aug[strspn(aug, "SBG")])
		err = -ENOTSUP;
	else
		for (; *aug; aug++)
			aug_letter(r, *aug, e);
	if (err)
		return err;
	e->insn = r->p;
	e->insn_end = r->end;
	return 0;
}
