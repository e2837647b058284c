/*
 * unwtab.c - registry of loaded objects and their unwind tables, published
 * to the handler as immutable snapshots (see unwtab.h).  Everything lives in
 * mmap'd memory: an arena per object table, one mapping per snapshot.  All
 * updates happen under loadmap.c's lock.
 */
#include "collector/unwtab.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "collector/buildid.h"
#include "collector/cfishare.h"
#include "collector/gopcln.h"
#include "collector/lineage.h"
#include "collector/logxml.h"
#include "collector/state.h"

#define OBJ_MAX 2048
#define RETIRED_MAX 512

/* ------------------------------------------------------------ arenas */

struct chunk {
	struct chunk *next;
	size_t bytes, used;
};

struct arena {
	struct chunk *head;
	size_t total;
	void *shared; /* a table mapped from another process's build (cfishare.h), or NULL */
	size_t shared_bytes;
};

static void *arena_alloc(void *ctx, size_t bytes)
{
	struct arena *a = ctx;
	bytes = (bytes + 15) & ~(size_t)15;
	struct chunk *c = a->head;
	if (!c || c->bytes - c->used < bytes) {
		size_t size = bytes + sizeof(struct chunk) + 16;
		size_t min = 256 * 1024;
		if (size < min)
			size = min;
		size = (size + 4095) & ~(size_t)4095;
		void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return NULL;
		c = p;
		c->bytes = size;
		c->used = (sizeof(struct chunk) + 15) & ~(size_t)15;
		c->next = a->head;
		a->head = c;
		a->total += size;
	}
	void *r = (char *)c + c->used;
	c->used += bytes;
	return r; /* fresh anonymous pages are zero */
}

static void arena_free(struct arena *a)
{
	for (struct chunk *c = a->head, *next; c; c = next) {
		next = c->next;
		munmap(c, c->bytes);
	}
	a->head = NULL;
	a->total = 0;
	if (a->shared)
		munmap(a->shared, a->shared_bytes);
	a->shared = NULL;
	a->shared_bytes = 0;
}

/* ------------------------------------------------------------ registry */

struct entry {
	uint64_t key; /* dlpi_phdr; 0 = free */
	uint64_t lo, hi;
	struct cfi_table table;
	int has_table;
	struct cfi_table gotab; /* Go code's rows (gopcln.h) */
	int has_gotab;
	int has_go_tls;
	int64_t go_tls; /* thread-pointer offset of the Go runtime's g */
	struct arena arena;
	uint64_t seen; /* rescan number */
};

struct retired {
	void *snap; /* a snapshot mapping, or NULL */
	size_t snap_bytes;
	uint64_t snap_gen;
	struct arena arena;  /* an unloaded object's tables */
	uint64_t retire_gen; /* snapshots with gen < this may reach the arena */
};

static struct entry *entries;
static int entries_used; /* one past the highest entry ever used: the loops stop there (each
			  * entry read past it would fault a page in, 75 per process) */
static struct retired *retired;
static uint32_t nretired;
static uint64_t scan_no;
static uint64_t snap_gen;
static const struct unwtab_snap *_Atomic current;
static _Atomic uint64_t current_gen; /* current's gen, for unwtab_generation */
static size_t current_bytes;
static struct unwtab_stats stats;
static unwtab_scan_fn scan_hazards;

int unwtab_init(unwtab_scan_fn scan)
{
	scan_hazards = scan;
	size_t bytes = sizeof(struct entry) * OBJ_MAX + sizeof(struct retired) * RETIRED_MAX;
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	entries = p;
	retired = (struct retired *)(void *)((char *)p + sizeof(struct entry) * OBJ_MAX);
	return 0;
}

/* ------------------------------------------------------------ an object's file */

/* An ELF file's section headers and their names, read into an arena. */
struct elf_file {
	int fd;
	Elf64_Ehdr eh;
	const Elf64_Shdr *sh;
	const char *names;
	size_t names_bytes;
};

static void elf_close(struct elf_file *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
}

/* 0, or -ENOENT (no such file, or not a 64-bit ELF file with sane section headers). */
static int elf_open(struct elf_file *f, const char *path, struct arena *a)
{
	memset(f, 0, sizeof *f);
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0)
		return -ENOENT;
	Elf64_Ehdr *eh = &f->eh;
	if (pread(f->fd, eh, sizeof *eh, 0) != (ssize_t)sizeof *eh ||
	    memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shnum == 0 || eh->e_shnum > 4096 ||
	    eh->e_shstrndx >= eh->e_shnum)
		goto bad;
	size_t shbytes = sizeof(Elf64_Shdr) * eh->e_shnum;
	Elf64_Shdr *sh = arena_alloc(a, shbytes);
	if (!sh || pread(f->fd, sh, shbytes, (off_t)eh->e_shoff) != (ssize_t)shbytes)
		goto bad;
	const Elf64_Shdr *ss = &sh[eh->e_shstrndx];
	if (ss->sh_size == 0 || ss->sh_size > (1u << 24))
		goto bad;
	char *names = arena_alloc(a, ss->sh_size + 1);
	if (!names || pread(f->fd, names, ss->sh_size, (off_t)ss->sh_offset) != (ssize_t)ss->sh_size)
		goto bad;
	f->sh = sh;
	f->names = names; /* the arena's memory is zeroed: names[sh_size] is a NUL */
	f->names_bytes = ss->sh_size;
	return 0;
bad:
	elf_close(f);
	return -ENOENT;
}

static const Elf64_Shdr *elf_section(const struct elf_file *f, const char *name)
{
	for (unsigned i = 0; i < f->eh.e_shnum; i++)
		if (f->sh[i].sh_name < f->names_bytes && strcmp(f->names + f->sh[i].sh_name, name) == 0)
			return &f->sh[i];
	return NULL;
}

/* The contents of section s (at most cap bytes, not SHT_NOBITS) in the arena, or NULL. */
static uint8_t *elf_read(const struct elf_file *f, const Elf64_Shdr *s, struct arena *a, size_t cap)
{
	if (s->sh_type == SHT_NOBITS || s->sh_size == 0 || s->sh_size > cap)
		return NULL;
	uint8_t *buf = arena_alloc(a, s->sh_size);
	if (!buf || pread(f->fd, buf, s->sh_size, (off_t)s->sh_offset) != (ssize_t)s->sh_size)
		return NULL;
	return buf;
}

/*
 * The values of the symbols named want[0..n) in .symtab (the first of each
 * name), with found[i] set for those found.  Reads .symtab and its string
 * table into the arena.
 */
static void elf_symbols(const struct elf_file *f, struct arena *a, const char *const *want, int n,
			uint64_t *value, int *found)
{
	const Elf64_Shdr *st = NULL;
	for (unsigned i = 0; i < f->eh.e_shnum && !st; i++)
		if (f->sh[i].sh_type == SHT_SYMTAB && f->sh[i].sh_entsize == sizeof(Elf64_Sym) &&
		    f->sh[i].sh_link < f->eh.e_shnum)
			st = &f->sh[i];
	if (!st)
		return;
	const Elf64_Sym *sym = (const Elf64_Sym *)(void *)elf_read(f, st, a, 64u << 20);
	const Elf64_Shdr *ss = &f->sh[st->sh_link];
	const char *str = (const char *)elf_read(f, ss, a, 64u << 20);
	if (!sym || !str)
		return;
	size_t nsym = st->sh_size / sizeof(Elf64_Sym), nstr = ss->sh_size;
	for (size_t i = 0; i < nsym; i++) {
		if (sym[i].st_name == 0 || sym[i].st_name >= nstr || sym[i].st_shndx == SHN_UNDEF)
			continue;
		const char *name = str + sym[i].st_name;
		size_t room = nstr - sym[i].st_name;
		for (int k = 0; k < n; k++)
			if (!found[k] && strnlen(name, room) < room && strcmp(name, want[k]) == 0) {
				value[k] = sym[i].st_value;
				found[k] = 1;
			}
	}
}

/* The file of a loaded object: its name, or /proc/self/exe for the executable. */
static const char *object_path(const struct dl_phdr_info *info, char *buf, size_t room)
{
	const char *name = info->dlpi_name;
	if (name && name[0])
		return name; /* a relative name is what dlopen was given, relative to the cwd of then */
	ssize_t k = readlink("/proc/self/exe", buf, room - 1);
	buf[k > 0 ? k : 0] = '\0';
	return buf;
}

/* ------------------------------------------------------------ .debug_frame from a file */

static int try_debug_frame(const char *path, uint64_t bias, struct entry *e, struct arena *tmp)
{
	struct elf_file f;
	if (elf_open(&f, path, tmp) < 0)
		return -ENOENT;
	const Elf64_Shdr *s = elf_section(&f, ".debug_frame");
	const uint8_t *df = NULL;
	/* compressed sections would need zlib, which the collector does not link */
	if (s && s->sh_type == SHT_PROGBITS && !(s->sh_flags & SHF_COMPRESSED))
		df = elf_read(&f, s, tmp, 256u << 20);
	elf_close(&f);
	if (!df)
		return -ENOENT;
	struct cfi_alloc al = {arena_alloc, &e->arena};
	return cfi_build_debug_frame(df, s->sh_size, bias, &al, &e->table);
}

static int debug_frame(const struct dl_phdr_info *info, struct entry *e, struct arena *tmp)
{
	char path[PATH_MAX];
	int r = try_debug_frame(object_path(info, path, sizeof path), info->dlpi_addr, e, tmp);
	char bid[2 * 64 + 1];
	buildid_of_object(info, bid, sizeof bid);
	if (r < 0 && strlen(bid) > 2) {
		char dpath[PATH_MAX];
		static const char root[] = "/usr/lib/debug/.build-id/";
		size_t k = sizeof root - 1;
		memcpy(dpath, root, k);
		dpath[k++] = bid[0];
		dpath[k++] = bid[1];
		dpath[k++] = '/';
		size_t rest = strlen(bid + 2);
		memcpy(dpath + k, bid + 2, rest);
		memcpy(dpath + k + rest, ".debug", sizeof ".debug");
		r = try_debug_frame(dpath, info->dlpi_addr, e, tmp);
	}
	return r;
}

/* ------------------------------------------------------------ Go code */

/* [lo, lo + bytes) lies in the file-backed part of one of the object's PT_LOADs (so it is mapped). */
static int mapped(const struct dl_phdr_info *info, uint64_t lo, uint64_t bytes)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t a = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_R) && lo >= a && lo - a <= ph->p_filesz &&
		    bytes <= ph->p_filesz - (lo - a))
			return 1;
	}
	return 0;
}

/* The object's TLS is at a fixed offset from every thread's pointer: the executable's, or DF_STATIC_TLS. */
static int static_tls(const struct dl_phdr_info *info)
{
	if (!info->dlpi_name || !info->dlpi_name[0])
		return 1;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_DYNAMIC)
			continue;
		const ElfW(Dyn) *d = (const ElfW(Dyn) *)(info->dlpi_addr + ph->p_vaddr);
		for (size_t k = 0; k < ph->p_memsz / sizeof *d && d[k].d_tag != DT_NULL; k++)
			if (d[k].d_tag == DT_FLAGS && (d[k].d_un.d_val & DF_STATIC_TLS))
				return 1;
	}
	return 0;
}

static uint64_t thread_pointer(void)
{
	uint64_t tp;
	__asm__("movq %%fs:0, %0" : "=r"(tp)); /* the TCB's pointer to itself (x86-64 glibc) */
	return tp;
}

static const ElfW(Phdr) * tls_segment(const struct dl_phdr_info *info)
{
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_TLS)
			return &info->dlpi_phdr[i];
	return NULL;
}

/*
 * Where the Go runtime keeps the running g: runtime.tlsg, an 8-byte TLS
 * variable (initial-exec), at the same offset from every thread's pointer.
 * When the object's PT_TLS is 8 bytes it is its only TLS variable (no
 * symbol needed).  0 and *ret_off, or -ENOENT.
 */
static int go_g_offset(const struct dl_phdr_info *info, int have_sym, uint64_t sym, int64_t *ret_off)
{
	const ElfW(Phdr) *tls = tls_segment(info);
	if (!tls || !info->dlpi_tls_data || !static_tls(info) || tls->p_memsz < 8)
		return -ENOENT;
	if (!have_sym) {
		if (tls->p_memsz != 8)
			return -ENOENT;
		sym = 0;
	}
	if (sym > tls->p_memsz - 8)
		return -ENOENT;
	*ret_off = (int64_t)((uint64_t)(uintptr_t)info->dlpi_tls_data + sym - thread_pointer());
	return *ret_off < 0 && (*ret_off & 7) == 0 ? 0 : -ENOENT;
}

/* Go's rows (e->gotab) and g's TLS offset for a Go object, from its pclntab, mapped. */
static void build_go(struct entry *e, const struct dl_phdr_info *info, struct arena *tmp)
{
	char buf[PATH_MAX];
	const char *path = object_path(info, buf, sizeof buf);
	struct elf_file f;
	stats.go_objects++;
	static const char *const want[3] = {"runtime.tlsg", "runtime.pclntab", "runtime.epclntab"};
	uint64_t v[3] = {0};
	int found[3] = {0};
	uint64_t tab = 0, tab_end = 0;
	if (elf_open(&f, path, tmp) == 0) {
		const Elf64_Shdr *s = elf_section(&f, ".gopclntab"); /* PIE: inside .data.rel.ro */
		const ElfW(Phdr) *tls = tls_segment(info);
		/* the symbol table (MBs in a large program) only when the sections do not say */
		if (!s || s->sh_type != SHT_PROGBITS || (tls && tls->p_memsz != 8))
			elf_symbols(&f, tmp, want, 3, v, found);
		if (s && s->sh_type == SHT_PROGBITS) {
			tab = s->sh_addr;
			tab_end = s->sh_addr + s->sh_size;
		} else if (found[1] && found[2]) {
			tab = v[1];
			tab_end = v[2];
		}
		elf_close(&f);
	}
	uint64_t lo = info->dlpi_addr + tab;
	struct cfi_alloc al = {arena_alloc, &e->arena};
	struct gopcln_info gi;
	int r = -ENOENT;
	if (tab_end > tab && mapped(info, lo, tab_end - tab))
		r = gopcln_build((const uint8_t *)(uintptr_t)lo, tab_end - tab, e->lo, e->hi, &al, &e->gotab,
				 &gi);
	/* after -EBADMSG/-ENOTSUP the table holds the functions that could be read */
	e->has_gotab = r != -ENOMEM && r != -ENOENT && e->gotab.nrows > 0;
	if (e->has_gotab) {
		stats.go_funcs += gi.nfunc;
		stats.go_rows += e->gotab.nrows;
	} else {
		stats.go_without_table++;
	}
	e->has_go_tls = go_g_offset(info, found[0], v[0], &e->go_tls) == 0;
	if (!e->has_go_tls)
		stats.go_without_tls++;
	if (e->has_gotab && e->has_go_tls)
		return;
	char msg[896]; /* logxml_note takes 1 KiB with its markup */
	size_t k = strnlen(path, 600);
	memcpy(msg, path, k);
	msg[k] = '\0';
	strcat(msg,
	       e->has_gotab
		       ? ": Go code whose goroutine pointer (runtime.tlsg) could not be found: "
			 "stacks sampled on a goroutine's stack are recorded with their leaf only"
		       : ": Go code whose function table (pclntab of Go 1.18 or later) could not be read: "
			 "its stacks are unwound by frame pointers and miss the caller of a function "
			 "without a frame");
	logxml_note("warning", "go_unwind", msg);
}

/* ------------------------------------------------------------ rescan */

void unwtab_begin(void)
{
	scan_no++;
}

/*
 * The object's table from its .eh_frame_hdr: mapped from the experiment's
 * shared tables when another process built it (cfishare.h), else built here
 * and shared.  cfi_build_eh_frame_hdr's return.
 */
static int eh_frame_table(struct entry *e, const struct dl_phdr_info *info, const ElfW(Phdr) * eh,
			  uint64_t obj_lo, uint64_t obj_hi, const struct cfi_alloc *al)
{
	char key[CFISHARE_KEY_MAX];
	const char *exp = lineage_experiment();
	int share = exp[0] && cfishare_key(info, eh, key, sizeof key) == 0;
	if (share && cfishare_load(exp, key, info->dlpi_addr, &e->table, &e->arena.shared,
				   &e->arena.shared_bytes) == 0) {
		stats.shared++;
		return 0;
	}
	int r = cfi_build_eh_frame_hdr((const uint8_t *)(info->dlpi_addr + eh->p_vaddr), eh->p_memsz, obj_lo,
				       obj_hi, al, &e->table);
	if (share && r != -ENOMEM && e->table.nrows)
		cfishare_store(exp, key, info->dlpi_addr, &e->table);
	return r;
}

static void build(struct entry *e, const struct dl_phdr_info *info, const ElfW(Phdr) * eh, uint64_t obj_lo,
		  uint64_t obj_hi)
{
	uint64_t t0 = col_now_ns();
	struct cfi_alloc al = {arena_alloc, &e->arena};
	struct arena tmp = {0}; /* file contents, for this build only */
	int r = -ENOENT;
	if (eh)
		r = eh_frame_table(e, info, eh, obj_lo, obj_hi, &al);
	if (r < 0 && !eh) /* no .eh_frame: .debug_frame of the file, then of its separate debug file */
		r = debug_frame(info, e, &tmp);
	/* after -EBADMSG/-ENOTSUP the table holds what could be read: use it */
	e->has_table = r != -ENOMEM && r != -ENOENT && e->table.nrows > 0;
	if (buildid_is_go(info))
		build_go(e, info, &tmp);
	arena_free(&tmp);
	stats.objects++;
	if (e->has_table) {
		stats.rows += e->table.nrows;
		stats.unsupported += e->table.unsupported;
	} else if (!e->has_gotab) {
		stats.objects_without_cfi++;
	}
	stats.bytes += e->arena.total;
	stats.build_ns += col_now_ns() - t0;
}

void unwtab_seen(const struct dl_phdr_info *info)
{
	if (!entries)
		return;
	uint64_t key = (uint64_t)(uintptr_t)info->dlpi_phdr;
	struct entry *free_e = NULL;
	for (int i = 0; i < entries_used; i++) {
		if (entries[i].key == key) {
			entries[i].seen = scan_no;
			return;
		}
		if (!entries[i].key && !free_e)
			free_e = &entries[i];
	}
	if (!free_e && entries_used < OBJ_MAX)
		free_e = &entries[entries_used++];
	if (!free_e)
		return; /* table full: this object unwinds by frame pointers */
	uint64_t lo = UINT64_MAX, hi = 0, olo = 0, ohi = 0;
	const ElfW(Phdr) *eh = NULL;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_GNU_EH_FRAME)
			eh = ph;
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		uint64_t a = info->dlpi_addr + ph->p_vaddr, b = a + ph->p_memsz;
		lo = a < lo ? a : lo;
		hi = b > hi ? b : hi;
	}
	/* parse bounds: the PT_LOAD holding .eh_frame_hdr (and, as the GNU linkers
	 * lay it out, .eh_frame): the gaps between segments may be unmapped */
	for (int i = 0; eh && i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && eh->p_vaddr >= ph->p_vaddr &&
		    eh->p_vaddr - ph->p_vaddr < ph->p_memsz) {
			olo = info->dlpi_addr + ph->p_vaddr;
			ohi = olo + ph->p_filesz;
		}
	}
	if (eh && !ohi)
		eh = NULL; /* .eh_frame_hdr outside every PT_LOAD: ignore it */
	if (lo >= hi)
		return; /* no code */
	struct entry *e = free_e;
	memset(e, 0, sizeof *e);
	e->key = key;
	e->lo = lo;
	e->hi = hi;
	e->seen = scan_no;
	build(e, info, eh, olo, ohi);
}

struct hazard_scan {
	uint64_t min_gen; /* lowest snapshot generation a handler still holds */
	const void *held[64];
	uint32_t nheld;
};

static void note_hazard(const void *h, void *ctx)
{
	struct hazard_scan *s = ctx;
	if (!h)
		return;
	const struct unwtab_snap *snap = h;
	if (snap->gen < s->min_gen)
		s->min_gen = snap->gen;
	if (s->nheld < 64)
		s->held[s->nheld++] = h;
	else
		s->min_gen = 0; /* too many to track: free nothing this time */
}

static void reclaim(void)
{
	struct hazard_scan hs = {.min_gen = UINT64_MAX};
	if (scan_hazards)
		scan_hazards(note_hazard, &hs);
	else
		hs.min_gen = 0; /* no way to see the handlers: free nothing */
	uint32_t k = 0;
	for (uint32_t i = 0; i < nretired; i++) {
		struct retired *r = &retired[i];
		int busy = 0;
		if (r->snap) {
			for (uint32_t j = 0; j < hs.nheld; j++)
				busy |= hs.held[j] == r->snap;
			busy |= hs.min_gen == 0;
		} else {
			busy = hs.min_gen < r->retire_gen;
		}
		if (busy) {
			retired[k++] = *r;
			continue;
		}
		if (r->snap)
			munmap(r->snap, r->snap_bytes);
		else
			arena_free(&r->arena);
	}
	nretired = k;
}

static void retire(const struct retired *r)
{
	if (nretired < RETIRED_MAX)
		retired[nretired++] = *r;
	/* else: leak it rather than free something a handler may read */
}

static int cmp_lo(const struct unwtab_obj *a, const struct unwtab_obj *b)
{
	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

void unwtab_commit(void)
{
	if (!entries)
		return;
	uint64_t gen = snap_gen + 1;
	uint32_t n = 0;
	for (int i = 0; i < entries_used; i++) {
		struct entry *e = &entries[i];
		if (!e->key)
			continue;
		if (e->seen != scan_no) { /* unloaded: drop from the next snapshot */
			struct retired r = {.arena = e->arena, .retire_gen = gen};
			retire(&r);
			memset(e, 0, sizeof *e);
			continue;
		}
		n++;
	}
	size_t bytes = sizeof(struct unwtab_snap) + n * sizeof(struct unwtab_obj);
	bytes = (bytes + 4095) & ~(size_t)4095;
	struct unwtab_snap *s = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s == MAP_FAILED) {
		logxml_note("error", "unwind_tables",
			    "out of memory publishing unwind tables; old ones stay in use");
		return;
	}
	s->gen = gen;
	uint32_t k = 0;
	for (int i = 0; i < entries_used && k < n; i++) {
		struct entry *e = &entries[i];
		if (!e->key)
			continue;
		struct unwtab_obj o = {.lo = e->lo,
				       .hi = e->hi,
				       .table = e->has_table ? &e->table : NULL,
				       .gotab = e->has_gotab ? &e->gotab : NULL,
				       .key = e->key};
		if (e->has_go_tls && s->ngo < UNWTAB_GO_MAX)
			s->go_g_tls[s->ngo++] = e->go_tls;
		/* insertion sort: few objects, rare rescans */
		uint32_t j = k++;
		while (j > 0 && cmp_lo(&s->obj[j - 1], &o) > 0) {
			s->obj[j] = s->obj[j - 1];
			j--;
		}
		s->obj[j] = o;
	}
	s->n = k;
	const struct unwtab_snap *old = atomic_exchange_explicit(&current, s, memory_order_acq_rel);
	if (old) {
		struct retired r = {.snap = (void *)old, .snap_bytes = current_bytes, .snap_gen = old->gen};
		retire(&r);
	}
	atomic_store_explicit(&current_gen, gen, memory_order_release);
	current_bytes = bytes;
	snap_gen = gen;
	reclaim();
}

/* ------------------------------------------------------------ handler side */

const struct unwtab_snap *unwtab_acquire(const void *_Atomic *hazard)
{
	for (int tries = 0; tries < 4; tries++) {
		const struct unwtab_snap *s = atomic_load_explicit(&current, memory_order_acquire);
		atomic_store_explicit(hazard, s, memory_order_seq_cst);
		if (atomic_load_explicit(&current, memory_order_seq_cst) == s)
			return s;
	}
	atomic_store_explicit(hazard, NULL, memory_order_release);
	return NULL; /* tables changing right now: unwind by frame pointers this once */
}

uint64_t unwtab_generation(void)
{
	return atomic_load_explicit(&current_gen, memory_order_acquire);
}

void unwtab_release(const void *_Atomic *hazard)
{
	atomic_store_explicit(hazard, NULL, memory_order_release);
}

const struct unwtab_obj *unwtab_find(const struct unwtab_snap *s, uint64_t pc)
{
	uint32_t lo = 0, hi = s->n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (s->obj[mid].hi <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->n && s->obj[lo].lo <= pc && pc < s->obj[lo].hi ? &s->obj[lo] : NULL;
}

void unwtab_get_stats(struct unwtab_stats *ret)
{
	*ret = stats;
}
