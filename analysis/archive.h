/*
 * archive.h - an experiment's archives/ directory: copies of the load objects
 * (and of their separate debug files) that er_archive took when the
 * experiment was recorded, so that analysis can still read the code that ran
 * after the program was rebuilt or deleted.
 *
 * Layout (docs/man/er_archive.1), all under EXP/archives/:
 *   KEY/BASENAME           the object file, KEY = its build-id in lowercase hex,
 *                          or "path-" + 16 hex digits (FNV-1a of the recorded
 *                          path) for an object without a build-id (er_archive -F)
 *   KEY/BASENAME.debug     its separate debug file, if symbols came from one
 *   .build-id/xx/rest.debug  symlink to ../../KEY/BASENAME.debug, so that the
 *                          archives directory works as a debug root for
 *                          symtab_open / lines_open (struct ..._options.debug_root)
 *   index.xml              what er_archive recorded (for people and tools; the
 *                          functions here do not need it)
 *
 * The per-user cache (archive_cache_root) has the same layout under
 * CACHE/archives/, holding objects that have a build-id; by default
 * er_archive puts each object there once and makes the experiment's
 * KEY/BASENAME (and .debug) a symlink into it, so an experiment holds a few
 * KiB of links instead of megabytes of libraries.  Lookups follow the links;
 * when one dangles (the experiment moved to another machine or user) the
 * current user's cache is tried.  `er_archive -A copy` puts real copies in
 * the experiment instead.
 *
 * Invariant: a file appears under its final name only complete (er_archive
 * copies to a temporary name and renames).  Inputs are untrusted: a build-id
 * that is not hex or a basename such as ".." is refused (-EINVAL), never
 * turned into a path.  Nothing here prints, exits or allocates; errors are
 * negative errno values.  Thread-safe (no shared state).
 */
#ifndef ANALYSIS_ARCHIVE_H
#define ANALYSIS_ARCHIVE_H

#include <stddef.h>

/* Name of the directory inside an experiment, and of its index. */
#define ARCHIVE_DIR_NAME "archives"
#define ARCHIVE_INDEX_NAME "index.xml"

/* Longest build-id accepted, in hex digits (64 bytes; GNU ld writes 20). */
#define ARCHIVE_BUILD_ID_HEX_MAX 128

/*
 * Read the NT_GNU_BUILD_ID note of ELF file `path` (from its PT_NOTE
 * segments, else its SHT_NOTE sections) into ret_hex as lowercase hex.
 * A small bounded parser without libelf: reads at most about 1 MiB.
 * Returns 1 (found), 0 (an ELF file without a build-id: ret_hex = ""),
 * -ENOEXEC (not an ELF file or a corrupt one), -ENAMETOOLONG (room too
 * small; ARCHIVE_BUILD_ID_HEX_MAX + 1 is always enough), or open/read's
 * -errno (-ENOENT, -EACCES, ...).  The file is opened with regfile_open
 * (common/regfile.h): a regular file only, never blocking; anything else is
 * refused with its -REGFILE_E* code.
 */
int archive_read_build_id(const char *path, char *ret_hex, size_t room);

/* The same on a file open for reading as fd (pread only: fd's offset is not used). */
int archive_read_build_id_fd(int fd, char *ret_hex, size_t room);

/*
 * The archive key (directory name under archives/) of an object:
 * build_id itself if it is non-empty (it must be 2..ARCHIVE_BUILD_ID_HEX_MAX
 * hex digits, else -EINVAL), or "path-XXXXXXXXXXXXXXXX" from recorded_path
 * when build_id is NULL or "".  Returns 0, -EINVAL, -ENAMETOOLONG.
 */
int archive_key(const char *recorded_path, const char *build_id, char *ret, size_t room);

/*
 * ret = "EXP/archives/KEY/BASENAME" (BASENAME = recorded_path's last
 * component; "", "." and ".." are refused with -EINVAL).  The file may or
 * may not exist.  Returns 0, -EINVAL, -ENAMETOOLONG.
 */
int archive_object_path(const char *exp_dir, const char *recorded_path, const char *build_id, char *ret,
			size_t room);

/*
 * The per-user cache directory (used like an experiment directory: its
 * objects are under ROOT/archives/): $PA_CACHE_DIR, else
 * $XDG_CACHE_HOME/pa-analyzer, else $HOME/.cache/pa-analyzer.  Returns 0,
 * -ENOENT (no usable HOME), -ENAMETOOLONG.  It may not exist yet.
 */
int archive_cache_root(char *ret, size_t room);

/*
 * Where line index files go (analysis/lines.h, lines_options.cache_dir):
 * "<archive_cache_root>/lines", or -ENOENT when PA_LINE_INDEX is "off" or
 * there is no cache root; -ENAMETOOLONG.
 */
int archive_lines_index_dir(char *ret, size_t room);

/*
 * Which file analysis should read for the load object that map.xml recorded
 * as (recorded_path, build_id); build_id may be NULL or "" (none recorded).
 *   - the recorded path, if the file there has the expected build-id (or no
 *     build-id was recorded and the file exists): *ret_from_archive = 0;
 *   - else the archived copy, if it exists (and, when a build-id was
 *     recorded, has it), or when the archive's link dangles the per-user
 *     cache's copy with that build-id: *ret_from_archive = 1;
 *   - else the recorded path (*ret_from_archive = 0): the caller then fails to
 *     read it, or finds the build-id mismatch, and reports that as before.
 * ret_from_archive may be NULL.  Returns 0 with ret_path set, or -EINVAL
 * (NULL argument) / -ENAMETOOLONG (room too small for the recorded path).
 * Costs a few small reads per call: callers should call it once per object.
 */
int archive_resolve(const char *exp_dir, const char *recorded_path, const char *build_id, char *ret_path,
		    size_t room, int *ret_from_archive);

/*
 * If the archive holds a separate debug file for build_id:
 * ret = "EXP/archives" (to use as symtab_options.debug_root and
 * lines_options.debug_root, which then find EXP/archives/.build-id/xx/rest.debug)
 * and returns 1; or, when the archive's link dangles, "CACHE/archives" if
 * the per-user cache has it.  Returns 0 (none archived; leave debug_root NULL so the
 * system's /usr/lib/debug is searched), -EINVAL (bad build_id), or
 * -ENAMETOOLONG.
 */
int archive_debug_root(const char *exp_dir, const char *build_id, char *ret, size_t room);

/*
 * ret = "EXP/archives/.build-id/xx/rest.debug" for build_id (whether or not it
 * exists): where er_archive puts the debug-file link.  Returns 0, -EINVAL,
 * -ENAMETOOLONG.
 */
int archive_debug_link_path(const char *exp_dir, const char *build_id, char *ret, size_t room);

#endif
