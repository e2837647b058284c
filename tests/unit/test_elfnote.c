/*
 * test_elfnote.c - common/elfnote.h: the build-id note found among other
 * notes, in both byte orders and with 4- and 8-byte padding; areas without
 * one; every truncation of a valid area (each prefix is copied into a buffer
 * of exactly its size so ASan sees any read past the end); hostile sizes
 * (namesz/descsz near UINT32_MAX, an empty or oversized build-id); and the
 * hex formatter's room handling.
 */
#include "common/elfnote.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "tests/unit/check.h"

struct area {
	uint8_t b[512];
	size_t n;
};

static void put32(struct area *a, uint32_t v, bool big)
{
	for (int i = 0; i < 4; i++)
		a->b[a->n++] = (uint8_t)(big ? v >> (24 - 8 * i) : v >> (8 * i));
}

static void note(struct area *a, uint32_t type, const char *name, const uint8_t *desc, uint32_t descsz,
		 size_t align, bool big)
{
	uint32_t namesz = (uint32_t)strlen(name) + 1;
	put32(a, namesz, big);
	put32(a, descsz, big);
	put32(a, type, big);
	memcpy(a->b + a->n, name, namesz);
	a->n += namesz;
	while (a->n % align)
		a->b[a->n++] = 0;
	memcpy(a->b + a->n, desc, descsz);
	a->n += descsz;
	while (a->n % align)
		a->b[a->n++] = 0;
}

static const uint8_t id20[20] = {0xde, 0xad, 0xbe, 0xef, 1,  2,  3,  4,  5,  6,
				 7,    8,    9,    10,   11, 12, 13, 14, 15, 0xff};

/* Run the walker on a heap copy of exactly n bytes. */
static int find(const uint8_t *b, size_t n, size_t align, bool big, const uint8_t **d, size_t *dn)
{
	uint8_t *copy = malloc(n ? n : 1);
	memcpy(copy, b, n);
	int r = elfnote_find_build_id(copy, n, align, big, d, dn);
	if (r == 1)
		*d = b + (*d - copy); /* report a position in the caller's buffer */
	free(copy);
	return r;
}

static void test_found(size_t align, bool big)
{
	struct area a = {.n = 0};
	uint8_t prop[16] = {1, 2, 3};
	note(&a, 5, "GNU", prop, sizeof prop, align, big); /* NT_GNU_PROPERTY_TYPE_0 */
	note(&a, 1, "GNU", prop, 16, align, big);          /* NT_GNU_ABI_TAG */
	note(&a, 3, "XYZ", prop, 8, align, big);           /* type 3, other owner */
	size_t id_start = a.n;
	note(&a, 3, "GNU", id20, sizeof id20, align, big); /* the build-id */
	note(&a, 3, "GNU", prop, sizeof prop, align, big); /* a second one: not used */
	const uint8_t *d = NULL;
	size_t n = 0;
	CHECK(find(a.b, a.n, align, big, &d, &n) == 1);
	CHECK_EQ_U64(n, 20);
	CHECK(d && memcmp(d, id20, 20) == 0);
	char hex[41];
	CHECK(elfnote_hex(d, n, hex, sizeof hex) == 40);
	CHECK_EQ_STR(hex, "deadbeef0102030405060708090a0b0c0d0e0fff");

	/* every truncation: never found beyond what fits, never a read past the end */
	size_t id_end = id_start + 12 + 4 + 20; /* end of the build-id (padding may follow) */
	for (size_t cut = 0; cut < a.n; cut++) {
		int r = find(a.b, cut, align, big, &d, &n);
		if (cut >= id_end)
			CHECK(r == 1 && n == 20);
		else
			CHECK(r == 0 || r == -EBADMSG);
	}
	CHECK(find(a.b, id_start, align, big, &d, &n) == 0); /* ends after the third note */
	CHECK(find(a.b, id_end - 1, align, big, &d, &n) == -EBADMSG);
}

static void test_none(void)
{
	struct area a = {.n = 0};
	uint8_t x[8] = {0};
	note(&a, 1, "GNU", x, 8, 4, false);
	const uint8_t *d;
	size_t n;
	CHECK(find(a.b, a.n, 4, false, &d, &n) == 0);
	CHECK(find(a.b, 0, 4, false, &d, &n) == 0);
	CHECK(find(a.b, 11, 4, false, &d, &n) == -EBADMSG); /* a partial header */
	/* wrong byte order: sizes are huge */
	struct area b = {.n = 0};
	note(&b, 3, "GNU", id20, 20, 4, true);
	CHECK(find(b.b, b.n, 4, false, &d, &n) == -EBADMSG);
	CHECK(find(b.b, b.n, 4, true, &d, &n) == 1);
	/* alignment other than 8 means 4 */
	CHECK(find(b.b, b.n, 0, true, &d, &n) == 1);
	CHECK(find(b.b, b.n, 1, true, &d, &n) == 1);
}

static void test_hostile(void)
{
	const uint8_t *d;
	size_t n;
	struct area a = {.n = 0};
	note(&a, 3, "GNU", id20, 20, 4, false);
	for (int field = 0; field < 2; field++) {
		uint32_t bad[] = {0xffffffffu, 0xfffffffcu, 0x80000000u, (uint32_t)a.n};
		for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
			struct area c = a;
			memcpy(c.b + 4 * field, &bad[k], 4);
			CHECK(find(c.b, c.n, 4, false, &d, &n) == -EBADMSG);
			CHECK(find(c.b, c.n, 8, false, &d, &n) == -EBADMSG);
		}
	}
	struct area e = {.n = 0};
	note(&e, 3, "GNU", id20, 0, 4, false); /* empty build-id */
	CHECK(find(e.b, e.n, 4, false, &d, &n) == -EBADMSG);
	struct area big = {.n = 0};
	uint8_t long_id[ELFNOTE_BUILD_ID_MAX + 1] = {0};
	note(&big, 3, "GNU", long_id, sizeof long_id, 4, false);
	CHECK(find(big.b, big.n, 4, false, &d, &n) == -EBADMSG);
	struct area ok = {.n = 0};
	note(&ok, 3, "GNU", long_id, ELFNOTE_BUILD_ID_MAX, 4, false);
	CHECK(find(ok.b, ok.n, 4, false, &d, &n) == 1);
	CHECK_EQ_U64(n, ELFNOTE_BUILD_ID_MAX);
}

static void test_hex(void)
{
	const uint8_t d[2] = {0x0a, 0xf0};
	char s[5] = "xxxx";
	CHECK(elfnote_hex(d, 2, s, 5) == 4);
	CHECK_EQ_STR(s, "0af0");
	CHECK(elfnote_hex(d, 2, s, 4) == -ENAMETOOLONG);
	CHECK_EQ_STR(s, "");
	CHECK(elfnote_hex(d, 2, s, 0) == -ENAMETOOLONG);
	CHECK(elfnote_hex(d, 0, s, 1) == 0);
	CHECK_EQ_STR(s, "");
}

/* A note found by owner and type: Go's build id, whose owner field is "Go\0\0". */
static void test_owner(void)
{
	struct area a = {.n = 0};
	uint8_t gnu[20] = {9};
	note(&a, 3, "GNU", gnu, sizeof gnu, 4, false);
	note(&a, 4, "Gox", id20, 4, 4, false); /* another owner with the type */
	note(&a, 1, "Go", id20, 8, 4, false);  /* Go's owner, another type */
	size_t at = a.n;
	/* namesz 4: "Go" and two NULs, as Go's linker writes it */
	put32(&a, 4, false);
	put32(&a, 6, false);
	put32(&a, 4, false);
	memcpy(a.b + a.n, "Go\0\0", 4);
	a.n += 4;
	memcpy(a.b + a.n, "abcdef\0\0", 8);
	a.n += 8;
	const uint8_t *d = NULL;
	size_t n = 0;
	CHECK(elfnote_find(a.b, a.n, 4, false, "Go", 4, &d, &n) == 1);
	CHECK(d == a.b + at + 16 && n == 6 && memcmp(d, "abcdef", 6) == 0);
	CHECK(elfnote_find(a.b, a.n, 4, false, "Go", 5, &d, &n) == 0);
	CHECK(elfnote_find(a.b, a.n, 4, false, "G", 4, &d, &n) == 0);
	/* the owner must be the name then only NULs: "Go\0x" is not "Go" */
	a.b[at + 15] = 'x';
	CHECK(elfnote_find(a.b, a.n, 4, false, "Go", 4, &d, &n) == 0);
	/* every truncation of the area: found only when the note fits, never a read past the end */
	a.b[at + 15] = 0;
	int bad = 0;
	for (size_t k = 0; k <= a.n; k++) {
		uint8_t *copy = malloc(k ? k : 1);
		memcpy(copy, a.b, k);
		int r = elfnote_find(copy, k, 4, false, "Go", 4, &d, &n);
		bad += k < at + 22 ? r == 1 : r != 1; /* found once its 6 bytes are in (padding may be cut) */
		free(copy);
	}
	CHECK(bad == 0);
	/* the build-id wrapper is unchanged by it */
	CHECK(find(a.b, a.n, 4, false, &d, &n) == 1 && n == 20 && d[0] == 9);
}

int main(void)
{
	test_owner();
	test_found(4, false);
	test_found(8, false);
	test_found(4, true);
	test_found(8, true);
	test_none();
	test_hostile();
	test_hex();
	return check_done();
}
