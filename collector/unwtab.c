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
}

/* ------------------------------------------------------------ registry */

struct entry {
	uint64_t key; /* dlpi_phdr; 0 = free */
	uint64_t lo, hi;
	struct cfi_table table;
	int has_table;
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

/* ------------------------------------------------------------ .debug_frame from a file */

/* Read .debug_frame of the ELF file at path into the arena; NULL if none. */
static const uint8_t *read_debug_frame(const char *path, struct arena *a, size_t *ret_bytes)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	const uint8_t *r = NULL;
	Elf64_Ehdr eh;
	if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0 ||
	    eh.e_shnum > 4096 || eh.e_shstrndx >= eh.e_shnum)
		goto out;
	Elf64_Shdr *sh = arena_alloc(a, sizeof(Elf64_Shdr) * eh.e_shnum);
	if (!sh || pread(fd, sh, sizeof(Elf64_Shdr) * eh.e_shnum, (off_t)eh.e_shoff) !=
			   (ssize_t)(sizeof(Elf64_Shdr) * eh.e_shnum))
		goto out;
	const Elf64_Shdr *ss = &sh[eh.e_shstrndx];
	if (ss->sh_size == 0 || ss->sh_size > (1u << 24))
		goto out;
	char *names = arena_alloc(a, ss->sh_size + 1);
	if (!names || pread(fd, names, ss->sh_size, (off_t)ss->sh_offset) != (ssize_t)ss->sh_size)
		goto out;
	for (unsigned i = 0; i < eh.e_shnum; i++) {
		if (sh[i].sh_name >= ss->sh_size || strcmp(names + sh[i].sh_name, ".debug_frame") != 0)
			continue;
		/* compressed sections would need zlib, which the collector does not link */
		if (sh[i].sh_type != SHT_PROGBITS || (sh[i].sh_flags & SHF_COMPRESSED) ||
		    sh[i].sh_size == 0 || sh[i].sh_size > (256u << 20))
			break;
		uint8_t *buf = arena_alloc(a, sh[i].sh_size);
		if (buf && pread(fd, buf, sh[i].sh_size, (off_t)sh[i].sh_offset) == (ssize_t)sh[i].sh_size) {
			r = buf;
			*ret_bytes = sh[i].sh_size;
		}
		break;
	}
out:
	close(fd);
	return r;
}

static int try_debug_frame(const char *path, uint64_t bias, struct entry *e)
{
	size_t n = 0;
	const uint8_t *df = read_debug_frame(path, &e->arena, &n);
	if (!df)
		return -ENOENT;
	struct cfi_alloc al = {arena_alloc, &e->arena};
	return cfi_build_debug_frame(df, n, bias, &al, &e->table);
}

/* ------------------------------------------------------------ rescan */

void unwtab_begin(void)
{
	scan_no++;
}

static void build(struct entry *e, const struct dl_phdr_info *info, const ElfW(Phdr) * eh, uint64_t obj_lo,
		  uint64_t obj_hi)
{
	uint64_t t0 = col_now_ns();
	struct cfi_alloc al = {arena_alloc, &e->arena};
	int r = -ENOENT;
	if (eh)
		r = cfi_build_eh_frame_hdr((const uint8_t *)(info->dlpi_addr + eh->p_vaddr), eh->p_memsz,
					   obj_lo, obj_hi, &al, &e->table);
	if (r < 0 && !eh) {
		/* no .eh_frame: .debug_frame of the file, then of its separate debug file */
		char path[PATH_MAX];
		const char *name = info->dlpi_name;
		if (!name || !name[0]) {
			ssize_t k = readlink("/proc/self/exe", path, sizeof path - 1);
			path[k > 0 ? k : 0] = '\0';
			name = path;
		}
		/* a relative name is what dlopen was given, relative to the cwd of then */
		r = try_debug_frame(name, info->dlpi_addr, e);
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
			r = try_debug_frame(dpath, info->dlpi_addr, e);
		}
	}
	/* after -EBADMSG/-ENOTSUP the table holds what could be read: use it */
	e->has_table = r != -ENOMEM && r != -ENOENT && e->table.nrows > 0;
	stats.objects++;
	if (e->has_table) {
		stats.rows += e->table.nrows;
		stats.unsupported += e->table.unsupported;
	} else {
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
	for (int i = 0; i < OBJ_MAX; i++) {
		if (entries[i].key == key) {
			entries[i].seen = scan_no;
			return;
		}
		if (!entries[i].key && !free_e)
			free_e = &entries[i];
	}
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
	for (int i = 0; i < OBJ_MAX; i++) {
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
	for (int i = 0; i < OBJ_MAX && k < n; i++) {
		struct entry *e = &entries[i];
		if (!e->key)
			continue;
		struct unwtab_obj o = {
			.lo = e->lo, .hi = e->hi, .table = e->has_table ? &e->table : NULL, .key = e->key};
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
