/*
 * gopcln_rows - print the collector's unwind rows for the Go code of a Go
 * executable (collector/gopcln.c on its .gopclntab, read from the file), so
 * a test can hold them against another reading of the same code (readelf's
 * of the linker's .debug_frame, in tests/e2e/unwind_go.sh).  A test tool.
 *
 *   gopcln_rows ELF
 *
 * Output: a line "# version=V nfunc=N top=N spwrite=N bad=N rc=R", then one
 * line per row: "LO HI KIND CFA_OFF" (hex run-time addresses: the file's
 * virtual addresses, so a non-PIE executable; KIND is sp, injected, outermost
 * or stop).  Exit status: 0; 1 if the file cannot be read or has no
 * .gopclntab (message on stderr); 2 on usage errors.
 */
#include "collector/cfi.h"
#include "collector/gopcln.h"

#include <errno.h>
#include <elf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct blocks {
	void *p[2]; /* gopcln_build allocates twice */
	int n;
};

static void *alloc(void *ctx, size_t bytes)
{
	struct blocks *k = ctx;
	if (k->n == 2)
		return NULL;
	return k->p[k->n++] = calloc(1, bytes ? bytes : 1);
}

static uint8_t *slurp(const char *path, size_t *ret_bytes)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	uint8_t *buf = NULL;
	size_t n = 0, cap = 0;
	for (;;) {
		if (n == cap) {
			cap = cap ? 2 * cap : 1 << 20;
			uint8_t *p = realloc(buf, cap);
			if (!p) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = p;
		}
		size_t k = fread(buf + n, 1, cap - n, f);
		if (k == 0)
			break;
		n += k;
	}
	fclose(f);
	*ret_bytes = n;
	return buf;
}

static const char *kind_name(uint8_t k)
{
	switch (k) {
	case CFI_CFA_SP: return "sp";
	case CFI_CFA_SP_INJECTED: return "injected";
	case CFI_OUTERMOST: return "outermost";
	case CFI_STOP: return "stop";
	default: return "other";
	}
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: gopcln_rows ELF\n");
		return 2;
	}
	size_t n;
	uint8_t *b = slurp(argv[1], &n);
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)(void *)b;
	if (!b || n < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shoff > n ||
	    (n - eh->e_shoff) / sizeof(Elf64_Shdr) < eh->e_shnum || eh->e_shstrndx >= eh->e_shnum ||
	    eh->e_phoff > n || (n - eh->e_phoff) / sizeof(Elf64_Phdr) < eh->e_phnum) {
		fprintf(stderr, "gopcln_rows: %s: not a readable 64-bit ELF file\n", argv[1]);
		free(b);
		return 1;
	}
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(void *)(b + eh->e_shoff);
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(void *)(b + eh->e_phoff);
	const Elf64_Shdr *ss = &sh[eh->e_shstrndx], *tab = NULL;
	for (unsigned i = 0; i < eh->e_shnum; i++)
		if (ss->sh_offset < n && sh[i].sh_name < n - ss->sh_offset &&
		    strcmp((const char *)b + ss->sh_offset + sh[i].sh_name, ".gopclntab") == 0)
			tab = &sh[i];
	if (!tab || tab->sh_offset > n || tab->sh_size > n - tab->sh_offset) {
		fprintf(stderr, "gopcln_rows: %s: no .gopclntab section\n", argv[1]);
		free(b);
		return 1;
	}
	uint64_t lo = UINT64_MAX, hi = 0;
	for (unsigned i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_X)) {
			lo = ph[i].p_vaddr < lo ? ph[i].p_vaddr : lo;
			hi = ph[i].p_vaddr + ph[i].p_memsz > hi ? ph[i].p_vaddr + ph[i].p_memsz : hi;
		}
	struct blocks k = {{NULL, NULL}, 0};
	struct cfi_alloc a = {alloc, &k};
	struct cfi_table t;
	struct gopcln_info gi;
	int rc = gopcln_build(b + tab->sh_offset, tab->sh_size, lo, hi, &a, &t, &gi);
	printf("# version=%u nfunc=%u top=%u spwrite=%u bad=%u rc=%d\n", gi.version, gi.nfunc, gi.top,
	       gi.spwrite, gi.bad, rc);
	for (uint32_t i = 0; i < t.nrows; i++) {
		uint64_t r_lo = t.lo + t.pc_off[i], r_hi = i + 1 < t.nrows ? t.lo + t.pc_off[i + 1] : t.hi;
		printf("%" PRIx64 " %" PRIx64 " %s %d\n", r_lo, r_hi, kind_name(t.rule[i].kind),
		       t.rule[i].cfa_off);
	}
	free(k.p[0]);
	free(k.p[1]);
	free(b);
	return 0;
}
