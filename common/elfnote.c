/*
 * elfnote.c - the ELF note walker (contract in elfnote.h).  Offsets are
 * kept as sizes relative to the area and every one is compared with the
 * area's size before the bytes behind it are read, so no pointer is ever
 * formed past the end.
 */
#include "common/elfnote.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

#define NT_GNU_BUILD_ID_TYPE 3
#define NOTE_HEADER_BYTES 12

static uint32_t get32(const uint8_t *p, bool big)
{
	if (big)
		return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

/* x rounded up to a multiple of a (a power of two), or SIZE_MAX on overflow. */
static size_t pad(size_t x, size_t a)
{
	return x > SIZE_MAX - (a - 1) ? SIZE_MAX : (x + a - 1) & ~(a - 1);
}

/* The note's name (namesz bytes) is `name` (want bytes with its NUL), maybe padded with NULs (Go's "Go\0\0"). */
static bool name_is(const uint8_t *p, size_t namesz, const char *name, size_t want)
{
	if (namesz < want || memcmp(p, name, want) != 0)
		return false;
	for (size_t i = want; i < namesz; i++)
		if (p[i])
			return false;
	return true;
}

int elfnote_find(const void *notes, size_t n_bytes, size_t align, bool big, const char *name, uint32_t type,
		 const uint8_t **ret_desc, size_t *ret_bytes)
{
	const uint8_t *area = notes;
	size_t want = strlen(name) + 1;
	align = align == 8 ? 8 : 4;
	size_t p = 0;
	while (n_bytes - p >= NOTE_HEADER_BYTES) {
		size_t namesz = get32(area + p, big), descsz = get32(area + p + 4, big);
		uint32_t t = get32(area + p + 8, big);
		size_t name_off = p + NOTE_HEADER_BYTES;
		if (namesz > n_bytes - name_off)
			return -EBADMSG;
		size_t desc_off = pad(name_off + namesz, align);
		if (desc_off > n_bytes || descsz > n_bytes - desc_off)
			return -EBADMSG;
		if (t == type && name_is(area + name_off, namesz, name, want)) {
			*ret_desc = area + desc_off;
			*ret_bytes = descsz;
			return 1;
		}
		p = pad(desc_off + descsz, align);
		if (p > n_bytes)
			return 0; /* the last note's padding runs past the end */
	}
	return n_bytes - p == 0 ? 0 : -EBADMSG;
}

int elfnote_find_build_id(const void *notes, size_t n_bytes, size_t align, bool big, const uint8_t **ret_desc,
			  size_t *ret_bytes)
{
	const uint8_t *d;
	size_t n;
	int r = elfnote_find(notes, n_bytes, align, big, "GNU", NT_GNU_BUILD_ID_TYPE, &d, &n);
	if (r != 1)
		return r;
	if (n == 0 || n > ELFNOTE_BUILD_ID_MAX)
		return -EBADMSG;
	*ret_desc = d;
	*ret_bytes = n;
	return 1;
}

int elfnote_hex(const uint8_t *d, size_t n, char *ret, size_t room)
{
	static const char digits[] = "0123456789abcdef";
	if (n > (INT_MAX - 1) / 2 || room < 2 * n + 1) {
		if (room)
			ret[0] = '\0';
		return -ENAMETOOLONG;
	}
	for (size_t i = 0; i < n; i++) {
		ret[2 * i] = digits[d[i] >> 4];
		ret[2 * i + 1] = digits[d[i] & 15];
	}
	ret[2 * n] = '\0';
	return (int)(2 * n);
}
