/*
 * lines.h - source positions and inlined-call chains of one load object, from
 * its DWARF (versions 4 and 5) or its separate debug file (build-id under the
 * debug root, or .gnu_debuglink), through elfutils libdw.
 *
 * Built once per object, immutable afterwards: a sorted address -> line table
 * and, per compilation unit (lazily, on first use), a sorted list of inlined
 * subroutine ranges with their nesting, so a lookup is O(log n) with no
 * allocation (libdwfl's own address lookups are linear; see
 * shared/reference/unwinding-research.md section 8.2); or mapped from an
 * index file of those tables that an earlier open wrote
 * (lines_options.cache_dir).  Strings are owned by
 * the struct lines.  Nothing here prints or exits; errors are negative errno.
 * Not thread-safe (lazy CU indexing mutates internal state).
 */
#ifndef ANALYSIS_LINES_H
#define ANALYSIS_LINES_H

#include <stddef.h>
#include <stdint.h>

struct lines;

struct lines_options {
	const char *debug_root; /* NULL: "/usr/lib/debug" */
	/*
	 * NULL: read the DWARF at every open.  Else a directory for index files
	 * (created if missing): the first open of a DWARF file indexes it whole
	 * and writes DIR/<build-id>.lines (or DIR/p<hash of its path>.lines);
	 * later opens of the same file (the same device, inode, size and times)
	 * map the index and never read the DWARF.  An index that is missing,
	 * stale, corrupt or cannot be written only costs time.  Objects of more
	 * than 2^22 line-table rows are not indexed.
	 */
	const char *cache_dir;
};

struct line_loc {
	/* As DWARF records it (libdw's dwarf_filesrc: include directory joined to
	 * the name), then, if still relative, "<DW_AT_comp_dir>/<that>" with no
	 * normalization: e.g. "./malloc/./malloc/malloc.c" for Debian's libc, as
	 * addr2line and eu-addr2line print it.  "" if unknown. */
	const char *file;
	uint32_t line; /* 0: no line information for this address */
	uint32_t column;
};

struct line_inline {
	/* The inlined function's name, through DW_AT_abstract_origin and
	 * DW_AT_specification: its demangled DW_AT_linkage_name if it has one
	 * that demangles, else its DW_AT_name, e.g. "square", else "??". */
	const char *name;
	const char *mangled;  /* its linkage name, or "" */
	struct line_loc call; /* where it was inlined: the call site in its caller */
	uint64_t lo, hi;      /* the innermost range of this inline instance containing the address */
};

/*
 * Open `path`'s DWARF (or its separate debug file).  Returns 0 with *ret, or
 * -ENOENT (no file), -ENODATA (no DWARF line information anywhere: *ret is
 * not set), -EBADMSG (corrupt), -ENOMEM.
 *
 * The DWARF comes from `path` itself if it has .debug_info and .debug_line
 * (compressed or not), else from its separate debug file, looked for like
 * symtab_open does: <debug_root>/.build-id/xx/rest.debug, then the
 * .gnu_debuglink name in <dir>/, <dir>/.debug/, <debug_root><dir>/ (<dir> =
 * the object's real directory); a candidate is accepted only if its build-id
 * equals the object's (or, when either has none, its CRC32 the debuglink's).
 * `build_id_hex` (may be NULL) is the build-id recorded at collection time:
 * it is used only when `path` no longer exists, to find the debug file by
 * build-id alone.  Sequences of the line table that start outside every
 * executable section (code the linker discarded, left at address 0) are
 * dropped.  `opt` may be NULL.  Also -EINVAL (NULL path or ret, not a regular
 * file), -ENOEXEC (not ELF), -E2BIG (more than 2^26 line-table rows),
 * -ENOTSUP (libelf unusable), or another open(2) errno.
 */
int lines_open(const char *path, const char *build_id_hex, const struct lines_options *opt,
	       struct lines **ret);
void lines_free(struct lines *l); /* NULL-safe */

/* The file that held the DWARF (the object or its debug file). */
const char *lines_debug_file(const struct lines *l);

/*
 * Source position of ELF virtual address vaddr (the line-table row covering
 * it: the last row at or below vaddr, which must not end a sequence; of
 * several rows at one address, the last, as libdw and addr2line do).
 * Returns 1 and *ret, or 0 if vaddr has no line information.
 */
int lines_lookup(struct lines *l, uint64_t vaddr, struct line_loc *ret);

/*
 * The chain of inlined calls containing vaddr, innermost first: ret[0] is the
 * function inlined deepest (its code contains vaddr; the position inside it
 * is lines_lookup's), ret[0].call is where it was inlined into ret[1] (or
 * into the outer, real function when there is no ret[1]).  Returns the chain
 * length, possibly more than max (only max are stored; ret may be NULL when
 * max is 0).  The first call for an address of a CU indexes that CU; a CU
 * that cannot be indexed (corrupt, over the caps) reports no inlines.
 * Nesting deeper than 64 is cut (the outermost kept are dropped).
 */
size_t lines_inlines(struct lines *l, uint64_t vaddr, struct line_inline *ret, size_t max);

/*
 * Every line-table row in [lo, hi), in address order: for annotated
 * disassembly.  Calls fn(ctx, addr, loc) per row (fn may be NULL: just
 * count); returns the row count.  End-of-sequence rows are not reported.
 */
size_t lines_rows(struct lines *l, uint64_t lo, uint64_t hi,
		  void (*fn)(void *ctx, uint64_t addr, const struct line_loc *loc), void *ctx);

#endif
