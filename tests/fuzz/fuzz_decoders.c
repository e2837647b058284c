/*
 * fuzz_decoders - the shared low-level decoders of common/: the ELF note
 * walker (elfnote.h) and the CFI decoders (dwarf_eh.h: pointer encodings and
 * CIE headers).  The first byte picks the byte order, note alignment, address
 * size and a pointer encoding; the rest is fed to the note walker, to
 * eh_cie_parse and to a run of eh_read_pointer calls, each from an exactly
 * sized copy so ASan sees any read past the end.  Checked: a found build-id
 * lies inside the input with 1..64 bytes; a parsed CIE's instructions lie
 * inside the input; readers never move past their end.  A violation calls
 * abort().
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/dwarf_eh.h"
#include "common/elfnote.h"
#include "tests/fuzz/fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void notes(const uint8_t *d, size_t n, uint8_t mode)
{
	const uint8_t *desc;
	size_t bytes;
	int r = elfnote_find_build_id(d, n, mode & 1 ? 8 : 4, mode & 2, &desc, &bytes);
	if (r == 1) {
		if (bytes == 0 || bytes > ELFNOTE_BUILD_ID_MAX || desc < d || desc + bytes > d + n)
			abort();
		char hex[2 * ELFNOTE_BUILD_ID_MAX + 1];
		if (elfnote_hex(desc, bytes, hex, sizeof hex) != (int)(2 * bytes))
			abort();
	} else if (r != 0 && r != -EBADMSG) {
		abort();
	}
}

static void cie(const uint8_t *d, size_t n, uint8_t mode)
{
	struct eh_reader r;
	struct eh_cie e;
	eh_reader_init(&r, d, d + n, 0x400000, mode & 4 ? 4 : 8, mode & 2);
	int rc = eh_cie_parse(&r, &e);
	if (rc == 0 && (e.insn < d || e.insn > e.insn_end || e.insn_end != d + n))
		abort();
	if (rc != 0 && rc != -EBADMSG && rc != -ENOTSUP)
		abort();
}

static void pointers(const uint8_t *d, size_t n, uint8_t mode)
{
	struct eh_reader r;
	struct eh_bases b = {.valid = (mode >> 3) & 15, .text = 0x1000, .data = 0x2000, .func = 0x3000};
	eh_reader_init(&r, d, d + n, 0x400000, mode & 4 ? 4 : 8, mode & 2);
	for (size_t i = 0; i < n && r.p < r.end; i++) {
		uint8_t enc = (uint8_t)eh_read_fixed(&r, 1);
		uint64_t v;
		const uint8_t *before = r.p;
		int rc = eh_read_pointer(&r, enc, &b, &v);
		if (r.p < before || r.p > r.end || (rc == 0 && (mode & 4) && v > UINT32_MAX))
			abort();
		if (rc == -EBADMSG)
			break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t mode;
	size_t n;
	uint8_t *copy = fuzz_input(data, size, &mode, &n);
	if (!copy)
		return 0;
	notes(copy, n, mode);
	cie(copy, n, mode);
	pointers(copy, n, mode);
	free(copy);
	return 0;
}
