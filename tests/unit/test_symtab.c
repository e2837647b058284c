/*
 * test_symtab.c - the symbolizer's function tables on real objects built at
 * test time from tests/fixtures/sym_*.{c,cc} (plain, C++, stripped, with a
 * separate debug file by build-id and by debuglink), on the system's libc and
 * the process's vDSO, and on corrupt files.  Expected addresses come from nm,
 * not from the code under test.  Timing figures are printed, never asserted.
 */
#include "analysis/symtab.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tests/unit/check.h"
#include "tests/unit/fixture.h"

static char tmp[64];
static char fixtures[1024];

/* Address and size of `name` per `nm -S` on `file` (0 if absent). */
static uint64_t nm_sym(const char *file, const char *name, uint64_t *ret_size)
{
	char cmd[4096], line[8192];
	snprintf(cmd, sizeof(cmd), "nm -S --defined-only '%s' 2>/dev/null", file);
	FILE *p = popen(cmd, "r");
	uint64_t addr = 0;
	if (ret_size)
		*ret_size = 0;
	if (!p)
		return 0;
	while (fgets(line, sizeof(line), p)) {
		unsigned long long a, s = 0;
		char t, nm[4096];
		if (sscanf(line, "%llx %llx %c %4095s", &a, &s, &t, nm) != 4) {
			s = 0;
			if (sscanf(line, "%llx %c %4095s", &a, &t, nm) != 3)
				continue;
		}
		if (strcmp(nm, name) == 0) {
			addr = a;
			if (ret_size)
				*ret_size = s;
			break;
		}
	}
	pclose(p);
	return addr;
}

static const char *lookup_name(const struct symtab *st, uint64_t vaddr)
{
	const struct symtab_func *f = symtab_lookup(st, vaddr);
	return f ? f->name : "(none)";
}

static void check_sorted(const struct symtab *st)
{
	size_t n = symtab_count(st), bad = 0;
	for (size_t i = 1; i < n; i++)
		bad += symtab_at(st, i - 1)->addr >= symtab_at(st, i)->addr;
	CHECK_EQ_U64(bad, 0);
	CHECK(symtab_at(st, n) == NULL);
}

/* ------------------------------------------------------------------ C program */

static const char *const prog_funcs[] = {"main", "sym_static_helper", "sym_global_work", "sym_public",
					 "sym_weak2"};

static void test_prog(const char *prog)
{
	struct symtab *st = NULL;
	int rc = symtab_open(prog, NULL, NULL, &st);
	CHECK_EQ_U64(rc, 0);
	if (rc)
		return;
	CHECK(symtab_source(st) == SYMTAB_SOURCE_SYMTAB);
	CHECK_EQ_STR(symtab_symbol_file(st), prog);
	CHECK_EQ_STR(symtab_path(st), prog);
	CHECK_EQ_U64(strlen(symtab_build_id(st)), 40);
	CHECK(!symtab_build_id_mismatch(st));
	check_sorted(st);

	/* Start, middle, last byte, one past the end. */
	for (size_t i = 0; i < sizeof(prog_funcs) / sizeof(prog_funcs[0]); i++) {
		uint64_t size, a = nm_sym(prog, prog_funcs[i], &size);
		CHECK(a != 0 && size > 1);
		const struct symtab_func *f = symtab_lookup(st, a);
		CHECK(f != NULL);
		if (!f)
			continue;
		CHECK_EQ_STR(f->name, prog_funcs[i]);
		CHECK_EQ_STR(f->mangled, prog_funcs[i]);
		CHECK_EQ_U64(f->addr, a);
		CHECK_EQ_U64(f->size, size);
		CHECK(!f->synthesized);
		CHECK(symtab_lookup(st, a + size / 2) == f);
		CHECK(symtab_lookup(st, a + size - 1) == f);
		CHECK(symtab_lookup(st, a + size) != f);
		CHECK(symtab_lookup(st, a - 1) != f);
	}
	/* Alias groups: global beats weak and local, fewer underscores beat global. */
	CHECK_EQ_STR(lookup_name(st, nm_sym(prog, "__sym_impl", NULL)), "sym_public");
	CHECK_EQ_STR(lookup_name(st, nm_sym(prog, "sym_local_alias", NULL)), "sym_public");
	CHECK_EQ_STR(lookup_name(st, nm_sym(prog, "_sym_impl2", NULL)), "sym_weak2");

	/* A sizeless symbol extends to the next one. */
	uint64_t ns = nm_sym(prog, "sym_nosize", NULL), na = nm_sym(prog, "sym_after_nosize", NULL);
	CHECK(ns && na > ns);
	const struct symtab_func *f = symtab_lookup(st, ns + 2);
	CHECK(f && f->addr == ns && f->size == na - ns);
	CHECK_EQ_STR(lookup_name(st, ns + 2), "sym_nosize");
	CHECK_EQ_STR(lookup_name(st, na), "sym_after_nosize");

	CHECK(symtab_lookup(st, 0) == NULL);
	CHECK(symtab_lookup(st, UINT64_MAX) == NULL);
	CHECK(symtab_lookup(NULL, 0x1000) == NULL);

	/* Build-id check: lowercase or uppercase hex matches, anything else does not. */
	char want[128];
	snprintf(want, sizeof(want), "%s", symtab_build_id(st));
	for (char *p = want; *p; p++)
		if (*p >= 'a' && *p <= 'f')
			*p = (char)(*p - 'a' + 'A');
	struct symtab *st2 = NULL;
	CHECK_EQ_U64(symtab_open(prog, want, NULL, &st2), 0);
	CHECK(st2 && !symtab_build_id_mismatch(st2));
	symtab_free(st2);
	st2 = NULL;
	CHECK_EQ_U64(symtab_open(prog, "00112233445566778899aabbccddeeff00112233", NULL, &st2), 0);
	CHECK(st2 && symtab_build_id_mismatch(st2));
	CHECK(st2 && symtab_count(st2) == symtab_count(st));
	symtab_free(st2);
	symtab_free(st);
}

/* ------------------------------------------------------------------ C++ */

static void test_cxx(const char *prog)
{
	static const char *const cases[][2] = {
		{"_ZN2ns5Klass6methodEi", "ns::Klass::method(int)"},
		{"_ZN2ns5Klass7smethodEd", "ns::Klass::smethod(double)"},
		{"_ZN2ns5twiceIiEET_S1_", "int ns::twice<int>(int)"},
		{"_ZN2ns5twiceIlEET_S1_", "long ns::twice<long>(long)"},
		{"sym_cxx_plain_c", "sym_cxx_plain_c"},
	};
	struct symtab *st = NULL;
	int rc = symtab_open(prog, NULL, NULL, &st);
	CHECK_EQ_U64(rc, 0);
	if (rc)
		return;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t size, a = nm_sym(prog, cases[i][0], &size);
		CHECK(a != 0);
		const struct symtab_func *f = symtab_lookup(st, a + size - 1);
		CHECK(f != NULL);
		if (!f)
			continue;
		CHECK_EQ_STR(f->name, cases[i][1]);
		CHECK_EQ_STR(f->mangled, cases[i][0]);
	}
	symtab_free(st);
}

/* ------------------------------------------------------------------ stripped */

/* Every fixture function of `full` resolves in `stripped` to a synthesized
 * function with the same start and size (its FDE). */
static void check_synthesized_like(const char *full, const char *stripped)
{
	struct symtab *st = NULL;
	int rc = symtab_open(stripped, NULL, NULL, &st);
	CHECK_EQ_U64(rc, 0);
	if (rc)
		return;
	CHECK(symtab_source(st) != SYMTAB_SOURCE_SYMTAB);
	check_sorted(st);
	for (size_t i = 0; i < sizeof(prog_funcs) / sizeof(prog_funcs[0]); i++) {
		uint64_t size, a = nm_sym(full, prog_funcs[i], &size);
		const struct symtab_func *f = symtab_lookup(st, a);
		CHECK(f != NULL);
		if (!f)
			continue;
		char want[64];
		snprintf(want, sizeof(want), "<static>@0x%" PRIx64, a);
		CHECK_EQ_STR(f->name, want);
		CHECK_EQ_STR(f->mangled, "");
		CHECK(f->synthesized);
		CHECK_EQ_U64(f->addr, a);
		CHECK_EQ_U64(f->size, size);
		CHECK(symtab_lookup(st, a + size - 1) == f);
		CHECK(symtab_lookup(st, a + size) != f);
	}
	symtab_free(st);
}

/* ------------------------------------------------------------------ debug files */

static void test_debug_build_id(const char *prog)
{
	char dbg[256], bin[256], root[256], path[512];
	snprintf(dbg, sizeof(dbg), "%s/prog.debug", tmp);
	snprintf(bin, sizeof(bin), "%s/bid/prog", tmp);
	snprintf(root, sizeof(root), "%s/debugroot", tmp);
	if (sh("mkdir -p %s/bid && objcopy --only-keep-debug %s %s && "
	       "objcopy --strip-all --add-gnu-debuglink=%s %s %s",
	       tmp, prog, dbg, dbg, prog, bin)) {
		CHECK(!"objcopy failed");
		return;
	}
	struct symtab *st = NULL;
	CHECK_EQ_U64(symtab_open(prog, NULL, NULL, &st), 0);
	const char *id = st ? symtab_build_id(st) : "";
	snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s.debug", root, id, id + 2);
	CHECK(sh("mkdir -p %s/.build-id/%.2s && mv %s %s", root, id, dbg, path) == 0);
	symtab_free(st);

	/* Through debug_root/.build-id: real names. */
	struct symtab_options opt = {.debug_root = root};
	st = NULL;
	CHECK_EQ_U64(symtab_open(bin, NULL, &opt, &st), 0);
	if (st) {
		CHECK(symtab_source(st) == SYMTAB_SOURCE_SYMTAB);
		CHECK_EQ_STR(symtab_symbol_file(st), path);
		CHECK_EQ_STR(symtab_path(st), bin);
		for (size_t i = 0; i < sizeof(prog_funcs) / sizeof(prog_funcs[0]); i++) {
			uint64_t size, a = nm_sym(prog, prog_funcs[i], &size);
			CHECK_EQ_STR(lookup_name(st, a + size - 1), prog_funcs[i]);
		}
		CHECK_EQ_STR(lookup_name(st, nm_sym(prog, "_sym_impl2", NULL)), "sym_weak2");
	}
	symtab_free(st);

	/* Without the debug file: synthesized names from .eh_frame_hdr. */
	char empty[256];
	snprintf(empty, sizeof(empty), "%s/emptyroot", tmp);
	opt.debug_root = empty;
	st = NULL;
	CHECK_EQ_U64(symtab_open(bin, NULL, &opt, &st), 0);
	if (st) {
		CHECK_EQ_STR(symtab_symbol_file(st), bin);
		const struct symtab_func *f = symtab_lookup(st, nm_sym(prog, "main", NULL));
		CHECK(f && f->synthesized);
	}
	symtab_free(st);
}

static void test_debuglink(void)
{
	char src[4096], prog[256];
	snprintf(src, sizeof(src), "%s/sym_prog.c", fixtures);
	snprintf(prog, sizeof(prog), "%s/nobid", tmp);
	if (sh("cc -O1 -Wl,--build-id=none -o %s %s && objcopy --only-keep-debug %s %s.debug && "
	       "mkdir -p %s/dl1/.debug %s/dl2 %s/dl3 && "
	       "objcopy --strip-all --add-gnu-debuglink=%s.debug %s %s/stripped && "
	       "cp %s/stripped %s/dl1/nobid && cp %s.debug %s/dl1/.debug/nobid.debug && "
	       "cp %s/stripped %s/dl2/nobid && "
	       "cp %s/stripped %s/dl3/nobid && mkdir -p %s/root3%s/dl3 && cp %s.debug %s/root3%s/dl3/",
	       prog, src, prog, prog, tmp, tmp, tmp, prog, prog, tmp, tmp, tmp, prog, tmp, tmp, tmp, tmp, tmp,
	       tmp, tmp, prog, tmp, tmp)) {
		CHECK(!"building the debuglink fixtures failed");
		return;
	}
	/* dl2: a debug file with the right name but the wrong CRC (another program's). */
	CHECK(sh("objcopy --only-keep-debug %s/cxx %s/dl2/nobid.debug", tmp, tmp) == 0);

	char bin[256], want[512], root[256];
	struct symtab_options opt = {.debug_root = "/nonexistent"};
	uint64_t size, main_addr = nm_sym(prog, "main", &size);
	CHECK(main_addr != 0);

	/* <dir>/.debug/<name> */
	snprintf(bin, sizeof(bin), "%s/dl1/nobid", tmp);
	snprintf(want, sizeof(want), "%s/dl1/.debug/nobid.debug", tmp);
	struct symtab *st = NULL;
	CHECK_EQ_U64(symtab_open(bin, "abcd", &opt, &st), 0);
	if (st) {
		CHECK_EQ_STR(symtab_build_id(st), "");
		CHECK(symtab_build_id_mismatch(st));
		CHECK_EQ_STR(symtab_symbol_file(st), want);
		CHECK_EQ_STR(lookup_name(st, main_addr + size - 1), "main");
		CHECK_EQ_STR(lookup_name(st, nm_sym(prog, "sym_static_helper", NULL)), "sym_static_helper");
	}
	symtab_free(st);

	/* CRC mismatch: the candidate is rejected. */
	snprintf(bin, sizeof(bin), "%s/dl2/nobid", tmp);
	st = NULL;
	CHECK_EQ_U64(symtab_open(bin, NULL, &opt, &st), 0);
	if (st) {
		CHECK_EQ_STR(symtab_symbol_file(st), bin);
		const struct symtab_func *f = symtab_lookup(st, main_addr);
		CHECK(f && f->synthesized && f->addr == main_addr);
	}
	symtab_free(st);

	/* <debug_root><dir>/<name> */
	snprintf(bin, sizeof(bin), "%s/dl3/nobid", tmp);
	snprintf(root, sizeof(root), "%s/root3", tmp);
	snprintf(want, sizeof(want), "%s/root3%s/dl3/nobid.debug", tmp, tmp);
	opt.debug_root = root;
	st = NULL;
	CHECK_EQ_U64(symtab_open(bin, NULL, &opt, &st), 0);
	if (st) {
		CHECK_EQ_STR(symtab_symbol_file(st), want);
		CHECK_EQ_STR(lookup_name(st, main_addr), "main");
	}
	symtab_free(st);
}

/* ------------------------------------------------------------------ libc */

static void test_libc(void)
{
	const char *libc = "/lib/x86_64-linux-gnu/libc.so.6";
	if (!exists(libc)) {
		printf("note: %s not found, libc checks skipped\n", libc);
		return;
	}
	uint64_t malloc_addr = 0, puts_addr = 0;
	{
		char cmd[512], line[1024];
		snprintf(cmd, sizeof(cmd), "nm -D --defined-only %s", libc);
		FILE *p = popen(cmd, "r");
		while (p && fgets(line, sizeof(line), p)) {
			unsigned long long a;
			char t, nm[512];
			if (sscanf(line, "%llx %c %511s", &a, &t, nm) != 3)
				continue;
			nm[strcspn(nm, "@")] = '\0'; /* malloc@@GLIBC_2.2.5 */
			if (strcmp(nm, "malloc") == 0)
				malloc_addr = a;
			if (strcmp(nm, "puts") == 0)
				puts_addr = a;
		}
		if (p)
			pclose(p);
	}
	CHECK(malloc_addr && puts_addr);

	/* .dynsym only. */
	struct symtab_options opt = {.debug_root = "/nonexistent"};
	struct symtab *st = NULL;
	CHECK_EQ_U64(symtab_open(libc, NULL, &opt, &st), 0);
	if (st) {
		CHECK(symtab_source(st) == SYMTAB_SOURCE_DYNSYM);
		CHECK_EQ_STR(lookup_name(st, malloc_addr), "malloc");
		CHECK_EQ_STR(lookup_name(st, malloc_addr + 16), "malloc");
		CHECK_EQ_STR(lookup_name(st, puts_addr), "puts");
		check_sorted(st);
		size_t synth = 0;
		for (size_t i = 0; i < symtab_count(st); i++)
			synth += symtab_at(st, i)->synthesized;
		printf("libc .dynsym only: %zu functions, %zu synthesized from .eh_frame_hdr\n",
		       symtab_count(st), synth);
		CHECK(synth > 0);
	}
	struct symtab *dyn = st;

	/* Default debug root: libc6-dbg's file if installed. */
	st = NULL;
	CHECK_EQ_U64(symtab_open(libc, NULL, NULL, &st), 0);
	if (!st) {
		symtab_free(dyn);
		return;
	}
	CHECK_EQ_STR(lookup_name(st, malloc_addr), "malloc");
	CHECK_EQ_STR(lookup_name(st, puts_addr), "puts");
	char dbg[512];
	const char *id = symtab_build_id(st);
	snprintf(dbg, sizeof(dbg), "/usr/lib/debug/.build-id/%.2s/%s.debug", id, id + 2);
	if (strlen(id) > 2 && exists(dbg)) {
		CHECK_EQ_STR(symtab_symbol_file(st), dbg);
		CHECK(symtab_source(st) == SYMTAB_SOURCE_SYMTAB);
		uint64_t size, a = nm_sym(dbg, "__libc_start_call_main", &size);
		CHECK(a != 0);
		CHECK_EQ_STR(lookup_name(st, a + size / 2), "__libc_start_call_main");
		/* The FDE starts synthesized without the debug file are function
		 * starts per the debug file's .symtab (a few asm functions have
		 * several FDEs). */
		size_t synth = 0, match = 0;
		for (size_t i = 0; dyn && i < symtab_count(dyn); i++) {
			const struct symtab_func *f = symtab_at(dyn, i);
			if (!f->synthesized)
				continue;
			synth++;
			const struct symtab_func *g = symtab_lookup(st, f->addr);
			match += g && !g->synthesized && g->addr == f->addr && g->size == f->size;
		}
		printf("libc: %zu of %zu synthesized functions match the debug file's symbols\n", match,
		       synth);
		CHECK(synth > 0 && match * 100 >= synth * 95);
	} else {
		printf("note: %s not installed (libc6-dbg): __libc_start_call_main not checked\n", dbg);
	}
	size_t synth = 0;
	for (size_t i = 0; i < symtab_count(st); i++)
		synth += symtab_at(st, i)->synthesized;
	printf("libc via %s: %zu functions, %zu synthesized\n", symtab_symbol_file(st), symtab_count(st),
	       synth);

	/* Timing (printed only). */
	const int opens = 20;
	double t0 = now_s();
	for (int i = 0; i < opens; i++) {
		struct symtab *s2 = NULL;
		if (symtab_open(libc, NULL, NULL, &s2) == 0)
			symtab_free(s2);
	}
	double t1 = now_s();
	const struct symtab_func *first = symtab_at(st, 0), *last = symtab_at(st, symtab_count(st) - 1);
	uint64_t lo = first->addr, span = last->addr + last->size - lo, x = 88172645463325252ull;
	size_t hits = 0;
	const int lookups = 1000000;
	double t2 = now_s();
	for (int i = 0; i < lookups; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		hits += symtab_lookup(st, lo + x % span) != NULL;
	}
	double t3 = now_s();
	printf("timing: symtab_open(libc) %.2f ms; %d lookups %.1f ns each (%.1f%% hit)\n",
	       (t1 - t0) * 1e3 / opens, lookups, (t3 - t2) * 1e9 / lookups, 100.0 * hits / lookups);
	CHECK(hits > (size_t)lookups / 2);
	symtab_free(st);
	symtab_free(dyn);

	const char *cxx = "/usr/lib/x86_64-linux-gnu/libstdc++.so.6";
	if (exists(cxx)) {
		st = NULL;
		t0 = now_s();
		int rc = symtab_open(cxx, NULL, NULL, &st);
		t1 = now_s();
		CHECK_EQ_U64(rc, 0);
		printf("timing: symtab_open(libstdc++) %.2f ms, %zu functions (%s)\n", (t1 - t0) * 1e3,
		       symtab_count(st), st ? symtab_symbol_file(st) : "-");
		symtab_free(st);
	}
}

/* ------------------------------------------------------------------ vDSO */

static void test_vdso(void)
{
	uintptr_t base = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	FILE *maps = fopen("/proc/self/maps", "r");
	char line[512];
	uintptr_t lo = 0, hi = 0;
	while (maps && fgets(line, sizeof(line), maps)) {
		if (strstr(line, "[vdso]")) {
			unsigned long a, b;
			if (sscanf(line, "%lx-%lx", &a, &b) == 2)
				lo = a, hi = b;
		}
	}
	if (maps)
		fclose(maps);
	if (!base || base != lo || hi <= lo) {
		printf("note: no vDSO mapping found, vDSO checks skipped\n");
		return;
	}
	char path[256];
	snprintf(path, sizeof(path), "%s/vdso.so", tmp);
	FILE *out = fopen(path, "wb");
	CHECK(out != NULL);
	if (!out)
		return;
	CHECK_EQ_U64(fwrite((const void *)lo, 1, hi - lo, out), hi - lo);
	fclose(out);

	struct symtab *st = NULL;
	CHECK_EQ_U64(symtab_open(path, NULL, NULL, &st), 0);
	if (!st)
		return;
	CHECK(symtab_source(st) == SYMTAB_SOURCE_DYNSYM);
	const struct symtab_func *cg = NULL;
	for (size_t i = 0; i < symtab_count(st); i++) {
		const struct symtab_func *f = symtab_at(st, i);
		if (strcmp(f->name, "clock_gettime") == 0)
			cg = f;
	}
	CHECK(cg != NULL);
	if (cg) {
		CHECK(!cg->synthesized);
		CHECK(symtab_lookup(st, cg->addr + 1) == cg);
		printf("vDSO: %zu functions, clock_gettime at 0x%" PRIx64 " size %" PRIu64 "\n",
		       symtab_count(st), cg->addr, cg->size);
	}
	symtab_free(st);
}

/* ------------------------------------------------------------------ corrupt input */

static int write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	size_t w = n ? fwrite(p, 1, n, f) : 0;
	return fclose(f) == 0 && w == n ? 0 : -1;
}

static unsigned char *read_file(const char *path, size_t *ret_n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	unsigned char *p = n > 0 ? malloc((size_t)n) : NULL;
	if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
		free(p);
		p = NULL;
	}
	fclose(f);
	*ret_n = p ? (size_t)n : 0;
	return p;
}

static bool rc_ok(int rc)
{
	return rc == 0 || rc == -EBADMSG || rc == -ENOEXEC;
}

/* Offset and size of the section named `name` in the ELF image, or 0. */
static size_t section_range(const unsigned char *img, size_t n, const char *name, size_t *ret_size)
{
	size_t off = 0;
	*ret_size = 0;
	Elf *e = elf_memory((char *)img, n);
	size_t shstrndx;
	if (e && elf_getshdrstrndx(e, &shstrndx) == 0) {
		Elf_Scn *scn = NULL;
		GElf_Shdr s;
		while ((scn = elf_nextscn(e, scn))) {
			const char *nm = gelf_getshdr(scn, &s) ? elf_strptr(e, shstrndx, s.sh_name) : NULL;
			if (nm && strcmp(nm, name) == 0 && s.sh_offset + s.sh_size <= n) {
				off = s.sh_offset;
				*ret_size = s.sh_size;
			}
		}
	}
	if (e)
		elf_end(e);
	return off;
}

/* Open every mutation of `img` and use the table: no crash, a sane result. */
static void mutate_and_open(const char *label, const unsigned char *img, size_t n, const char *path,
			    unsigned seed, int rounds)
{
	unsigned char *buf = malloc(n);
	CHECK(buf != NULL);
	if (!buf)
		return;
	size_t eh_size, eh_off, hdr_size, hdr_off, sym_size, sym_off;
	eh_off = section_range(img, n, ".eh_frame", &eh_size);
	hdr_off = section_range(img, n, ".eh_frame_hdr", &hdr_size);
	sym_off = section_range(img, n, ".symtab", &sym_size);
	size_t base_count = 0;
	if (write_file(path, img, n) == 0) {
		struct symtab *st = NULL;
		if (symtab_open(path, NULL, NULL, &st) == 0)
			base_count = symtab_count(st);
		symtab_free(st);
	}
	CHECK(base_count > 0);
	srand(seed);
	int bad = 0, opened = 0, changed = 0;
	for (int r = 0; r < rounds; r++) {
		memcpy(buf, img, n);
		size_t lo = 0, len = n;
		switch (r % 5) { /* aim at the structures the module parses */
		case 1: lo = hdr_off, len = hdr_size; break;
		case 2: lo = eh_off, len = eh_size; break;
		case 3: lo = sym_off, len = sym_size; break;
		case 4:
			len = 64 + 13 * 56; /* ELF header and program headers */
			break;
		default: break;
		}
		if (len == 0 || lo + len > n)
			lo = 0, len = n;
		int flips = 1 + rand() % 8;
		for (int k = 0; k < flips; k++)
			buf[lo + (size_t)rand() % len] ^= (unsigned char)(1 + rand() % 255);
		if (write_file(path, buf, n)) {
			bad++;
			continue;
		}
		struct symtab *st = NULL;
		int rc = symtab_open(path, NULL, NULL, &st);
		if (!rc_ok(rc)) {
			fprintf(stderr, "mutation %d: unexpected %d\n", r, rc);
			bad++;
		}
		if (rc == 0) {
			opened++;
			size_t cnt = symtab_count(st), misses = 0;
			changed += cnt != base_count;
			for (size_t i = 0; i < cnt; i++) {
				const struct symtab_func *f = symtab_at(st, i);
				misses += symtab_lookup(st, f->addr) == NULL || !f->name || !f->mangled;
				if (i && symtab_at(st, i - 1)->addr >= f->addr)
					misses++;
			}
			for (int k = 0; k < 256; k++)
				(void)symtab_lookup(st, (uint64_t)rand() * 4096 + (uint64_t)rand());
			bad += misses != 0;
		}
		symtab_free(st);
	}
	CHECK_EQ_U64(bad, 0);
	printf("mutations of %s: %d rounds, %d opened, %d of them with another function count\n", label,
	       rounds, opened, changed);
	free(buf);
}

static void test_corrupt(const char *prog, const char *stripped)
{
	char path[256];
	struct symtab *st = (struct symtab *)1;
	snprintf(path, sizeof(path), "%s/does-not-exist", tmp);
	CHECK_EQ_U64(symtab_open(path, NULL, NULL, &st), -ENOENT);
	CHECK(st == NULL);
	CHECK(symtab_open(tmp, NULL, NULL, &st) < 0); /* a directory */
	CHECK_EQ_U64(symtab_open(NULL, NULL, NULL, &st), -EINVAL);

	snprintf(path, sizeof(path), "%s/empty", tmp);
	CHECK(write_file(path, "", 0) == 0);
	CHECK_EQ_U64(symtab_open(path, NULL, NULL, &st), -ENOEXEC);

	size_t n;
	unsigned char *img = read_file(prog, &n);
	CHECK(img && n > 4096);
	if (!img)
		return;
	snprintf(path, sizeof(path), "%s/trunc", tmp);
	CHECK(write_file(path, img, 100) == 0);
	CHECK_EQ_U64(symtab_open(path, NULL, NULL, &st), -EBADMSG);
	CHECK(write_file(path, img, n / 2) == 0);
	CHECK_EQ_U64(symtab_open(path, NULL, NULL, &st), -EBADMSG);
	CHECK(write_file(path, img, 40) == 0); /* shorter than the ELF header */
	CHECK(symtab_open(path, NULL, NULL, &st) < 0);

	unsigned char *rnd = malloc(65536);
	CHECK(rnd != NULL);
	if (rnd) {
		srand(42);
		for (size_t i = 0; i < 65536; i++)
			rnd[i] = (unsigned char)rand();
		CHECK(write_file(path, rnd, 65536) == 0);
		CHECK_EQ_U64(symtab_open(path, NULL, NULL, &st), -ENOEXEC);
		memcpy(rnd, "\177ELF", 4); /* magic, then garbage */
		CHECK(write_file(path, rnd, 65536) == 0);
		int rc = symtab_open(path, NULL, NULL, &st);
		CHECK(rc == -EBADMSG || rc == -ENOEXEC);
		free(rnd);
	}
	mutate_and_open("prog", img, n, path, 1, 400);
	free(img);

	img = read_file(stripped, &n);
	CHECK(img != NULL);
	if (img)
		mutate_and_open("prog.stripped", img, n, path, 2, 400);
	free(img);
}

/* ------------------------------------------------------------------ main */

static bool find_fixtures(void)
{
	return find_fixtures_dir(fixtures, sizeof(fixtures), "sym_prog.c");
}

int main(void)
{
	if (elf_version(EV_CURRENT) == EV_NONE)
		return 1;
	if (!find_fixtures()) {
		fprintf(stderr, "tests/fixtures/sym_prog.c not found (set PA_TOP)\n");
		return 1;
	}
	snprintf(tmp, sizeof(tmp), "/tmp/test_symtab.XXXXXX");
	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return 1;
	}
	symtab_free(NULL);

	char prog[256], cxx[256], stripped[256];
	snprintf(prog, sizeof(prog), "%s/prog", tmp);
	snprintf(cxx, sizeof(cxx), "%s/cxx", tmp);
	snprintf(stripped, sizeof(stripped), "%s/prog.stripped", tmp);
	/* -O1: no hot/cold splitting, so each function is exactly one FDE. */
	bool built = sh("cc -O1 -o %s %s/sym_prog.c && strip -o %s %s", prog, fixtures, stripped, prog) == 0;
	CHECK(built);
	bool cxx_built = sh("c++ -O1 -o %s %s/sym_cxx.cc", cxx, fixtures) == 0;
	CHECK(cxx_built);

	if (built) {
		test_prog(prog);
		check_synthesized_like(prog, stripped);
		test_debug_build_id(prog);
		if (cxx_built)
			test_debuglink();
		test_corrupt(prog, stripped);
	}
	if (cxx_built)
		test_cxx(cxx);
	test_libc();
	test_vdso();

	if (!getenv("SYMTAB_KEEP_TMP"))
		sh("rm -rf %s", tmp);
	return check_done();
}
