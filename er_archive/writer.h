/*
 * writer.h - the archive writer: puts one used load object (and its
 * separate debug file) into the experiment's archives/, by the layout of
 * analysis/archive.h.  By default (-A on, src) an object with a build-id is
 * kept once in the per-user cache and the archive links to it; -A copy
 * copies it into the experiment (a link made before becomes a copy); -A off
 * records only.  An object already archived stays unless -F; one whose file
 * changed since the recording (another build-id) is not archived, with a
 * note; the same object under a second name is hard-linked to the first
 * copy.  Copies go through er_archive/copy.h; -n prints the plan instead.
 */
#ifndef ER_ARCHIVE_WRITER_H
#define ER_ARCHIVE_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "er_archive/index.h"
#include "er_archive/options.h"

/*
 * Begin an experiment's archive with options o (kept until the next
 * begin): choose the per-user cache (-A on, src), made if missing, or warn
 * and copy.
 */
void ar_writer_begin(const struct ar_options *o);

/* The per-user cache objects are linked from, "" when they are copied. */
const char *ar_writer_cache_root(void);

/*
 * Archive the used object lo of the experiment exp as entry v[*n] (which
 * *n then counts) unless an earlier entry has the same key and path; an
 * invalid build-id gets an entry that says so.
 */
void ar_writer_add_object(const char *exp, const struct exp_loadobj *lo, struct ar_entry *v, size_t *n);

/* 1 if path is a regular file (following links), its size in *ret_bytes (may be NULL). */
int ar_is_file(const char *path, uint64_t *ret_bytes);

/* mkdir -p of dir's components below from (which exists): 0, or -errno (reported). */
int ar_make_dirs(const char *from, const char *dir);

#endif
