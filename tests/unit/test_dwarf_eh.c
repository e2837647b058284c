/*
 * test_dwarf_eh.c - common/dwarf_eh.h: LEB128 and fixed-size fields in both
 * byte orders, every DW_EH_PE value format and base (pcrel at a biased
 * address, datarel/textrel/funcrel with and without a base, indirect,
 * aligned, omit), 32-bit truncation, and CIE headers ("", "zR", "zPLR",
 * "eh", "S", "zRX" with an unknown letter, version 4).  Every CIE is also cut
 * at each length and fed from a heap buffer of exactly that size, so ASan
 * catches any read past the end; cut CIEs must fail with -EBADMSG.
 */
#include "common/dwarf_eh.h"

#include <errno.h>
#include <stdlib.h>

#include "tests/unit/check.h"

static void test_leb(void)
{
	static const uint8_t d[] = {0xe5, 0x8e, 0x26, /* uleb 624485 */
				    0xc0, 0xbb, 0x78, /* sleb -123456 */
				    0x7f,             /* sleb -1 */
				    0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80};
	struct eh_reader r;
	eh_reader_init(&r, d, d + sizeof d, 0, 8, false);
	CHECK_EQ_U64(eh_read_uleb(&r), 624485);
	CHECK_EQ_U64(eh_read_sleb(&r), (uint64_t)-123456);
	CHECK_EQ_U64(eh_read_sleb(&r), (uint64_t)-1);
	CHECK_EQ_U64(r.err, 0);
	const uint8_t *at = r.p;
	eh_read_uleb(&r); /* 11 continuation bytes and no end */
	CHECK_EQ_U64(r.err, -EBADMSG);
	CHECK(r.p == at);
	CHECK_EQ_U64(eh_read_fixed(&r, 1), 0); /* sticky */

	eh_reader_init(&r, d + 7, d + sizeof d, 0, 8, false);
	eh_read_sleb(&r); /* no end either */
	CHECK_EQ_U64(r.err, -EBADMSG);
	eh_reader_init(&r, d, d + 2, 0, 8, false); /* cut inside the first uleb */
	eh_read_uleb(&r);
	CHECK_EQ_U64(r.err, -EBADMSG);
	/* a 10-byte uleb whose last byte has more than 64 bits */
	static const uint8_t o[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f};
	eh_reader_init(&r, o, o + sizeof o, 0, 8, false);
	eh_read_uleb(&r);
	CHECK_EQ_U64(r.err, -EBADMSG);
	eh_reader_init(&r, o, o + sizeof o, 0, 8, false);
	CHECK_EQ_U64(eh_read_sleb(&r), UINT64_MAX); /* bits past 64 are dropped */
	CHECK_EQ_U64(r.err, 0);
}

static void test_fixed(void)
{
	static const uint8_t d[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
	struct eh_reader r;
	eh_reader_init(&r, d, d + sizeof d, 0, 8, false);
	CHECK_EQ_U64(eh_read_fixed(&r, 2), 0x0201);
	CHECK_EQ_U64(eh_read_fixed(&r, 4), 0x06050403);
	eh_reader_init(&r, d, d + sizeof d, 0, 8, true);
	CHECK_EQ_U64(eh_read_fixed(&r, 2), 0x0102);
	CHECK_EQ_U64(eh_read_fixed(&r, 4), 0x03040506);
	CHECK_EQ_U64(eh_read_fixed(&r, 4), 0); /* 3 left */
	CHECK_EQ_U64(r.err, -EBADMSG);
	eh_reader_init(&r, d, d + sizeof d, 0, 8, false);
	CHECK_EQ_U64(eh_read_fixed(&r, 9), 0); /* wider than 8 */
	CHECK_EQ_U64(r.err, -EBADMSG);
	eh_reader_init(&r, d, d + sizeof d, 0, 8, false);
	eh_skip(&r, 9);
	CHECK(r.err == 0 && r.p == d + 9);
	eh_skip(&r, 1);
	CHECK(r.err == -EBADMSG && r.p == d + 9);
	eh_reader_init(&r, d, d + sizeof d, 0x1000, 8, false);
	CHECK_EQ_U64(eh_reader_addr(&r), 0x1000);
	eh_skip(&r, 3);
	CHECK_EQ_U64(eh_reader_addr(&r), 0x1003);
}

static void test_pointers(void)
{
	static const uint8_t p[8] = {0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	struct eh_bases all = {.valid = EH_BASE_PC | EH_BASE_TEXT | EH_BASE_DATA | EH_BASE_FUNC,
			       .text = 0x2000,
			       .data = 0x1000,
			       .func = 0x3000};
	struct {
		uint8_t enc;
		unsigned n; /* bytes consumed */
		uint64_t want;
		int rc;
	} cases[] = {
		{EH_PE_absptr, 8, 0xfffffffffffffffeull, 0},
		{EH_PE_udata2, 2, 0xfffe, 0},
		{EH_PE_udata4, 4, 0xfffffffe, 0},
		{EH_PE_udata8, 8, 0xfffffffffffffffeull, 0},
		{EH_PE_sdata2, 2, (uint64_t)-2, 0},
		{EH_PE_sdata4, 4, (uint64_t)-2, 0},
		{EH_PE_sdata8, 8, (uint64_t)-2, 0},
		{EH_PE_pcrel | EH_PE_sdata4, 4, 0x400000 - 2, 0},
		{EH_PE_datarel | EH_PE_sdata4, 4, 0x1000 - 2, 0},
		{EH_PE_textrel | EH_PE_sdata4, 4, 0x2000 - 2, 0},
		{EH_PE_funcrel | EH_PE_sdata4, 4, 0x3000 - 2, 0},
		{EH_PE_aligned | EH_PE_sdata4, 4, 0, -ENOTSUP},
		{0x60 | EH_PE_sdata4, 4, 0, -ENOTSUP},
		{EH_PE_indirect | EH_PE_pcrel | EH_PE_sdata4, 4, 0, -ENOTSUP},
		{0x05, 0, 0, -ENOTSUP},
		{EH_PE_omit, 0, 0, -ENOTSUP},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct eh_reader q;
		eh_reader_init(&q, p, p + 8, 0x400000, 8, false);
		uint64_t v = 0;
		int rc = eh_read_pointer(&q, cases[i].enc, &all, &v);
		CHECK_EQ_U64(rc, cases[i].rc);
		CHECK_EQ_U64(q.p - p, cases[i].n);
		if (!cases[i].rc)
			CHECK_EQ_U64(v, cases[i].want);
	}
	struct eh_reader q;
	uint64_t v;
	/* bounds: a udata8 with 7 bytes left */
	eh_reader_init(&q, p, p + 7, 0, 8, false);
	CHECK_EQ_U64(eh_read_pointer(&q, EH_PE_udata8, &all, &v), -EBADMSG);
	CHECK_EQ_U64(q.err, -EBADMSG);
	/* a base that is not valid, or no bases at all */
	uint8_t rel[] = {EH_PE_pcrel, EH_PE_textrel, EH_PE_datarel, EH_PE_funcrel};
	for (size_t i = 0; i < sizeof rel; i++) {
		struct eh_bases none = {.valid = 0, .text = 1, .data = 1, .func = 1};
		eh_reader_init(&q, p, p + 8, 0, 8, false);
		CHECK_EQ_U64(eh_read_pointer(&q, rel[i] | EH_PE_sdata4, &none, &v), -ENOTSUP);
		eh_reader_init(&q, p, p + 8, 0, 8, false);
		CHECK_EQ_U64(eh_read_pointer(&q, rel[i] | EH_PE_sdata4, NULL, &v), -ENOTSUP);
	}
	/* 32-bit objects: absptr is 4 bytes, results wrap to 32 bits */
	eh_reader_init(&q, p, p + 8, 0x10, 4, false);
	CHECK_EQ_U64(eh_read_pointer(&q, EH_PE_absptr, NULL, &v), 0);
	CHECK_EQ_U64(v, 0xfffffffe);
	CHECK_EQ_U64(q.p - p, 4);
	eh_reader_init(&q, p, p + 8, 0x10, 4, false);
	CHECK_EQ_U64(eh_read_pointer(&q, EH_PE_pcrel | EH_PE_sdata4, &all, &v), 0);
	CHECK_EQ_U64(v, 0xe);
	/* big-endian */
	static const uint8_t be[4] = {0xff, 0xff, 0xff, 0xf0};
	eh_reader_init(&q, be, be + 4, 0x100, 8, true);
	CHECK_EQ_U64(eh_read_pointer(&q, EH_PE_pcrel | EH_PE_sdata4, &all, &v), 0);
	CHECK_EQ_U64(v, 0xf0);
	/* uleb/sleb pointers */
	static const uint8_t l[] = {0x80, 0x01, 0x7e};
	eh_reader_init(&q, l, l + 3, 0, 8, false);
	CHECK_EQ_U64(eh_read_pointer(&q, EH_PE_uleb128, NULL, &v), 0);
	CHECK_EQ_U64(v, 128);
	CHECK_EQ_U64(eh_read_pointer(&q, EH_PE_sleb128, NULL, &v), 0);
	CHECK_EQ_U64(v, (uint64_t)-2);
}

/* A CIE body (after the id): version, aug, code 1, data -8, ra 16, then aug data and insns. */
struct body {
	uint8_t b[64];
	size_t n;
};

static void add(struct body *c, const void *p, size_t n)
{
	memcpy(c->b + c->n, p, n);
	c->n += n;
}

static struct body cie_body(unsigned version, const char *aug, const uint8_t *augdata, size_t augdata_n)
{
	struct body c = {.n = 0};
	c.b[c.n++] = (uint8_t)version;
	add(&c, aug, strlen(aug) + 1);
	if (version == 4)
		add(&c, (const uint8_t[]){8, 0}, 2);
	if (aug[0] == 'e' && aug[1] == 'h')
		add(&c, (const uint8_t[]){1, 2, 3, 4, 5, 6, 7, 8}, 8);
	add(&c, (const uint8_t[]){1, 0x78}, 2);
	c.b[c.n++] = 16;
	if (strchr(aug, 'z')) {
		c.b[c.n++] = (uint8_t)augdata_n;
		add(&c, augdata, augdata_n);
	}
	add(&c, (const uint8_t[]){0x0c, 7, 8, 0x90, 1}, 5); /* def_cfa rsp 8, offset r16 */
	return c;
}

/* Parse c from a heap copy of its first cut bytes. */
static int parse(const struct body *c, size_t cut, struct eh_cie *e)
{
	uint8_t *copy = malloc(cut ? cut : 1);
	memcpy(copy, c->b, cut);
	struct eh_reader r;
	eh_reader_init(&r, copy, copy + cut, 0x1000, 8, false);
	int rc = eh_cie_parse(&r, e);
	if (rc == 0) {
		CHECK(e->insn >= copy && e->insn <= e->insn_end && e->insn_end == copy + cut);
		e->insn = c->b + (e->insn - copy);
		e->insn_end = c->b + (e->insn_end - copy);
	}
	free(copy);
	return rc;
}

/* c parses whole; cut anywhere before its instructions it is -EBADMSG. */
static void check_cuts(const struct body *c, size_t insn_off)
{
	struct eh_cie e;
	for (size_t cut = 0; cut < insn_off; cut++)
		CHECK_EQ_U64(parse(c, cut, &e), -EBADMSG);
}

static void test_cie(void)
{
	struct eh_cie e;
	struct body c = cie_body(1, "zR", (const uint8_t[]){0x1b}, 1);
	CHECK_EQ_U64(parse(&c, c.n, &e), 0);
	CHECK(e.version == 1 && e.code_align == 1 && e.data_align == -8 && e.ra_reg == 16);
	CHECK(e.has_z && e.has_fde_enc && e.fde_enc == 0x1b && !e.signal && !e.aug_unknown && !e.eh_data);
	CHECK(e.lsda_enc == EH_PE_omit && e.personality_enc == EH_PE_omit && e.addr_size == 8);
	CHECK(e.insn == c.b + c.n - 5 && e.insn_end == c.b + c.n);
	check_cuts(&c, c.n - 5);

	/* zPLR: an indirect pcrel personality (skipped), LSDA and FDE encodings */
	const uint8_t plr[] = {0x9b, 0x34, 0x12, 0, 0, 0x1b, 0x1b};
	c = cie_body(1, "zPLR", plr, sizeof plr);
	CHECK_EQ_U64(parse(&c, c.n, &e), 0);
	CHECK(e.personality_enc == 0x9b && e.lsda_enc == 0x1b && e.fde_enc == 0x1b && e.has_fde_enc);
	CHECK(e.insn == c.b + c.n - 5);
	check_cuts(&c, c.n - 5);
	/* the augmentation data length shorter than what P needs */
	c = cie_body(1, "zPLR", plr, 3);
	CHECK_EQ_U64(parse(&c, c.n, &e), -EBADMSG);
	/* a personality with an unknown format */
	c = cie_body(1, "zP", (const uint8_t[]){0x05, 0}, 2);
	CHECK_EQ_U64(parse(&c, c.n, &e), -ENOTSUP);
	/* the length longer than the CIE */
	c = cie_body(1, "zR", (const uint8_t[]){0x1b}, 1);
	c.b[c.n - 7] = 60;
	CHECK_EQ_U64(parse(&c, c.n, &e), -EBADMSG);

	/* no augmentation; "S"; version 3 (uleb return register) */
	c = cie_body(3, "", NULL, 0);
	CHECK_EQ_U64(parse(&c, c.n, &e), 0);
	CHECK(e.version == 3 && !e.has_z && e.fde_enc == EH_PE_absptr && e.ra_reg == 16);
	check_cuts(&c, c.n - 5);
	c = cie_body(1, "S", NULL, 0);
	CHECK_EQ_U64(parse(&c, c.n, &e), 0);
	CHECK(e.signal);
	c = cie_body(1, "zRS", (const uint8_t[]){0x1b}, 1);
	CHECK_EQ_U64(parse(&c, c.n, &e), 0);
	CHECK(e.signal && e.fde_enc == 0x1b);

	/* "eh": old GCC's pointer to EH data, skipped */
	c = cie_body(1, "eh", NULL, 0);
	CHECK_EQ_U64(parse(&c, c.n, &e), 0);
	CHECK(e.eh_data && e.code_align == 1 && e.insn == c.b + c.n - 5);
	check_cuts(&c, c.n - 5);

	/* an unknown letter after z: stop there, the length finds the instructions */
	c = cie_body(1, "zRX", (const uint8_t[]){0x1b, 0xaa, 0xbb}, 3);
	CHECK_EQ_U64(parse(&c, c.n, &e), 0);
	CHECK(e.aug_unknown && e.has_fde_enc && e.fde_enc == 0x1b && e.insn == c.b + c.n - 5);
	c = cie_body(1, "zXR", (const uint8_t[]){0xaa, 0x1b}, 2);
	CHECK_EQ_U64(parse(&c, c.n, &e), 0);
	CHECK(e.aug_unknown && !e.has_fde_enc && e.fde_enc == EH_PE_absptr);
	/* without z, letters with data cannot be read */
	c = cie_body(1, "R", NULL, 0);
	CHECK_EQ_U64(parse(&c, c.n, &e), -ENOTSUP);
	c = cie_body(1, "X", NULL, 0);
	CHECK_EQ_U64(parse(&c, c.n, &e), -ENOTSUP);

	/* versions */
	c = cie_body(4, "zR", (const uint8_t[]){0x1b}, 1);
	CHECK_EQ_U64(parse(&c, c.n, &e), 0);
	CHECK(e.version == 4 && e.addr_size == 8);
	check_cuts(&c, c.n - 5);
	c.b[4] = 2; /* address size 2 */
	CHECK_EQ_U64(parse(&c, c.n, &e), -ENOTSUP);
	c.b[4] = 4;
	c.b[5] = 1; /* a segment selector */
	CHECK_EQ_U64(parse(&c, c.n, &e), -ENOTSUP);
	c = cie_body(2, "zR", (const uint8_t[]){0x1b}, 1);
	CHECK_EQ_U64(parse(&c, c.n, &e), -ENOTSUP);
	/* an augmentation string without its NUL */
	c = cie_body(1, "zR", (const uint8_t[]){0x1b}, 1);
	CHECK_EQ_U64(parse(&c, 3, &e), -EBADMSG);
}

int main(void)
{
	test_leb();
	test_fixed();
	test_pointers();
	test_cie();
	return check_done();
}
