/*
 * lines.c - source lines and inlined-call chains of one load object (contract
 * in lines.h).
 *
 * Open: every compilation unit's line table (libdw's dwarf_getsrclines) goes
 * into one array of rows sorted by (address, end-of-sequence first, original
 * order); file names are interned once.  The CUs' address ranges go into a
 * second sorted array.  On the first inline query inside a CU, its DIE tree is
 * walked once and its DW_TAG_inlined_subroutine ranges are swept into disjoint
 * intervals, each carrying its chain of inline instances innermost first, so
 * every lookup is a binary search.  The Dwarf handle stays open for that lazy
 * step.  Every count and string taken from the file is capped.
 *
 * With a cache directory (lines_options.cache_dir), the first open of a file's
 * DWARF indexes every CU and writes the tables as an index file
 * (lines_cache.c); later opens map that file and never start libdw, which
 * decompresses every debug section up front (45 ms and 14 MB for libc's).
 */
#include "analysis/lines.h"
#include "analysis/lines_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <gelf.h>
#include <libelf.h>

#include "analysis/symtab_elf.h"
#include "common/arena.h"
#include "common/regfile.h"

/* libstdc++'s demangler (cxxabi.h is C++ only). */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

#define LINES_DEFAULT_DEBUG_ROOT "/usr/lib/debug"
#define LINES_ROWS_MAX (1u << 26)       /* line-table rows per object */
#define LINES_CUS_MAX (1u << 20)        /* compilation units per object */
#define LINES_CU_RANGES_MAX (1u << 22)  /* address ranges of all CUs */
#define LINES_INL_RANGES_MAX (1u << 22) /* inline ranges per CU */
#define LINES_CU_FILES_MAX (1u << 20)   /* file-table entries per CU */
#define LINES_NAME_MAX 4096             /* longer names and paths are truncated */
#define LINES_DEMANGLE_MAX 2048         /* longer mangled names are not demangled */
#define LINES_DIE_DEPTH_MAX 256         /* DIE nesting walked */
#define LINES_CHAIN_MAX 64              /* inline nesting kept per address */
#define LINES_STRS_MAX (1u << 24)       /* distinct strings per object */
#define LINES_INDEX_ROWS_MAX (1u << 22) /* larger objects are read lazily, not indexed on disk */
#define NO_FILE LINES_NO_STR
#define STR_EMPTY 0 /* the id of "", interned first */

static uint32_t str_hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)s[i]) * 16777619u;
	return h;
}

static int strs_grow(struct lines *l)
{
	size_t cap = l->strs_cap ? 2 * l->strs_cap : 1024;
	struct lines_istr *t = calloc(cap, sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < l->strs_cap; i++) {
		if (!l->strs[i].s)
			continue;
		size_t j = l->strs[i].hash & (cap - 1);
		while (t[j].s)
			j = (j + 1) & (cap - 1);
		t[j] = l->strs[i];
	}
	free(l->strs);
	l->strs = t;
	l->strs_cap = cap;
	return 0;
}

/* The id of the interned copy of s[0, n) (truncated at LINES_NAME_MAX), or NO_FILE on ENOMEM/cap. */
static uint32_t intern(struct lines *l, const char *s, size_t n)
{
	if (n > LINES_NAME_MAX)
		n = LINES_NAME_MAX;
	if (2 * (l->nstrs + 1) > l->strs_cap && strs_grow(l))
		return NO_FILE;
	uint32_t h = str_hash(s, n);
	size_t j = h & (l->strs_cap - 1);
	for (; l->strs[j].s; j = (j + 1) & (l->strs_cap - 1)) {
		const char *t = l->strs[j].s;
		if (l->strs[j].hash == h && strncmp(t, s, n) == 0 && t[n] == '\0')
			return l->strs[j].id;
	}
	if (l->nstrv == l->strv_cap) {
		if (l->strv_cap >= LINES_STRS_MAX)
			return NO_FILE;
		size_t cap = l->strv_cap ? 2 * l->strv_cap : 1024;
		const char **v = realloc(l->strv, cap * sizeof(*v));
		if (!v)
			return NO_FILE;
		l->strv = v;
		l->strv_cap = cap;
	}
	char *p = arena_alloc(&l->arena, n + 1);
	if (!p)
		return NO_FILE;
	memcpy(p, s, n);
	p[n] = '\0';
	l->strs[j] = (struct lines_istr){.s = p, .hash = h, .id = (uint32_t)l->nstrv};
	l->nstrs++;
	l->strv[l->nstrv] = p;
	return (uint32_t)l->nstrv++;
}

static uint32_t intern_str(struct lines *l, const char *s)
{
	return intern(l, s, strnlen(s, LINES_NAME_MAX));
}

/* The id of the interned path of `name` as the CU records it: joined to comp_dir if relative. */
static uint32_t intern_path(struct lines *l, const struct lines_cu *cu, const char *name)
{
	size_t n = strnlen(name, LINES_NAME_MAX);
	const char *cd = cu->comp_dir != NO_FILE ? lines_str(l, cu->comp_dir) : "";
	if (name[0] == '/' || !cd[0])
		return intern(l, name, n);
	char buf[2 * LINES_NAME_MAX + 2];
	int len = snprintf(buf, sizeof(buf), "%s/%.*s", cd, (int)n, name);
	if (len < 0)
		return NO_FILE;
	return intern(l, buf, (size_t)len < sizeof(buf) ? (size_t)len : sizeof(buf) - 1);
}

/* ------------------------------------------------------------------ ELF and debug files */

/* Does the file have a named section with bytes (not SHT_NOBITS)? */
static bool has_section(struct elf_file *f, const char *name, const char *zname)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(f->elf, &shstrndx) != 0)
		return false;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while ((scn = elf_nextscn(f->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS || sh.sh_size == 0)
			continue;
		const char *s = elf_strptr(f->elf, shstrndx, sh.sh_name);
		if (s && (strcmp(s, name) == 0 || strcmp(s, zname) == 0))
			return true;
	}
	return false;
}

static bool has_dwarf(struct elf_file *f)
{
	return has_section(f, ".debug_info", ".zdebug_info") && has_section(f, ".debug_line", ".zdebug_line");
}

/* ------------------------------------------------------------------ line table */

struct row_vec {
	struct lines_row *v;
	size_t n, cap;
};

static int row_push(struct row_vec *rv, const struct lines_row *r)
{
	if (rv->n == rv->cap) {
		if (rv->cap >= LINES_ROWS_MAX)
			return -E2BIG;
		size_t cap = rv->cap ? 2 * rv->cap : 4096;
		struct lines_row *v = realloc(rv->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		rv->v = v;
		rv->cap = cap;
	}
	rv->v[rv->n++] = *r;
	return 0;
}

static int row_cmp(const void *a, const void *b)
{
	const struct lines_row *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	bool xe = x->file == NO_FILE, ye = y->file == NO_FILE;
	if (xe != ye)
		return xe ? -1 : 1; /* a sequence ending here sorts before one starting here */
	return x->ord < y->ord ? -1 : x->ord > y->ord;
}

/* Executable sections' address ranges, to drop sequences of discarded code
 * (left at address 0 by the linker). */
struct text_ranges {
	uint64_t r[64][2];
	size_t n;
};

static void text_ranges_init(struct text_ranges *t, Elf *elf)
{
	t->n = 0;
	GElf_Ehdr eh;
	if (!gelf_getehdr(elf, &eh) || eh.e_type == ET_REL)
		return;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while ((scn = elf_nextscn(elf, scn)) && t->n < 64) {
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) || !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		if (sh.sh_addr > UINT64_MAX - sh.sh_size)
			continue;
		t->r[t->n][0] = sh.sh_addr;
		t->r[t->n][1] = sh.sh_addr + sh.sh_size;
		t->n++;
	}
}

static bool text_contains(const struct text_ranges *t, uint64_t a)
{
	if (t->n == 0)
		return true; /* no section headers to go by */
	for (size_t i = 0; i < t->n; i++)
		if (a >= t->r[i][0] && a < t->r[i][1])
			return true;
	return false;
}

/* A CU's file table; ids[i] is entry i's file id, NO_FILE until it is looked up. */
struct cu_files {
	Dwarf_Files *files;
	size_t n;
	uint32_t *ids; /* NULL when the CU has no file table */
};

/* Line, column and file of the row of `line` (not an end of sequence); 0 or -ENOMEM. */
static int row_fill(struct lines *l, struct lines_cu *cu, struct cu_files *cf, Dwarf_Line *line,
		    struct lines_row *r)
{
	int lineno = 0, col = 0;
	if (dwarf_lineno(line, &lineno) != 0 || lineno < 0)
		lineno = 0;
	if (dwarf_linecol(line, &col) != 0 || col < 0)
		col = 0;
	r->line = (uint32_t)lineno;
	r->column = (uint32_t)col;
	Dwarf_Files *lf;
	size_t idx;
	if (cf->ids && dwarf_line_file(line, &lf, &idx) == 0 && lf == cf->files && idx < cf->n) {
		if (cf->ids[idx] == NO_FILE) {
			const char *name = dwarf_filesrc(cf->files, idx, NULL, NULL);
			cf->ids[idx] = intern_path(l, cu, name ? name : "??");
		}
		r->file = cf->ids[idx];
	} else {
		const char *name = dwarf_linesrc(line, NULL, NULL);
		r->file = intern_path(l, cu, name ? name : "??");
	}
	return r->file == NO_FILE ? -ENOMEM : 0;
}

/* Append cu's line table to rv.  Returns 0, 1 (no line table), or -errno. */
static int load_cu_lines(struct lines *l, struct lines_cu *cu, const struct text_ranges *text,
			 struct row_vec *rv)
{
	Dwarf_Lines *lines;
	size_t n;
	if (!dwarf_hasattr(&cu->die, DW_AT_stmt_list))
		return 1;
	if (dwarf_getsrclines(&cu->die, &lines, &n) != 0)
		return -EBADMSG;
	struct cu_files cf = {NULL, 0, NULL};
	if (dwarf_getsrcfiles(&cu->die, &cf.files, &cf.n) != 0)
		cf.files = NULL;
	if (cf.n > LINES_CU_FILES_MAX)
		cf.n = LINES_CU_FILES_MAX;
	if (cf.files && cf.n) {
		cf.ids = malloc(cf.n * sizeof(*cf.ids));
		if (!cf.ids)
			return -ENOMEM;
		memset(cf.ids, 0xff, cf.n * sizeof(*cf.ids));
	}
	int err = 0;
	bool skip = false, seq_start = true;
	for (size_t i = 0; i < n; i++) {
		Dwarf_Line *line = dwarf_onesrcline(lines, i);
		Dwarf_Addr addr;
		bool end = false;
		if (!line || dwarf_lineaddr(line, &addr) != 0 || dwarf_lineendsequence(line, &end) != 0) {
			err = -EBADMSG;
			break;
		}
		if (seq_start)
			skip = !text_contains(text, addr);
		seq_start = end;
		if (skip)
			continue;
		struct lines_row r = {.addr = addr, .file = NO_FILE, .ord = (uint32_t)rv->n};
		if (!end && (err = row_fill(l, cu, &cf, line, &r)))
			break;
		if ((err = row_push(rv, &r)))
			break;
	}
	free(cf.ids);
	return err;
}

static int cu_range_cmp(const void *a, const void *b)
{
	const struct lines_cu_range *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->cu < y->cu ? -1 : x->cu > y->cu;
}

/* Append the address ranges of the CU l->cus[l->ncus] (cudie) inside text to l->cur; 0 or -ENOMEM. */
static int load_cu_ranges(struct lines *l, Dwarf_Die *cudie, const struct text_ranges *text, size_t *cur_cap)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	while ((off = dwarf_ranges(cudie, off, &base, &lo, &hi)) > 0) {
		if (lo >= hi || !text_contains(text, lo))
			continue;
		if (l->ncur >= LINES_CU_RANGES_MAX)
			break;
		if (l->ncur == *cur_cap) {
			size_t cap = *cur_cap ? 2 * *cur_cap : 256;
			struct lines_cu_range *v = realloc(l->cur, cap * sizeof(*v));
			if (!v)
				return -ENOMEM;
			l->cur = v;
			*cur_cap = cap;
		}
		l->cur[l->ncur++] = (struct lines_cu_range){.lo = lo, .hi = hi, .cu = (uint32_t)l->ncus};
	}
	return 0;
}

/* Read every CU: its line table into l->rows, its ranges into l->cur. */
static int load_units(struct lines *l)
{
	struct row_vec rv = {0};
	size_t cus_cap = 0, cur_cap = 0, bad = 0;
	int err = 0;
	struct text_ranges text;
	text_ranges_init(&text, dwarf_getelf(l->dw));

	Dwarf_CU *cu = NULL, *next;
	Dwarf_Half version;
	uint8_t unit_type;
	Dwarf_Die cudie;
	int rc;
	/*
	 * No subdie: for a skeleton unit libdw would open its split unit's .dwo,
	 * which the DWARF names (DW_AT_dwo_name) and may be a FIFO; its line
	 * table is the skeleton's own.
	 */
	while ((rc = dwarf_get_units(l->dw, cu, &next, &version, &unit_type, &cudie, NULL)) == 0) {
		cu = next;
		if (unit_type != DW_UT_compile && unit_type != DW_UT_partial && unit_type != DW_UT_skeleton)
			continue;
		if (l->ncus >= LINES_CUS_MAX)
			break;
		if (l->ncus == cus_cap) {
			size_t cap = cus_cap ? 2 * cus_cap : 64;
			struct lines_cu *v = realloc(l->cus, cap * sizeof(*v));
			if (!v) {
				err = -ENOMEM;
				goto out;
			}
			l->cus = v;
			cus_cap = cap;
		}
		struct lines_cu *c = &l->cus[l->ncus];
		memset(c, 0, sizeof(*c));
		c->die = cudie;
		c->comp_dir = NO_FILE;
		Dwarf_Attribute attr;
		const char *cd = dwarf_formstring(dwarf_attr(&cudie, DW_AT_comp_dir, &attr));
		if (cd && (c->comp_dir = intern_str(l, cd)) == NO_FILE) {
			err = -ENOMEM;
			goto out;
		}
		err = load_cu_lines(l, c, &text, &rv);
		if (err == -ENOMEM || err == -E2BIG)
			goto out;
		if (err < 0)
			bad++;
		if ((err = load_cu_ranges(l, &cudie, &text, &cur_cap)))
			goto out;
		l->ncus++;
	}
	if (rc < 0 && l->ncus == 0)
		bad++;
	if (rv.n == 0) {
		err = bad ? -EBADMSG : -ENODATA;
		goto out;
	}
	qsort(rv.v, rv.n, sizeof(*rv.v), row_cmp);
	if (l->ncur)
		qsort(l->cur, l->ncur, sizeof(*l->cur), cu_range_cmp);
	l->rows = rv.v;
	l->nrows = rv.n;
	rv.v = NULL;
out:
	free(rv.v);
	return err;
}

/* ------------------------------------------------------------------ inline index */

/* The id of the demangled form of `mangled`, interned; 0 if it does not demangle, NO_FILE on ENOMEM. */
static uint32_t demangle(struct lines *l, const char *mangled)
{
	size_t len = strlen(mangled);
	if (len < 2 || mangled[0] != '_' || mangled[1] != 'Z' || len > LINES_DEMANGLE_MAX)
		return 0;
	int status = -1;
	char *d = __cxa_demangle(mangled, NULL, NULL, &status);
	uint32_t r = d && status == 0 ? intern_str(l, d) : 0;
	free(d);
	return r;
}

static const char *die_string(Dwarf_Die *die, unsigned name)
{
	Dwarf_Attribute attr;
	if (!dwarf_attr_integrate(die, name, &attr))
		return NULL;
	return dwarf_formstring(&attr);
}

static uint32_t die_udata(Dwarf_Die *die, unsigned name)
{
	Dwarf_Attribute attr;
	Dwarf_Word w;
	if (!dwarf_attr(die, name, &attr) || dwarf_formudata(&attr, &w) != 0)
		return 0;
	return w > UINT32_MAX ? UINT32_MAX : (uint32_t)w;
}

struct inl_builder {
	struct lines_inst *inst;
	size_t ninst, inst_cap;
	struct lines_irange *rg;
	size_t nrg, rg_cap;
	Dwarf_Files *files;
	size_t nfiles;
	uint32_t *file_names; /* per call_file index, lazily: string id, 0 until looked up */
};

/*
 * Name an inline instance: its demangled linkage name, else its DW_AT_name,
 * else its linkage name as it is, else "??".  0 or -ENOMEM.
 */
static int inst_name(struct lines *l, struct lines_inst *in, Dwarf_Die *die)
{
	const char *mangled = die_string(die, DW_AT_linkage_name);
	if (!mangled)
		mangled = die_string(die, DW_AT_MIPS_linkage_name);
	const char *name = die_string(die, DW_AT_name);
	in->mangled = mangled ? intern_str(l, mangled) : STR_EMPTY;
	uint32_t dem = mangled && in->mangled != NO_FILE ? demangle(l, mangled) : 0;
	in->name = dem ? dem : name ? intern_str(l, name) : mangled ? in->mangled : intern_str(l, "??");
	if (in->name == NO_FILE || in->mangled == NO_FILE)
		return -ENOMEM;
	return 0;
}

/* Where an inline instance is called from: line, column and file ("" if none).  0 or -ENOMEM. */
static int inst_call_site(struct lines *l, struct lines_cu *cu, struct inl_builder *b, struct lines_inst *in,
			  Dwarf_Die *die)
{
	in->call_line = die_udata(die, DW_AT_call_line);
	in->call_column = die_udata(die, DW_AT_call_column);
	in->call_file = STR_EMPTY;
	Dwarf_Attribute attr;
	Dwarf_Word fi;
	if (dwarf_attr(die, DW_AT_call_file, &attr) && dwarf_formudata(&attr, &fi) == 0 && b->files &&
	    fi < b->nfiles) {
		if (!b->file_names[fi]) {
			const char *fname = dwarf_filesrc(b->files, fi, NULL, NULL);
			uint32_t e = intern_path(l, cu, fname ? fname : "??");
			if (e == NO_FILE)
				return -ENOMEM;
			b->file_names[fi] = e;
		}
		in->call_file = b->file_names[fi];
	}
	return 0;
}

static int add_instance(struct lines *l, struct lines_cu *cu, struct inl_builder *b, Dwarf_Die *die,
			uint32_t depth)
{
	if (b->ninst == b->inst_cap) {
		if (b->inst_cap >= LINES_INL_RANGES_MAX)
			return -E2BIG;
		size_t cap = b->inst_cap ? 2 * b->inst_cap : 64;
		struct lines_inst *v = realloc(b->inst, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		b->inst = v;
		b->inst_cap = cap;
	}
	struct lines_inst *in = &b->inst[b->ninst];
	int err = inst_name(l, in, die);
	if (err || (err = inst_call_site(l, cu, b, in, die)))
		return err;

	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	size_t added = 0;
	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (lo >= hi)
			continue;
		if (b->nrg == b->rg_cap) {
			if (b->rg_cap >= LINES_INL_RANGES_MAX)
				return -E2BIG;
			size_t cap = b->rg_cap ? 2 * b->rg_cap : 256;
			struct lines_irange *v = realloc(b->rg, cap * sizeof(*v));
			if (!v)
				return -ENOMEM;
			b->rg = v;
			b->rg_cap = cap;
		}
		b->rg[b->nrg++] =
			(struct lines_irange){.lo = lo, .hi = hi, .inst = (uint32_t)b->ninst, .depth = depth};
		added++;
	}
	if (added)
		b->ninst++;
	return 0;
}

/* Tags whose children may hold code (inlined subroutines). */
static bool may_hold_code(int tag)
{
	switch (tag) {
	case DW_TAG_compile_unit:
	case DW_TAG_partial_unit:
	case DW_TAG_subprogram:
	case DW_TAG_lexical_block:
	case DW_TAG_inlined_subroutine:
	case DW_TAG_namespace:
	case DW_TAG_module:
	case DW_TAG_try_block:
	case DW_TAG_catch_block:
	case DW_TAG_with_stmt:
	case DW_TAG_class_type:
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_entry_point: return true;
	default: return false;
	}
}

/* Walk cu's DIE tree collecting inlined-subroutine instances and ranges. */
static int collect_inlines(struct lines *l, struct lines_cu *cu, struct inl_builder *b)
{
	struct {
		Dwarf_Die die;
		uint32_t depth; /* inlined-subroutine ancestors, this DIE included */
	} stack[LINES_DIE_DEPTH_MAX];
	size_t sp = 0;
	Dwarf_Die child;
	if (dwarf_child(&cu->die, &child) != 0)
		return 0;
	stack[sp].die = child;
	stack[sp++].depth = 0;
	/* stack[sp-1] is the DIE being visited; after visiting, move to its
	 * first child (if it may hold code), else to its next sibling, else pop. */
	while (sp) {
		Dwarf_Die *die = &stack[sp - 1].die;
		int tag = dwarf_tag(die);
		uint32_t parent_depth = sp > 1 ? stack[sp - 2].depth : 0;
		uint32_t depth = parent_depth + (tag == DW_TAG_inlined_subroutine);
		stack[sp - 1].depth = depth;
		if (tag == DW_TAG_inlined_subroutine) {
			int err = add_instance(l, cu, b, die, depth);
			if (err)
				return err;
		}
		if (may_hold_code(tag) && sp < LINES_DIE_DEPTH_MAX && dwarf_haschildren(die) > 0 &&
		    dwarf_child(die, &child) == 0) {
			stack[sp].die = child;
			stack[sp++].depth = depth;
			continue;
		}
		/* Next sibling, climbing up as needed. */
		while (sp) {
			Dwarf_Die sib;
			int rc = dwarf_siblingof(&stack[sp - 1].die, &sib);
			if (rc < 0)
				return -EBADMSG;
			if (rc == 0) {
				stack[sp - 1].die = sib;
				break;
			}
			sp--;
		}
	}
	return 0;
}

static int irange_lo_cmp(const void *a, const void *b)
{
	const struct lines_irange *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->depth < y->depth ? -1 : x->depth > y->depth;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The ranges of rg open at one point of the sweep (at most LINES_CHAIN_MAX). */
struct sweep_active {
	uint32_t v[LINES_CHAIN_MAX];
	size_t n;
	size_t next; /* the first range of rg (sorted by lo) not yet opened */
};

/* Move the sweep to `at`: close the ranges that end there, open those that start by then. */
static void active_advance(struct sweep_active *a, const struct lines_irange *rg, size_t nrg, uint64_t at)
{
	size_t keep = 0;
	for (size_t k = 0; k < a->n; k++)
		if (rg[a->v[k]].hi > at)
			a->v[keep++] = a->v[k];
	a->n = keep;
	for (; a->next < nrg && rg[a->next].lo <= at; a->next++)
		if (rg[a->next].hi > at && a->n < LINES_CHAIN_MAX)
			a->v[a->n++] = (uint32_t)a->next;
}

/* Order the open ranges innermost first: deeper, then narrower. */
static void active_order(struct sweep_active *a, const struct lines_irange *rg)
{
	for (size_t k = 1; k < a->n; k++) {
		uint32_t x = a->v[k];
		size_t j = k;
		for (; j > 0; j--) {
			const struct lines_irange *p = &rg[a->v[j - 1]], *q = &rg[x];
			bool before = q->depth > p->depth ||
				      (q->depth == p->depth && q->hi - q->lo < p->hi - p->lo);
			if (!before)
				break;
			a->v[j] = a->v[j - 1];
		}
		a->v[j] = x;
	}
}

/* Make room in *pool (*cap entries) for need entries; 0 or -ENOMEM. */
static int pool_reserve(uint32_t **pool, size_t *cap, size_t need)
{
	if (need <= *cap)
		return 0;
	size_t c = *cap ? 2 * *cap : 256;
	while (c < need)
		c *= 2;
	uint32_t *p = realloc(*pool, c * sizeof(*p));
	if (!p)
		return -ENOMEM;
	*pool = p;
	*cap = c;
	return 0;
}

/* Sweep the ranges (sorted by lo) into disjoint intervals with constant chains. */
static int sweep(struct lines_cu_inlines *ci, const struct lines_irange *rg, size_t nrg)
{
	size_t nb = 2 * nrg, niv = 0, npool = 0, pool_cap = 0;
	uint64_t *bounds = malloc((nb ? nb : 1) * sizeof(*bounds));
	struct lines_ival *iv = malloc((nb ? nb : 1) * sizeof(*iv));
	uint32_t *pool = NULL;
	int err = -ENOMEM;
	if (!bounds || !iv)
		goto out;
	for (size_t i = 0; i < nrg; i++) {
		bounds[2 * i] = rg[i].lo;
		bounds[2 * i + 1] = rg[i].hi;
	}
	qsort(bounds, nb, sizeof(*bounds), u64_cmp);
	struct sweep_active a = {.n = 0, .next = 0};
	for (size_t bi = 0; bi < nb; bi++) {
		uint64_t at = bounds[bi];
		if (bi + 1 < nb && bounds[bi + 1] == at)
			continue;
		active_advance(&a, rg, nrg, at);
		if (a.n == 0 || bi + 1 >= nb)
			continue;
		active_order(&a, rg);
		uint64_t end = bounds[bi + 1];
		struct lines_ival *prev = niv ? &iv[niv - 1] : NULL;
		if (prev && prev->hi == at && prev->len == a.n &&
		    memcmp(pool + prev->chain, a.v, a.n * sizeof(*a.v)) == 0) {
			prev->hi = end;
			continue;
		}
		if (pool_reserve(&pool, &pool_cap, npool + a.n) < 0)
			goto out;
		memcpy(pool + npool, a.v, a.n * sizeof(*a.v));
		iv[niv++] = (struct lines_ival){
			.lo = at, .hi = end, .chain = (uint32_t)npool, .len = (uint32_t)a.n};
		npool += a.n;
	}
	ci->iv = iv;
	ci->niv = niv;
	ci->pool = pool;
	ci->npool = npool;
	iv = NULL;
	pool = NULL;
	err = 0;
out:
	free(bounds);
	free(iv);
	free(pool);
	return err;
}

/* Free a CU's inline index built from DWARF (one from an index file points into its mapping). */
static void cu_inlines_release(struct lines_cu_inlines *ci)
{
	free((void *)ci->inst);
	free((void *)ci->rg);
	free((void *)ci->iv);
	free((void *)ci->pool);
	memset(ci, 0, sizeof(*ci));
}

static int index_cu(struct lines *l, struct lines_cu *cu)
{
	struct inl_builder b = {0};
	if (dwarf_getsrcfiles(&cu->die, &b.files, &b.nfiles) != 0) {
		b.files = NULL;
		b.nfiles = 0;
	}
	if (b.nfiles > LINES_CU_FILES_MAX)
		b.nfiles = LINES_CU_FILES_MAX;
	int err = -ENOMEM;
	if (b.nfiles && !(b.file_names = calloc(b.nfiles, sizeof(*b.file_names))))
		goto fail;
	if ((err = collect_inlines(l, cu, &b)))
		goto fail;
	if (b.nrg)
		qsort(b.rg, b.nrg, sizeof(*b.rg), irange_lo_cmp);
	if ((err = sweep(&cu->inl, b.rg, b.nrg)))
		goto fail;
	cu->inl.inst = b.inst;
	cu->inl.ninst = b.ninst;
	cu->inl.rg = b.rg;
	cu->inl.nrg = b.nrg;
	free(b.file_names);
	return 0;
fail:
	free(b.inst);
	free(b.rg);
	free(b.file_names);
	return err;
}

/* The CU whose ranges contain vaddr, or NULL (the ranges alone). */
static struct lines_cu *cu_by_ranges(struct lines *l, uint64_t vaddr)
{
	size_t lo = 0, hi = l->ncur;
	while (lo < hi) { /* first range with lo > vaddr */
		size_t mid = lo + (hi - lo) / 2;
		if (l->cur[mid].lo <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo, k = 0; i > 0 && k < 16; i--, k++)
		if (vaddr < l->cur[i - 1].hi)
			return l->cur[i - 1].cu < l->ncus ? &l->cus[l->cur[i - 1].cu] : NULL;
	return NULL;
}

/* The index of the CU whose DIE is at .debug_info offset off, or -1. */
static ptrdiff_t cu_by_offset(const struct lines *l, Dwarf_Off off)
{
	size_t lo = 0, hi = l->ncus;
	while (lo < hi) { /* the CUs are in .debug_info order */
		size_t mid = lo + (hi - lo) / 2;
		Dwarf_Off m = dwarf_dieoffset(&l->cus[mid].die);
		if (m == off)
			return (ptrdiff_t)mid;
		if (m < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* The CU whose ranges contain vaddr, else the one .debug_aranges names, or NULL. */
static struct lines_cu *find_cu(struct lines *l, uint64_t vaddr)
{
	struct lines_cu *cu = cu_by_ranges(l, vaddr);
	if (cu)
		return cu;
	/* An index file has the aranges among its ranges (add_aranges). */
	Dwarf_Die die;
	if (!l->dw || !dwarf_addrdie(l->dw, vaddr, &die))
		return NULL;
	ptrdiff_t i = cu_by_offset(l, dwarf_dieoffset(&die));
	return i < 0 ? NULL : &l->cus[i];
}

/* Add to l->cur the .debug_aranges entries no CU range covers; 0 or -ENOMEM. */
static int add_aranges(struct lines *l)
{
	Dwarf_Aranges *ar;
	size_t n;
	if (dwarf_getaranges(l->dw, &ar, &n) != 0 || n == 0)
		return 0;
	struct lines_cu_range *add = NULL;
	size_t nadd = 0;
	for (size_t i = 0; i < n && l->ncur + nadd < LINES_CU_RANGES_MAX; i++) {
		Dwarf_Addr start;
		Dwarf_Word len;
		Dwarf_Off off;
		Dwarf_Arange *a = dwarf_onearange(ar, i);
		if (!a || dwarf_getarangeinfo(a, &start, &len, &off) != 0 || len == 0 ||
		    start > UINT64_MAX - len || cu_by_ranges(l, start))
			continue;
		Dwarf_Die cudie;
		ptrdiff_t cu =
			dwarf_offdie(l->dw, off, &cudie) ? cu_by_offset(l, dwarf_dieoffset(&cudie)) : -1;
		if (cu < 0)
			continue;
		if ((nadd & (nadd - 1)) == 0) { /* 0, 1, 2, 4, ...: double */
			struct lines_cu_range *v = realloc(add, (nadd ? 2 * nadd : 1) * sizeof(*v));
			if (!v) {
				free(add);
				return -ENOMEM;
			}
			add = v;
		}
		add[nadd++] = (struct lines_cu_range){.lo = start, .hi = start + len, .cu = (uint32_t)cu};
	}
	if (nadd) {
		struct lines_cu_range *v = realloc(l->cur, (l->ncur + nadd) * sizeof(*v));
		if (!v) {
			free(add);
			return -ENOMEM;
		}
		memcpy(v + l->ncur, add, nadd * sizeof(*add));
		l->cur = v;
		l->ncur += nadd;
		qsort(l->cur, l->ncur, sizeof(*l->cur), cu_range_cmp);
	}
	free(add);
	return 0;
}

/* Index every CU (and add the aranges), so the tables answer every query without libdw. */
static int index_all(struct lines *l)
{
	for (size_t i = 0; i < l->ncus; i++) {
		struct lines_cu *cu = &l->cus[i];
		if (cu->state != LINES_CU_UNINDEXED)
			continue;
		int r = index_cu(l, cu);
		if (r == -ENOMEM)
			return r;
		cu->state = r == 0 ? LINES_CU_INDEXED : LINES_CU_FAILED;
	}
	return add_aranges(l);
}

/* ------------------------------------------------------------------ alt file */

/* Candidate alt_i (0: the name the link gives, 1: by build-id under root) into ret; 0 when there is none. */
static int alt_candidate(int i, const char *name, const uint8_t *id, size_t id_len, const char *dwarf_path,
			 const char *root, char *ret, size_t room)
{
	int n;
	if (i == 0 && name[0] == '/') {
		n = snprintf(ret, room, "%s", name);
	} else if (i == 0) {
		const char *slash = strrchr(dwarf_path, '/');
		n = snprintf(ret, room, "%.*s/%s", slash ? (int)(slash - dwarf_path) : 1,
			     slash ? dwarf_path : ".", name);
	} else {
		char hex[2 * ELF_BUILD_ID_MAX + 1];
		if (id_len < 2 || id_len > ELF_BUILD_ID_MAX)
			return 0;
		elf_hex_encode(id, id_len, hex);
		n = snprintf(ret, room, "%s/.build-id/%.2s/%s.debug", root, hex, hex + 2);
	}
	return n > 0 && (size_t)n < room;
}

/*
 * A dwz'd debug file names a shared "alt" file (.gnu_debugaltlink), which
 * libdw opens itself, with a blocking open(2), when a DIE refers into it:
 * a FIFO named there would hang the reader.  So look it up here as libdw
 * would (the name the link gives, then the build-id path), through
 * elf_file_open, and hand libdw the one whose build-id matches
 * (dwarf_setalt).  A candidate that is there but not a regular file (or is
 * sparse) refuses the whole DWARF with its code; none found: 0, and libdw
 * finds none either.
 */
static int set_alt(struct lines *l, const char *dwarf_path, const char *root)
{
	const char *name;
	const void *id;
	ssize_t id_len = dwelf_dwarf_gnu_debugaltlink(l->dw, &name, &id);
	if (id_len <= 0 || !name || !name[0])
		return 0;
	char *path = malloc(PATH_MAX);
	if (!path)
		return -ENOMEM;
	int r = 0;
	for (int i = 0; i < 2 && r == 0 && !l->alt_dw; i++) {
		struct stat st;
		if (!alt_candidate(i, name, id, (size_t)id_len, dwarf_path, root, path, PATH_MAX) ||
		    stat(path, &st) < 0)
			continue;
		int e = elf_file_open(path, &l->alt);
		if (e <= -REGFILE_EFIFO) {
			r = e; /* there, and not a file libdw may open */
			break;
		}
		if (e < 0)
			continue;
		if (l->alt.build_id && l->alt.build_id_len == (size_t)id_len &&
		    memcmp(l->alt.build_id, id, (size_t)id_len) == 0 &&
		    (l->alt_dw = dwarf_begin_elf(l->alt.elf, DWARF_C_READ, NULL)))
			dwarf_setalt(l->dw, l->alt_dw);
		else
			elf_file_close(&l->alt);
	}
	free(path);
	return r;
}

/* ------------------------------------------------------------------ public API */

/* The tables of the DWARF in src (read from dwarf_path) into *ret; every CU indexed when `all`. */
static int read_dwarf(struct elf_file *src, const char *dwarf_path, const char *root, bool all,
		      struct lines **ret)
{
	struct lines *l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->fd = -1;
	l->alt.fd = -1;
	int err = -ENOMEM;
	if (intern_str(l, "") != STR_EMPTY)
		goto out;
	l->dw = dwarf_begin_elf(src->elf, DWARF_C_READ, NULL);
	if (!l->dw) {
		err = -EBADMSG; /* has_dwarf() saw the sections */
		goto out;
	}
	if ((err = set_alt(l, dwarf_path, root)) < 0)
		goto out;
	/* The Dwarf handle keeps using the ELF handle and its descriptor. */
	l->elf = src->elf;
	l->fd = src->fd;
	src->elf = NULL;
	src->fd = -1;
	err = -ENOMEM;
	uint32_t df = intern_str(l, dwarf_path);
	if (df == NO_FILE)
		goto out;
	l->debug_file = lines_str(l, df);
	if ((err = load_units(l)) == 0 && all && l->nrows <= LINES_INDEX_ROWS_MAX)
		err = index_all(l);
out:
	if (err) {
		lines_free(l);
		return err;
	}
	*ret = l;
	return 0;
}

/* What lines_open was given, to read the DWARF if the index goes bad. */
struct reopen {
	const char *path, *build_id, *root;
};

static const char *arena_copy(struct lines *l, const char *s)
{
	return s ? arena_strndup(&l->arena, s, strlen(s)) : NULL;
}

/* Record in a mapped l the DWARF file it is read from now (which may not be the one the index
 * names) and how to open it again; 0 or -ENOMEM. */
static int remember(struct lines *l, const char *dwarf_path, const struct reopen *ro)
{
	l->debug_file = arena_copy(l, dwarf_path);
	l->reopen_path = arena_copy(l, ro->path);
	l->reopen_build_id = arena_copy(l, ro->build_id);
	l->reopen_root = arena_copy(l, ro->root);
	return l->debug_file && l->reopen_path && l->reopen_root && (l->reopen_build_id || !ro->build_id)
		       ? 0
		       : -ENOMEM;
}

struct lines *lines_index_damaged(struct lines *l)
{
	if (l->fallback || l->damaged || !l->map)
		return l->fallback;
	if (l->index_file)
		unlink(l->index_file); /* the next open rebuilds it */
	struct lines_options opt = {.debug_root = l->reopen_root};
	if (!l->reopen_path || lines_open(l->reopen_path, l->reopen_build_id, &opt, &l->fallback) < 0) {
		l->fallback = NULL;
		l->damaged = 1;
	}
	return l->fallback;
}

/*
 * The tables of src through the index file under cache_dir: mapped if it is
 * there and valid, else read from the DWARF with every CU indexed, written,
 * and mapped.  Whatever fails on the way costs only time: the tables read
 * from the DWARF are used as they are.
 */
static int read_indexed(struct elf_file *src, const char *dwarf_path, const char *root, const char *cache_dir,
			const struct reopen *reopen, struct lines **ret)
{
	struct stat st;
	struct lines_source_id sid;
	if (fstat(src->fd, &st) < 0)
		return read_dwarf(src, dwarf_path, root, false, ret);
	lines_source_id_init(&sid, src, dwarf_path, &st);
	struct lines *l = NULL;
	int r = lines_cache_load(cache_dir, &sid, &l);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		if ((r = read_dwarf(src, dwarf_path, root, true, &l)) < 0)
			return r;
		struct lines *m = NULL;
		if (l->nrows <= LINES_INDEX_ROWS_MAX && lines_cache_store(cache_dir, &sid, l) == 0 &&
		    lines_cache_load(cache_dir, &sid, &m) == 0) {
			lines_free(l);
			l = m;
		}
	}
	if (l->map && remember(l, dwarf_path, reopen) < 0) {
		lines_free(l);
		return -ENOMEM;
	}
	*ret = l;
	return 0;
}

int lines_open(const char *path, const char *build_id_hex, const struct lines_options *opt,
	       struct lines **ret)
{
	if (!path || !ret)
		return -EINVAL;
	*ret = NULL;
	const char *root = opt && opt->debug_root ? opt->debug_root : LINES_DEFAULT_DEBUG_ROOT;
	struct elf_file obj, dbg = {.fd = -1};
	char *dbg_path = malloc(PATH_MAX);
	if (!dbg_path)
		return -ENOMEM;
	int err = elf_file_open(path, &obj);
	if (err == -ENOENT && build_id_hex &&
	    elf_find_debug_file(NULL, path, build_id_hex, root, has_dwarf, &dbg, dbg_path))
		err = 0; /* the object is gone, its debug file is not */
	else if (err)
		goto out;
	const char *dwarf_path = path;
	struct elf_file *src = &obj;
	if (dbg.elf) {
		src = &dbg;
		dwarf_path = dbg_path;
	} else if (!has_dwarf(&obj)) {
		if (!elf_find_debug_file(&obj, path, NULL, root, has_dwarf, &dbg, dbg_path)) {
			err = -ENODATA;
			goto out;
		}
		src = &dbg;
		dwarf_path = dbg_path;
	}
	if (opt && opt->cache_dir && opt->cache_dir[0])
		err = read_indexed(src, dwarf_path, root, opt->cache_dir,
				   &(struct reopen){.path = path, .build_id = build_id_hex, .root = root},
				   ret);
	else
		err = read_dwarf(src, dwarf_path, root, false, ret);
out:
	free(dbg_path);
	elf_file_close(&dbg);
	if (obj.elf || obj.fd >= 0)
		elf_file_close(&obj);
	return err;
}

void lines_free(struct lines *l)
{
	if (!l)
		return;
	lines_free(l->fallback);
	if (l->map) {
		munmap(l->map, l->map_len);
		for (int t = 0; t < LINES_NTABLES; t++)
			free(l->check[t].verified);
	} else {
		for (size_t i = 0; i < l->ncus; i++)
			cu_inlines_release(&l->cus[i].inl);
		free(l->cur);
		free(l->rows);
	}
	free(l->cus);
	free(l->strv);
	free(l->strs);
	arena_free(l->arena);
	if (l->dw)
		dwarf_end(l->dw);
	if (l->alt_dw)
		dwarf_end(l->alt_dw);
	elf_file_close(&l->alt);
	if (l->elf)
		elf_end(l->elf);
	if (l->fd >= 0)
		close(l->fd);
	free(l);
}

const char *lines_debug_file(const struct lines *l)
{
	return l ? l->debug_file : NULL;
}

static void row_loc(const struct lines *l, const struct lines_row *r, struct line_loc *ret)
{
	ret->file = lines_str(l, r->file);
	ret->line = r->line;
	ret->column = r->column;
}

/*
 * The lookups below check each element of an index file they read
 * (lines_block_ok); when one fails they answer through l->fallback, the
 * tables read from the DWARF, from then on: an index that has gone bad
 * never gives a wrong line.
 */
static struct lines *healthy(struct lines *l)
{
	return l->fallback ? l->fallback : l->damaged ? NULL : l;
}

/* The last row at or below vaddr: 1 with *ret_i, 0 (none), -1 (a failed check). */
static int row_at(struct lines *l, uint64_t vaddr, size_t *ret_i)
{
	if (l->nrows == 0)
		return 0;
	if (!lines_block_ok(l, LINES_T_ROWS, &l->rows[0]))
		return -1;
	if (vaddr < l->rows[0].addr)
		return 0;
	size_t lo = 0, hi = l->nrows; /* last i with addr <= vaddr is in [lo, hi) */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (!lines_block_ok(l, LINES_T_ROWS, &l->rows[mid]))
			return -1;
		if (l->rows[mid].addr <= vaddr)
			lo = mid;
		else
			hi = mid;
	}
	*ret_i = lo;
	return 1;
}

int lines_lookup(struct lines *l, uint64_t vaddr, struct line_loc *ret)
{
	if (!l || !(l = healthy(l)))
		return 0;
	size_t i;
	int r = row_at(l, vaddr, &i);
	if (r < 0)
		return lines_index_damaged(l) ? lines_lookup(l, vaddr, ret) : 0;
	if (r == 0 || l->rows[i].file == NO_FILE || i + 1 == l->nrows)
		return 0; /* none, past an end of sequence, or past the last one */
	row_loc(l, &l->rows[i], ret);
	return 1;
}

/* The interval of ci holding vaddr: 1 with *ret, 0 (none), -1 (a failed check). */
static int interval_at(struct lines *l, const struct lines_cu_inlines *ci, uint64_t vaddr,
		       const struct lines_ival **ret)
{
	size_t lo = 0, hi = ci->niv;
	while (lo < hi) { /* first interval with lo > vaddr */
		size_t mid = lo + (hi - lo) / 2;
		if (!lines_block_ok(l, LINES_T_IV, &ci->iv[mid]))
			return -1;
		if (ci->iv[mid].lo <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return 0;
	const struct lines_ival *iv = &ci->iv[lo - 1];
	if (!lines_block_ok(l, LINES_T_IV, iv))
		return -1;
	if (vaddr >= iv->hi)
		return 0;
	if (iv->chain > ci->npool || iv->len > ci->npool - iv->chain)
		return -1;
	for (size_t k = 0; k < iv->len; k++) {
		const uint32_t *r = &ci->pool[iv->chain + k];
		if (!lines_block_ok(l, LINES_T_POOL, r) || *r >= ci->nrg ||
		    !lines_block_ok(l, LINES_T_RG, &ci->rg[*r]) || ci->rg[*r].inst >= ci->ninst ||
		    !lines_block_ok(l, LINES_T_INST, &ci->inst[ci->rg[*r].inst]))
			return -1;
	}
	*ret = iv;
	return 1;
}

size_t lines_inlines(struct lines *l, uint64_t vaddr, struct line_inline *ret, size_t max)
{
	if (!l || !(l = healthy(l)))
		return 0;
	struct lines_cu *cu = find_cu(l, vaddr);
	if (!cu)
		return 0;
	if (cu->state == LINES_CU_UNINDEXED)
		cu->state = l->dw && index_cu(l, cu) == 0 ? LINES_CU_INDEXED : LINES_CU_FAILED;
	if (cu->state != LINES_CU_INDEXED)
		return 0;
	const struct lines_cu_inlines *ci = &cu->inl;
	const struct lines_ival *iv;
	int r = interval_at(l, ci, vaddr, &iv);
	if (r < 0)
		return lines_index_damaged(l) ? lines_inlines(l, vaddr, ret, max) : 0;
	if (r == 0)
		return 0;
	for (size_t k = 0; k < iv->len && k < max; k++) {
		const struct lines_irange *rg = &ci->rg[ci->pool[iv->chain + k]];
		const struct lines_inst *in = &ci->inst[rg->inst];
		ret[k] = (struct line_inline){
			.name = lines_str(l, in->name),
			.mangled = lines_str(l, in->mangled),
			.call = {.file = lines_str(l, in->call_file),
				 .line = in->call_line,
				 .column = in->call_column},
			.lo = rg->lo,
			.hi = rg->hi,
		};
	}
	return iv->len;
}

/* The rows [*ret_a, *ret_b) with addresses in [lo, hi), every one checked; 0 or -1 (a failed check). */
static int rows_in(struct lines *l, uint64_t lo, uint64_t hi, size_t *ret_a, size_t *ret_b)
{
	size_t a = 0, b = l->nrows;
	while (a < b) { /* first row with addr >= lo */
		size_t mid = a + (b - a) / 2;
		if (!lines_block_ok(l, LINES_T_ROWS, &l->rows[mid]))
			return -1;
		if (l->rows[mid].addr < lo)
			a = mid + 1;
		else
			b = mid;
	}
	*ret_a = a;
	for (; a < l->nrows; a++) {
		if (!lines_block_ok(l, LINES_T_ROWS, &l->rows[a]))
			return -1;
		if (l->rows[a].addr >= hi)
			break;
	}
	*ret_b = a;
	return 0;
}

size_t lines_rows(struct lines *l, uint64_t lo, uint64_t hi,
		  void (*fn)(void *ctx, uint64_t addr, const struct line_loc *loc), void *ctx)
{
	if (!l || lo >= hi || !(l = healthy(l)))
		return 0;
	size_t a, b;
	if (rows_in(l, lo, hi, &a, &b) < 0) /* checked before the first callback */
		return lines_index_damaged(l) ? lines_rows(l, lo, hi, fn, ctx) : 0;
	size_t count = 0;
	for (; a < b; a++) {
		const struct lines_row *r = &l->rows[a];
		if (r->file == NO_FILE)
			continue;
		struct line_loc loc;
		row_loc(l, r, &loc);
		if (fn)
			fn(ctx, r->addr, &loc);
		count++;
	}
	return count;
}
