/*
 * index.h - what became of each load object er_archive considered (struct
 * ar_entry), and its record, the experiment's archives/index.xml (layout:
 * analysis/archive.h), written whole to a temporary name and renamed.
 */
#ifndef ER_ARCHIVE_INDEX_H
#define ER_ARCHIVE_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/archive.h"
#include "analysis/experiment.h"

/* One distinct (path, key) of map.xml, and what became of it. */
struct ar_entry {
	const struct exp_loadobj *lo;
	char key[ARCHIVE_BUILD_ID_HEX_MAX + 8];
	const char *base;
	int has_file, has_debug;
	int linked; /* the archive's file is a link into the per-user cache */
	uint64_t size_bytes;
	char *note; /* why it is not archived, or NULL */
};

/* Note why en is not archived (replacing an earlier note) and warn with it. */
void ar_entry_note(struct ar_entry *en, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Write exp's archives/index.xml listing v[0..n); cache_root: the per-user
 * cache linked entries point into ("" when none).  0, or a negative errno
 * (reported as an error).
 */
int ar_index_write(const char *exp, const struct ar_entry *v, size_t n, const char *cache_root);

#endif
