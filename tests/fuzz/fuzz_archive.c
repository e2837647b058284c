/*
 * fuzz_archive - what analysis/archive.c reads from an experiment's
 * archives/ directory and its map.xml, which may come from another machine:
 *   1. the input as a file whose build-id is read (archive_read_build_id,
 *      a bounded ELF note parser): the result is 1 with 2..ARCHIVE_BUILD_ID_HEX_MAX
 *      lowercase hex digits, or 0 / a negative errno with "" - also with a
 *      buffer too small for most ids;
 *   2. the input cut at its first NUL into a recorded path and a build-id,
 *      as map.xml gives them: a path made of them (archive_object_path,
 *      archive_debug_link_path) stays inside EXP/archives/ - one key that is
 *      the build-id (hex) or "path-" and 16 hex digits, then a basename that
 *      is not "", "." or "..", with no '/' in either.
 * A violation calls abort().
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analysis/archive.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define EXP "/x.er"
#define PREFIX EXP "/" ARCHIVE_DIR_NAME "/"

static int is_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

static void check_id(int r, const char *id, size_t room)
{
	size_t n = strnlen(id, room);
	if (n == room)
		abort(); /* not terminated */
	if (r == 1 ? n < 2 || n % 2 || n > ARCHIVE_BUILD_ID_HEX_MAX || !is_hex(id, n) : r > 1 || n != 0)
		abort();
}

static void build_id_of_file(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	if (fd < 0) {
		fd = memfd_create("fuzz_archive", MFD_CLOEXEC);
		if (fd < 0)
			abort();
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	char id[ARCHIVE_BUILD_ID_HEX_MAX + 1], small[9];
	int r = archive_read_build_id(path, id, sizeof id);
	if (r == -ENAMETOOLONG)
		abort(); /* ARCHIVE_BUILD_ID_HEX_MAX + 1 is always enough */
	check_id(r, id, sizeof id);
	int r2 = archive_read_build_id(path, small, sizeof small);
	check_id(r2, small, sizeof small);
	if (r2 != (r == 1 && strlen(id) >= sizeof small ? -ENAMETOOLONG : r) ||
	    (r2 == 1 && strcmp(id, small)))
		abort();
}

static void paths_of_strings(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t plen = nul ? (size_t)(nul - data) : size;
	char *recorded = strndup((const char *)data, plen);
	char *build_id = nul ? strndup((const char *)nul + 1, size - plen - 1) : NULL;
	if (!recorded || (nul && !build_id))
		abort();
	char key[ARCHIVE_BUILD_ID_HEX_MAX + 1], path[4096];
	if (archive_key(recorded, build_id, key, sizeof key) == 0) {
		size_t n = strlen(key);
		if (build_id && build_id[0]
			    ? strcmp(key, build_id) != 0 || !is_hex(key, n)
			    : n != 21 || strncmp(key, "path-", 5) != 0 || !is_hex(key + 5, 16))
			abort();
	}
	if (archive_object_path(EXP, recorded, build_id, path, sizeof path) == 0) {
		if (strncmp(path, PREFIX, strlen(PREFIX)) != 0)
			abort();
		const char *k = path + strlen(PREFIX), *slash = strchr(k, '/');
		if (!slash)
			abort();
		size_t klen = (size_t)(slash - k);
		int hex_key = klen >= 2 && is_hex(k, klen);
		int path_key = klen == 21 && strncmp(k, "path-", 5) == 0 && is_hex(k + 5, 16);
		const char *base = slash + 1;
		if (hex_key == path_key || !base[0] || strchr(base, '/') || strcmp(base, ".") == 0 ||
		    strcmp(base, "..") == 0)
			abort();
	}
	if (build_id && archive_debug_link_path(EXP, build_id, path, sizeof path) == 0) {
		static const char dir[] = PREFIX ".build-id/";
		const char *p = path + strlen(dir);
		size_t n = strlen(build_id);
		/* .build-id/xx/REST.debug: xx the first two digits, REST the others */
		if (strncmp(path, dir, strlen(dir)) != 0 || n < 2 || !is_hex(build_id, n) ||
		    strncmp(p, build_id, 2) != 0 || p[2] != '/' || strncmp(p + 3, build_id + 2, n - 2) != 0 ||
		    strcmp(p + 3 + n - 2, ".debug") != 0)
			abort();
	}
	free(recorded);
	free(build_id);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	build_id_of_file(data, size);
	paths_of_strings(data, size);
	return 0;
}
