/*
 * symtab.c - one load object's function table (contract in symtab.h).
 *
 * Build: collect candidate symbols from one symbol table (names still point
 * into libelf's string data), sort by (address, preference), collapse aliases,
 * extend sizeless functions, add .eh_frame_hdr FDE ranges nobody covers, then
 * copy every string into the table's own arena and close the ELF files.  The
 * result is a sorted array plus, per entry, the index of the entry at or before
 * it that reaches furthest, so a lookup is one binary search and two compares.
 * Every byte read from a file goes through a bounds-checked cursor.
 */
#include "analysis/symtab.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>
#include <gelf.h>
#include <libelf.h>

#include "analysis/symtab_elf.h"
#include "analysis/symver.h"
#include "common/arena.h"
#include "common/dwarf_eh.h"

/* libstdc++'s demangler (cxxabi.h is C++ only). */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

#define SYMTAB_DEFAULT_DEBUG_ROOT "/usr/lib/debug"
#define SYMTAB_NAME_MAX 4096        /* longer symbol names are truncated */
#define SYMTAB_DEMANGLE_MAX 2048    /* longer mangled names are not demangled */
#define SYMTAB_FUNCS_MAX (1u << 24) /* functions per object */
#define SYMTAB_CIE_CACHE 16

/* ------------------------------------------------------------------ arena */

/* ------------------------------------------------------------------ the table */

struct symtab {
	struct symtab_func *funcs; /* sorted by addr, addrs distinct */
	uint32_t *outer;           /* outer[i]: index <= i whose end is largest */
	size_t count;
	struct arena_chunk *arena;
	const char *path, *symbol_file;
	char build_id[2 * ELF_BUILD_ID_MAX + 1];
	enum symtab_source source;
	bool build_id_mismatch;
	uint64_t plt[SYMTAB_PLT_MAX][2]; /* [start, end) of .plt, .plt.got, .plt.sec */
	size_t nplt;
};

static uint64_t func_end(const struct symtab_func *f)
{
	uint64_t n = f->size ? f->size : 1;
	return f->addr > UINT64_MAX - n ? UINT64_MAX : f->addr + n;
}

const struct symtab_func *symtab_lookup(const struct symtab *st, uint64_t vaddr)
{
	if (!st || st->count == 0 || vaddr < st->funcs[0].addr)
		return NULL;
	size_t lo = 0, hi = st->count; /* last i with addr <= vaddr is in [lo, hi) */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (st->funcs[mid].addr <= vaddr)
			lo = mid;
		else
			hi = mid;
	}
	if (vaddr < func_end(&st->funcs[lo]))
		return &st->funcs[lo];
	const struct symtab_func *o = &st->funcs[st->outer[lo]];
	return vaddr < func_end(o) ? o : NULL;
}

size_t symtab_count(const struct symtab *st)
{
	return st ? st->count : 0;
}

const struct symtab_func *symtab_at(const struct symtab *st, size_t i)
{
	return st && i < st->count ? &st->funcs[i] : NULL;
}

const char *symtab_path(const struct symtab *st)
{
	return st->path;
}

const char *symtab_symbol_file(const struct symtab *st)
{
	return st->symbol_file;
}

enum symtab_source symtab_source(const struct symtab *st)
{
	return st->source;
}

const char *symtab_build_id(const struct symtab *st)
{
	return st->build_id;
}

bool symtab_in_plt(const struct symtab *st, uint64_t vaddr)
{
	for (size_t i = 0; st && i < st->nplt; i++)
		if (vaddr >= st->plt[i][0] && vaddr < st->plt[i][1])
			return true;
	return false;
}

bool symtab_build_id_mismatch(const struct symtab *st)
{
	return st->build_id_mismatch;
}

void symtab_free(struct symtab *st)
{
	if (!st)
		return;
	free(st->funcs);
	free(st->outer);
	arena_free(st->arena);
	free(st);
}

/* Remember the object's PLT sections (from its own section headers). */
static void find_plt(struct symtab *st, struct elf_file *f)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(f->elf, &shstrndx) != 0)
		return;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while ((scn = elf_nextscn(f->elf, scn)) && st->nplt < SYMTAB_PLT_MAX) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		const char *name = elf_strptr(f->elf, shstrndx, sh.sh_name);
		if (!name || (strcmp(name, ".plt") != 0 && strcmp(name, ".plt.got") != 0 &&
			      strcmp(name, ".plt.sec") != 0))
			continue;
		if (sh.sh_addr > UINT64_MAX - sh.sh_size)
			continue;
		st->plt[st->nplt][0] = sh.sh_addr;
		st->plt[st->nplt][1] = sh.sh_addr + sh.sh_size;
		st->nplt++;
	}
}

/* ------------------------------------------------------------------ candidates */

struct cand {
	uint64_t addr, size;
	const char *name; /* in libelf's string data, or NULL if synthesized */
	uint32_t shndx;
	uint32_t rank; /* lower is preferred; see cand_rank */
};

struct builder {
	struct cand *v;
	size_t n, cap;
};

static int builder_push(struct builder *b, const struct cand *c)
{
	if (b->n == b->cap) {
		if (b->cap >= SYMTAB_FUNCS_MAX)
			return -E2BIG;
		size_t cap = b->cap ? 2 * b->cap : 256;
		struct cand *v = realloc(b->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		b->v = v;
		b->cap = cap;
	}
	b->v[b->n++] = *c;
	return 0;
}

static uint32_t cand_rank(const char *name, unsigned bind, uint64_t size)
{
	size_t us = strspn(name, "_");
	size_t len = strnlen(name, SYMTAB_NAME_MAX);
	uint32_t r = 0;
	/* glibc's large-file aliases (fopen64 at fopen's address) name the call less well */
	int lfs64 = len > 2 && strcmp(name + len - 2, "64") == 0;
	r |= (uint32_t)(bind == STB_LOCAL) << 21;
	/* a non-default version (foo@GLIBC_2.2.5) loses; the default (foo@@GLIBC_2.2.5) does not */
	r |= (uint32_t)(strchr(name, '@') != NULL && !strstr(name, "@@")) << 20;
	r |= (uint32_t)(us > 7 ? 7 : us) << 17;
	r |= (uint32_t)lfs64 << 16;
	r |= (uint32_t)(bind == STB_WEAK) << 15;
	r |= (uint32_t)(size == 0) << 14;
	r |= (uint32_t)(len > 0x3fff ? 0x3fff : len);
	return r;
}

static int cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (!x->name || !y->name)
		return !x->name - !y->name;
	return strcmp(x->name, y->name);
}

/* Append the functions of symbol table `scn` (SHT_SYMTAB or SHT_DYNSYM). */
static int load_symbols(struct elf_file *f, Elf_Scn *scn, const GElf_Shdr *sh, struct builder *b)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	if (!data)
		return -EBADMSG;
	size_t ent = gelf_fsize(f->elf, ELF_T_SYM, 1, EV_CURRENT);
	if (ent == 0 || !data->d_buf)
		return data->d_size ? -EBADMSG : 0;
	size_t nsym = data->d_size / ent;

	/* Section indexes >= SHN_LORESERVE live in SHT_SYMTAB_SHNDX. */
	Elf_Data *xdata = NULL;
	Elf_Scn *x = NULL;
	GElf_Shdr xsh;
	while ((x = elf_nextscn(f->elf, x))) {
		if (gelf_getshdr(x, &xsh) && xsh.sh_type == SHT_SYMTAB_SHNDX &&
		    xsh.sh_link == elf_ndxscn(scn)) {
			xdata = elf_getdata(x, NULL);
			break;
		}
	}
	for (size_t i = 1; i < nsym && i <= INT_MAX; i++) {
		GElf_Sym sym;
		GElf_Word xndx = 0;
		if (!gelf_getsymshndx(data, xdata, (int)i, &sym, &xndx))
			break;
		unsigned type = GELF_ST_TYPE(sym.st_info);
		if (type != STT_FUNC && type != STT_GNU_IFUNC)
			continue;
		uint32_t shndx = sym.st_shndx;
		if (shndx == SHN_XINDEX)
			shndx = xndx;
		else if (shndx >= SHN_LORESERVE)
			continue; /* SHN_ABS, SHN_COMMON: not code */
		if (shndx == SHN_UNDEF)
			continue;
		const char *name = elf_strptr(f->elf, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		struct cand c = {
			.addr = sym.st_value,
			.size = sym.st_size,
			.name = name,
			.shndx = shndx,
			.rank = cand_rank(name, GELF_ST_BIND(sym.st_info), sym.st_size),
		};
		int err = builder_push(b, &c);
		if (err == -E2BIG)
			break;
		if (err)
			return err;
	}
	return 0;
}

/* Sort, keep the preferred alias per address (with the largest size of the
 * group), and extend sizeless functions to the next one or their section end. */
static void collapse(struct elf_file *f, struct builder *b)
{
	if (b->n == 0)
		return;
	qsort(b->v, b->n, sizeof(*b->v), cand_cmp);
	size_t out = 0;
	for (size_t i = 0; i < b->n; i++) {
		if (out && b->v[out - 1].addr == b->v[i].addr) {
			if (b->v[i].size > b->v[out - 1].size)
				b->v[out - 1].size = b->v[i].size;
			continue;
		}
		b->v[out++] = b->v[i];
	}
	b->n = out;
	for (size_t i = 0; i < b->n; i++) {
		struct cand *c = &b->v[i];
		if (c->size)
			continue;
		uint64_t end = i + 1 < b->n ? b->v[i + 1].addr : UINT64_MAX;
		GElf_Shdr sh;
		Elf_Scn *scn = elf_getscn(f->elf, c->shndx);
		if (scn && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_ALLOC) && c->addr >= sh.sh_addr &&
		    c->addr - sh.sh_addr < sh.sh_size) {
			uint64_t send = sh.sh_addr + sh.sh_size;
			if (send > sh.sh_addr && send < end)
				end = send;
		}
		if (end != UINT64_MAX)
			c->size = end - c->addr;
	}
}

/* ------------------------------------------------------------------ .eh_frame */

#define SYMTAB_LOADS_MAX 64 /* PT_LOAD segments looked at */

/* The object's file image seen through its PT_LOAD segments. */
struct image {
	const struct elf_file *f;
	bool is64, big;
	size_t nload;
	struct {
		uint64_t vaddr, offset, filesz;
	} load[SYMTAB_LOADS_MAX];
};

static void image_init(struct image *im, const struct elf_file *f)
{
	memset(im, 0, sizeof(*im));
	im->f = f;
	im->is64 = f->eh.e_ident[EI_CLASS] == ELFCLASS64;
	im->big = f->eh.e_ident[EI_DATA] == ELFDATA2MSB;
	size_t phnum;
	if (elf_getphdrnum(f->elf, &phnum) != 0)
		return;
	for (size_t i = 0; i < phnum && i <= INT_MAX && im->nload < SYMTAB_LOADS_MAX; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(f->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (ph.p_offset > f->size || ph.p_filesz > f->size - ph.p_offset)
			continue;
		im->load[im->nload].vaddr = ph.p_vaddr;
		im->load[im->nload].offset = ph.p_offset;
		im->load[im->nload].filesz = ph.p_filesz;
		im->nload++;
	}
}

/* A reader over the file bytes backing vaddr (to the end of its segment). */
static int image_reader(const struct image *im, uint64_t vaddr, struct eh_reader *ret)
{
	for (size_t i = 0; i < im->nload; i++) {
		uint64_t base = im->load[i].vaddr;
		if (vaddr < base || vaddr - base >= im->load[i].filesz)
			continue;
		const uint8_t *seg = im->f->raw + im->load[i].offset;
		eh_reader_init(ret, seg + (vaddr - base), seg + im->load[i].filesz, vaddr, im->is64 ? 8 : 4,
			       im->big);
		return 0;
	}
	return -1;
}

/* Enter a CIE/FDE at vaddr: read its length, limit the reader to the entry and
 * return the offset size (4 or 8) of its CIE pointer/id field. */
static int cfi_entry(const struct image *im, uint64_t vaddr, struct eh_reader *r, unsigned *ret_osize)
{
	if (image_reader(im, vaddr, r))
		return -1;
	uint64_t len = eh_read_fixed(r, 4);
	*ret_osize = 4;
	if (len == 0xffffffffu) {
		len = eh_read_fixed(r, 8);
		*ret_osize = 8;
	}
	if (r->err || len == 0 || len > (uint64_t)(r->end - r->p))
		return -1;
	r->end = r->p + len;
	return 0;
}

struct cie_cache {
	uint64_t vaddr[SYMTAB_CIE_CACHE];
	uint8_t enc[SYMTAB_CIE_CACHE];
	bool valid[SYMTAB_CIE_CACHE];
};

/* The FDE pointer encoding of the CIE at vaddr ('R' augmentation). */
static int cie_fde_encoding(const struct image *im, uint64_t vaddr, struct cie_cache *cc, uint8_t *ret)
{
	unsigned slot = (unsigned)((vaddr >> 3) % SYMTAB_CIE_CACHE);
	if (cc->valid[slot] && cc->vaddr[slot] == vaddr) {
		*ret = cc->enc[slot];
		return 0;
	}
	struct eh_reader r;
	struct eh_cie cie;
	unsigned osize;
	if (cfi_entry(im, vaddr, &r, &osize) || eh_read_fixed(&r, osize) != 0 || r.err ||
	    eh_cie_parse(&r, &cie) || cie.version == 4 || (cie.aug_unknown && !cie.has_fde_enc))
		return -1; /* not a CIE (id 0), or one whose FDE encoding we cannot know */
	cc->valid[slot] = true;
	cc->vaddr[slot] = vaddr;
	cc->enc[slot] = cie.fde_enc;
	*ret = cie.fde_enc;
	return 0;
}

/* pc_begin and pc_range of the FDE at vaddr. */
static int fde_range(const struct image *im, uint64_t vaddr, struct cie_cache *cc, uint64_t *ret_begin,
		     uint64_t *ret_range)
{
	struct eh_reader r;
	unsigned osize;
	if (cfi_entry(im, vaddr, &r, &osize))
		return -1;
	uint64_t at = eh_reader_addr(&r), ptr = eh_read_fixed(&r, osize);
	if (r.err || ptr == 0 || ptr > at)
		return -1; /* id 0 is a CIE; the CIE pointer points backwards */
	uint8_t enc;
	/* datarel against 0, as this reader always did (no Linux FDE uses it) */
	struct eh_bases b = {.valid = EH_BASE_PC | EH_BASE_DATA, .data = 0};
	if (cie_fde_encoding(im, at - ptr, cc, &enc) || eh_read_pointer(&r, enc, &b, ret_begin) ||
	    eh_read_pointer(&r, enc & 0x0f, NULL, ret_range))
		return -1;
	return 0;
}

/* The object's PT_GNU_EH_FRAME header, if it lies inside the file. */
static bool find_eh_frame_hdr(struct elf_file *f, GElf_Phdr *ret)
{
	size_t phnum;
	if (elf_getphdrnum(f->elf, &phnum) != 0)
		return false;
	for (size_t i = 0; i < phnum && i <= INT_MAX; i++) {
		if (gelf_getphdr(f->elf, (int)i, ret) && ret->p_type == PT_GNU_EH_FRAME)
			return ret->p_offset <= f->size && ret->p_filesz <= f->size - ret->p_offset;
	}
	return false;
}

/* Sizes of out->v[first..]: each holds its FDE's address; the FDE's range,
 * else up to the next entry. */
static void sizes_from_fdes(const struct image *im, struct builder *out, size_t first)
{
	struct cie_cache cc = {0};
	size_t n = out->n;
	for (size_t k = first; k < n; k++) {
		struct cand *e = &out->v[k];
		uint64_t begin, range;
		uint64_t next = k + 1 < n && out->v[k + 1].addr > e->addr ? out->v[k + 1].addr : 0;
		if (fde_range(im, e->size, &cc, &begin, &range) == 0 && begin == e->addr && range)
			e->size = next && range > next - e->addr ? next - e->addr : range;
		else
			e->size = next ? next - e->addr : 0;
	}
}

/* The (start, fde) table of the object's PT_GNU_EH_FRAME, as cands with
 * name NULL; sizes from the FDEs, else up to the next entry. */
static int load_eh_frame_hdr(struct elf_file *f, struct builder *out)
{
	GElf_Phdr ph;
	if (!find_eh_frame_hdr(f, &ph))
		return 0;
	struct image im;
	image_init(&im, f);
	struct eh_reader r;
	eh_reader_init(&r, f->raw + ph.p_offset, f->raw + ph.p_offset + ph.p_filesz, ph.p_vaddr,
		       im.is64 ? 8 : 4, im.big);
	struct eh_bases b = {.valid = EH_BASE_PC | EH_BASE_DATA, .data = ph.p_vaddr};
	uint8_t version = (uint8_t)eh_read_fixed(&r, 1), ptr_enc = (uint8_t)eh_read_fixed(&r, 1);
	uint8_t cnt_enc = (uint8_t)eh_read_fixed(&r, 1), tab_enc = (uint8_t)eh_read_fixed(&r, 1);
	uint64_t v, count;
	if (r.err || version != 1 || eh_read_pointer(&r, ptr_enc, &b, &v) ||
	    eh_read_pointer(&r, cnt_enc, &b, &count))
		return 0;
	if (count > (uint64_t)(r.end - r.p) / 2)
		count = (uint64_t)(r.end - r.p) / 2; /* each entry takes >= 2 bytes */
	size_t first = out->n;
	for (uint64_t k = 0; k < count; k++) {
		uint64_t loc, fde;
		if (eh_read_pointer(&r, tab_enc, &b, &loc) || eh_read_pointer(&r, tab_enc, &b, &fde))
			break;
		struct cand e = {.addr = loc, .size = fde}; /* size holds the FDE address for now */
		int err = builder_push(out, &e);
		if (err == -E2BIG)
			break;
		if (err)
			return err;
	}
	sizes_from_fdes(&im, out, first);
	return 0;
}

/* A debug file is usable for symbols if it has a .symtab with entries. */
static bool has_symtab(struct elf_file *dbg)
{
	GElf_Shdr sh;
	Elf_Scn *scn = elf_file_section(dbg, SHT_SYMTAB, &sh);
	return scn && sh.sh_size;
}

/* ------------------------------------------------------------------ open */

/* The demangled display name of `raw` (a name without its version) into
 * *ret, or NULL if it is not a C++ name. */
static int display_name(struct arena_chunk **arena, const char *raw, const char **ret)
{
	*ret = NULL;
	size_t len = strlen(raw);
	if (len < 2 || raw[0] != '_' || raw[1] != 'Z' || len > SYMTAB_DEMANGLE_MAX)
		return 0;
	int status = -1;
	char *d = __cxa_demangle(raw, NULL, NULL, &status);
	if (!d || status != 0) {
		free(d);
		return status == -1 ? -ENOMEM : 0;
	}
	char *out = arena_strndup(arena, d, strnlen(d, SYMTAB_NAME_MAX));
	free(d);
	*ret = out;
	return out ? 0 : -ENOMEM;
}

static int build_outer(struct symtab *st)
{
	st->outer = malloc((st->count ? st->count : 1) * sizeof(*st->outer));
	if (!st->outer)
		return -ENOMEM;
	uint32_t best = 0;
	for (size_t i = 0; i < st->count; i++) {
		if (func_end(&st->funcs[i]) >= func_end(&st->funcs[best]))
			best = (uint32_t)i;
		st->outer[i] = best;
	}
	return 0;
}

/*
 * Copy the collapsed real functions into st->funcs[0, real->n), each name
 * split into its base and version and demangled for display.  0 or -ENOMEM.
 */
static int copy_real(struct symtab *st, const struct builder *real)
{
	for (size_t i = 0; i < real->n; i++) {
		const struct cand *c = &real->v[i];
		struct symtab_func *fn = &st->funcs[i];
		char raw[SYMTAB_NAME_MAX + 1];
		snprintf(raw, sizeof raw, "%s", c->name);
		size_t base = symver_base_len(raw);
		char *m = arena_strndup(&st->arena, raw, base);
		char *v = arena_strndup(&st->arena, raw + base, strlen(raw + base));
		if (!m || !v)
			return -ENOMEM;
		const char *d;
		if (display_name(&st->arena, m, &d))
			return -ENOMEM;
		*fn = (struct symtab_func){
			.addr = c->addr, .size = c->size, .name = d ? d : m, .mangled = m, .version = v};
	}
	return 0;
}

/* Merge st->funcs' two sorted runs [0, count) and [count, n) into one of n, its outer index rebuilt. */
static int merge_runs(struct symtab *st, size_t n)
{
	struct symtab_func *m = malloc(n * sizeof(*m));
	if (!m)
		return -ENOMEM;
	size_t a = 0, b = st->count, o = 0;
	while (a < st->count || b < n) {
		if (b == n || (a < st->count && st->funcs[a].addr < st->funcs[b].addr))
			m[o++] = st->funcs[a++];
		else
			m[o++] = st->funcs[b++];
	}
	free(st->funcs);
	free(st->outer);
	st->outer = NULL;
	st->funcs = m;
	st->count = n;
	return build_outer(st);
}

/* Copy the collapsed real functions and the uncovered FDE ranges into st. */
static int finish(struct symtab *st, struct builder *real, struct builder *fdes)
{
	size_t total = real->n + fdes->n;
	st->funcs = calloc(total ? total : 1, sizeof(*st->funcs));
	if (!st->funcs)
		return -ENOMEM;
	if (copy_real(st, real))
		return -ENOMEM;
	st->count = real->n;
	if (build_outer(st))
		return -ENOMEM;
	if (fdes->n == 0)
		return 0;

	/* FDE starts nobody covers become functions, clipped at the next real one. */
	size_t n = st->count, r = 0;
	uint64_t prev_end = 0;
	for (size_t k = 0; k < fdes->n; k++) {
		const struct cand *e = &fdes->v[k];
		if (k && e->addr < prev_end)
			continue; /* unsorted or overlapping table entry */
		if (symtab_lookup(st, e->addr))
			continue;
		while (r < st->count && st->funcs[r].addr <= e->addr)
			r++;
		uint64_t size = e->size;
		if (r < st->count && (size == 0 || size > st->funcs[r].addr - e->addr))
			size = st->funcs[r].addr - e->addr;
		char name[48];
		int len = snprintf(name, sizeof(name), "<static>@0x%" PRIx64, e->addr);
		char *s = arena_strndup(&st->arena, name, (size_t)len);
		if (!s)
			return -ENOMEM;
		st->funcs[n++] = (struct symtab_func){.addr = e->addr,
						      .size = size,
						      .name = s,
						      .mangled = "",
						      .version = "",
						      .synthesized = 1};
		prev_end = func_end(&st->funcs[n - 1]);
	}
	if (n == st->count)
		return 0;
	return merge_runs(st, n);
}

static bool build_id_equal(const char *want, const char *have)
{
	size_t i = 0;
	for (; want[i] && have[i]; i++) {
		char c = want[i];
		if (c >= 'A' && c <= 'F')
			c = (char)(c - 'A' + 'a');
		if (c != have[i])
			return false;
	}
	return want[i] == '\0' && have[i] == '\0';
}

/*
 * Symbols from the separate debug file of obj (opened from path) under
 * opt's debug root, if it has a usable .symtab: into real, collapsed, with
 * dbg left open and its path in dbg_path (PATH_MAX bytes).  1 if so, 0 if
 * not (real left empty), -ENOMEM.
 */
static int load_debug_symbols(struct elf_file *obj, const char *path, const struct symtab_options *opt,
			      struct elf_file *dbg, char *dbg_path, struct builder *real)
{
	const char *root = opt && opt->debug_root ? opt->debug_root : SYMTAB_DEFAULT_DEBUG_ROOT;
	if (!elf_find_debug_file(obj, path, NULL, root, has_symtab, dbg, dbg_path))
		return 0;
	GElf_Shdr sh;
	Elf_Scn *scn = elf_file_section(dbg, SHT_SYMTAB, &sh);
	int err = scn ? load_symbols(dbg, scn, &sh, real) : -EBADMSG;
	if (err == -ENOMEM)
		return err;
	if (err == 0 && real->n) {
		collapse(dbg, real);
		return 1;
	}
	real->n = 0; /* unusable debug file: fall back to the object */
	return 0;
}

/* The object's build-id into st, and whether it differs from the one wanted (NULL: any). */
static void note_build_id(struct symtab *st, const struct elf_file *obj, const char *build_id_hex)
{
	if (obj->build_id)
		elf_hex_encode(obj->build_id, obj->build_id_len, st->build_id);
	if (build_id_hex && !build_id_equal(build_id_hex, st->build_id))
		st->build_id_mismatch = true;
}

int symtab_open(const char *path, const char *build_id_hex, const struct symtab_options *opt,
		struct symtab **ret)
{
	if (!path || !ret)
		return -EINVAL;
	*ret = NULL;

	struct elf_file obj, dbg = {.fd = -1};
	struct builder real = {0}, fdes = {0};
	char *dbg_path = NULL;
	int err = elf_file_open(path, &obj);
	if (err)
		return err;
	struct symtab *st = calloc(1, sizeof(*st));
	if (!st) {
		err = -ENOMEM;
		goto out;
	}
	note_build_id(st, &obj, build_id_hex);
	find_plt(st, &obj);

	GElf_Shdr sh_sym, sh_dyn;
	Elf_Scn *scn_sym = elf_file_section(&obj, SHT_SYMTAB, &sh_sym);
	Elf_Scn *scn_dyn = elf_file_section(&obj, SHT_DYNSYM, &sh_dyn);
	bool has_link = dwelf_elf_gnu_debuglink(obj.elf, &(GElf_Word){0}) != NULL;
	const char *symbol_file = path;
	if (!scn_sym || has_link) {
		err = -ENOMEM;
		if (!(dbg_path = malloc(PATH_MAX)))
			goto out;
		int found = load_debug_symbols(&obj, path, opt, &dbg, dbg_path, &real);
		if (found < 0) {
			err = found;
			goto out;
		}
		if (found) {
			symbol_file = dbg_path;
			st->source = SYMTAB_SOURCE_SYMTAB;
		}
	}
	if (!st->source && (scn_sym || scn_dyn)) {
		err = load_symbols(&obj, scn_sym ? scn_sym : scn_dyn, scn_sym ? &sh_sym : &sh_dyn, &real);
		if (err)
			goto out;
		collapse(&obj, &real);
		st->source = scn_sym ? SYMTAB_SOURCE_SYMTAB : SYMTAB_SOURCE_DYNSYM;
	}
	if ((err = load_eh_frame_hdr(&obj, &fdes)))
		goto out;
	err = -ENOMEM;
	if (!(st->path = arena_strndup(&st->arena, path, strlen(path))) ||
	    !(st->symbol_file = arena_strndup(&st->arena, symbol_file, strlen(symbol_file))))
		goto out;
	err = finish(st, &real, &fdes);
out:
	free(real.v);
	free(fdes.v);
	free(dbg_path);
	elf_file_close(&dbg);
	elf_file_close(&obj);
	if (err) {
		symtab_free(st);
		return err;
	}
	*ret = st;
	return 0;
}
