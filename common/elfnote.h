/*
 * elfnote.h - ELF notes (a PT_NOTE segment or SHT_NOTE section) and the GNU
 * build-id note in them.
 *
 * Works on bytes the caller already has (a mapped segment in the collector, a
 * buffer read from a file in analysis): no allocation, no I/O, no printing.
 * Every function is pure and SIGNAL_SAFE, and never reads outside
 * [notes, notes + n_bytes).
 */
#ifndef COMMON_ELFNOTE_H
#define COMMON_ELFNOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Longest build-id accepted, in bytes (GNU ld writes 20). */
#define ELFNOTE_BUILD_ID_MAX 64

/*
 * Find the NT_GNU_BUILD_ID note (type 3, name "GNU") in the note area
 * [notes, notes + n_bytes).  Header fields are read little-endian, or
 * big-endian when `big`; names and descriptors are padded to `align` (the
 * segment's or section's alignment: 8 means 8, anything else 4).  The walk
 * stops at the first note whose header or padded name and descriptor do not
 * fit in the area.  On success *ret_desc points into the area at the
 * build-id's *ret_bytes bytes (1..ELFNOTE_BUILD_ID_MAX).
 * Returns 1 found, 0 no build-id note in the well-formed notes walked,
 * -EBADMSG when the walk ran into a truncated note first, or when the
 * build-id note is empty or longer than ELFNOTE_BUILD_ID_MAX.
 * *ret_desc and *ret_bytes are set only when 1 is returned.
 */
int elfnote_find_build_id(const void *notes, size_t n_bytes, size_t align, bool big, const uint8_t **ret_desc,
			  size_t *ret_bytes);

/*
 * Find the first note of `type` whose name is the NUL-terminated `name`,
 * possibly padded with more NULs (e.g. "Go" and 4 for the Go toolchain's
 * build id, whose name field is "Go\0\0"), with the same walk and
 * return values as elfnote_find_build_id (any descriptor size, 0 included).
 */
int elfnote_find(const void *notes, size_t n_bytes, size_t align, bool big, const char *name, uint32_t type,
		 const uint8_t **ret_desc, size_t *ret_bytes);

/*
 * Write the n bytes at d as lowercase hex with a NUL into ret (room bytes).
 * Returns the number of digits (2n), or -ENAMETOOLONG when room < 2n + 1
 * (or 2n passes INT_MAX), in which case ret is "" (if room > 0).
 */
int elfnote_hex(const uint8_t *d, size_t n, char *ret, size_t room);

#endif
