/*
 * loadmap.c - map.xml writer and the dlopen/dlclose interposers (see
 * loadmap.h).  A loaded object is identified by the address of its program
 * headers and a hash of its name; an object not seen by a rescan has been
 * unloaded.
 */
#include "collector/loadmap.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include "collector/buildid.h"
#include "collector/fdkeep.h"
#include "collector/fsize.h"
#include "collector/logxml.h"
#include "collector/state.h"
#include "collector/threads.h"
#include "collector/unwtab.h"
#include "experiment/loghead.h"
#include "experiment/xmlw.h"

#define OBJ_MAX 2048

struct loadmap_obj {
	uintptr_t key; /* dlpi_phdr */
	uint64_t name_hash;
	uint32_t id; /* 0: free entry */
	uint32_t seen;
	char *text; /* its <load> element as written (mmap'd), for a fork child's map.xml */
	size_t text_bytes;
};

static struct loadmap_obj *loadmap_objs;
static pthread_mutex_t loadmap_lock = PTHREAD_MUTEX_INITIALIZER;
static char loadmap_path[PATH_MAX];
static char loadmap_dir[PATH_MAX];
static char loadmap_exe[PATH_MAX];
static uint32_t loadmap_next_id = 1;
static uint32_t loadmap_scan_gen;
static char loadmap_buf[16384]; /* under loadmap_lock */

static uint64_t name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
	return h;
}

static int is_vdso(const struct dl_phdr_info *info)
{
	uintptr_t ehdr = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	if (!ehdr)
		return 0;
	const ElfW(Ehdr) *e = (const ElfW(Ehdr) *)ehdr;
	return (uintptr_t)info->dlpi_phdr == ehdr + e->e_phoff;
}

static void dump_vdso(const struct dl_phdr_info *info)
{
	char path[PATH_MAX];
	size_t n = strlen(loadmap_dir);
	if (n + sizeof "/vdso.so" > sizeof path)
		return;
	memcpy(path, loadmap_dir, n);
	memcpy(path + n, "/vdso.so", sizeof "/vdso.so");
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr);
		size_t left = ph->p_filesz;
		/*
		 * The section headers (and so .dynsym's names for readers) lie
		 * after p_filesz in the kernel's image; the mapping is whole
		 * pages, so take what they need when it is inside them.
		 */
		const ElfW(Ehdr) *e = (const ElfW(Ehdr) *)(info->dlpi_addr);
		size_t pages = (ph->p_memsz + 4095) & ~(size_t)4095;
		size_t sh_end = e->e_shoff + (size_t)e->e_shnum * e->e_shentsize;
		if (ph->p_offset == 0 && sh_end > left && sh_end <= pages)
			left = sh_end;
		if (!fsize_allows((uint64_t)ph->p_offset + left)) {
			/* past the file size limit: SIGXFSZ for the program */
			logxml_note("error", "vdso_dump",
				    "could not write vdso.so: the file size limit is below it");
			break;
		}
		if (pwrite(fd, p, left, (off_t)ph->p_offset) != (ssize_t)left)
			logxml_note("error", "vdso_dump", "could not write vdso.so");
	}
	close(fd);
}

static void keep_text(struct loadmap_obj *o, const struct xmlw *w)
{
	size_t bytes = (w->len + 4095) & ~(size_t)4095;
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return;
	memcpy(p, w->buf, w->len);
	o->text = p;
	o->text_bytes = w->len;
}

static void drop_text(struct loadmap_obj *o)
{
	if (o->text)
		munmap(o->text, (o->text_bytes + 4095) & ~(size_t)4095);
	o->text = NULL;
	o->text_bytes = 0;
}

/* The vDSO image again, from the auxiliary vector (a fork child: no dl_iterate_phdr). */
static void dump_vdso_auxv(void)
{
	uintptr_t ehdr = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	if (!ehdr)
		return;
	const ElfW(Ehdr) *e = (const ElfW(Ehdr) *)ehdr;
	struct dl_phdr_info info = {.dlpi_phdr = (const ElfW(Phdr) *)(ehdr + e->e_phoff),
				    .dlpi_phnum = e->e_phnum};
	for (int i = 0; i < info.dlpi_phnum; i++)
		if (info.dlpi_phdr[i].p_type == PT_LOAD && info.dlpi_phdr[i].p_offset == 0) {
			info.dlpi_addr = ehdr - info.dlpi_phdr[i].p_vaddr;
			dump_vdso(&info);
			return;
		}
}

static void write_load(const struct dl_phdr_info *info, uint32_t id, int first, struct loadmap_obj *o)
{
	const char *kind = "lib", *path = info->dlpi_name;
	if (is_vdso(info)) {
		kind = "vdso";
		path = "vdso.so";
		dump_vdso(info);
	} else if (first && (!path || !path[0])) {
		kind = "exe";
		path = loadmap_exe;
	}
	char bid[2 * 64 + 1];
	buildid_of_object(info, bid, sizeof bid);
	struct xmlw w;
	xmlw_init(&w, loadmap_buf, sizeof loadmap_buf);
	uint64_t now = col_now_ns();
	col_map_changed(now);
	xmlw_raw(&w, "  <load");
	xmlw_attr_u64(&w, "id", id);
	xmlw_attr_u64(&w, "tstamp_ns", now);
	xmlw_attr(&w, "kind", kind);
	xmlw_attr(&w, "path", path ? path : "");
	xmlw_attr_hex(&w, "base", info->dlpi_addr);
	xmlw_attr(&w, "build_id", bid);
	xmlw_raw(&w, ">\n");
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		char prot[4] = {ph->p_flags & PF_R ? 'r' : '-', ph->p_flags & PF_W ? 'w' : '-',
				ph->p_flags & PF_X ? 'x' : '-', 0};
		xmlw_raw(&w, "    <segment");
		xmlw_attr_hex(&w, "vaddr", info->dlpi_addr + ph->p_vaddr);
		xmlw_attr_u64(&w, "memsz", ph->p_memsz);
		xmlw_attr_hex(&w, "foffset", ph->p_offset);
		xmlw_attr(&w, "prot", prot);
		xmlw_raw(&w, "/>\n");
	}
	xmlw_raw(&w, "  </load>\n");
	if (xmlw_ok(&w)) {
		logxml_append_to(loadmap_path, w.buf, w.len);
		if (o)
			keep_text(o, &w);
	}
}

static int scan_one(struct dl_phdr_info *info, size_t size, void *ctx)
{
	(void)size;
	int *first = ctx;
	uintptr_t key = (uintptr_t)info->dlpi_phdr;
	uint64_t h = name_hash(info->dlpi_name ? info->dlpi_name : "");
	/* under the loader lock: the object cannot go away while its CFI is parsed */
	unwtab_seen(info);
	struct loadmap_obj *freeslot = NULL;
	for (int i = 0; i < OBJ_MAX; i++) {
		struct loadmap_obj *o = &loadmap_objs[i];
		if (o->id && o->key == key && o->name_hash == h) {
			o->seen = loadmap_scan_gen;
			*first = 0;
			return 0;
		}
		if (!o->id && !freeslot)
			freeslot = o;
	}
	uint32_t id = loadmap_next_id++;
	if (freeslot) {
		freeslot->key = key;
		freeslot->name_hash = h;
		freeslot->id = id;
		freeslot->seen = loadmap_scan_gen;
	}
	write_load(info, id, *first, freeslot);
	*first = 0;
	return 0;
}

/* The map's lock, through libc's own function: under -s libcollector-sync.so interposes it. */
static void lock_map(void)
{
	int (*lock)(pthread_mutex_t *) = col_real()->pthread_mutex_lock;
	if (lock)
		lock(&loadmap_lock);
	else
		pthread_mutex_lock(&loadmap_lock); /* not resolved yet: cannot happen after col_init */
}

static void rescan(void)
{
	if (!loadmap_objs)
		return;
	lock_map();
	loadmap_scan_gen++;
	int first = 1;
	unwtab_begin();
	dl_iterate_phdr(scan_one, &first);
	unwtab_commit();
	for (int i = 0; i < OBJ_MAX; i++) {
		struct loadmap_obj *o = &loadmap_objs[i];
		if (!o->id || o->seen == loadmap_scan_gen)
			continue;
		struct xmlw w;
		xmlw_init(&w, loadmap_buf, sizeof loadmap_buf);
		uint64_t now = col_now_ns();
		col_map_changed(now);
		xmlw_raw(&w, "  <unload");
		xmlw_attr_u64(&w, "id", o->id);
		xmlw_attr_u64(&w, "tstamp_ns", now);
		xmlw_raw(&w, "/>\n");
		if (xmlw_ok(&w))
			logxml_append_to(loadmap_path, w.buf, w.len);
		drop_text(o);
		o->id = 0;
	}
	pthread_mutex_unlock(&loadmap_lock);
}

static int set_dir(const char *dir)
{
	size_t n = strlen(dir);
	if (n + sizeof "/map.xml" > sizeof loadmap_path)
		return -ENAMETOOLONG;
	memcpy(loadmap_dir, dir, n + 1);
	memcpy(loadmap_path, dir, n);
	memcpy(loadmap_path + n, "/map.xml", sizeof "/map.xml");
	(void)fdkeep_add(loadmap_path, O_WRONLY | O_APPEND); /* without one: no fallback */
	return 0;
}

void loadmap_lock_fork(void)
{
	lock_map();
}

void loadmap_unlock_fork(void)
{
	pthread_mutex_unlock(&loadmap_lock);
}

int loadmap_fork_child(const char *dir)
{
	if (!loadmap_objs)
		return loadmap_init(dir);
	int r = set_dir(dir);
	if (r < 0)
		return r;
	/* what the parent has loaded is loaded here: its <load> elements, unchanged */
	for (int i = 0; i < OBJ_MAX; i++) {
		struct loadmap_obj *o = &loadmap_objs[i];
		if (o->id && o->text)
			logxml_append_to(loadmap_path, o->text, o->text_bytes);
	}
	dump_vdso_auxv();
	return 0;
}

void loadmap_finish(void)
{
	if (loadmap_path[0])
		logxml_append_to(loadmap_path, loghead_map_tail, strlen(loghead_map_tail));
}

int loadmap_init(const char *dir)
{
	int r0 = set_dir(dir);
	if (r0 < 0)
		return r0;
	ssize_t k = readlink("/proc/self/exe", loadmap_exe, sizeof loadmap_exe - 1);
	loadmap_exe[k > 0 ? k : 0] = '\0';
	void *p = mmap(NULL, sizeof(struct loadmap_obj) * OBJ_MAX, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	loadmap_objs = p;
	int r = unwtab_init(threads_scan_hazards);
	if (r < 0)
		logxml_note("error", "unwind_tables",
			    "cannot allocate the unwind-table registry; frame pointers only");
	rescan();
	return 0;
}

/*
 * The real dlopen searches the caller's DT_RUNPATH (and $ORIGIN) and glibc
 * takes the caller from its return address, which is now inside this
 * library.  For a bare name that is not loaded yet, search the caller's own
 * path list (RTLD_DI_SERINFO: LD_LIBRARY_PATH, RPATH/RUNPATH, defaults) and
 * pass the real dlopen the full path found there.
 */
static void *dlopen_as_caller(const char *file, int mode, const void *caller)
{
	void *(*real)(const char *, int) = col_real()->dlopen;
	if (!file || strchr(file, '/') || !caller)
		return real(file, mode);
	void *h = real(file, (mode & ~(RTLD_LAZY | RTLD_NOW)) | RTLD_LAZY | RTLD_NOLOAD);
	if (h) { /* already loaded (by soname): take it as the caller would */
		void *r = real(file, mode);
		col_real()->dlclose(h);
		return r;
	}
	Dl_info info;
	struct link_map *lm = NULL;
	Dl_serinfo size;
	if (!dladdr1(caller, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm ||
	    dlinfo(lm, RTLD_DI_SERINFOSIZE, &size) != 0)
		return real(file, mode);
	Dl_serinfo *si = malloc(size.dls_size);
	if (!si)
		return real(file, mode);
	si->dls_size = size.dls_size;
	si->dls_cnt = size.dls_cnt;
	void *r = NULL;
	if (dlinfo(lm, RTLD_DI_SERINFO, si) == 0) {
		char path[PATH_MAX];
		for (unsigned i = 0; i < si->dls_cnt && !r; i++) {
			const char *dir = si->dls_serpath[i].dls_name;
			size_t a = strlen(dir), b = strlen(file);
			if (a + 1 + b + 1 > sizeof path)
				continue;
			memcpy(path, dir, a);
			path[a] = '/';
			memcpy(path + a + 1, file, b + 1);
			if (access(path, F_OK) == 0)
				r = real(path, mode);
		}
	}
	free(si);
	return r ? r : real(file, mode);
}

void *loadmap_dlopen(const char *file, int mode, const void *caller)
{
	if (!col_real()->dlopen)
		return NULL;
	void *h = dlopen_as_caller(file, mode, caller);
	if (h && col_collecting()) {
		int g = threads_guard_enter(); /* the tables' mmaps are not the target's */
		rescan();
		threads_guard_leave(g);
	}
	return h;
}

int loadmap_dlclose(void *handle)
{
	int r = col_real()->dlclose ? col_real()->dlclose(handle) : -1;
	if (col_collecting()) {
		int g = threads_guard_enter();
		rescan();
		threads_guard_leave(g);
	}
	return r;
}
