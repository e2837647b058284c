/*
 * fuzz_elf - a load object as an experiment's archives/ may hold it, copied
 * from another machine: the input is an ELF file read for its functions
 * (analysis/symtab.h: symbols, aliases, .eh_frame_hdr FDE ranges, PLT
 * sections) and its lines and inlined calls (analysis/lines.h, libdw).
 * Debug files are looked for only under an empty directory, so nothing of
 * the machine's is read.  Checked: functions come sorted with distinct
 * addresses and a name each, and looking up a function's address finds it.
 * A violation calls abort().
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analysis/lines.h"
#include "analysis/symtab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void on_row(void *ctx, uint64_t addr, const struct line_loc *loc)
{
	(void)addr;
	if (!loc->file)
		abort();
	(*(size_t *)ctx)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64], root[64];
	if (fd < 0) {
		fd = memfd_create("fuzz_elf", MFD_CLOEXEC);
		snprintf(root, sizeof root, "/tmp/pa-fuzz-elf.XXXXXX");
		if (fd < 0 || !mkdtemp(root))
			abort();
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();

	struct symtab_options so = {.debug_root = root};
	struct symtab *st;
	uint64_t probe[4] = {0, 0x1000, 0x401000, UINT64_MAX};
	if (symtab_open(path, "00", &so, &st) == 0) {
		size_t n = symtab_count(st);
		const struct symtab_func *prev = NULL;
		for (size_t i = 0; i < n; i++) {
			const struct symtab_func *f = symtab_at(st, i);
			if (!f || !f->name || !f->mangled || (prev && prev->addr >= f->addr) ||
			    symtab_lookup(st, f->addr) != f)
				abort();
			prev = f;
			if (i < 4)
				probe[i] = f->addr + f->size / 2;
		}
		if (symtab_at(st, n))
			abort();
		for (int i = 0; i < 4; i++) {
			symtab_lookup(st, probe[i]);
			symtab_in_plt(st, probe[i]);
		}
		(void)symtab_build_id(st);
		(void)symtab_build_id_mismatch(st);
		symtab_free(st);
	}

	struct lines_options lo = {.debug_root = root};
	struct lines *l;
	if (lines_open(path, NULL, &lo, &l) == 0) {
		struct line_loc loc;
		struct line_inline in[8];
		size_t rows = 0;
		lines_rows(l, 0, UINT64_MAX, on_row, &rows);
		for (int i = 0; i < 4; i++) {
			if (lines_lookup(l, probe[i], &loc) == 1 && !loc.file)
				abort();
			size_t k = lines_inlines(l, probe[i], in, 8);
			for (size_t j = 0; j < k && j < 8; j++)
				if (!in[j].name || !in[j].mangled || !in[j].call.file)
					abort();
		}
		lines_free(l);
	}
	return 0;
}
