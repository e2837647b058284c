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
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

static int to_hex(const unsigned char *d, size_t n, char *ret, size_t room)
{
	static const char digits[] = "0123456789abcdef";
	if (room < 2 * n + 1)
		return -ENAMETOOLONG;
	for (size_t i = 0; i < n; i++) {
		ret[2 * i] = digits[d[i] >> 4];
		ret[2 * i + 1] = digits[d[i] & 15];
	}
	ret[2 * n] = '\0';
	return 1;
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
	align = align == 8 ? 8 : 4;
	uint64_t p = 0;
	while (size - p >= 12) {
		uint64_t namesz = get(e, area + p, 4), descsz = get(e, area + p + 4, 4);
		uint64_t type = get(e, area + p + 8, 4);
		uint64_t name_off = p + 12;
		uint64_t desc_off = (name_off + namesz + align - 1) & ~(align - 1);
		if (namesz > size || descsz > size || desc_off > size || descsz > size - desc_off)
			return 0;
		if (type == 3 && namesz == 4 && memcmp(area + name_off, "GNU", 4) == 0) {
			if (descsz == 0 || descsz > ARCHIVE_BUILD_ID_HEX_MAX / 2)
				return 0;
			return to_hex(area + desc_off, (size_t)descsz, ret, room);
		}
		p = (desc_off + descsz + align - 1) & ~(align - 1);
	}
	return 0;
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
	if (e->file_bytes < 52 || read_at(e, h, e->file_bytes < 64 ? 52 : 64, 0) < 0)
		return -ENOEXEC;
	if (memcmp(h, "\177ELF", 4) != 0 || (h[4] != 1 && h[4] != 2) || (h[5] != 1 && h[5] != 2))
		return -ENOEXEC;
	e->is64 = h[4] == 2;
	e->big = h[5] == 2;
	if (e->is64 && e->file_bytes < 64)
		return -ENOEXEC;
	uint64_t phoff = e->is64 ? get(e, h + 0x20, 8) : get(e, h + 0x1c, 4);
	uint64_t shoff = e->is64 ? get(e, h + 0x28, 8) : get(e, h + 0x20, 4);
	uint64_t phentsize = get(e, h + (e->is64 ? 0x36 : 0x2a), 2),
		 phnum = get(e, h + (e->is64 ? 0x38 : 0x2c), 2);
	uint64_t shentsize = get(e, h + (e->is64 ? 0x3a : 0x2e), 2),
		 shnum = get(e, h + (e->is64 ? 0x3c : 0x30), 2);
	unsigned char ent[64];
	int areas = 0, r;

	/* Program headers: PT_NOTE (4). */
	if (phoff && phentsize >= (e->is64 ? 56u : 32u) && phentsize <= 256) {
		for (uint64_t i = 0; i < phnum && i < HEADERS_MAX && areas < NOTE_AREAS_MAX; i++) {
			if (read_at(e, ent, e->is64 ? 56 : 32, phoff + i * phentsize) < 0)
				break;
			if (get(e, ent, 4) != 4)
				continue;
			uint64_t off = e->is64 ? get(e, ent + 8, 8) : get(e, ent + 4, 4);
			uint64_t size = e->is64 ? get(e, ent + 0x20, 8) : get(e, ent + 16, 4);
			uint64_t align = e->is64 ? get(e, ent + 0x30, 8) : get(e, ent + 28, 4);
			areas++;
			if ((r = scan_notes(e, off, size, align, ret, room)) != 0)
				return r;
		}
	}
	/* Section headers: SHT_NOTE (7); a debug file may have only these. */
	if (shoff && shentsize >= (e->is64 ? 64u : 40u) && shentsize <= 256) {
		for (uint64_t i = 0; i < shnum && i < HEADERS_MAX && areas < 2 * NOTE_AREAS_MAX; i++) {
			if (read_at(e, ent, e->is64 ? 64 : 40, shoff + i * shentsize) < 0)
				break;
			if (get(e, ent + 4, 4) != 7)
				continue;
			uint64_t off = e->is64 ? get(e, ent + 0x18, 8) : get(e, ent + 0x10, 4);
			uint64_t size = e->is64 ? get(e, ent + 0x20, 8) : get(e, ent + 0x14, 4);
			uint64_t align = e->is64 ? get(e, ent + 0x30, 8) : get(e, ent + 0x20, 4);
			areas++;
			if ((r = scan_notes(e, off, size, align, ret, room)) != 0)
				return r;
		}
	}
	return 0;
}

int archive_read_build_id(const char *path, char *ret_hex, size_t room)
{
	if (!path || !ret_hex || room == 0)
		return -EINVAL;
	ret_hex[0] = '\0';
	struct elf_in e = {0};
	e.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (e.fd < 0)
		return -errno;
	int r = find_build_id(&e, ret_hex, room);
	close(e.fd);
	if (r <= 0)
		ret_hex[0] = '\0';
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
