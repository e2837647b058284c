/*
 * archive.c - find the file analysis should read for a load object: the
 * recorded path while it still holds the code that ran, else the copy in
 * the experiment's archives/ directory (see archive.h for the layout).
 *
 * The build-id reader is a small bounded ELF parser with plain pread(2): the
 * layer rule keeps libelf in the symbolizer, and a build-id check must stay
 * cheap because it runs once per object per analysis.  Every offset and size
 * read from the file is checked against caps before use.
 */
#include "analysis/archive.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/elfnote.h"
#include "common/regfile.h"

#define NOTE_BYTES_MAX (16u * 1024) /* on the stack */
#define NOTE_AREAS_MAX 32
#define HEADERS_MAX 4096

struct elf_in {
	int fd;
	int is64, big;
	uint64_t file_bytes;
};

static uint64_t get(const struct elf_in *e, const unsigned char *p, int n)
{
	uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v |= (uint64_t)p[e->big ? n - 1 - i : i] << (8 * i);
	return v;
}

static int read_at(const struct elf_in *e, void *buf, size_t n, uint64_t off)
{
	if (off > e->file_bytes || n > e->file_bytes - off)
		return -ENOEXEC;
	size_t done = 0;
	while (done < n) {
		ssize_t r = pread(e->fd, (char *)buf + done, n - done, (off_t)(off + done));
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			return -ENOEXEC;
		done += (size_t)r;
	}
	return 0;
}

/* Look for NT_GNU_BUILD_ID in one note area.  1 found, 0 not, <0 error. */
static int scan_notes(const struct elf_in *e, uint64_t off, uint64_t size, uint64_t align, char *ret,
		      size_t room)
{
	unsigned char area[NOTE_BYTES_MAX];
	if (size > NOTE_BYTES_MAX)
		size = NOTE_BYTES_MAX;
	if (read_at(e, area, (size_t)size, off) < 0)
		return 0; /* a damaged note area: look at the others */
	const uint8_t *desc;
	size_t n;
	if (elfnote_find_build_id(area, (size_t)size, (size_t)align, e->big, &desc, &n) != 1)
		return 0;
	int r = elfnote_hex(desc, n, ret, room);
	return r < 0 ? r : 1;
}

/*
 * Where a program or section header keeps what scan_table needs, [0] for
 * ELFCLASS32 and [1] for ELFCLASS64; offset, size and alignment are words
 * (4 or 8 bytes), the type 4 bytes.
 */
struct ent_layout {
	unsigned bytes[2], type[2], off[2], size[2], align[2];
	uint64_t note_type; /* PT_NOTE (4) or SHT_NOTE (7) */
};

static const struct ent_layout phdr_layout = {{32, 56}, {0, 0}, {4, 8}, {16, 0x20}, {28, 0x30}, 4};
static const struct ent_layout shdr_layout = {{40, 64}, {4, 4}, {0x10, 0x18}, {0x14, 0x20}, {0x20, 0x30}, 7};

/* The note areas of one header table; *areas counts up to areas_max.  1, 0, <0 as scan_notes. */
static int scan_table(const struct elf_in *e, const struct ent_layout *l, uint64_t tab_off, uint64_t entsize,
		      uint64_t num, int areas_max, int *areas, char *ret, size_t room)
{
	unsigned c = e->is64 ? 1 : 0, word = e->is64 ? 8 : 4;
	unsigned char ent[64];
	if (!tab_off || entsize < l->bytes[c] || entsize > 256)
		return 0;
	for (uint64_t i = 0; i < num && i < HEADERS_MAX && *areas < areas_max; i++) {
		if (read_at(e, ent, l->bytes[c], tab_off + i * entsize) < 0)
			break;
		if (get(e, ent + l->type[c], 4) != l->note_type)
			continue;
		(*areas)++;
		int r = scan_notes(e, get(e, ent + l->off[c], word), get(e, ent + l->size[c], word),
				   get(e, ent + l->align[c], word), ret, room);
		if (r != 0)
			return r;
	}
	return 0;
}

/* Class and byte order from the ELF header h (64 bytes read, or 52). */
static int read_ident(struct elf_in *e, const unsigned char *h)
{
	if (memcmp(h, "\177ELF", 4) != 0 || (h[4] != 1 && h[4] != 2) || (h[5] != 1 && h[5] != 2))
		return -ENOEXEC;
	e->is64 = h[4] == 2;
	e->big = h[5] == 2;
	return e->is64 && e->file_bytes < 64 ? -ENOEXEC : 0;
}

static int find_build_id(struct elf_in *e, char *ret, size_t room)
{
	unsigned char h[64];
	struct stat st;
	if (fstat(e->fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -ENOEXEC;
	e->file_bytes = (uint64_t)st.st_size;
	if (e->file_bytes < 52 || read_at(e, h, e->file_bytes < 64 ? 52 : 64, 0) < 0 || read_ident(e, h) < 0)
		return -ENOEXEC;
	uint64_t phoff = e->is64 ? get(e, h + 0x20, 8) : get(e, h + 0x1c, 4);
	uint64_t shoff = e->is64 ? get(e, h + 0x28, 8) : get(e, h + 0x20, 4);
	const unsigned char *ph =
		h + (e->is64 ? 0x36 : 0x2a); /* e_phentsize, e_phnum, e_shentsize, e_shnum */
	int areas = 0;
	int r = scan_table(e, &phdr_layout, phoff, get(e, ph, 2), get(e, ph + 2, 2), NOTE_AREAS_MAX, &areas,
			   ret, room);
	if (r != 0)
		return r;
	/* Section headers: a debug file may have only these. */
	return scan_table(e, &shdr_layout, shoff, get(e, ph + 4, 2), get(e, ph + 6, 2), 2 * NOTE_AREAS_MAX,
			  &areas, ret, room);
}

int archive_read_build_id_fd(int fd, char *ret_hex, size_t room)
{
	if (fd < 0 || !ret_hex || room == 0)
		return -EINVAL;
	ret_hex[0] = '\0';
	struct elf_in e = {.fd = fd};
	int r = find_build_id(&e, ret_hex, room);
	if (r <= 0)
		ret_hex[0] = '\0';
	return r;
}

int archive_read_build_id(const char *path, char *ret_hex, size_t room)
{
	if (!path || !ret_hex || room == 0)
		return -EINVAL;
	ret_hex[0] = '\0';
	int fd = regfile_open(path, NULL);
	if (fd < 0)
		return fd;
	int r = archive_read_build_id_fd(fd, ret_hex, room);
	close(fd);
	return r;
}

static int is_hex_id(const char *s)
{
	size_t n = 0;
	for (; s[n]; n++)
		if (!((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f')))
			return 0;
	return n >= 2 && n <= ARCHIVE_BUILD_ID_HEX_MAX;
}

/* snprintf's result n as 0, -EINVAL or -ENAMETOOLONG. */
static int fit(int n, size_t room)
{
	if (n < 0)
		return -EINVAL;
	return (size_t)n < room ? 0 : -ENAMETOOLONG;
}

int archive_key(const char *recorded_path, const char *build_id, char *ret, size_t room)
{
	if (!recorded_path || !ret)
		return -EINVAL;
	if (build_id && build_id[0]) {
		if (!is_hex_id(build_id))
			return -EINVAL;
		return fit(snprintf(ret, room, "%s", build_id), room);
	}
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a 64 */
	for (const unsigned char *p = (const unsigned char *)recorded_path; *p; p++)
		h = (h ^ *p) * 0x100000001b3ull;
	char hex[17];
	snprintf(hex, sizeof hex, "%016llx", (unsigned long long)h);
	return fit(snprintf(ret, room, "path-%s", hex), room);
}

int archive_object_path(const char *exp_dir, const char *recorded_path, const char *build_id, char *ret,
			size_t room)
{
	char key[ARCHIVE_BUILD_ID_HEX_MAX + 1];
	if (!exp_dir || !recorded_path || !ret)
		return -EINVAL;
	int r = archive_key(recorded_path, build_id, key, sizeof key);
	if (r < 0)
		return r;
	const char *base = strrchr(recorded_path, '/');
	base = base ? base + 1 : recorded_path;
	if (!base[0] || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
		return -EINVAL;
	char dir[4096];
	r = fit(snprintf(dir, sizeof dir, "%s/%s/%s", exp_dir, ARCHIVE_DIR_NAME, key), sizeof dir);
	if (r < 0)
		return r;
	return fit(snprintf(ret, room, "%s/%s", dir, base), room);
}

/* 1 if `path` is a regular file whose build-id is `want` (any file if want is empty). */
static int file_matches(const char *path, const char *want)
{
	struct stat st;
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	if (!want || !want[0])
		return 1;
	char have[ARCHIVE_BUILD_ID_HEX_MAX + 1];
	return archive_read_build_id(path, have, sizeof have) == 1 && strcmp(have, want) == 0;
}

int archive_cache_root(char *ret, size_t room)
{
	if (!ret)
		return -EINVAL;
	const char *v = getenv("PA_CACHE_DIR");
	if (v && v[0])
		return fit(snprintf(ret, room, "%s", v), room);
	v = getenv("XDG_CACHE_HOME");
	if (v && v[0] == '/')
		return fit(snprintf(ret, room, "%s/pa-analyzer", v), room);
	v = getenv("HOME");
	if (!v || v[0] != '/')
		return -ENOENT;
	return fit(snprintf(ret, room, "%s/.cache/pa-analyzer", v), room);
}

int archive_lines_index_dir(char *ret, size_t room)
{
	const char *v = getenv("PA_LINE_INDEX");
	char root[4096];
	if (!ret || (v && strcmp(v, "off") == 0))
		return -ENOENT;
	int r = archive_cache_root(root, sizeof root);
	return r < 0 ? r : fit(snprintf(ret, room, "%s/lines", root), room);
}

/* The copy of the object in the per-user cache, if it is there with build_id. */
static int cached_copy(const char *recorded_path, const char *build_id, char *ret, size_t room)
{
	char root[4096];
	if (!build_id || !build_id[0] || archive_cache_root(root, sizeof root) < 0)
		return 0;
	return archive_object_path(root, recorded_path, build_id, ret, room) == 0 &&
	       file_matches(ret, build_id);
}

int archive_resolve(const char *exp_dir, const char *recorded_path, const char *build_id, char *ret_path,
		    size_t room, int *ret_from_archive)
{
	if (ret_from_archive)
		*ret_from_archive = 0;
	if (!exp_dir || !recorded_path || !ret_path)
		return -EINVAL;
	if (strlen(recorded_path) >= room)
		return -ENAMETOOLONG;
	if (!file_matches(recorded_path, build_id)) {
		char arch[4096];
		if (archive_object_path(exp_dir, recorded_path, build_id, arch, sizeof arch) == 0 &&
		    strlen(arch) < room &&
		    (file_matches(arch, build_id) ||
		     cached_copy(recorded_path, build_id, arch, sizeof arch))) {
			/* the experiment's copy, or the cache's when its link to it dangles */
			memcpy(ret_path, arch, strlen(arch) + 1);
			if (ret_from_archive)
				*ret_from_archive = 1;
			return 0;
		}
	}
	memcpy(ret_path, recorded_path, strlen(recorded_path) + 1);
	return 0;
}

int archive_debug_link_path(const char *exp_dir, const char *build_id, char *ret, size_t room)
{
	if (!exp_dir || !build_id || !ret)
		return -EINVAL;
	if (!is_hex_id(build_id))
		return -EINVAL;
	char head[3] = {build_id[0], build_id[1], '\0'};
	char dir[4096];
	int r = fit(snprintf(dir, sizeof dir, "%s/%s/.build-id/%s", exp_dir, ARCHIVE_DIR_NAME, head),
		    sizeof dir);
	if (r < 0)
		return r;
	return fit(snprintf(ret, room, "%s/%s.debug", dir, build_id + 2), room);
}

int archive_debug_root(const char *exp_dir, const char *build_id, char *ret, size_t room)
{
	char link[4096];
	struct stat st;
	if (!exp_dir || !ret)
		return -EINVAL;
	if (!build_id || !build_id[0])
		return 0;
	int r = archive_debug_link_path(exp_dir, build_id, link, sizeof link);
	if (r < 0)
		return r;
	if (stat(link, &st) == 0 && S_ISREG(st.st_mode)) {
		r = fit(snprintf(ret, room, "%s/%s", exp_dir, ARCHIVE_DIR_NAME), room);
		return r < 0 ? r : 1;
	}
	/* moved to another machine or user: the current user's cache may have it */
	char root[4096];
	if (archive_cache_root(root, sizeof root) < 0 ||
	    archive_debug_link_path(root, build_id, link, sizeof link) < 0 || stat(link, &st) < 0 ||
	    !S_ISREG(st.st_mode))
		return 0;
	r = fit(snprintf(ret, room, "%s/%s", root, ARCHIVE_DIR_NAME), room);
	return r < 0 ? r : 1;
}
