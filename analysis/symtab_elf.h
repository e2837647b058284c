/*
 * symtab_elf.h - what the symbolizer modules (symtab.c, lines.c) share about
 * ELF files: opening one with every header table and section checked to lie
 * inside the file, its GNU build-id, and finding an object's separate debug
 * file (by build-id under a debug root, or by .gnu_debuglink next to it, in
 * .debug/ or under the root).  Internal to libanalysis; elfutils types.
 * Thread-safe (libelf's one-time setup is done once).
 */
#ifndef ANALYSIS_SYMTAB_ELF_H
#define ANALYSIS_SYMTAB_ELF_H

#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ELF_BUILD_ID_MAX 64 /* bytes */
#define ELF_DEBUGLINK_MAX 255

struct elf_file {
	int fd;
	Elf *elf;
	const uint8_t *raw;
	size_t size;
	GElf_Ehdr eh;
	const uint8_t *build_id;
	size_t build_id_len;
};

/*
 * Open `path` read-only (libelf mmap), with regfile_open (common/regfile.h:
 * a regular file only, never blocking).  0, or -errno of open(2), a
 * -REGFILE_E* refusal (not a regular file; -REGFILE_ESPARSE for a sparse
 * one), -ENOEXEC (not ELF), -EBADMSG (a header table or section lies outside
 * the file), -ENOTSUP (libelf unusable).  *f is closed on failure.
 */
int elf_file_open(const char *path, struct elf_file *f);
void elf_file_close(struct elf_file *f); /* safe on a closed file */

/* The file's first section of `type`, or NULL. */
Elf_Scn *elf_file_section(struct elf_file *f, GElf_Word type, GElf_Shdr *ret_sh);

/* Lower-case hex of p[0..n) into out (2n + 1 bytes). */
void elf_hex_encode(const uint8_t *p, size_t n, char *out);

/*
 * Find the separate debug file of `obj` (opened from obj_path), or, with obj
 * NULL, of the build-id `want_hex` alone (the object is gone).  A candidate
 * must be usable(dbg) (e.g. have a .symtab, or DWARF) and match: the same
 * build-id, or, when either has none, the CRC32 its .gnu_debuglink names.
 * On success *dbg is open and its path is in ret_path (PATH_MAX bytes).
 */
bool elf_find_debug_file(const struct elf_file *obj, const char *obj_path, const char *want_hex,
			 const char *root, bool (*usable)(struct elf_file *dbg), struct elf_file *dbg,
			 char *ret_path);

#endif
