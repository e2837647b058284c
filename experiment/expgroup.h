/*
 * expgroup.h - experiment groups: a text file NAME.erg whose first line is
 * "#analyzer experiment group" and whose other lines each name one
 * experiment (Oracle's and gprofng's group format, docs/experiment-format.md).
 * Blank lines and lines starting with '#' are ignored; leading and trailing
 * blanks (and a CR before the newline) are not part of a path; a relative
 * path is relative to the group file's directory.  A group may not name
 * another group (a member ending in ".erg").
 *
 * Library code: no printing, errors are negative errno values, with a
 * one-line message (no program prefix) in ERR where the function takes one.
 * A group file is untrusted text: its size, its line length and its member
 * count are capped.  Thread-safe (no static state); not async-signal-safe.
 */
#ifndef EXPERIMENT_EXPGROUP_H
#define EXPERIMENT_EXPGROUP_H

#include <stddef.h>

#define EXPGROUP_HEADER "#analyzer experiment group"
#define EXPGROUP_SUFFIX ".erg"
#define EXPGROUP_MAX_BYTES (1u << 20) /* a larger group file is refused */
#define EXPGROUP_MAX_MEMBERS 10000    /* so is one naming more experiments */
#define EXPGROUP_LINE_MAX_BYTES 4095  /* and a member path longer than this */

/* The members of a group, in the file's order; owned by the struct. */
struct expgroup {
	char **members; /* resolved paths: relative ones prefixed with the group's directory */
	size_t count;
};

/*
 * Parse the LEN bytes of TEXT (not NUL-terminated; a NUL byte is an error)
 * as a group file whose directory is DIR ("" or NULL: relative members stay
 * as written) into *RET (released by expgroup_release, also on failure).
 * Returns the member count (0 for a group that names none), or -EINVAL (the
 * first line is not the header; a NUL byte; a member that is a group),
 * -ENAMETOOLONG (a line longer than EXPGROUP_LINE_MAX_BYTES), -E2BIG (more
 * than EXPGROUP_MAX_MEMBERS members), -ENOMEM; ERR says which line.
 */
int expgroup_parse(const char *text, size_t len, const char *dir, struct expgroup *ret, char *err,
		   size_t room);

/*
 * Read and parse the group file PATH (see expgroup_parse; relative members
 * are resolved against PATH's directory).  Also -errno of open/read, -EFBIG
 * for a file over EXPGROUP_MAX_BYTES, and common/regfile.h's refusals for
 * anything but a regular file (-REGFILE_EDIR for a directory,
 * -REGFILE_EFIFO for a FIFO, which is never opened so as to block).
 */
int expgroup_read(const char *path, struct expgroup *ret, char *err, size_t room);

void expgroup_release(struct expgroup *g);

/*
 * Whether PATH names a group: 1 when it is a regular file (symbolic links
 * followed) whose name ends in ".erg" or whose first line is the header,
 * 0 otherwise (a directory, a missing file, another file).
 */
int expgroup_is_group(const char *path);

/*
 * Expand the N paths ARGS: a group (expgroup_is_group) becomes its members,
 * anything else stays as it is.  *RET_PATHS (malloc'd array of malloc'd
 * strings, *RET_COUNT of them; free with expgroup_free_paths) is in order.
 * Whether each member exists is for the caller to find out.  0, or the
 * error of expgroup_read with ERR naming the group file.
 */
int expgroup_expand(const char *const *args, size_t n, char ***ret_paths, size_t *ret_count, char *err,
		    size_t room);
void expgroup_free_paths(char **paths, size_t count);

/*
 * Append the line MEMBER to the group file PATH under an exclusive flock(2),
 * creating the file with its header when it does not exist or is empty.
 * 0, or -EINVAL (MEMBER empty or with a newline; PATH exists but does not
 * start with the header), or -errno of open/flock/write.
 */
int expgroup_append(const char *path, const char *member);

/*
 * Create the group file PATH (it must not exist: O_EXCL) naming the N
 * MEMBERS, one a line after the header.  0 or -errno (-EEXIST, -ENOSPC,
 * ...; a partly written file is removed), -EINVAL for a member with a
 * newline.
 */
int expgroup_write(const char *path, const char *const *members, size_t n);

#endif
