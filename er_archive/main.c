/*
 * er_archive - record the build-id of each load object of an experiment that
 * the reports will read (a frame of a recorded call stack lies in it) and
 * copy those objects (and their separate debug files) into the experiment's
 * archives/ directory, so that er_print can still read the code that ran
 * after the program is rebuilt or deleted; an experiment that recorded
 * nothing gets nothing.  It reads log.xml, map.xml and the stacks file, never
 * the event files.  collect runs it (with -q) when the target has ended.
 * Layout and lookup: analysis/archive.h; usage: docs/man/er_archive.1.
 *
 * Invariant: nothing appears half-written.  Every file is copied to a hidden
 * temporary name in its final directory, checked (the copy must carry the
 * build-id map.xml recorded) and renamed; index.xml is rewritten the same way.
 * A source object that cannot be read or has changed is a warning; a write
 * into the experiment that fails (permissions, full disk) is an error (exit 1).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/archive.h"
#include "analysis/lines.h"
#include "analysis/experiment_internal.h"
#include "analysis/symtab.h"
#include "common/io.h"
#include "common/regfile.h"
#include "common/strbuf.h"
#include "er_archive/copy.h"
#include "experiment/expgroup.h"

#define EXIT_USAGE 2

enum archive_mode { MODE_OFF, MODE_ON, MODE_COPY, MODE_SRC };

struct options {
	int dry_run, quiet, force;
	enum archive_mode mode;
	const char *exp;
};

static const char usage_text[] =
	"Usage: er_archive [-n] [-q] [-F] [-A on|off|copy|src] experiment|group.erg\n"
	"       er_archive -V\n"
	"       er_archive --help\n"
	"\n"
	"Record the build-id of each load object that a recorded call stack of the\n"
	"experiment (or of the subexperiments of its descendant processes) runs, and\n"
	"archive those objects and their separate debug files in experiment/archives/,\n"
	"so that er_print can read them after the program is rebuilt or deleted.\n"
	"A group (group.erg) archives each experiment it names.\n"
	"Objects only mapped are skipped; nothing is archived when nothing was\n"
	"recorded.  By default each object with a build-id is kept once in the\n"
	"per-user cache ($PA_CACHE_DIR, else $XDG_CACHE_HOME/pa-analyzer, else\n"
	"~/.cache/pa-analyzer) and the archive links to it; -A copy puts the copies\n"
	"in the experiment itself.\n"
	"\n"
	"  -n          dry run: print what would be archived or skipped; change nothing\n"
	"  -q          quiet: no warnings (they are kept in archives/index.xml)\n"
	"  -F          force: rewrite objects already archived, and archive objects\n"
	"              that have no build-id (keyed by their path)\n"
	"  -A on       keep the objects in the per-user cache and link them (default)\n"
	"  -A copy     copy the objects into the experiment (portable to another\n"
	"              machine; turns links made by -A on into copies)\n"
	"  -A off      record the build-ids only; copy nothing\n"
	"  -A src      as on, plus copies of the source files named in the DWARF\n"
	"  -V          print the version and exit\n"
	"  --help      print this help and exit\n"
	"\n"
	"Exit status: 0 done (objects that could not be archived are warned about),\n"
	"1 an error (experiment unreadable, archives/ not writable, disk full),\n"
	"2 a usage error.\n";

/* One distinct (path, key) of map.xml, and what became of it. */
struct entry {
	const struct exp_loadobj *lo;
	char key[ARCHIVE_BUILD_ID_HEX_MAX + 8];
	const char *base;
	int has_file, has_debug;
	int linked; /* the archive's file is a link into the per-user cache */
	uint64_t size_bytes;
	char *note; /* why it is not archived, or NULL */
};

static struct options opt;
static int io_error;              /* an error writing into the experiment: exit 1 */
static int errors_muted;          /* writing into the cache: a failure is not an error */
static char cache_root[PATH_MAX]; /* the per-user cache, "" when not used */

static void warnx_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void warnx_(const char *fmt, ...)
{
	if (opt.quiet)
		return;
	va_list ap;
	va_start(ap, fmt);
	fputs("er_archive: warning: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static void errorx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void errorx(const char *fmt, ...)
{
	if (errors_muted) {
		errors_muted++; /* counted, not reported: the caller falls back */
		return;
	}
	va_list ap;
	va_start(ap, fmt);
	fputs("er_archive: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	io_error = 1;
}

static void note_set(struct entry *en, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note_set(struct entry *en, const char *fmt, ...)
{
	struct strbuf b;
	va_list ap;
	strbuf_init(&b, 0);
	va_start(ap, fmt);
	strbuf_vaddf(&b, fmt, ap);
	va_end(ap);
	free(en->note);
	en->note = b.failed ? NULL : strbuf_detach(&b);
	if (b.failed)
		strbuf_release(&b);
	if (en->note)
		warnx_("%s", en->note);
}

static __attribute__((noreturn)) void die_usage(const char *msg)
{
	if (msg)
		fprintf(stderr, "er_archive: %s\n", msg);
	fputs("Usage: er_archive [-n] [-q] [-F] [-A on|off|copy|src] experiment|group.erg\n"
	      "Try 'er_archive --help' for more information.\n",
	      stderr);
	exit(EXIT_USAGE);
}

static void parse_options(int argc, char **argv)
{
	opt.mode = MODE_ON;
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "--help") == 0) {
			fputs(usage_text, stdout);
			exit(0);
		}
	}
	int c;
	opterr = 0;
	while ((c = getopt(argc, argv, "+nqFA:V")) != -1) {
		switch (c) {
		case 'n': opt.dry_run = 1; break;
		case 'q': opt.quiet = 1; break;
		case 'F': opt.force = 1; break;
		case 'A':
			if (strcmp(optarg, "on") == 0)
				opt.mode = MODE_ON;
			else if (strcmp(optarg, "copy") == 0)
				opt.mode = MODE_COPY;
			else if (strcmp(optarg, "off") == 0)
				opt.mode = MODE_OFF;
			else if (strcmp(optarg, "src") == 0)
				opt.mode = MODE_SRC;
			else {
				char m[256];
				snprintf(m, sizeof m, "-A takes on, off, copy or src, not '%s'", optarg);
				die_usage(m);
			}
			break;
		case 'V': printf("er_archive (Performance Analyzer for Linux) %s\n", PA_VERSION); exit(0);
		default: {
			char m[64];
			if (optopt == 'A')
				snprintf(m, sizeof m, "-A needs an argument: on, off, copy or src");
			else if (optopt)
				snprintf(m, sizeof m, "unknown option -%c", optopt);
			else
				snprintf(m, sizeof m, "unknown option %s", argv[optind - 1]);
			die_usage(m);
		}
		}
	}
	if (optind >= argc)
		die_usage("no experiment named");
	if (argc - optind > 1)
		die_usage("more than one experiment named");
	opt.exp = argv[optind];
}

/* ------------------------------------------------------------ files */

static int is_file(const char *path, uint64_t *ret_bytes)
{
	struct stat st;
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	if (ret_bytes)
		*ret_bytes = (uint64_t)st.st_size;
	return 1;
}

/* mkdir -p of `dir`'s components below `from` (which exists). */
static int make_dirs(const char *from, const char *dir)
{
	char p[PATH_MAX];
	size_t n = strlen(dir), k = strlen(from);
	if (n >= sizeof p)
		return -ENAMETOOLONG;
	memcpy(p, dir, n + 1);
	for (size_t i = k + 1; i <= n; i++) {
		if (p[i] != '/' && p[i] != '\0')
			continue;
		char save = p[i];
		p[i] = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST) {
			int e = errno;
			errorx("cannot create directory %s: %s", p, strerror(e));
			return -e;
		}
		p[i] = save;
	}
	return 0;
}

/* A relative symlink link -> target, replacing what is there. */
static int symlink_atomic(const char *target, const char *link)
{
	char tmp[PATH_MAX];
	int fd = copy_temp_open(link, tmp, sizeof tmp);
	if (fd < 0) {
		errorx("cannot create a file in the directory of %s: %s", link, strerror(-fd));
		return fd;
	}
	close(fd);
	unlink(tmp); /* its name, for the link; still removed on a signal */
	int r = 0;
	if (symlink(target, tmp) < 0 || rename(tmp, link) < 0) {
		r = -errno;
		unlink(tmp);
		errorx("cannot create link %s: %s", link, strerror(-r));
	}
	copy_temp_done();
	return r;
}

/* ------------------------------------------------------------ objects */

static void plan(const char *what, const char *from, const char *to)
{
	printf("%s %s -> %s\n", what, from, to);
}

/* exp's archives/.build-id/xx/rest.debug -> ../../KEY/BASENAME.debug */
static void debug_link(const char *exp, const struct entry *en)
{
	char link[PATH_MAX], target[PATH_MAX], root[PATH_MAX];
	const struct exp_loadobj *lo = en->lo;
	if (!lo->build_id || !lo->build_id[0] ||
	    archive_debug_link_path(exp, lo->build_id, link, sizeof link) < 0)
		return;
	char *slash = strrchr(link, '/');
	*slash = '\0';
	snprintf(root, sizeof root, "%s/%s", exp, ARCHIVE_DIR_NAME);
	int r = make_dirs(root, link);
	*slash = '/';
	snprintf(target, sizeof target, "../../%s/%s.debug", en->key, en->base);
	if (r == 0)
		symlink_atomic(target, link);
}

/* The separate debug file symbols come from, if any: copy it and link it. */
static void archive_debug(const char *exp, struct entry *en, const char *objpath)
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
	if (opt.dry_run) {
		plan("would copy", dbg, dst);
		return;
	}
	uint64_t bytes;
	int src_failed;
	char why[PATH_MAX + 256];
	int r = copy_file(dbg, dst, COPY_ELF, lo->build_id, &bytes, &src_failed, why, sizeof why);
	if (r < 0 && src_failed)
		warnx_("cannot read %s (debug file of %s): %s; not archived", dbg, lo->path, why);
	else if (r < 0)
		errorx("%s", why);
	if (r < 0)
		return;
	en->has_debug = 1;
	if (!opt.quiet)
		printf("archived %s (%" PRIu64 " bytes) as %s\n", dbg, bytes, dst);
	debug_link(exp, en);
}

/* Copy the object, and its debug file, into root's archive as objpath.  0 or -1. */
static int store(const char *root, struct entry *en, const char *objpath)
{
	const struct exp_loadobj *lo = en->lo;
	char dir[PATH_MAX + 160], top[PATH_MAX];
	snprintf(top, sizeof top, "%s/%s", root, ARCHIVE_DIR_NAME);
	snprintf(dir, sizeof dir, "%s/%s", top, en->key);
	if (make_dirs(top, dir) < 0)
		return -1;
	int src_failed;
	char why[PATH_MAX + 256];
	int r = copy_file(lo->path, objpath, COPY_ELF, lo->build_id, &en->size_bytes, &src_failed, why,
			  sizeof why);
	if (r < 0) {
		if (src_failed)
			note_set(en, "cannot read %s: %s; not archived", lo->path, why);
		else
			errorx("%s", why);
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
static int archive_linked(const char *exp, struct entry *en, const char *objpath)
{
	static int warned;
	const struct exp_loadobj *lo = en->lo;
	char cached[PATH_MAX], cdbg[PATH_MAX + 8], dbgpath[PATH_MAX + 8], dir[PATH_MAX + 160], top[PATH_MAX];
	if (archive_object_path(cache_root, lo->path, lo->build_id, cached, sizeof cached) < 0)
		return -1;
	snprintf(cdbg, sizeof cdbg, "%s.debug", cached);
	char id[ARCHIVE_BUILD_ID_HEX_MAX + 1];
	int in_cache = !opt.force && archive_read_build_id(cached, id, sizeof id) == 1 &&
		       strcmp(id, lo->build_id) == 0;
	errors_muted = 1;
	int r = 0;
	if (!in_cache) {
		r = store(cache_root, en, cached);
	} else if (!is_file(cdbg, NULL)) {
		archive_debug(cache_root, en, cached); /* a debug file installed since */
	}
	int failed = errors_muted > 1;
	errors_muted = 0;
	if (r < 0 && !failed)
		return -2; /* the object could not be read: noted, nothing to copy either */
	if (failed || !is_file(cached, &en->size_bytes)) {
		if (!warned++)
			warnx_("cannot write the per-user cache %s; copying the objects into the experiment",
			       cache_root);
		return -1;
	}
	snprintf(top, sizeof top, "%s/%s", exp, ARCHIVE_DIR_NAME);
	snprintf(dir, sizeof dir, "%s/%s", top, en->key);
	if (make_dirs(top, dir) < 0 || symlink_atomic(cached, objpath) < 0)
		return -1;
	en->has_file = en->linked = 1;
	snprintf(dbgpath, sizeof dbgpath, "%s.debug", objpath);
	if (is_file(cdbg, NULL) && symlink_atomic(cdbg, dbgpath) == 0) {
		en->has_debug = 1;
		debug_link(exp, en);
	}
	if (!opt.quiet)
		printf("archived %s as %s -> %s\n", lo->path, objpath, cached);
	return 0;
}

/* -A copy on an archive that links into the cache: each link becomes a copy of its target. */
static void materialize(struct entry *en, const char *objpath)
{
	char dbgpath[PATH_MAX + 8], why[PATH_MAX + 256];
	int src_failed, r;
	snprintf(dbgpath, sizeof dbgpath, "%s.debug", objpath);
	if (is_link(dbgpath) && is_file(dbgpath, NULL)) {
		r = copy_file(dbgpath, dbgpath, COPY_ELF, en->lo->build_id, NULL, &src_failed, why,
			      sizeof why);
		if (r < 0 && !src_failed)
			errorx("%s", why);
		else if (r == 0 && !opt.quiet)
			printf("copied %s into the experiment\n", dbgpath);
	}
	r = copy_file(objpath, objpath, COPY_ELF, en->lo->build_id, &en->size_bytes, &src_failed, why,
		      sizeof why);
	if (r < 0) {
		if (src_failed)
			note_set(en, "cannot read %s: %s; not copied", objpath, why);
		else
			errorx("%s", why);
		return;
	}
	en->has_file = 1;
	en->has_debug = is_file(dbgpath, NULL);
	if (!opt.quiet)
		printf("copied %s into the experiment\n", objpath);
}

/*
 * An object already in the archive: with -A copy, a link into the cache
 * becomes a copy; without -F, it stays as it is.  1 when that settles it, 0
 * to archive it again.
 */
static int archived_already(struct entry *en, const char *objpath)
{
	if (en->linked && opt.mode == MODE_COPY) {
		if (opt.dry_run)
			plan("would copy", objpath, objpath);
		else
			materialize(en, objpath);
		en->linked = 0;
		return 1;
	}
	if (!opt.force) {
		en->has_file = 1;
		if (opt.dry_run || !opt.quiet)
			printf("already archived: %s\n", en->lo->path);
		return 1;
	}
	return 0;
}

/*
 * Is lo->path still the object map.xml recorded (the same build-id; with -F,
 * any file for an object without one)?  1, or 0 with the reason noted.
 */
static int source_unchanged(struct entry *en)
{
	const struct exp_loadobj *lo = en->lo;
	int none = !lo->build_id || !lo->build_id[0];
	if (none && !opt.force) {
		note_set(en, "%s has no build-id recorded; not archived (use -F to archive it by path)",
			 lo->path);
		return 0;
	}
	char id[ARCHIVE_BUILD_ID_HEX_MAX + 1];
	int r = archive_read_build_id(lo->path, id, sizeof id);
	if (r < 0 && r != -ENOEXEC) {
		note_set(en, "cannot read %s: %s; not archived", lo->path, regfile_strerror(r));
		return 0;
	}
	if (none && r == -ENOEXEC) { /* -F archives ELF files only: map.xml may name anything */
		note_set(en, "%s: not an ELF file; not archived", lo->path);
		return 0;
	}
	if (!none && (r != 1 || strcmp(id, lo->build_id) != 0)) {
		note_set(en, "%s changed since the experiment was recorded; not archived", lo->path);
		return 0;
	}
	return 1;
}

/*
 * Same build-id already copied in this run under another name (done[0..ndone)):
 * link objpath to it.  1 when linked (or, with -n, planned); 0 to copy it.
 */
static int link_done(const char *exp, struct entry *en, const char *objpath, const struct entry *done,
		     size_t ndone)
{
	for (size_t i = 0; i < ndone; i++) {
		if (!done[i].has_file || strcmp(done[i].key, en->key) != 0)
			continue;
		char other[PATH_MAX];
		if (archive_object_path(exp, done[i].lo->path, done[i].lo->build_id, other, sizeof other) < 0)
			continue;
		if (opt.dry_run) {
			plan("would link", other, objpath);
			en->has_file = 1;
			return 1;
		}
		if (link(other, objpath) == 0) {
			en->has_file = is_file(objpath, &en->size_bytes);
			return 1;
		}
		return 0; /* copy it instead */
	}
	return 0;
}

static void archive_one(const char *exp, struct entry *en, struct entry *done, size_t ndone)
{
	const struct exp_loadobj *lo = en->lo;
	char objpath[PATH_MAX], dir[PATH_MAX];
	int r = archive_object_path(exp, lo->path, lo->build_id, objpath, sizeof objpath);
	if (r < 0) {
		note_set(en, "%s: cannot archive (%s)", lo->path,
			 r == -EINVAL ? "bad build-id or file name in map.xml" : strerror(-r));
		return;
	}
	snprintf(dir, sizeof dir, "%s/%s/%s", exp, ARCHIVE_DIR_NAME, en->key);
	char dbgpath[PATH_MAX + 8];
	snprintf(dbgpath, sizeof dbgpath, "%s.debug", objpath);
	int exists = is_file(objpath, &en->size_bytes);
	en->has_debug = is_file(dbgpath, NULL);
	en->linked = is_link(objpath);
	if (exists && archived_already(en, objpath))
		return;
	if (opt.mode == MODE_OFF) {
		en->has_file = exists;
		return;
	}
	if (!source_unchanged(en))
		return;
	if (!exists && link_done(exp, en, objpath, done, ndone))
		return;
	if (opt.dry_run) {
		plan(cache_root[0] && lo->build_id && lo->build_id[0] ? "would link (per-user cache)"
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
	if (!opt.quiet)
		printf("archived %s (%" PRIu64 " bytes) as %s\n", lo->path, en->size_bytes, objpath);
}

/* ------------------------------------------------------------ index.xml */

static void xml_attr(struct strbuf *b, const char *name, const char *v)
{
	strbuf_addf(b, " %s=\"", name);
	for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
		switch (*p) {
		case '&': strbuf_adds(b, "&amp;"); break;
		case '<': strbuf_adds(b, "&lt;"); break;
		case '>': strbuf_adds(b, "&gt;"); break;
		case '"': strbuf_adds(b, "&quot;"); break;
		case '\'': strbuf_adds(b, "&apos;"); break;
		default:
			if (*p == '\t' || *p == '\n')
				strbuf_addf(b, "&#%u;", *p);
			else if (*p < 0x20)
				strbuf_adds(b, "?");
			else
				strbuf_add(b, (const char *)p, 1);
		}
	}
	strbuf_adds(b, "\"");
}

static int write_index(const char *exp, const struct entry *v, size_t n)
{
	struct strbuf b;
	char path[PATH_MAX], tmp[PATH_MAX], rel[PATH_MAX + 8];
	strbuf_init(&b, 0);
	strbuf_adds(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<archive version=\"1.0\">\n");
	for (size_t i = 0; i < n; i++) {
		strbuf_adds(&b, "  <object");
		xml_attr(&b, "path", v[i].lo->path);
		if (v[i].lo->build_id && v[i].lo->build_id[0])
			xml_attr(&b, "build_id", v[i].lo->build_id);
		if (v[i].has_file) {
			snprintf(rel, sizeof rel, "%s/%s", v[i].key, v[i].base);
			xml_attr(&b, "file", rel);
			if (v[i].linked) /* a link into the per-user cache */
				xml_attr(&b, "cache", cache_root[0] ? cache_root : "yes");
			if (v[i].has_debug) {
				snprintf(rel, sizeof rel, "%s/%s.debug", v[i].key, v[i].base);
				xml_attr(&b, "debug", rel);
			}
			strbuf_addf(&b, " size=\"%" PRIu64 "\"", v[i].size_bytes);
		}
		if (v[i].note)
			xml_attr(&b, "note", v[i].note);
		strbuf_adds(&b, "/>\n");
	}
	strbuf_adds(&b, "</archive>\n");
	if (b.failed) {
		strbuf_release(&b);
		errorx("out of memory");
		return -ENOMEM;
	}
	snprintf(path, sizeof path, "%s/%s/%s", exp, ARCHIVE_DIR_NAME, ARCHIVE_INDEX_NAME);
	int fd = copy_temp_open(path, tmp, sizeof tmp), r;
	if (fd < 0) {
		errorx("cannot create a file in the directory of %s: %s", path, strerror(-fd));
		strbuf_release(&b);
		return fd;
	}
	r = io_write_all(fd, strbuf_str(&b), b.len);
	if (r == 0 && fchmod(fd, 0644) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0) {
		unlink(tmp);
		errorx("cannot write %s: %s", path, strerror(-r));
	}
	copy_temp_done();
	strbuf_release(&b);
	return r;
}

/* ------------------------------------------------------------ main */

/* ------------------------------------------------------------ -A src */

#define SRC_FILES_MAX 100000

struct src_set {
	char **v;
	size_t n, cap;
};

static void src_add(void *ctx, uint64_t addr, const struct line_loc *loc)
{
	struct src_set *s = ctx;
	(void)addr;
	if (!loc->file || loc->file[0] != '/' || s->n >= SRC_FILES_MAX)
		return;
	for (size_t i = s->n; i-- > 0;) /* rows come in runs of the same file */
		if (strcmp(s->v[i], loc->file) == 0)
			return;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		char **v = realloc(s->v, cap * sizeof *v);
		if (!v)
			return;
		s->v = v;
		s->cap = cap;
	}
	if ((s->v[s->n] = strdup(loc->file)))
		s->n++;
}

/* Does `path` resolve to a file inside the directory exp (or can that not be told)? */
static int inside_experiment(const char *exp, const char *path)
{
	char re[PATH_MAX], rp[PATH_MAX];
	if (!realpath(exp, re) || !realpath(path, rp))
		return 1;
	size_t n = strlen(re);
	return strncmp(rp, re, n) == 0 && rp[n] == '/';
}

/*
 * Copy the source files named in an object's line table to
 * <exp>/archives/src/<path>: only when the line table is this machine's (the
 * object or debug file at its recorded path, or in the per-user cache), never
 * the DWARF of a copy that came inside the experiment, which may name any
 * file (~/.ssh/id_rsa) to be copied into it.
 */
static void archive_sources(const char *exp, const struct exp_loadobj *lo)
{
	char readp[PATH_MAX], dr[PATH_MAX];
	if (archive_resolve(exp, lo->path, lo->build_id, readp, sizeof readp, NULL) < 0)
		return;
	struct lines_options lopt = {
		.debug_root = archive_debug_root(exp, lo->build_id, dr, sizeof dr) == 1 ? dr : NULL};
	struct lines *l;
	if (lines_open(readp, lo->build_id, &lopt, &l) < 0)
		return; /* no line information: no sources to name */
	if (inside_experiment(exp, lines_debug_file(l))) {
		warnx_("%s: its line table is the experiment's own copy (%s), which may name any file; its "
		       "sources are not archived",
		       lo->path, lines_debug_file(l));
		lines_free(l);
		return;
	}
	struct src_set set = {0};
	lines_rows(l, 0, UINT64_MAX, src_add, &set);
	for (size_t i = 0; i < set.n && !io_error; i++) {
		char dst[PATH_MAX], dir[PATH_MAX];
		uint64_t bytes;
		int src_failed;
		if (!is_file(set.v[i], &bytes) || (size_t)snprintf(dst, sizeof dst, "%s/%s/src%s", exp,
								   ARCHIVE_DIR_NAME, set.v[i]) >= sizeof dst)
			continue; /* gone, or not on this machine (e.g. libc's sources) */
		if (opt.dry_run) {
			plan("would copy", set.v[i], dst);
			continue;
		}
		if (!opt.force && is_file(dst, &bytes))
			continue;
		snprintf(dir, sizeof dir, "%s", dst);
		char *slash = strrchr(dir, '/');
		if (slash)
			*slash = '\0';
		char from[PATH_MAX];
		snprintf(from, sizeof from, "%s/%s", exp, ARCHIVE_DIR_NAME);
		if (make_dirs(from, dir) < 0)
			continue; /* reported */
		char why[PATH_MAX + 256];
		int r = copy_file(set.v[i], dst, COPY_ANY, NULL, &bytes, &src_failed, why, sizeof why);
		if (r < 0 && src_failed)
			warnx_("cannot read %s: %s; not archived", set.v[i], why);
		else if (r < 0)
			errorx("%s", why);
		else if (!opt.quiet)
			printf("archived %s as %s\n", set.v[i], dst);
	}
	for (size_t i = 0; i < set.n; i++)
		free(set.v[i]);
	free(set.v);
	lines_free(l);
}

/* mkdir -p path (mode 0700 for what it creates): 0 or -errno. */
static int mkdir_p(const char *path)
{
	char p[PATH_MAX];
	if ((size_t)snprintf(p, sizeof p, "%s", path) >= sizeof p)
		return -ENAMETOOLONG;
	for (char *c = p + 1;; c++) {
		if (*c != '/' && *c != '\0')
			continue;
		char save = *c;
		*c = '\0';
		if (mkdir(p, 0700) < 0 && errno != EEXIST)
			return -errno;
		*c = save;
		if (!save)
			return 0;
	}
}

/* The per-user cache to link objects from (-A on, src), or "" to copy them. */
static void choose_cache(void)
{
	char root[PATH_MAX];
	cache_root[0] = '\0';
	if (opt.mode != MODE_ON && opt.mode != MODE_SRC)
		return;
	int r = archive_cache_root(root, sizeof root);
	if (r == 0 && !opt.dry_run) {
		char objs[PATH_MAX + 16];
		snprintf(objs, sizeof objs, "%s/%s", root, ARCHIVE_DIR_NAME);
		r = mkdir_p(objs);
	}
	if (r < 0) {
		warnx_("cannot use the per-user cache %s: %s; copying the objects into the experiment",
		       r == -ENOENT ? "(no HOME)" : root, strerror(-r));
		return;
	}
	snprintf(cache_root, sizeof cache_root, "%s", root);
}

/*
 * Which load objects of exps[x] the reports read: those a frame of a recorded
 * call stack lies in (experiment_used_objects), but not the collector's own
 * library (reports drop its frames) and not the vDSO (its image is in the
 * experiment).  *ret_used[x] is per object; returns how many are used in
 * all, with the stacks recorded in *ret_nstacks, or -ENOMEM.
 */
static long used_objects(struct experiment **exps, size_t nexps, uint8_t **ret_used, size_t *ret_nstacks)
{
	long total = 0;
	*ret_nstacks = 0;
	for (size_t x = 0; x < nexps; x++) {
		const struct experiment *exp = exps[x];
		ret_used[x] = calloc(exp->nobjs ? exp->nobjs : 1, 1);
		if (!ret_used[x] || experiment_used_objects(exp, ret_used[x]) < 0)
			return -ENOMEM;
		*ret_nstacks += exp->nstacks;
		for (size_t i = 0; i < exp->nobjs; i++) {
			const struct exp_loadobj *lo = &exp->objs[i];
			if (lo->kind == EXP_OBJ_VDSO || !lo->path || !lo->path[0] ||
			    experiment_is_collector_object(lo))
				ret_used[x][i] = 0;
			total += ret_used[x][i];
		}
	}
	return total;
}

static int same_object(const struct exp_loadobj *a, const struct exp_loadobj *b)
{
	return strcmp(a->path, b->path) == 0 &&
	       strcmp(a->build_id ? a->build_id : "", b->build_id ? b->build_id : "") == 0;
}

/*
 * The objects mapped but on no recorded call stack, each once (an object
 * used in any process of the tree is archived): listed with -n, else counted
 * in one line.
 */
static void report_unused(struct experiment **exps, size_t nexps, uint8_t **used, const struct entry *v,
			  size_t n)
{
	size_t count = 0;
	for (size_t x = 0; x < nexps; x++)
		for (size_t i = 0; i < exps[x]->nobjs; i++) {
			const struct exp_loadobj *lo = &exps[x]->objs[i];
			if (used[x][i] || lo->kind == EXP_OBJ_VDSO || !lo->path || !lo->path[0] ||
			    experiment_is_collector_object(lo))
				continue;
			int seen = 0;
			for (size_t j = 0; j < n && !seen; j++)
				seen = same_object(v[j].lo, lo);
			for (size_t y = 0; y <= x && !seen; y++)
				for (size_t k = 0; k < (y == x ? i : exps[y]->nobjs) && !seen; k++)
					seen = !used[y][k] && same_object(&exps[y]->objs[k], lo);
			if (seen)
				continue;
			count++;
			if (opt.dry_run)
				printf("would skip (on no recorded call stack) %s\n", lo->path);
		}
	if (count && !opt.dry_run && !opt.quiet)
		printf("not archived: %zu mapped load object%s on no recorded call stack\n", count,
		       count == 1 ? "" : "s");
}

/*
 * Open the founder opt.exp and then subs[0..nsubs), the subexperiments of
 * its descendants, into exps (their maps and call stacks, never the large
 * event files), adding their objects to *nobjs; returns how many opened.
 * A founder that cannot be read ends it; a damaged subexperiment is skipped
 * (exit 1 at the end).
 */
static size_t open_tree(char **subs, int nsubs, struct experiment **exps, size_t *nobjs)
{
	size_t nexps = 0;
	char *err = NULL;
	for (int k = -1; k < nsubs; k++) {
		const char *path = k < 0 ? opt.exp : subs[k];
		int r = experiment_open_stacks(path, &exps[nexps], &err);
		if (r < 0) {
			fprintf(stderr, "er_archive: cannot read experiment %s\n", err ? err : strerror(-r));
			free(err);
			err = NULL;
			if (k < 0)
				break; /* the founder: nothing to archive */
			io_error = 1;  /* a damaged subexperiment: archive the rest, exit 1 */
			continue;
		}
		*nobjs += exps[nexps++]->nobjs;
	}
	return nexps;
}

/*
 * Archive the used object lo of the experiment ep as the entry v[*n] unless
 * an earlier entry has the same key and path (an invalid build-id gets an
 * entry that says so).
 */
static void add_object(const char *ep, const struct exp_loadobj *lo, struct entry *v, size_t *n)
{
	struct entry en = {.lo = lo};
	const char *sl = strrchr(lo->path, '/');
	en.base = sl ? sl + 1 : lo->path;
	int dup = 0;
	if (archive_key(lo->path, lo->build_id, en.key, sizeof en.key) < 0) {
		snprintf(en.key, sizeof en.key, "invalid");
		v[(*n)++] = en;
		note_set(&v[*n - 1], "%s: the build-id in map.xml is not valid hex; not archived", lo->path);
		return;
	}
	for (size_t j = 0; j < *n && !dup; j++)
		dup = strcmp(v[j].key, en.key) == 0 && strcmp(v[j].lo->path, lo->path) == 0;
	if (dup)
		return;
	v[*n] = en;
	archive_one(ep, &v[*n], v, *n);
	(*n)++;
}

/*
 * Archive the objects of exps[x] that used[x] marks (with -A src, their
 * sources too) into the experiment ep, one entry each in v, until a write
 * fails; returns how many entries.
 */
static size_t archive_objects(const char *ep, struct experiment **exps, size_t nexps, uint8_t **used,
			      struct entry *v)
{
	size_t n = 0;
	for (size_t x = 0; x < nexps; x++) {
		const struct experiment *exp = exps[x];
		for (size_t i = 0; i < exp->nobjs && !io_error; i++) {
			const struct exp_loadobj *lo = &exp->objs[i];
			if (!used[x][i])
				continue; /* mapped, but no recorded stack runs its code */
			add_object(ep, lo, v, &n);
		}
		if (opt.mode == MODE_SRC)
			for (size_t i = 0; i < exp->nobjs && !io_error; i++)
				if (used[x][i])
					archive_sources(ep, &exp->objs[i]);
	}
	return n;
}

/* Archive the experiment opt.exp (and its descendants' subexperiments); the exit status. */
static int archive_experiment(void)
{
	struct experiment **exps = NULL;
	size_t nexps = 0;
	struct entry *v = NULL;
	uint8_t **used = NULL;
	size_t n = 0, nobjs = 0, nstacks = 0;
	char root[PATH_MAX];
	char **subs = NULL;
	int rc = 1;

	/* the founder and the subexperiments of its descendants: one archive covers all */
	int nsubs = experiment_descendants(opt.exp, &subs);
	if (nsubs < 0)
		nsubs = 0;
	exps = calloc((size_t)nsubs + 1, sizeof *exps);
	used = calloc((size_t)nsubs + 1, sizeof *used);
	if (!exps || !used) {
		fprintf(stderr, "er_archive: out of memory\n");
		return 1;
	}
	nexps = open_tree(subs, nsubs, exps, &nobjs);
	for (int k = 0; k < nsubs; k++)
		free(subs[k]);
	free(subs);
	if (nexps == 0) {
		free(exps);
		free(used);
		return 1;
	}
	const char *ep = exps[0]->path;
	long nused = used_objects(exps, nexps, used, &nstacks);
	if (nused < 0) {
		fprintf(stderr, "er_archive: out of memory\n");
		goto out;
	}
	if (nused == 0) {
		/* reports will read no object: nothing to archive, not even archives/ */
		if (!opt.quiet)
			printf("%s: %s; nothing archived\n", ep,
			       nstacks ? "no load object is on a recorded call stack"
				       : "nothing was recorded (no clock sample or heap call with a call stack)");
		rc = io_error ? 1 : 0;
		goto out;
	}
	if ((size_t)snprintf(root, sizeof root, "%s/%s", ep, ARCHIVE_DIR_NAME) >= sizeof root) {
		fprintf(stderr, "er_archive: %s: path too long\n", ep);
		goto out;
	}
	if (!opt.dry_run && mkdir(root, 0755) < 0 && errno != EEXIST) {
		fprintf(stderr, "er_archive: cannot create %s: %s\n", root, strerror(errno));
		goto out;
	}
	choose_cache();

	v = calloc(nobjs ? nobjs : 1, sizeof *v);
	if (!v) {
		fprintf(stderr, "er_archive: out of memory\n");
		goto out;
	}
	n = archive_objects(ep, exps, nexps, used, v);
	report_unused(exps, nexps, used, v, n);
	if (!opt.dry_run && !io_error)
		write_index(ep, v, n);
	rc = io_error ? 1 : 0;
out:
	for (size_t i = 0; i < n; i++)
		free(v[i].note);
	free(v);
	for (size_t x = 0; x < nexps; x++) {
		free(used[x]);
		experiment_free(exps[x]);
	}
	free(used);
	free(exps);
	return rc;
}

int main(int argc, char **argv)
{
	char **paths, err[512];
	size_t n;
	int rc = 0;

	parse_options(argc, argv);
	copy_cleanup_install();
	/* a group: each experiment it names, in turn */
	if (expgroup_expand(&opt.exp, 1, &paths, &n, err, sizeof err) < 0) {
		fprintf(stderr, "er_archive: %s\n", err);
		return 1;
	}
	const char *given = opt.exp;
	for (size_t i = 0; i < n; i++) {
		opt.exp = paths[i];
		io_error = 0;
		rc |= archive_experiment();
	}
	if (n == 0)
		fprintf(stderr, "er_archive: %s names no experiment\n", given);
	expgroup_free_paths(paths, n);
	return n ? rc : 1;
}
