/*
 * symtab.h - one load object's function table: ELF symbols (from .symtab, from
 * a separate debug file found by build-id or .gnu_debuglink, or from .dynsym),
 * aliases collapsed, C++ names demangled, and functions synthesized from
 * .eh_frame_hdr FDEs for code that no symbol covers.  Addresses are the
 * object's ELF virtual addresses (st_value); the caller subtracts the load bias.
 *
 * A struct symtab is immutable once symtab_open returns: any number of threads
 * may call the lookup/accessor functions on it at once.  Nothing here prints or
 * exits; errors are negative errno values.  Input files are untrusted: every
 * read is bounds-checked and a corrupt file gives an error or a smaller table.
 */
#ifndef ANALYSIS_SYMTAB_H
#define ANALYSIS_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct symtab;

/* One function.  Its address range is [addr, addr + size), or just addr if
 * size is 0 (unknown).  All strings are owned by the struct symtab. */
struct symtab_func {
	uint64_t addr; /* ELF virtual address of the first byte */
	uint64_t size; /* bytes covered by symtab_lookup; 0 if unknown */
	/* Display name: demangled, without the symbol version, or
	 * "<static>@0x<hex addr>" if synthesized. */
	const char *name;
	const char *mangled; /* the raw symbol name without its version; "" if synthesized */
	/* The symbol version as the name carried it, "@VER" or "@@VER"
	 * (analysis/symver.h), or "": the raw name is mangled + version. */
	const char *version;
	unsigned synthesized : 1; /* no symbol: made from an .eh_frame FDE */
};

/* Where the real (non-synthesized) functions came from. */
enum symtab_source {
	SYMTAB_SOURCE_NONE = 0, /* no usable symbols: only synthesized functions */
	SYMTAB_SOURCE_DYNSYM,   /* the object's .dynsym */
	SYMTAB_SOURCE_SYMTAB,   /* a .symtab: the object's or its debug file's */
};

struct symtab_options {
	const char *debug_root; /* NULL: "/usr/lib/debug" */
};

/*
 * Open the ELF file `path` and build its function table into *ret (freed with
 * symtab_free).  `build_id_hex` (may be NULL) is the build-id the caller
 * expects, as recorded at collection time; a different build-id in the file
 * does not fail the open but sets symtab_build_id_mismatch().  `opt` may be
 * NULL.  The table is built from, in order of preference:
 *   1. the .symtab of a separate debug file, looked for when the object has no
 *      .symtab or has a .gnu_debuglink: <debug_root>/.build-id/xx/rest.debug,
 *      then the debuglink name in <dir>/, <dir>/.debug/, <debug_root><dir>/
 *      (<dir> = the object's real directory).  A candidate is accepted only if
 *      its build-id equals the object's, or, when either has none, if its CRC32
 *      equals the debuglink's;
 *   2. the object's .symtab; 3. the object's .dynsym.
 * Functions are STT_FUNC and STT_GNU_IFUNC symbols defined in a section.
 * Aliases (same address) collapse to one function named, in order of
 * preference: non-local, without a "@version" suffix, with fewer leading
 * underscores, global over weak, then the shortest (so libc's malloc is
 * "malloc", not "__libc_malloc", and puts is "puts", not "_IO_puts").  A
 * function of size 0 extends to the next function or to the end of its
 * section.  Then every FDE start in the object's .eh_frame_hdr (PT_GNU_EH_FRAME)
 * that no function covers becomes a synthesized function covering the FDE's
 * range, clipped at the next function.
 * Returns 0, or -EINVAL (NULL path/ret), -ENOENT/-EACCES/... (open(2) errno),
 * -ENOEXEC (not an ELF file), -EBADMSG (corrupt or truncated ELF), -ENOMEM.
 * Thread-safe: concurrent calls share nothing but libelf's one-time setup.
 */
int symtab_open(const char *path, const char *build_id_hex, const struct symtab_options *opt,
		struct symtab **ret);

/* Free a table and every string it owns.  NULL-safe. */
void symtab_free(struct symtab *st);

/*
 * The function covering ELF virtual address `vaddr`, or NULL.  If nested
 * symbols cover it, the one starting last wins; failing that, the one reaching
 * furthest.  O(log n), no allocation.  The pointer lives as long as `st`.
 */
const struct symtab_func *symtab_lookup(const struct symtab *st, uint64_t vaddr);

/* Number of functions, and function i (0 <= i < count) in increasing address
 * order with no two at the same address; NULL if i is out of range. */
size_t symtab_count(const struct symtab *st);
const struct symtab_func *symtab_at(const struct symtab *st, size_t i);

/* The path passed to symtab_open. */
const char *symtab_path(const struct symtab *st);
/* The file the real functions were read from: the object or its debug file. */
const char *symtab_symbol_file(const struct symtab *st);
/* Which symbol table the real functions came from. */
enum symtab_source symtab_source(const struct symtab *st);
/* The object's NT_GNU_BUILD_ID as lowercase hex; "" if it has none. */
const char *symtab_build_id(const struct symtab *st);
/* True if symtab_open was given a build-id and the object's differs (or the
 * object has none): the caller should warn that the file on disk is not the
 * one that ran. */
bool symtab_build_id_mismatch(const struct symtab *st);

/* Most PLT sections remembered per object. */
#define SYMTAB_PLT_MAX 4

/*
 * Whether ELF virtual address `vaddr` lies in one of the object's PLT
 * sections (.plt, .plt.got, .plt.sec, from its own section headers).
 */
bool symtab_in_plt(const struct symtab *st, uint64_t vaddr);

#endif
