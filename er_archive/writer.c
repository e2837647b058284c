/*
 * writer.c - the archive writer (contract in writer.h).
 */
#include "er_archive/writer.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/archive.h"
#include "analysis/lines.h"
#include "analysis/symtab.h"
#include "common/fsops.h"
#include "common/regfile.h"
#include "er_archive/copy.h"
#include "er_archive/report.h"

static const struct ar_options *opt;
static char cache_root[PATH_MAX]; /* the per-user cache, "" when not used */

const char *ar_writer_cache_root(void)
{
	return cache_root;
}

/* ------------------------------------------------------------ files */

int ar_is_file(const char *path, uint64_t *ret_bytes)
{
	struct stat st;
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	if (ret_bytes)
		*ret_bytes = (uint64_t)st.st_size;
	return 1;
}

/* mkdir -p of `dir`'s components below `from` (which exists). */
int ar_make_dirs(const char *from, const char *dir)
{
	size_t failed = 0;
	int r = fsops_mkdir_p(dir, strlen(from), 0755, &failed);
	if (r < 0 && failed) /* a mkdir failed (not a path too long to try) */
		ar_error("cannot create directory %.*s: %s", (int)failed, dir, strerror(-r));
	return r;
}

/* A relative symlink link -> target, replacing what is there. */
static int symlink_atomic(const char *target, const char *link)
{
	char tmp[PATH_MAX];
	int fd = copy_temp_open(link, tmp, sizeof tmp);
	if (fd < 0) {
		ar_error("cannot create a file in the directory of %s: %s", link, strerror(-fd));
		return fd;
	}
	close(fd);
	unlink(tmp); /* its name, for the link; still removed on a signal */
	int r = 0;
	if (symlink(target, tmp) < 0 || rename(tmp, link) < 0) {
		r = -errno;
		unlink(tmp);
		ar_error("cannot create link %s: %s", link, strerror(-r));
	}
	copy_temp_done();
	return r;
}

/* ------------------------------------------------------------ objects */

/* exp's archives/.build-id/xx/rest.debug -> ../../KEY/BASENAME.debug */
static void debug_link(const char *exp, const struct ar_entry *en)
{
	char link[PATH_MAX], target[PATH_MAX], root[PATH_MAX];
	const struct exp_loadobj *lo = en->lo;
	if (!lo->build_id || !lo->build_id[0] ||
	    archive_debug_link_path(exp, lo->build_id, link, sizeof link) < 0)
		return;
	char *slash = strrchr(link, '/');
	*slash = '\0';
	snprintf(root, sizeof root, "%s/%s", exp, ARCHIVE_DIR_NAME);
	int r = ar_make_dirs(root, link);
	*slash = '/';
	snprintf(target, sizeof target, "../../%s/%s.debug", en->key, en->base);
	if (r == 0)
		symlink_atomic(target, link);
}

/* The separate debug file symbols come from, if any: copy it and link it. */
static void archive_debug(const char *exp, struct ar_entry *en, const char *objpath)
{
	const struct exp_loadobj *lo = en->lo;
	struct symtab *st = NULL;
	char dst[PATH_MAX + 8];

	if (symtab_open(lo->path, lo->build_id, NULL, &st) < 0)
		return;
	const char *sf = symtab_symbol_file(st);
	char dbg[PATH_MAX];
	int separate = sf && strcmp(sf, lo->path) != 0 && strcmp(sf, symtab_path(st)) != 0;
	if (separate)
		snprintf(dbg, sizeof dbg, "%s", sf);
	symtab_free(st);
	if (!separate)
		return;
	snprintf(dst, sizeof dst, "%s.debug", objpath);
	if (opt->dry_run) {
		ar_plan("would copy", dbg, dst);
		return;
	}
	uint64_t bytes;
	int src_failed;
	char why[PATH_MAX + 256];
	int r = copy_file(dbg, dst, COPY_ELF, lo->build_id, &bytes, &src_failed, why, sizeof why);
	if (r < 0 && src_failed)
		ar_warn("cannot read %s (debug file of %s): %s; not archived", dbg, lo->path, why);
	else if (r < 0)
		ar_error("%s", why);
	if (r < 0)
		return;
	en->has_debug = 1;
	if (!opt->quiet)
		printf("archived %s (%" PRIu64 " bytes) as %s\n", dbg, bytes, dst);
	debug_link(exp, en);
}

/* Copy the object, and its debug file, into root's archive as objpath.  0 or -1. */
static int store(const char *root, struct ar_entry *en, const char *objpath)
{
	const struct exp_loadobj *lo = en->lo;
	char dir[PATH_MAX + 160], top[PATH_MAX];
	snprintf(top, sizeof top, "%s/%s", root, ARCHIVE_DIR_NAME);
	snprintf(dir, sizeof dir, "%s/%s", top, en->key);
	if (ar_make_dirs(top, dir) < 0)
		return -1;
	int src_failed;
	char why[PATH_MAX + 256];
	int r = copy_file(lo->path, objpath, COPY_ELF, lo->build_id, &en->size_bytes, &src_failed, why,
			  sizeof why);
	if (r < 0) {
		if (src_failed)
			ar_entry_note(en, "cannot read %s: %s; not archived", lo->path, why);
		else
			ar_error("%s", why);
		return -1;
	}
	archive_debug(root, en, objpath);
	return 0;
}

static int is_link(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
}

/*
 * Put the object (and its debug file) in the per-user cache unless it is
 * there already, and make the experiment's objpath (and .debug) links to it.
 * 0, or -1 when the cache cannot be written (then the caller copies; said once).
 */
static int archive_linked(const char *exp, struct ar_entry *en, const char *objpath)
{
	static int warned;
	const struct exp_loadobj *lo = en->lo;
	char cached[PATH_MAX], cdbg[PATH_MAX + 8], dbgpath[PATH_MAX + 8], dir[PATH_MAX + 160], top[PATH_MAX];
	if (archive_object_path(cache_root, lo->path, lo->build_id, cached, sizeof cached) < 0)
		return -1;
	snprintf(cdbg, sizeof cdbg, "%s.debug", cached);
	char id[ARCHIVE_BUILD_ID_HEX_MAX + 1];
	int in_cache = !opt->force && archive_read_build_id(cached, id, sizeof id) == 1 &&
		       strcmp(id, lo->build_id) == 0;
	ar_mute_errors();
	int r = 0;
	if (!in_cache) {
		r = store(cache_root, en, cached);
	} else if (!ar_is_file(cdbg, NULL)) {
		archive_debug(cache_root, en, cached); /* a debug file installed since */
	}
	int failed = ar_unmute_errors() > 0;
	if (r < 0 && !failed)
		return -2; /* the object could not be read: noted, nothing to copy either */
	if (failed || !ar_is_file(cached, &en->size_bytes)) {
		if (!warned++)
			ar_warn("cannot write the per-user cache %s; copying the objects into the experiment",
				cache_root);
		return -1;
	}
	snprintf(top, sizeof top, "%s/%s", exp, ARCHIVE_DIR_NAME);
	snprintf(dir, sizeof dir, "%s/%s", top, en->key);
	if (ar_make_dirs(top, dir) < 0 || symlink_atomic(cached, objpath) < 0)
		return -1;
	en->has_file = en->linked = 1;
	snprintf(dbgpath, sizeof dbgpath, "%s.debug", objpath);
	if (ar_is_file(cdbg, NULL) && symlink_atomic(cdbg, dbgpath) == 0) {
		en->has_debug = 1;
		debug_link(exp, en);
	}
	if (!opt->quiet)
		printf("archived %s as %s -> %s\n", lo->path, objpath, cached);
	return 0;
}

/* -A copy on an archive that links into the cache: each link becomes a copy of its target. */
static void materialize(struct ar_entry *en, const char *objpath)
{
	char dbgpath[PATH_MAX + 8], why[PATH_MAX + 256];
	int src_failed, r;
	snprintf(dbgpath, sizeof dbgpath, "%s.debug", objpath);
	if (is_link(dbgpath) && ar_is_file(dbgpath, NULL)) {
		r = copy_file(dbgpath, dbgpath, COPY_ELF, en->lo->build_id, NULL, &src_failed, why,
			      sizeof why);
		if (r < 0 && !src_failed)
			ar_error("%s", why);
		else if (r == 0 && !opt->quiet)
			printf("copied %s into the experiment\n", dbgpath);
	}
	r = copy_file(objpath, objpath, COPY_ELF, en->lo->build_id, &en->size_bytes, &src_failed, why,
		      sizeof why);
	if (r < 0) {
		if (src_failed)
			ar_entry_note(en, "cannot read %s: %s; not copied", objpath, why);
		else
			ar_error("%s", why);
		return;
	}
	en->has_file = 1;
	en->has_debug = ar_is_file(dbgpath, NULL);
	if (!opt->quiet)
		printf("copied %s into the experiment\n", objpath);
}

/*
 * An object already in the archive: with -A copy, a link into the cache
 * becomes a copy; without -F, it stays as it is.  1 when that settles it, 0
 * to archive it again.
 */
static int archived_already(struct ar_entry *en, const char *objpath)
{
	if (en->linked && opt->mode == AR_MODE_COPY) {
		if (opt->dry_run)
			ar_plan("would copy", objpath, objpath);
		else
			materialize(en, objpath);
		en->linked = 0;
		return 1;
	}
	if (!opt->force) {
		en->has_file = 1;
		if (opt->dry_run || !opt->quiet)
			printf("already archived: %s\n", en->lo->path);
		return 1;
	}
	return 0;
}

/*
 * Is lo->path still the object map.xml recorded (the same build-id; with -F,
 * any file for an object without one)?  1, or 0 with the reason noted.
 */
static int source_unchanged(struct ar_entry *en)
{
	const struct exp_loadobj *lo = en->lo;
	int none = !lo->build_id || !lo->build_id[0];
	if (none && !opt->force) {
		ar_entry_note(en, "%s has no build-id recorded; not archived (use -F to archive it by path)",
			      lo->path);
		return 0;
	}
	char id[ARCHIVE_BUILD_ID_HEX_MAX + 1];
	int r = archive_read_build_id(lo->path, id, sizeof id);
	if (r < 0 && r != -ENOEXEC) {
		ar_entry_note(en, "cannot read %s: %s; not archived", lo->path, regfile_strerror(r));
		return 0;
	}
	if (none && r == -ENOEXEC) { /* -F archives ELF files only: map.xml may name anything */
		ar_entry_note(en, "%s: not an ELF file; not archived", lo->path);
		return 0;
	}
	if (!none && (r != 1 || strcmp(id, lo->build_id) != 0)) {
		ar_entry_note(en, "%s changed since the experiment was recorded; not archived", lo->path);
		return 0;
	}
	return 1;
}

/*
 * Same build-id already copied in this run under another name (done[0..ndone)):
 * link objpath to it.  1 when linked (or, with -n, planned); 0 to copy it.
 */
static int link_done(const char *exp, struct ar_entry *en, const char *objpath, const struct ar_entry *done,
		     size_t ndone)
{
	for (size_t i = 0; i < ndone; i++) {
		if (!done[i].has_file || strcmp(done[i].key, en->key) != 0)
			continue;
		char other[PATH_MAX];
		if (archive_object_path(exp, done[i].lo->path, done[i].lo->build_id, other, sizeof other) < 0)
			continue;
		if (opt->dry_run) {
			ar_plan("would link", other, objpath);
			en->has_file = 1;
			return 1;
		}
		if (link(other, objpath) == 0) {
			en->has_file = ar_is_file(objpath, &en->size_bytes);
			return 1;
		}
		return 0; /* copy it instead */
	}
	return 0;
}

static void archive_one(const char *exp, struct ar_entry *en, struct ar_entry *done, size_t ndone)
{
	const struct exp_loadobj *lo = en->lo;
	char objpath[PATH_MAX], dir[PATH_MAX];
	int r = archive_object_path(exp, lo->path, lo->build_id, objpath, sizeof objpath);
	if (r < 0) {
		ar_entry_note(en, "%s: cannot archive (%s)", lo->path,
			      r == -EINVAL ? "bad build-id or file name in map.xml" : strerror(-r));
		return;
	}
	snprintf(dir, sizeof dir, "%s/%s/%s", exp, ARCHIVE_DIR_NAME, en->key);
	char dbgpath[PATH_MAX + 8];
	snprintf(dbgpath, sizeof dbgpath, "%s.debug", objpath);
	int exists = ar_is_file(objpath, &en->size_bytes);
	en->has_debug = ar_is_file(dbgpath, NULL);
	en->linked = is_link(objpath);
	if (exists && archived_already(en, objpath))
		return;
	if (opt->mode == AR_MODE_OFF) {
		en->has_file = exists;
		return;
	}
	if (!source_unchanged(en))
		return;
	if (!exists && link_done(exp, en, objpath, done, ndone))
		return;
	if (opt->dry_run) {
		ar_plan(cache_root[0] && lo->build_id && lo->build_id[0] ? "would link (per-user cache)"
									 : "would copy",
			lo->path, objpath);
		en->has_file = 1;
		archive_debug(exp, en, objpath);
		return;
	}
	if (cache_root[0] && lo->build_id && lo->build_id[0] && archive_linked(exp, en, objpath) == 0)
		return;
	if (store(exp, en, objpath) < 0) {
		en->has_file = exists;
		return;
	}
	en->has_file = 1;
	if (!opt->quiet)
		printf("archived %s (%" PRIu64 " bytes) as %s\n", lo->path, en->size_bytes, objpath);
}

/* The per-user cache to link objects from (-A on, src), or "" to copy them. */
void ar_writer_begin(const struct ar_options *o)
{
	opt = o;
	char root[PATH_MAX];
	cache_root[0] = '\0';
	if (opt->mode != AR_MODE_ON && opt->mode != AR_MODE_SRC)
		return;
	int r = archive_cache_root(root, sizeof root);
	if (r == 0 && !opt->dry_run) {
		char objs[PATH_MAX + 16];
		snprintf(objs, sizeof objs, "%s/%s", root, ARCHIVE_DIR_NAME);
		r = fsops_mkdir_p(objs, 0, 0700, NULL);
	}
	if (r < 0) {
		ar_warn("cannot use the per-user cache %s: %s; copying the objects into the experiment",
			r == -ENOENT ? "(no HOME)" : root, strerror(-r));
		return;
	}
	snprintf(cache_root, sizeof cache_root, "%s", root);
}

/*
 * Index the line tables of an archived object for the reports to come
 * (analysis/lines.h, lines_options.cache_dir): read as er_print will read
 * it (archive_resolve, archive_debug_root), so the index is the one its
 * first report maps instead of reading the DWARF.  Once per object per
 * user: an index already there is only checked.  Quiet: an object without
 * DWARF, or an index that cannot be written, only leaves the reports to read
 * the DWARF themselves.
 */
static void index_lines(const char *ep, const struct exp_loadobj *lo)
{
	char dir[PATH_MAX], path[PATH_MAX], root[PATH_MAX];
	if (lo->kind == EXP_OBJ_VDSO || archive_lines_index_dir(dir, sizeof dir) < 0 ||
	    archive_resolve(ep, lo->path, lo->build_id, path, sizeof path, NULL) < 0)
		return;
	struct lines_options lopt = {.cache_dir = dir};
	if (archive_debug_root(ep, lo->build_id, root, sizeof root) == 1)
		lopt.debug_root = root;
	struct lines *l;
	if (lines_open(path, lo->build_id, &lopt, &l) == 0)
		lines_free(l);
}

/*
 * Archive the used object lo of the experiment ep as the entry v[*n] unless
 * an earlier entry has the same key and path (an invalid build-id gets an
 * entry that says so).
 */
void ar_writer_add_object(const char *ep, const struct exp_loadobj *lo, struct ar_entry *v, size_t *n)
{
	struct ar_entry en = {.lo = lo};
	const char *sl = strrchr(lo->path, '/');
	en.base = sl ? sl + 1 : lo->path;
	int dup = 0;
	if (archive_key(lo->path, lo->build_id, en.key, sizeof en.key) < 0) {
		snprintf(en.key, sizeof en.key, "invalid");
		v[(*n)++] = en;
		ar_entry_note(&v[*n - 1], "%s: the build-id in map.xml is not valid hex; not archived",
			      lo->path);
		return;
	}
	for (size_t j = 0; j < *n && !dup; j++)
		dup = strcmp(v[j].key, en.key) == 0 && strcmp(v[j].lo->path, lo->path) == 0;
	if (dup)
		return;
	v[*n] = en;
	archive_one(ep, &v[*n], v, *n);
	if (v[*n].has_file && opt->mode != AR_MODE_OFF && !opt->dry_run)
		index_lines(ep, lo);
	(*n)++;
}
