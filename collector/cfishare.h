/*
 * cfishare.h - unwind tables built by one process of an experiment, shared
 * with the processes that start after it (issue #26: each new process spent
 * milliseconds of CPU and hundreds of page faults parsing the same
 * .eh_frame of libc, bash, ...).
 *
 * A cfi_table's arrays are relative to its lo, so they hold for the same
 * object at any load address.  When a process builds the table of an
 * object from its .eh_frame_hdr, it writes the table to
 * EXP/.unwind/KEY.cfi (EXP: the founder's experiment, KEY: the object's
 * GNU build-id with the place and size of its .eh_frame_hdr); a process
 * that loads the same object later maps that file read-only instead of
 * parsing: its pages are shared through the page cache and only those a
 * lookup reads are touched.  A file is trusted only as far as cfi_lookup
 * needs: its header must name the same key and sizes that add up to the
 * file's, and every block index must name a row; the rules it holds are
 * only ever used to compute addresses that the unwinder checks against
 * the stack before reading (unwind.c).  Written to a temporary file and
 * renamed, so a reader sees a whole file or none.  collect removes
 * EXP/.unwind when the collection ends.  Not for signal context.
 */
#ifndef COLLECTOR_CFISHARE_H
#define COLLECTOR_CFISHARE_H

#include <link.h>
#include <stddef.h>
#include <stdint.h>

#include "collector/cfi.h"

#define CFISHARE_DIR ".unwind"
#define CFISHARE_KEY_MAX 192

/* The key of the object's table (into key, room bytes), or -ENOENT when it has no build-id. */
int cfishare_key(const struct dl_phdr_info *info, const ElfW(Phdr) * eh, char *key, size_t room);

/*
 * The table of `key` shared under exp (the founder's directory), for the
 * object loaded at `bias`: 0 with *t filled (its arrays in a read-only
 * mapping of *map_bytes bytes at *map, for the caller to munmap), or
 * -ENOENT (none yet), -EBADMSG (a file that is not one: it is not used).
 */
int cfishare_load(const char *exp, const char *key, uint64_t bias, struct cfi_table *t, void **map,
		  size_t *map_bytes);

/* Write t (built for the object loaded at bias) as key's shared table under exp; quietly nothing on failure. */
void cfishare_store(const char *exp, const char *key, uint64_t bias, const struct cfi_table *t);

#endif
