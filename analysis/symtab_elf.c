/*
 * symtab_elf.c - ELF files and separate debug files for the symbolizer
 * modules (see symtab_elf.h).  Every table and section is checked against
 * the file size before libelf or libdw read it.
 */
#include "analysis/symtab_elf.h"

#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/regfile.h"

static pthread_once_t elf_once = PTHREAD_ONCE_INIT;
static bool elf_ok;

static void elf_init(void)
{
	elf_ok = elf_version(EV_CURRENT) != EV_NONE;
}

void elf_file_close(struct elf_file *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	f->elf = NULL;
	f->fd = -1;
}

static bool table_fits(uint64_t off, uint64_t count, uint64_t entsize, uint64_t file_size)
{
	uint64_t end;
	return !__builtin_mul_overflow(count, entsize, &end) && !__builtin_add_overflow(end, off, &end) &&
	       end <= file_size;
}

/* Do the program and section header tables agree with the ELF header and lie inside the file? */
static bool headers_fit(struct elf_file *f)
{
	size_t phnum, shnum;
	if (elf_getphdrnum(f->elf, &phnum) != 0 || elf_getshdrnum(f->elf, &shnum) != 0)
		return false;
	if (f->eh.e_phnum && f->eh.e_phnum != PN_XNUM && phnum != f->eh.e_phnum)
		return false;
	if (f->eh.e_shoff && (shnum == 0 || (f->eh.e_shnum && shnum != f->eh.e_shnum)))
		return false;
	if (phnum && (f->eh.e_phentsize != gelf_fsize(f->elf, ELF_T_PHDR, 1, EV_CURRENT) ||
		      !table_fits(f->eh.e_phoff, phnum, f->eh.e_phentsize, f->size)))
		return false;
	if (shnum && (f->eh.e_shentsize != gelf_fsize(f->elf, ELF_T_SHDR, 1, EV_CURRENT) ||
		      !table_fits(f->eh.e_shoff, shnum, f->eh.e_shentsize, f->size)))
		return false;
	return true;
}

/* Do every section's bytes lie inside the file?  (A truncated file fails here, before libdw sees it.) */
static bool sections_fit(struct elf_file *f)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while ((scn = elf_nextscn(f->elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			return false;
		if (sh.sh_type != SHT_NOBITS && !table_fits(sh.sh_offset, 1, sh.sh_size, f->size))
			return false;
	}
	return true;
}

/* Open `path` as an ELF file whose header tables and sections lie inside the file. */
int elf_file_open(const char *path, struct elf_file *f)
{
	pthread_once(&elf_once, elf_init);
	if (!elf_ok)
		return -ENOTSUP;
	memset(f, 0, sizeof(*f));
	struct stat sb;
	f->fd = regfile_open(path, &sb); /* a regular file only, never blocking */
	if (f->fd < 0) {
		int e = f->fd;
		f->fd = -1;
		return e;
	}
	int err = -REGFILE_ESPARSE;
	if (regfile_is_sparse(f->fd, &sb, NULL))
		goto fail; /* its sections could be gigabytes of holes */
	err = -ENOEXEC;
	if (sb.st_size < EI_NIDENT)
		goto fail;
	f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	if (!f->elf) {
		err = -EBADMSG;
		goto fail;
	}
	if (elf_kind(f->elf) != ELF_K_ELF)
		goto fail;
	err = -EBADMSG;
	if (!gelf_getehdr(f->elf, &f->eh))
		goto fail;
	f->raw = (const uint8_t *)elf_rawfile(f->elf, &f->size);
	if (!f->raw || f->size != (uint64_t)sb.st_size)
		goto fail;
	if (!headers_fit(f) || !sections_fit(f))
		goto fail;
	const void *id;
	ssize_t n = dwelf_elf_gnu_build_id(f->elf, &id);
	if (n > 0 && n <= ELF_BUILD_ID_MAX) {
		f->build_id = id;
		f->build_id_len = (size_t)n;
	}
	return 0;
fail:
	elf_file_close(f);
	return err;
}

Elf_Scn *elf_file_section(struct elf_file *f, GElf_Word type, GElf_Shdr *ret_sh)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(f->elf, scn))) {
		if (gelf_getshdr(scn, ret_sh) && ret_sh->sh_type == type)
			return scn;
	}
	return NULL;
}

void elf_hex_encode(const uint8_t *p, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[p[i] >> 4];
		out[2 * i + 1] = digits[p[i] & 15];
	}
	out[2 * n] = '\0';
}

static uint32_t crc_table[256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
}

static uint32_t crc32_update(uint32_t crc, const uint8_t *p, size_t n)
{
	pthread_once(&crc_once, crc_init);
	crc = ~crc;
	for (size_t i = 0; i < n; i++)
		crc = crc_table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
	return ~crc;
}

/* Is `dbg` the debug file of `obj` (obj NULL: of the build-id `want`)? */
static bool debug_file_matches(const struct elf_file *obj, const char *want, const struct elf_file *dbg,
			       bool check_crc, uint32_t crc)
{
	if (!obj) {
		char hex[2 * ELF_BUILD_ID_MAX + 1];
		if (!dbg->build_id)
			return false;
		elf_hex_encode(dbg->build_id, dbg->build_id_len, hex);
		return strcasecmp(hex, want) == 0;
	}
	if (dbg->eh.e_ident[EI_CLASS] != obj->eh.e_ident[EI_CLASS] || dbg->eh.e_machine != obj->eh.e_machine)
		return false;
	if (obj->build_id && dbg->build_id)
		return obj->build_id_len == dbg->build_id_len &&
		       memcmp(obj->build_id, dbg->build_id, obj->build_id_len) == 0;
	return check_crc && crc32_update(0, dbg->raw, dbg->size) == crc;
}

static bool try_debug_file(const struct elf_file *obj, const char *want, const char *path, bool check_crc,
			   uint32_t crc, bool (*usable)(struct elf_file *), struct elf_file *dbg)
{
	if (elf_file_open(path, dbg) != 0)
		return false;
	if (usable(dbg) && debug_file_matches(obj, want, dbg, check_crc, crc))
		return true;
	elf_file_close(dbg);
	return false;
}

static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* <root>/.build-id/xx/rest.debug for the hex build-id `hex`. */
static bool try_build_id_path(const struct elf_file *obj, const char *hex, const char *root,
			      bool (*usable)(struct elf_file *), struct elf_file *dbg, char *ret_path)
{
	size_t n = strlen(hex);
	if (n < 4 || n > 2 * ELF_BUILD_ID_MAX || strspn(hex, "0123456789abcdefABCDEF") != n)
		return false;
	int len = snprintf(ret_path, PATH_MAX, "%s/.build-id/%.2s/%s.debug", root, hex, hex + 2);
	return len > 0 && len < PATH_MAX && try_debug_file(obj, hex, ret_path, false, 0, usable, dbg);
}

bool elf_find_debug_file(const struct elf_file *obj, const char *obj_path, const char *want_hex,
			 const char *root, bool (*usable)(struct elf_file *), struct elf_file *dbg,
			 char *ret_path)
{
	if (!obj)
		return want_hex && try_build_id_path(NULL, want_hex, root, usable, dbg, ret_path);
	char hex[2 * ELF_BUILD_ID_MAX + 1];
	if (obj->build_id && obj->build_id_len >= 2) {
		elf_hex_encode(obj->build_id, obj->build_id_len, hex);
		if (try_build_id_path(obj, hex, root, usable, dbg, ret_path))
			return true;
	}
	GElf_Word crc = 0;
	const char *link = dwelf_elf_gnu_debuglink(obj->elf, &crc);
	if (!link || !*link || strchr(link, '/') || strnlen(link, ELF_DEBUGLINK_MAX + 1) > ELF_DEBUGLINK_MAX)
		return false;
	char *real = realpath(obj_path, NULL);
	const char *p = real ? real : obj_path;
	const char *slash = strrchr(p, '/');
	int dlen = slash ? (int)(slash - p) : 1;
	const char *dir = slash ? p : ".";
	bool found = false;
	for (int i = 0; i < 3 && !found; i++) {
		int n;
		if (i == 0)
			n = snprintf(ret_path, PATH_MAX, "%.*s/%s", dlen, dir, link);
		else if (i == 1)
			n = snprintf(ret_path, PATH_MAX, "%.*s/.debug/%s", dlen, dir, link);
		else
			n = snprintf(ret_path, PATH_MAX, "%s%.*s/%s", root, dlen, dir, link);
		if (n <= 0 || n >= PATH_MAX || same_file(ret_path, obj_path))
			continue;
		found = try_debug_file(obj, NULL, ret_path, true, crc, usable, dbg);
	}
	free(real);
	return found;
}
