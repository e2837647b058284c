/*
 * lines_internal.h - what lines.c (the DWARF reader and the lookups) and
 * lines_cache.c (the on-disk index) share: the tables a struct lines looks
 * addresses up in.  The same structs are built from DWARF in memory and laid
 * out in an index file, so one lookup code serves both.  Internal to
 * libanalysis.
 *
 * Strings are ids: from DWARF, indexes into strv (interned, arena-owned);
 * from an index file, indexes into its offset table of its string blob.
 * lines_str() maps an id to its string in either, "??" when out of range (an
 * index file is never trusted).  Every index into a table that a lookup takes
 * from a table is checked against the table's count for the same reason.
 */
#ifndef ANALYSIS_LINES_INTERNAL_H
#define ANALYSIS_LINES_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include <elfutils/libdw.h>

#include "analysis/lines.h"
#include "analysis/symtab_elf.h"

#define LINES_NO_STR UINT32_MAX /* a row's file: an end of sequence */

/* A line-table row (in an index file: ord 0). */
struct lines_row {
	uint64_t addr;
	uint32_t file, line, column, ord;
};

/* A CU's address range. */
struct lines_cu_range {
	uint64_t lo, hi;
	uint32_t cu, pad;
};

/* One inline instance (a DW_TAG_inlined_subroutine DIE): string ids. */
struct lines_inst {
	uint32_t name, mangled, call_file, call_line, call_column;
};

/* One address range of an inline instance (inst: the CU's own index). */
struct lines_irange {
	uint64_t lo, hi;
	uint32_t inst, depth;
};

/* Disjoint interval with a constant chain: pool[chain .. chain + len), innermost first. */
struct lines_ival {
	uint64_t lo, hi;
	uint32_t chain, len;
};

/* A CU's inline index; the pointers are owned only when built from DWARF. */
struct lines_cu_inlines {
	const struct lines_inst *inst;
	const struct lines_irange *rg;
	const struct lines_ival *iv;
	const uint32_t *pool;
	size_t ninst, nrg, niv, npool;
};

enum { LINES_CU_UNINDEXED = 0, LINES_CU_INDEXED, LINES_CU_FAILED };

struct lines_cu {
	Dwarf_Die die;     /* from DWARF only */
	uint32_t comp_dir; /* string id, or LINES_NO_STR */
	int state;
	struct lines_cu_inlines inl;
};

struct lines_istr {
	const char *s;
	uint32_t hash, id;
};

/* The tables of an index file checked block by block on first use (lines_index_ok). */
enum { LINES_T_ROWS, LINES_T_INST, LINES_T_RG, LINES_T_IV, LINES_T_POOL, LINES_NTABLES };
#define LINES_INDEX_BLOCK 128 /* elements per checksummed block */

struct lines_table_check {
	const uint8_t *base;
	size_t elem, count;
	const uint64_t *sums; /* one per block */
	uint8_t *verified;    /* one bit per block */
};

struct lines {
	/* from DWARF (dw != NULL while CUs may still be indexed) */
	int fd;
	Elf *elf;
	Dwarf *dw;
	struct elf_file alt; /* the .gnu_debugaltlink (dwz) file given to libdw, or fd -1 */
	Dwarf *alt_dw;
	const char **strv; /* id -> string */
	size_t nstrv, strv_cap;
	struct lines_istr *strs; /* open addressing, power-of-two size */
	size_t nstrs, strs_cap;
	struct arena_chunk *arena;
	/* from an index file: the mapping, its string offsets and blob */
	void *map;
	size_t map_len;
	const uint32_t *str_off;
	size_t nstr;
	const char *blob;
	size_t blob_len;
	struct lines_table_check check[LINES_NTABLES];
	const char *index_file;      /* its path (arena) */
	const char *reopen_path;     /* what lines_open was given (arena), to read the DWARF after all */
	const char *reopen_build_id; /* NULL or (arena) */
	const char *reopen_root;     /* (arena) */
	struct lines *fallback;      /* the DWARF's tables, once a block failed its check */
	int damaged;                 /* a block failed its check and the DWARF could not be read */
	/* the tables, either way */
	const char *debug_file;
	struct lines_row *rows;
	size_t nrows;
	struct lines_cu *cus;
	size_t ncus;
	struct lines_cu_range *cur;
	size_t ncur;
};

/* The string of id, or "??" when there is none. */
static inline const char *lines_str(const struct lines *l, uint32_t id)
{
	if (l->map) {
		if (id >= l->nstr || l->str_off[id] >= l->blob_len)
			return "??";
		return l->blob + l->str_off[id];
	}
	return id < l->nstrv ? l->strv[id] : "??";
}

/* What identifies the file the DWARF was read from (an index is valid for it only). */
struct lines_source_id {
	char key[2 * ELF_BUILD_ID_MAX + 2]; /* the index file's name: build-id hex, or "p" + path hash */
	uint64_t dev, ino, size;
	int64_t mtime_ns, ctime_ns;
};

void lines_source_id_init(struct lines_source_id *id, const struct elf_file *src, const char *src_path,
			  const struct stat *st);

/* The index file (docs/experiment-format.md, "Line index files"): this header, then the tables. */
#define LINES_INDEX_VERSION 1
struct lines_index_header {
	char magic[8]; /* "PALINES\0" */
	uint32_t version, header_size;
	uint64_t file_size;
	uint64_t dev, ino, size; /* the DWARF file's (struct lines_source_id) */
	int64_t mtime_ns, ctime_ns;
	uint64_t nrows, ncur, ncus, ninst, nrg, niv, npool, nstr, blob_len;
	uint64_t off_rows, off_cur, off_cus, off_inst, off_rg, off_iv, off_pool, off_stroff, off_blob;
	uint64_t off_sums; /* the block sums of rows, inst, rg, iv, pool in turn (lines_block_sum) */
	uint64_t checksum; /* lines_cache_checksum */
};

/* A CU's slices of the global tables (its own indexes count from each slice's start). */
struct lines_index_cu {
	uint32_t inst, ninst, rg, nrg, iv, niv, pool, npool;
	uint32_t indexed, pad;
};

/* 0 if h (of a file of len bytes) is an index of id whose tables lie inside it; -ESTALE, -EBADMSG. */
int lines_cache_check_header(const struct lines_index_header *h, const struct lines_source_id *id,
			     uint64_t len);

/* FNV-1a 64 of the CU table, the string offsets and blob, then the header with checksum 0
 * (the header must have passed lines_cache_check_header; base: the file's first byte). */
uint64_t lines_cache_checksum(const struct lines_index_header *h, const uint8_t *base);

/* The checksum of one block of a table (n bytes at p). */
uint64_t lines_block_sum(const uint8_t *p, size_t n);

/*
 * Is the element at elem of table t (an index file's) in a block whose
 * checksum holds?  Checks each block once.  Always true for tables read
 * from DWARF.
 */
bool lines_block_ok(struct lines *l, int t, const void *elem);

/*
 * A block of l's index failed its check: remove the index file (the next
 * open rebuilds it) and read the DWARF into l->fallback (or set l->damaged).
 * Returns l->fallback, which answers every later lookup, or NULL.
 */
struct lines *lines_index_damaged(struct lines *l);

/*
 * The index of `id` under dir (DIR/KEY.lines), mapped read-only into a new
 * struct lines.  0, -ENOENT (none), -ESTALE (for another file, or of another
 * format version: to be rebuilt), -EBADMSG (corrupt: to be rebuilt), -ENOMEM.
 */
int lines_cache_load(const char *dir, const struct lines_source_id *id, struct lines **ret);

/*
 * Write l (every CU indexed) as the index of `id` under dir: to a temporary
 * file renamed into place, so concurrent readers and writers each see a whole
 * file.  Creates dir (and its parent) if missing.  0 or -errno.
 */
int lines_cache_store(const char *dir, const struct lines_source_id *id, const struct lines *l);

#endif
