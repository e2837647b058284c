/*
 * test_cfi.c - the unwind-table builder (collector/cfi.h, linked from
 * libcollector-core.a).  Oracle: readelf
 * --debug-dump=frames-interp on libc, ld.so, /usr/bin/ls and fixtures built at
 * test time; every row start (and row end) of every FDE must look up to the
 * rule readelf's row implies.  Also synthetic CIE/FDE bytes, pointer
 * encodings, corrupt and mutated input under ASan, allocator failure.  Prints
 * the libc figures (FDEs, rows, bytes, build ms, lookup ns).
 */
#include "collector/cfi.h"

#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/dwarf_eh.h"
#include "tests/unit/check.h"

/* ------------------------------------------------------------ allocator */

struct talloc {
	void *p[4096];
	int n;
	int fail_at; /* fail the allocation with this index (0-based), -1: never */
	int calls;
};

static void *t_alloc(void *ctx, size_t bytes)
{
	struct talloc *t = ctx;
	if (t->calls++ == t->fail_at || t->n == (int)(sizeof t->p / sizeof t->p[0]))
		return NULL;
	void *p = aligned_alloc(16, (bytes + 15) & ~(size_t)15);
	if (!p)
		return NULL;
	memset(p, 0, bytes);
	t->p[t->n++] = p;
	return p;
}

static void t_free(struct talloc *t)
{
	for (int i = 0; i < t->n; i++)
		free(t->p[i]);
	t->n = 0;
	t->calls = 0;
}

/* Two rows with the same rule: the builder merges them (what cfi.c's rule_eq compares). */
static bool same_rule(struct cfi_rule a, struct cfi_rule b)
{
	return a.kind == b.kind && a.plt_threshold == b.plt_threshold && a.fp_off == b.fp_off &&
	       a.cfa_off == b.cfa_off;
}

/* A little-endian signed 32-bit field of an .eh_frame_hdr. */
static int32_t get_s32(const uint8_t *p)
{
	return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rng(void)
{
	return check_rand(&rng_state);
}

/* ------------------------------------------------------------ loading an ELF like the loader */

struct sec {
	uint64_t lo, hi;
};

struct img {
	uint8_t *base; /* reservation start */
	size_t bytes;
	uint64_t bias; /* run time = vaddr + bias */
	const uint8_t *hdr;
	size_t hdr_bytes;
	struct sec plt[4]; /* .plt, .plt.sec, .plt.got ranges (run time) */
	int nplt;
	uint64_t ehseg_lo, ehseg_hi; /* the PT_LOAD holding .eh_frame_hdr (run time) */
	const uint8_t *dbg;          /* .debug_frame, read from the file (malloc'd) */
	size_t dbg_bytes;
};

static int img_load(const char *path, struct img *m)
{
	memset(m, 0, sizeof *m);
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	struct stat st;
	Elf64_Ehdr eh;
	if (fstat(fd, &st) || pread(fd, &eh, sizeof eh, 0) != sizeof eh || eh.e_phnum > 64)
		goto bad;
	Elf64_Phdr ph[64];
	if (pread(fd, ph, sizeof(Elf64_Phdr) * eh.e_phnum, (off_t)eh.e_phoff) !=
	    (ssize_t)(sizeof(Elf64_Phdr) * eh.e_phnum))
		goto bad;
	uint64_t lo = UINT64_MAX, hi = 0, pg = 4096;
	for (int i = 0; i < eh.e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		lo = ph[i].p_vaddr < lo ? ph[i].p_vaddr : lo;
		hi = ph[i].p_vaddr + ph[i].p_memsz > hi ? ph[i].p_vaddr + ph[i].p_memsz : hi;
	}
	lo &= ~(pg - 1);
	hi = (hi + pg - 1) & ~(pg - 1);
	/* a readable reservation, so that corrupt pointers into holes read zeros */
	void *r = mmap(NULL, hi - lo, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r == MAP_FAILED)
		goto bad;
	m->base = r;
	m->bytes = hi - lo;
	m->bias = (uint64_t)(uintptr_t)r - lo;
	for (int i = 0; i < eh.e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD || !ph[i].p_filesz)
			continue;
		uint64_t a = ph[i].p_vaddr & ~(pg - 1), off = ph[i].p_offset & ~(pg - 1);
		size_t n = ph[i].p_vaddr + ph[i].p_filesz - a;
		if (mmap((void *)(uintptr_t)(a + m->bias), n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED,
			 fd, (off_t)off) == MAP_FAILED)
			goto bad;
	}
	for (int i = 0; i < eh.e_phnum; i++) {
		if (ph[i].p_type != PT_GNU_EH_FRAME)
			continue;
		m->hdr = (const uint8_t *)(uintptr_t)(ph[i].p_vaddr + m->bias);
		m->hdr_bytes = ph[i].p_memsz;
		for (int k = 0; k < eh.e_phnum; k++)
			if (ph[k].p_type == PT_LOAD && ph[k].p_vaddr <= ph[i].p_vaddr &&
			    ph[i].p_vaddr < ph[k].p_vaddr + ph[k].p_memsz) {
				m->ehseg_lo = ph[k].p_vaddr + m->bias;
				m->ehseg_hi = ph[k].p_vaddr + ph[k].p_memsz + m->bias;
			}
	}
	/* sections: .plt* ranges and .debug_frame */
	if (eh.e_shentsize == sizeof(Elf64_Shdr) && eh.e_shnum && eh.e_shnum < 4096 &&
	    eh.e_shstrndx < eh.e_shnum) {
		Elf64_Shdr *sh = calloc(eh.e_shnum, sizeof *sh);
		if (sh && pread(fd, sh, sizeof *sh * eh.e_shnum, (off_t)eh.e_shoff) ==
				  (ssize_t)(sizeof *sh * eh.e_shnum)) {
			size_t nb = sh[eh.e_shstrndx].sh_size;
			char *names = calloc(1, nb + 1);
			if (names &&
			    pread(fd, names, nb, (off_t)sh[eh.e_shstrndx].sh_offset) == (ssize_t)nb) {
				for (int i = 0; i < eh.e_shnum; i++) {
					if (sh[i].sh_name >= nb)
						continue;
					const char *s = names + sh[i].sh_name;
					if (!strncmp(s, ".plt", 4) && m->nplt < 4)
						m->plt[m->nplt++] =
							(struct sec){sh[i].sh_addr + m->bias,
								     sh[i].sh_addr + sh[i].sh_size + m->bias};
					if (!strcmp(s, ".debug_frame") &&
					    !(sh[i].sh_flags & SHF_COMPRESSED)) {
						uint8_t *d = malloc(sh[i].sh_size + 1);
						if (d &&
						    pread(fd, d, sh[i].sh_size, (off_t)sh[i].sh_offset) ==
							    (ssize_t)sh[i].sh_size) {
							m->dbg = d;
							m->dbg_bytes = sh[i].sh_size;
						} else {
							free(d);
						}
					}
				}
			}
			free(names);
		}
		free(sh);
	}
	close(fd);
	return 0;
bad:
	close(fd);
	return -1;
}

static void img_free(struct img *m)
{
	if (m->base)
		munmap(m->base, m->bytes);
	free((void *)m->dbg);
	memset(m, 0, sizeof *m);
}

/* ------------------------------------------------------------ the readelf oracle */

struct orow {
	uint64_t loc, end; /* vaddrs */
	char cfa[24], rbp[24], rbx[24], ra[24];
	int signal;
};

struct oracle {
	struct orow *row;
	size_t n, cap;
	size_t nfde;
};

struct ocie {
	unsigned long off;
	struct orow row;
};

static void o_push(struct oracle *o, const struct orow *r)
{
	if (o->n && o->row[o->n - 1].loc == r->loc && o->row[o->n - 1].end == r->end) {
		o->row[o->n - 1] = *r; /* two rows at one location: the later wins */
		return;
	}
	if (o->n == o->cap) {
		o->cap = o->cap ? 2 * o->cap : 1024;
		o->row = realloc(o->row, o->cap * sizeof *o->row);
	}
	o->row[o->n++] = *r;
}

/* Split a readelf row into columns; "r12 (r12)" is one column. */
static int split_cols(char *line, char **col, int max)
{
	int n = 0;
	for (char *t = strtok(line, " \t\n"); t; t = strtok(NULL, " \t\n")) {
		if (t[0] == '(' && n > 0)
			continue;
		if (n < max)
			col[n++] = t;
	}
	return n;
}

/* The rows of one section (".eh_frame" or ".debug_frame") of `path`. */
static int oracle_load(const char *path, const char *section, struct oracle *o)
{
	char cmd[600];
	snprintf(cmd, sizeof cmd, "readelf --debug-dump=frames-interp '%s' 2>/dev/null", path);
	FILE *f = popen(cmd, "r");
	if (!f)
		return -1;
	char want[64], line[1024];
	snprintf(want, sizeof want, "Contents of the %s section", section); /* then ":" or " (loaded from" */
	int in = 0, ncie = 0, cap_cie = 0;
	struct ocie *cies = NULL;
	enum { NONE, CIE, FDE } cur = NONE;
	struct orow fde = {0}, *cie_row = NULL;
	int got_rows = 0, cols_rbp = -1, cols_rbx = -1, cols_ra = -1;
	unsigned long fde_cie = 0;
	while (fgets(line, sizeof line, f)) {
		if (!strncmp(line, "Contents of the ", 16)) {
			in = !strncmp(line, want, strlen(want));
			continue;
		}
		if (!in)
			continue;
		unsigned long off, cieoff;
		unsigned long long a, b;
		char aug[64];
		if (cur == FDE && (line[0] == '\n' || strstr(line, " FDE ") || strstr(line, " CIE "))) {
			if (!got_rows) { /* no instructions: the CIE's row */
				for (int i = 0; i < ncie; i++)
					if (cies[i].off == fde_cie) {
						struct orow r = cies[i].row;
						r.loc = fde.loc;
						r.end = fde.end;
						o_push(o, &r);
					}
			}
			cur = NONE;
		}
		if (sscanf(line, "%lx %*x %*x FDE cie=%lx pc=%llx..%llx", &off, &cieoff, &a, &b) == 4) {
			cur = FDE;
			fde_cie = cieoff;
			memset(&fde, 0, sizeof fde);
			fde.loc = a;
			fde.end = b;
			for (int i = 0; i < ncie; i++)
				if (cies[i].off == cieoff)
					fde.signal = cies[i].row.signal;
			got_rows = 0;
			o->nfde++;
			continue;
		}
		if (sscanf(line, "%lx %*x %*x CIE \"%63[^\"]\"", &off, aug) >= 1 && strstr(line, " CIE ")) {
			if (!strstr(line, "CIE \"\""))
				sscanf(line, "%*x %*x %*x CIE \"%63[^\"]\"", aug);
			else
				aug[0] = 0;
			if (ncie == cap_cie) {
				cap_cie = cap_cie ? 2 * cap_cie : 64;
				cies = realloc(cies, cap_cie * sizeof *cies);
			}
			cies[ncie] = (struct ocie){off, {0}};
			cies[ncie].row.signal = strchr(aug, 'S') != NULL;
			strcpy(cies[ncie].row.rbp, "u");
			strcpy(cies[ncie].row.rbx, "u");
			strcpy(cies[ncie].row.ra, "u");
			strcpy(cies[ncie].row.cfa, "?");
			cie_row = &cies[ncie].row;
			ncie++;
			cur = CIE;
			continue;
		}
		char *col[32];
		if (strstr(line, "LOC") && strstr(line, "CFA")) {
			int n = split_cols(line, col, 32);
			cols_rbp = cols_rbx = cols_ra = -1;
			for (int i = 0; i < n; i++) {
				if (!strcmp(col[i], "rbp"))
					cols_rbp = i;
				if (!strcmp(col[i], "rbx"))
					cols_rbx = i;
				if (!strcmp(col[i], "ra"))
					cols_ra = i;
			}
			continue;
		}
		if (cur == NONE || !isxdigit((unsigned char)line[0]))
			continue;
		int n = split_cols(line, col, 32);
		if (n < 2)
			continue;
		struct orow r = cur == FDE ? fde : *cie_row;
		r.loc = strtoull(col[0], NULL, 16);
		snprintf(r.cfa, sizeof r.cfa, "%s", col[1]);
		snprintf(r.rbp, sizeof r.rbp, "%s", cols_rbp >= 0 && cols_rbp < n ? col[cols_rbp] : "u");
		snprintf(r.rbx, sizeof r.rbx, "%s", cols_rbx >= 0 && cols_rbx < n ? col[cols_rbx] : "u");
		snprintf(r.ra, sizeof r.ra, "%s", cols_ra >= 0 && cols_ra < n ? col[cols_ra] : "?");
		if (cur == CIE) {
			*cie_row = r;
			continue;
		}
		if (r.loc >= fde.end)
			continue;
		if (got_rows) /* the previous row ends here */
			o->row[o->n - 1].end = r.loc;
		r.end = fde.end;
		o_push(o, &r);
		got_rows = 1;
	}
	pclose(f);
	free(cies);
	return 0;
}

static bool in_plt(const struct img *m, uint64_t pc)
{
	for (int i = 0; i < m->nplt; i++)
		if (pc >= m->plt[i].lo && pc < m->plt[i].hi)
			return true;
	return false;
}

/* The rule readelf's row implies for us; *ret_any: PLT threshold unknown (10 or 11). */
static struct cfi_rule expect(const struct orow *r, bool plt)
{
	struct cfi_rule no = {.kind = CFI_NO_INFO};
	if (r->signal)
		return (struct cfi_rule){.kind = CFI_SIGNAL, .fp_off = CFI_FP_SAME};
	if (!strcmp(r->ra, "u"))
		return (struct cfi_rule){.kind = CFI_OUTERMOST, .fp_off = CFI_FP_SAME};
	if (strcmp(r->ra, "c-8"))
		return no;
	struct cfi_rule e = {.fp_off = CFI_FP_SAME};
	if (r->rbp[0] == 'c' && (r->rbp[1] == '-' || r->rbp[1] == '+')) {
		long v = strtol(r->rbp + 1, NULL, 10);
		if (v <= INT16_MIN || v > INT16_MAX)
			return no;
		e.fp_off = (int16_t)v;
	} else if (strcmp(r->rbp, "u") && strcmp(r->rbp, "s")) {
		return no;
	}
	if (!strncmp(r->cfa, "rsp+", 4) || !strncmp(r->cfa, "rbp+", 4) || !strncmp(r->cfa, "rbx+", 4)) {
		e.kind = r->cfa[2] == 'p' ? (r->cfa[1] == 's' ? CFI_CFA_SP : CFI_CFA_FP) : CFI_CFA_BX;
		e.cfa_off = (int32_t)strtol(r->cfa + 4, NULL, 10);
		/* %rbx: "c-N" saved N below the CFA (in 8-byte slots), "u"/"s" unchanged */
		if (r->rbx[0] == 'c' && r->rbx[1] == '-') {
			long v = strtol(r->rbx + 2, NULL, 10);
			e.bx_slot = v > 0 && v % 8 == 0 && v / 8 < 128 ? (int8_t)(-v / 8) : CFI_BX_UNKNOWN;
		} else if (strcmp(r->rbx, "u") && strcmp(r->rbx, "s")) {
			e.bx_slot = CFI_BX_UNKNOWN;
		}
		return e;
	}
	if (!strcmp(r->cfa, "exp") && plt) {
		e.kind = CFI_PLT;
		e.cfa_off = 8;
		return e;
	}
	return no;
}

/* Rows compare counted last: CFA from %rbx, and %rbx saved (both agreeing with readelf). */
static size_t bx_rows, bx_saved;

/* Compare every oracle row (its first and last byte) with the table. */
static size_t compare(const char *name, const struct img *m, uint64_t bias, const struct oracle *o,
		      const struct cfi_table *t, size_t *ret_noinfo, size_t *ret_plt)
{
	size_t bad = 0, noinfo = 0, plt = 0;
	bx_rows = bx_saved = 0;
	for (size_t i = 0; i < o->n; i++) {
		const struct orow *r = &o->row[i];
		uint64_t at[2] = {r->loc + bias, r->end - 1 + bias};
		struct cfi_rule e = expect(r, in_plt(m, r->loc + bias));
		noinfo += e.kind == CFI_NO_INFO;
		for (int k = 0; k < 2; k++) {
			const struct cfi_rule *g = cfi_lookup(t, at[k]);
			bool ok = g && g->kind == e.kind;
			if (ok && e.kind == CFI_PLT) {
				ok = g->plt_threshold == 10 || g->plt_threshold == 11;
				plt += k == 0;
			}
			if (ok && (e.kind == CFI_CFA_SP || e.kind == CFI_CFA_FP || e.kind == CFI_CFA_BX ||
				   e.kind == CFI_PLT))
				ok = g->cfa_off == e.cfa_off && g->fp_off == e.fp_off;
			if (ok && e.kind != CFI_PLT)
				ok = g->bx_slot == e.bx_slot;
			bx_rows += k == 0 && ok && e.kind == CFI_CFA_BX;
			bx_saved += k == 0 && ok && e.bx_slot != CFI_BX_SAME;
			if (!ok) {
				if (bad++ < 10)
					fprintf(stderr,
						"%s: row %#llx..%#llx (%s %s %s %s) at %#llx: got kind %d cfa %d fp %d "
						"bx %d, want kind %d cfa %d fp %d bx %d\n",
						name, (unsigned long long)r->loc, (unsigned long long)r->end,
						r->cfa, r->rbp, r->rbx, r->ra,
						(unsigned long long)(at[k] - bias), g ? g->kind : -1,
						g ? g->cfa_off : 0, g ? g->fp_off : 0, g ? g->bx_slot : 0,
						e.kind, e.cfa_off, e.fp_off, e.bx_slot);
			}
		}
	}
	*ret_noinfo = noinfo;
	*ret_plt = plt;
	return bad;
}

/* Structural invariants of any table, and lookups at every byte of [lo, lo + n). */
static void check_table(const struct cfi_table *t)
{
	if (!t->nrows) {
		CHECK(cfi_lookup(t, t->lo) == NULL);
		return;
	}
	CHECK(t->lo < t->hi);
	CHECK(t->pc_off[0] == 0);
	CHECK_EQ_U64(t->nblk, (t->hi - t->lo + 255) / 256);
	size_t unsorted = 0, merged = 0, blkbad = 0;
	for (uint32_t i = 1; i < t->nrows; i++) {
		unsorted += t->pc_off[i] <= t->pc_off[i - 1];
		merged += same_rule(t->rule[i], t->rule[i - 1]);
	}
	CHECK_EQ_U64(unsorted, 0);
	CHECK_EQ_U64(merged, 0);
	CHECK(t->lo + t->pc_off[t->nrows - 1] < t->hi);
	for (uint32_t b = 0; b < t->nblk; b++) {
		uint32_t k = t->blk[b];
		blkbad += !(k < t->nrows && t->pc_off[k] <= 256ull * b &&
			    (k + 1 == t->nrows || t->pc_off[k + 1] > 256ull * b));
	}
	CHECK_EQ_U64(blkbad, 0);
	CHECK(cfi_lookup(t, t->lo - 1) == NULL);
	CHECK(cfi_lookup(t, t->hi) == NULL);
	CHECK(cfi_lookup(t, t->hi - 1) == &t->rule[t->nrows - 1]);
}

/* Every byte of the first `nbytes` of the table vs a linear scan of the rows. */
static void check_every_byte(const struct cfi_table *t, uint64_t nbytes)
{
	size_t bad = 0;
	uint32_t k = 0;
	for (uint64_t off = 0; off < nbytes && off < t->hi - t->lo; off++) {
		while (k + 1 < t->nrows && t->pc_off[k + 1] <= off)
			k++;
		bad += cfi_lookup(t, t->lo + off) != &t->rule[k];
	}
	CHECK_EQ_U64(bad, 0);
}

/* ------------------------------------------------------------ real objects */

static void test_object(const char *path, bool figures)
{
	struct img m;
	if (img_load(path, &m)) {
		printf("# %s: cannot load, skipped\n", path);
		return;
	}
	CHECK(m.hdr != NULL);
	struct talloc *ta = calloc(1, sizeof *ta);
	ta->fail_at = -1;
	struct cfi_alloc a = {t_alloc, ta};
	struct cfi_table t;
	uint64_t t0 = now_ns();
	int rc = cfi_build_eh_frame_hdr(m.hdr, m.hdr_bytes, (uint64_t)(uintptr_t)m.base,
					(uint64_t)(uintptr_t)m.base + m.bytes, &a, &t);
	uint64_t dt = now_ns() - t0;
	CHECK_EQ_U64(rc, 0);
	check_table(&t);
	check_every_byte(&t, 64 * 1024);

	struct oracle o = {0};
	CHECK(oracle_load(path, ".eh_frame", &o) == 0);
	size_t noinfo = 0, plt = 0;
	size_t bad = compare(path, &m, m.bias, &o, &t, &noinfo, &plt);
	CHECK_EQ_U64(bad, 0);
	CHECK_EQ_U64(t.nfde + t.skipped, o.nfde);
	CHECK(t.unsupported <= 64);
	printf("# %s: %zu FDEs (readelf), %u used, %u skipped, %zu readelf rows checked, %u table rows, "
	       "%u unsupported rows (%zu readelf rows imply NO_INFO), %zu PLT rows, %zu bytes, build %.3f ms\n",
	       path, o.nfde, t.nfde, t.skipped, o.n, t.nrows, t.unsupported, noinfo, plt, t.bytes, dt / 1e6);
	printf("# %s: %zu rows with the CFA from %%rbx, %zu with %%rbx saved\n", path, bx_rows, bx_saved);
	CHECK(bx_saved > 0);
	if (strstr(path, "ld-linux")) /* _dl_runtime_resolve_{fxsave,xsave,xsavec} */
		CHECK(bx_rows >= 3);

	/* the linear walk (no search table) gives the same rows */
	{
		uint8_t *h = (uint8_t *)m.hdr;
		uint8_t save = h[3];
		h[3] = EH_PE_omit;
		struct cfi_table t2;
		CHECK_EQ_U64(cfi_build_eh_frame_hdr(m.hdr, m.hdr_bytes, (uint64_t)(uintptr_t)m.base,
						    (uint64_t)(uintptr_t)m.base + m.bytes, &a, &t2),
			     0);
		h[3] = save;
		CHECK_EQ_U64(t2.nrows, t.nrows);
		CHECK_EQ_U64(t2.lo, t.lo);
		CHECK_EQ_U64(t2.hi, t.hi);
		CHECK(t2.nrows == t.nrows && !memcmp(t2.pc_off, t.pc_off, 4 * (size_t)t.nrows) &&
		      !memcmp(t2.rule, t.rule, sizeof *t.rule * t.nrows));
	}
	/* bounds = only the segment holding .eh_frame_hdr (what a collector may pass) */
	{
		struct cfi_table t3;
		CHECK_EQ_U64(cfi_build_eh_frame_hdr(m.hdr, m.hdr_bytes, m.ehseg_lo, m.ehseg_hi, &a, &t3), 0);
		CHECK_EQ_U64(t3.nrows, t.nrows);
	}
	/* allocator failure */
	for (int k = 0; k < 3; k++) {
		struct talloc *tf = calloc(1, sizeof *tf);
		tf->fail_at = k == 2 ? 1 : 0;
		struct cfi_alloc af = {t_alloc, tf};
		struct cfi_table t4;
		uint8_t *h = (uint8_t *)m.hdr, save = h[3];
		if (k >= 1)
			h[3] = EH_PE_omit; /* linear: two allocations */
		rc = cfi_build_eh_frame_hdr(m.hdr, m.hdr_bytes, (uint64_t)(uintptr_t)m.base,
					    (uint64_t)(uintptr_t)m.base + m.bytes, &af, &t4);
		h[3] = save;
		CHECK_EQ_U64(rc, -ENOMEM);
		CHECK(t4.nrows == 0 && cfi_lookup(&t4, t.lo) == NULL);
		t_free(tf);
		free(tf);
	}

	if (figures) {
		uint64_t best = UINT64_MAX;
		for (int k = 0; k < 20; k++) {
			struct cfi_table tk;
			t_free(ta);
			t0 = now_ns();
			cfi_build_eh_frame_hdr(m.hdr, m.hdr_bytes, (uint64_t)(uintptr_t)m.base,
					       (uint64_t)(uintptr_t)m.base + m.bytes, &a, &tk);
			dt = now_ns() - t0;
			best = dt < best ? dt : best;
			t = tk;
		}
		enum { N = 1000000 };
		uint64_t *pcs = malloc(N * sizeof *pcs), sum = 0;
		for (int i = 0; i < N; i++)
			pcs[i] = t.lo + rng() % (t.hi - t.lo);
		t0 = now_ns();
		for (int i = 0; i < N; i++)
			sum += cfi_lookup(&t, pcs[i])->kind;
		dt = now_ns() - t0;
		free(pcs);
		printf("# FIGURES %s: %u FDEs, %u rows, %zu bytes (%.1f bytes/row), build %.3f ms (best of 20), "
		       "lookup %.1f ns (1e6 random PCs, checksum %llu)\n",
		       path, t.nfde, t.nrows, t.bytes, (double)t.bytes / t.nrows, best / 1e6, (double)dt / N,
		       (unsigned long long)sum);
	}
	free(o.row);
	t_free(ta);
	free(ta);
	img_free(&m);
}

/* .debug_frame of a file, at an arbitrary bias */
static void test_debug_frame(const char *path)
{
	struct img m;
	if (img_load(path, &m) || !m.dbg) {
		CHECK(!"no .debug_frame in the fixture");
		img_free(&m);
		return;
	}
	struct talloc *ta = calloc(1, sizeof *ta);
	ta->fail_at = -1;
	struct cfi_alloc a = {t_alloc, ta};
	struct cfi_table t;
	uint64_t bias = 0x7f0000000000ull;
	CHECK_EQ_U64(cfi_build_debug_frame(m.dbg, m.dbg_bytes, bias, &a, &t), 0);
	check_table(&t);
	struct oracle o = {0};
	CHECK(oracle_load(path, ".debug_frame", &o) == 0);
	CHECK(o.n > 10);
	size_t noinfo = 0, plt = 0;
	CHECK_EQ_U64(compare(path, &m, bias, &o, &t, &noinfo, &plt), 0);
	CHECK_EQ_U64(t.nfde, o.nfde);
	printf("# %s .debug_frame: %u FDEs, %zu readelf rows, %u table rows\n", path, t.nfde, o.n, t.nrows);
	/* truncated anywhere: an error or a table, never a crash */
	for (size_t cut = 0; cut < m.dbg_bytes; cut += 7) {
		struct cfi_table tc;
		int rc = cfi_build_debug_frame(m.dbg, cut, bias, &a, &tc);
		CHECK(rc == 0 || rc == -EBADMSG);
		if (tc.nrows)
			CHECK(tc.nrows <= t.nrows);
	}
	free(o.row);
	t_free(ta);
	free(ta);
	img_free(&m);
}

/* ------------------------------------------------------------ corrupt input */

static void fuzz_object(const char *path, int rounds)
{
	struct img m;
	if (img_load(path, &m)) {
		CHECK(!"cannot load");
		return;
	}
	struct talloc *ta = calloc(1, sizeof *ta);
	ta->fail_at = -1;
	struct cfi_alloc a = {t_alloc, ta};
	uint64_t lo = (uint64_t)(uintptr_t)m.base, hi = lo + m.bytes;
	uint8_t *h = (uint8_t *)m.hdr;
	struct cfi_table t;
	int rc;
	/* truncated header, wrong version, hdr_bytes too small for the table */
	CHECK_EQ_U64(cfi_build_eh_frame_hdr(m.hdr, 3, lo, hi, &a, &t), -EBADMSG);
	CHECK(cfi_lookup(&t, lo) == NULL);
	h[0] = 2;
	CHECK_EQ_U64(cfi_build_eh_frame_hdr(m.hdr, m.hdr_bytes, lo, hi, &a, &t), -EBADMSG);
	h[0] = 1;
	CHECK_EQ_U64(cfi_build_eh_frame_hdr(m.hdr, 12, lo, hi, &a, &t), 0); /* linear walk */
	uint32_t full = t.nrows;
	CHECK(full > 0);
	/* eh_frame_ptr outside the object */
	CHECK_EQ_U64(cfi_build_eh_frame_hdr(m.hdr, m.hdr_bytes, lo, (uint64_t)(uintptr_t)m.hdr + 8, &a, &t),
		     -EBADMSG);
	/* unsupported encodings */
	uint8_t save = h[1];
	h[1] = 0x1d; /* no such format */
	CHECK_EQ_U64(cfi_build_eh_frame_hdr(m.hdr, m.hdr_bytes, lo, hi, &a, &t), -ENOTSUP);
	h[1] = 0x9b; /* indirect */
	CHECK_EQ_U64(cfi_build_eh_frame_hdr(m.hdr, m.hdr_bytes, lo, hi, &a, &t), -ENOTSUP);
	h[1] = save;
	/* the first FDE's CIE pointer out of bounds, then its length past the end */
	int32_t ehp = get_s32(h + 4);
	uint8_t *eh = h + 4 + ehp;
	uint32_t cie_len;
	memcpy(&cie_len, eh, 4);
	uint8_t *fde = eh + 4 + cie_len;
	uint32_t v, old_ptr, old_len;
	memcpy(&old_ptr, fde + 4, 4);
	v = 0x7fffffff;
	memcpy(fde + 4, &v, 4);
	rc = cfi_build_eh_frame_hdr(m.hdr, m.hdr_bytes, lo, hi, &a, &t);
	CHECK_EQ_U64(rc, -EBADMSG);
	check_table(&t);
	CHECK(t.nrows > 0 && t.nrows <= full + 2);
	memcpy(fde + 4, &old_ptr, 4);
	memcpy(&old_len, fde, 4);
	v = 0x7ffffff0;
	memcpy(fde, &v, 4);
	rc = cfi_build_eh_frame_hdr(m.hdr, m.hdr_bytes, lo, hi, &a, &t);
	CHECK_EQ_U64(rc, -EBADMSG);
	check_table(&t);
	h[3] = EH_PE_omit; /* the linear walk stops there */
	rc = cfi_build_eh_frame_hdr(m.hdr, m.hdr_bytes, lo, hi, &a, &t);
	CHECK_EQ_U64(rc, -EBADMSG);
	h[3] = EH_PE_datarel | EH_PE_sdata4;
	memcpy(fde, &old_len, 4);
	/* unsorted table: the linear walk */
	if (get_s32(h + 12) > 0) {
		uint8_t tmp[8];
		memcpy(tmp, h + 12, 8);
		memcpy(h + 12, h + 20, 8);
		memcpy(h + 20, tmp, 8);
		CHECK_EQ_U64(cfi_build_eh_frame_hdr(m.hdr, m.hdr_bytes, lo, hi, &a, &t), 0);
		CHECK_EQ_U64(t.nrows, full);
		memcpy(h + 20, h + 12, 8);
		memcpy(h + 12, tmp, 8);
	}
	t_free(ta);

	/* random mutations of the header, the search table and .eh_frame */
	uint8_t *end = eh;
	{ /* find the terminator */
		uint32_t len;
		while ((uintptr_t)end + 4 <= hi && (memcpy(&len, end, 4), len != 0 && len != 0xffffffff))
			end += 4 + len;
		end += 4;
	}
	size_t span = (size_t)(end - h);
	uint8_t *copy = malloc(span);
	memcpy(copy, h, span);
	int errs = 0, oks = 0;
	for (int i = 0; i < rounds; i++) {
		int nmut = 1 + (int)(rng() % 8);
		for (int k = 0; k < nmut; k++) {
			size_t at = rng() % 4 ? (size_t)(eh - h) + rng() % (size_t)(end - eh) : rng() % span;
			h[at] = rng() % 3 ? (uint8_t)rng() : h[at] ^ (uint8_t)(1u << (rng() % 8));
		}
		rc = cfi_build_eh_frame_hdr(m.hdr, m.hdr_bytes, lo, hi, &a, &t);
		CHECK(rc == 0 || rc == -EBADMSG || rc == -ENOTSUP);
		if (rc == 0 || t.nrows)
			oks++;
		else
			errs++;
		check_table(&t);
		for (int k = 0; k < 200 && t.nrows; k++)
			(void)cfi_lookup(&t, t.lo + rng() % (t.hi - t.lo + 10));
		memcpy(h, copy, span);
		t_free(ta);
	}
	printf("# fuzz %s: %d rounds, %d gave a table, %d an empty table with an error\n", path, rounds, oks,
	       errs);
	free(copy);
	free(ta);
	img_free(&m);
}

/* ------------------------------------------------------------ synthetic bytes */

/* A little assembler for CIE/FDE bytes. */
struct asmb {
	uint8_t b[4096];
	size_t n;
};

static void put(struct asmb *a, const void *p, size_t n)
{
	memcpy(a->b + a->n, p, n);
	a->n += n;
}
static void put1(struct asmb *a, unsigned v)
{
	a->b[a->n++] = (uint8_t)v;
}
static void put4(struct asmb *a, uint32_t v)
{
	put(a, &v, 4);
}
static void put8(struct asmb *a, uint64_t v)
{
	put(a, &v, 8);
}
static void patch4(struct asmb *a, size_t at, uint32_t v)
{
	memcpy(a->b + at, &v, 4);
}

/* CIE at a->n with augmentation aug, "zR" data fde_enc; initial: def_cfa rsp 8, offset r16 at cfa-8 */
static size_t put_cie(struct asmb *a, const char *aug, bool ra_undef)
{
	size_t at = a->n;
	put4(a, 0);
	put4(a, 0); /* CIE id */
	put1(a, 1);
	put(a, aug, strlen(aug) + 1);
	put1(a, 1);    /* code align */
	put1(a, 0x78); /* data align -8 */
	put1(a, 16);
	if (aug[0] == 'z') {
		size_t lenat = a->n;
		put1(a, 0);
		for (const char *c = aug + 1; *c; c++) {
			if (*c == 'R')
				put1(a, EH_PE_pcrel | EH_PE_sdata4);
			if (*c == 'L')
				put1(a, EH_PE_pcrel | EH_PE_sdata4);
			if (*c == 'P') {
				put1(a, EH_PE_indirect | EH_PE_pcrel | EH_PE_sdata4);
				put4(a, 0x1234);
			}
		}
		a->b[lenat] = (uint8_t)(a->n - lenat - 1);
	}
	put(a, (const uint8_t[]){0x0c, 7, 8}, 3);
	if (ra_undef)
		put(a, (const uint8_t[]){0x07, 16}, 2);
	else
		put(a, (const uint8_t[]){0x90, 1}, 2);
	while ((a->n - at) % 8)
		put1(a, 0);
	patch4(a, at, (uint32_t)(a->n - at - 4));
	return at;
}

/* FDE for [pc, pc+len) (run time, pcrel from the field), with program prog */
static void put_fde(struct asmb *a, size_t cie, uint64_t pc, uint32_t len, const uint8_t *prog, size_t n,
		    bool z)
{
	size_t at = a->n;
	put4(a, 0);
	put4(a, (uint32_t)(a->n - cie));
	put4(a, (uint32_t)(pc - (uint64_t)(uintptr_t)(a->b + a->n)));
	put4(a, len);
	if (z)
		put1(a, 0);
	put(a, prog, n);
	while ((a->n - at) % 4)
		put1(a, 0);
	patch4(a, at, (uint32_t)(a->n - at - 4));
}

static const struct cfi_rule *look(const struct cfi_table *t, uint64_t pc)
{
	static const struct cfi_rule none = {.kind = 255};
	const struct cfi_rule *r = cfi_lookup(t, pc);
	return r ? r : &none;
}

static void test_synthetic(void)
{
	struct talloc *ta = calloc(1, sizeof *ta);
	ta->fail_at = -1;
	struct cfi_alloc al = {t_alloc, ta};
	static struct asmb a; /* [hdr: 12 bytes, no table][.eh_frame] */
	memset(&a, 0, sizeof a);
	put(&a, (const uint8_t[]){1, EH_PE_pcrel | EH_PE_sdata4, EH_PE_omit, EH_PE_omit}, 4);
	put4(&a, 8); /* eh_frame_ptr: the field + 8 = byte 12 */
	put4(&a, 0);
	uint64_t code = (uint64_t)(uintptr_t)a.b + 0x10000;
	size_t cie = put_cie(&a, "zR", false);
	/* f1 [code, +0x40): push rbp; mov rsp,rbp; remember; (epilogue) restore; args_size; unknown op */
	static const uint8_t p1[] = {
		0x41, 0x0e, 16,         /* advance 1; def_cfa_offset 16 */
		0x86, 2,                /* rbp at cfa-16 */
		0x43, 0x0d, 6,          /* advance 3; def_cfa_register rbp */
		0x44, 0x0a,             /* advance 4; remember_state */
		0x0c, 7,    8,          /* def_cfa rsp 8 */
		0xc6,                   /* restore rbp */
		0x41, 0x0b,             /* advance 1; restore_state */
		0x2e, 0x10,             /* GNU_args_size 16 */
		0x02, 0x08,             /* advance_loc1 8 */
		0x13, 0x7e,             /* def_cfa_offset_sf -2 * -8 = 16 */
		0x12, 7,    0x7d,       /* def_cfa_sf rsp, -3 * -8 = 24 */
		0x03, 4,    0,          /* advance_loc2 4 */
		0x2f, 6,    3,          /* GNU_negative_offset_extended rbp: -(3 * -8) = +24 */
		0x04, 4,    0,    0, 0, /* advance_loc4 4 */
		0x05, 6,    4,          /* offset_extended rbp -32 */
		0x11, 16,   1,          /* offset_extended_sf r16: 1 * -8 */
		0x41, 0x08, 6,          /* advance 1; same_value rbp */
		0x41, 0x3f,             /* advance 1; unknown opcode 0x3f: the rest is NO_INFO */
		0x41, 0x0e, 8,
	};
	put_fde(&a, cie, code, 0x40, p1, sizeof p1, true);
	/* f2 [code+0x50, +0x10): register rbp; then RA moved (unsupported); then val_offset rbp */
	static const uint8_t p2[] = {
		0x09, 6,    12,             /* rbp in r12 */
		0x42, 0x86, 2,              /* advance 2; rbp at cfa-16 */
		0x42, 0x90, 2,              /* advance 2; ra at cfa-16 */
		0x42, 0x90, 1,              /* advance 2; ra at cfa-8 */
		0x42, 0x14, 6,  2,          /* advance 2; val_offset rbp */
		0x42, 0x10, 6,  1,    0x06, /* advance 2; expression rbp (deref) */
		0x42, 0xc6,                 /* advance 2; restore rbp */
		0x10, 3,    1,  0x06,       /* expression on rbx: ignored */
	};
	put_fde(&a, cie, code + 0x50, 0x10, p2, sizeof p2, true);
	/* f3 overlaps f2: skipped */
	put_fde(&a, cie, code + 0x58, 0x10, (const uint8_t[]){0}, 1, true);
	/* f4 [code+0x100, +0x20): PLT expressions (lit11 then lit10), another expression */
	static const uint8_t p4[] = {
		0x0f, 11,   0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24,
		0x22, 0x48, 0x0f, 11,   0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a, 0x3a, 0x2a,
		0x33, 0x24, 0x22, 0x48, 0x0f, 11,   0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a,
		0x39, 0x2a, 0x33, 0x24, 0x22, 0x48, 0x0f, 2,    0x77, 0x10,
	};
	put_fde(&a, cie, code + 0x100, 0x20, p4, sizeof p4, true);
	/* f5 [code+0x200, +8): CFA in r10, then too many remember_states */
	static const uint8_t p5[] = {0x0d, 10,   0x42, 0x0d, 7,    0x42, 0x0a, 0x0a, 0x0a,
				     0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a,
				     0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0e, 16};
	put_fde(&a, cie, code + 0x200, 8, p5, sizeof p5, true);
	/* a signal CIE, an outermost CIE, an "eh" CIE, a 'zPLR' CIE */
	size_t cs = put_cie(&a, "zRS", false);
	put_fde(&a, cs, code + 0x300, 8, (const uint8_t[]){0x0e, 99}, 2, true);
	size_t co = put_cie(&a, "zR", true);
	put_fde(&a, co, code + 0x310, 8, (const uint8_t[]){0}, 1, true);
	size_t ce = put_cie(&a, "eh", false);
	put_fde(&a, ce, code + 0x320, 8, (const uint8_t[]){0}, 1, false);
	size_t cp = put_cie(&a, "zPLR", false);
	size_t fat = a.n;
	put_fde(&a, cp, code + 0x330, 8, (const uint8_t[]){0x00, 0x42, 0x0e, 32}, 4, true);
	/* the 'z' augmentation data of an FDE with an LSDA pointer: 4 bytes, skipped */
	(void)fat;
	put4(&a, 0); /* terminator */

	struct cfi_table t;
	uint64_t lo = (uint64_t)(uintptr_t)a.b, hi = lo + a.n;
	int rc = cfi_build_eh_frame_hdr(a.b, 12, lo, hi, &al, &t);
	CHECK_EQ_U64(rc, 0);
	check_table(&t);
	CHECK_EQ_U64(t.lo, code);
	CHECK_EQ_U64(t.hi, code + 0x338);
	CHECK_EQ_U64(t.nfde, 7);
	CHECK_EQ_U64(t.skipped, 2); /* the overlap and "eh" */
	check_every_byte(&t, t.hi - t.lo);
#define R(pc, k, cfa, fp)                                          \
	do {                                                       \
		const struct cfi_rule *r_ = look(&t, code + (pc)); \
		CHECK_EQ_U64(r_->kind, k);                         \
		if (k != CFI_NO_INFO) {                            \
			CHECK_EQ_U64(r_->cfa_off, cfa);            \
			CHECK_EQ_U64(r_->fp_off, fp);              \
		}                                                  \
	} while (0)
	int16_t S = CFI_FP_SAME;
	R(0, CFI_CFA_SP, 8, S);
	R(1, CFI_CFA_SP, 16, -16);
	R(4, CFI_CFA_FP, 16, -16);
	R(8, CFI_CFA_SP, 8, S);    /* remembered, then rsp+8 and rbp restored */
	R(9, CFI_CFA_FP, 16, -16); /* restore_state */
	R(17, CFI_CFA_SP, 24, -16);
	R(21, CFI_CFA_SP, 24, 24);
	CHECK_EQ_U64(look(&t, code + 25)->kind, CFI_CFA_SP);
	CHECK_EQ_U64((uint64_t)(int64_t)look(&t, code + 25)->fp_off, (uint64_t)-32);
	R(26, CFI_CFA_SP, 24, S);
	R(27, CFI_NO_INFO, 0, 0); /* the unknown opcode */
	R(0x3f, CFI_NO_INFO, 0, 0);
	R(0x40, CFI_NO_INFO, 0, 0); /* the gap */
	R(0x50, CFI_NO_INFO, 0, 0); /* rbp in a register */
	R(0x52, CFI_CFA_SP, 8, -16);
	R(0x54, CFI_NO_INFO, 0, 0); /* RA at cfa-16 */
	R(0x56, CFI_CFA_SP, 8, -16);
	R(0x58, CFI_NO_INFO, 0, 0); /* val_offset rbp */
	R(0x5a, CFI_NO_INFO, 0, 0); /* expression rbp */
	R(0x5c, CFI_CFA_SP, 8, S);  /* restored; the rbx expression is ignored */
	R(0x5f, CFI_CFA_SP, 8, S);
	R(0x60, CFI_NO_INFO, 0, 0); /* the skipped overlapping FDE: a gap */
	R(0x100, CFI_PLT, 8, S);
	CHECK_EQ_U64(look(&t, code + 0x100)->plt_threshold, 11);
	R(0x108, CFI_PLT, 8, S);
	CHECK_EQ_U64(look(&t, code + 0x108)->plt_threshold, 10);
	R(0x110, CFI_NO_INFO, 0, 0); /* lit9: not the PLT expression */
	R(0x118, CFI_NO_INFO, 0, 0);
	R(0x200, CFI_NO_INFO, 0, 0); /* r10 */
	R(0x202, CFI_CFA_SP, 8, S);
	R(0x204, CFI_NO_INFO, 0, 0); /* remember_state overflow */
	R(0x300, CFI_SIGNAL, 0, S);
	R(0x307, CFI_SIGNAL, 0, S);
	R(0x310, CFI_OUTERMOST, 0, S);
	R(0x320, CFI_NO_INFO, 0, 0); /* "eh": skipped */
	R(0x330, CFI_CFA_SP, 8, S);
	R(0x332, CFI_CFA_SP, 32, S);
	CHECK(cfi_lookup(&t, code + 0x338) == NULL);
	CHECK(cfi_lookup(&t, code - 1) == NULL);
	CHECK(t.unsupported >= 8);

	/* every truncation of the bytes: an error or a table */
	for (size_t cut = 12; cut < a.n; cut++) {
		rc = cfi_build_eh_frame_hdr(a.b, 12, lo, lo + cut, &al, &t);
		CHECK(rc == 0 || rc == -EBADMSG);
		check_table(&t);
	}
	t_free(ta);

	/* .debug_frame: 64-bit DWARF CIE (version 4, address size 8) and 32-bit FDEs pointing at it */
	static struct asmb d;
	memset(&d, 0, sizeof d);
	put4(&d, 0xffffffff);
	size_t lenat = d.n;
	put8(&d, 0);
	put8(&d, ~0ull);
	put1(&d, 4);
	put1(&d, 0); /* "" */
	put1(&d, 8);
	put1(&d, 0);
	put1(&d, 1);
	put1(&d, 0x78);
	put1(&d, 16);
	put(&d, (const uint8_t[]){0x0c, 7, 8, 0x90, 1}, 5);
	uint64_t l64 = d.n - lenat - 8;
	memcpy(d.b + lenat, &l64, 8);
	size_t f = d.n;
	put4(&d, 0);
	put4(&d, 0); /* CIE at offset 0 */
	put8(&d, 0x1000);
	put8(&d, 0x20);
	put(&d, (const uint8_t[]){0x44, 0x0e, 16, 0x86, 2}, 5);
	patch4(&d, f, (uint32_t)(d.n - f - 4));
	f = d.n; /* a 32-bit CIE, version 3 (ULEB return register) */
	put4(&d, 0);
	put4(&d, 0xffffffff);
	put1(&d, 3);
	put1(&d, 0);
	put1(&d, 1);
	put1(&d, 0x78);
	put1(&d, 16);
	put(&d, (const uint8_t[]){0x0c, 6, 16, 0x90, 1, 0x86, 2}, 7);
	patch4(&d, f, (uint32_t)(d.n - f - 4));
	size_t c3 = f;
	f = d.n;
	put4(&d, 0);
	put4(&d, (uint32_t)c3);
	put8(&d, 0x800);
	put8(&d, 0x10);
	patch4(&d, f, (uint32_t)(d.n - f - 4));
	rc = cfi_build_debug_frame(d.b, d.n, 0x5000, &al, &t);
	CHECK_EQ_U64(rc, 0);
	check_table(&t);
	CHECK_EQ_U64(t.lo, 0x5800);
	CHECK_EQ_U64(t.hi, 0x6020);
	CHECK_EQ_U64(look(&t, 0x5800)->kind, CFI_CFA_FP);
	CHECK_EQ_U64(look(&t, 0x5810)->kind, CFI_NO_INFO);
	CHECK_EQ_U64(look(&t, 0x6003)->cfa_off, 8);
	CHECK_EQ_U64(look(&t, 0x6004)->cfa_off, 16);
	CHECK_EQ_U64((uint64_t)(int64_t)look(&t, 0x6004)->fp_off, (uint64_t)-16);
	/* a CIE pointer past the end */
	patch4(&d, f + 4, 0x10000);
	rc = cfi_build_debug_frame(d.b, d.n, 0x5000, &al, &t);
	CHECK_EQ_U64(rc, -EBADMSG);
	CHECK_EQ_U64(t.nfde, 1);
	t_free(ta);
	free(ta);
}

/* ------------------------------------------------------------ fixtures */

static int sh(const char *cmd)
{
	int rc = system(cmd);
	if (rc)
		fprintf(stderr, "failed (%d): %s\n", rc, cmd);
	return rc;
}

int main(void)
{
	test_synthetic();

	const char *libc = "/lib/x86_64-linux-gnu/libc.so.6";
	test_object(libc, true);
	test_object("/lib64/ld-linux-x86-64.so.2", false);
	test_object("/usr/bin/ls", false);

	const char *top = getenv("PA_TOP") ? getenv("PA_TOP") : ".";
	char dir[] = "/tmp/test_cfi.XXXXXX", cmd[2048], out[600];
	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return check_done();
	}
	static const char *variants[][2] = {
		{"o2", "-O2"},
		{"fp", "-O2 -fno-omit-frame-pointer"},
		{"o0", "-O0"},
	};
	for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
		snprintf(out, sizeof out, "%s/cfi_%s", dir, variants[i][0]);
		snprintf(
			cmd, sizeof cmd,
			"gcc %s -DCFI_WITH_ASM -o %s %s/tests/fixtures/cfi_prog.c %s/tests/fixtures/cfi_asm.S",
			variants[i][1], out, top, top);
		if (sh(cmd) == 0)
			test_object(out, false);
		else
			CHECK(!"fixture build");
	}
	snprintf(out, sizeof out, "%s/cfi_dbg", dir);
	snprintf(cmd, sizeof cmd,
		 "gcc -O2 -g -fno-asynchronous-unwind-tables -o %s %s/tests/fixtures/cfi_prog.c", out, top);
	if (sh(cmd) == 0)
		test_debug_frame(out);
	else
		CHECK(!"fixture build");

	snprintf(out, sizeof out, "%s/cfi_o2", dir);
	fuzz_object(out, 1500);
	fuzz_object(libc, 500);

	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	sh(cmd);
	return check_done();
}
