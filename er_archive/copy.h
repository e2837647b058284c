/*
 * copy.h - er_archive's copies of files it did not make: the load objects an
 * experiment names, their debug files, their sources, which map.xml (an
 * untrusted file) may name as anything (/etc/shadow, /dev/zero, a FIFO).
 *
 * A source is opened with regfile_open (common/regfile.h): a regular file
 * only, never blocking, and not sparse; an object or a debug file must also
 * be an ELF file with the build-id map.xml recorded, checked on the open
 * source before a byte is copied and on the copy before it gets its name.
 * Exactly the source's length is copied (a file that grows meanwhile is not
 * followed), and the copy's permissions are the source's & 0755: never more
 * than the source's, never writable by others, no set-id bits.
 *
 * Nothing appears half-written and no temporary stays behind: the copy is
 * an unnamed O_TMPFILE in the destination's directory until it is complete
 * and checked, then linked under a hidden name and renamed over the
 * destination; where the file system has no O_TMPFILE it is a hidden
 * mkstemp(3) name, removed on every failure and, by the handlers
 * copy_cleanup_install sets, on SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGPIPE
 * before the signal takes its course (it ignores SIGXFSZ: past the file
 * size limit a write fails with EFBIG, reported like a full disk).  The hidden names look
 * like DIR/.BASE.tmpXXXXXX.  Not thread-safe (one pending name).
 */
#ifndef ER_ARCHIVE_COPY_H
#define ER_ARCHIVE_COPY_H

#include <stddef.h>
#include <stdint.h>

enum copy_want {
	COPY_ANY, /* any regular file (a source file) */
	COPY_ELF, /* an ELF file whose build-id is expect_id; "" or NULL (none recorded): any ELF file */
};

/* Install the signal handlers that remove a pending temporary name (once, at start). */
void copy_cleanup_install(void);

/*
 * Copy src to dst (replacing it) as described above.  Returns 0 with
 * *ret_bytes (may be NULL).  On failure returns a negative code with why
 * (room bytes) saying what happened, and *ret_src_failed = 1 when the source
 * was refused or could not be read ("not an ELF file", "not a regular file
 * (a FIFO)", "it changed while it was copied", ...: the object is not
 * archived, a warning), 0 when dst could not be written ("cannot write
 * DST: No space left on device": an error).
 */
int copy_file(const char *src, const char *dst, enum copy_want want, const char *expect_id,
	      uint64_t *ret_bytes, int *ret_src_failed, char *why, size_t room);

/*
 * A hidden temporary file in dst's directory (DIR/.BASE.tmpXXXXXX, mode
 * 0600) for a small file the caller writes itself: its descriptor, with its
 * name in ret_tmp, registered for removal on the signals above until
 * copy_temp_done; or -errno.
 */
int copy_temp_open(const char *dst, char *ret_tmp, size_t room);

/* The temporary was renamed or removed: forget its name. */
void copy_temp_done(void);

#endif
