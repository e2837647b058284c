/*
 * fdkeep.h - descriptors of the experiment's own files, kept for the moment
 * the program leaves none free.
 *
 * The collector opens a data file, log.xml or map.xml by path for each block
 * or append and closes it at once, so that a program that closes every
 * descriptor (close_range) can never have us write into a file of its own
 * that got the same number.  A program that lowers RLIMIT_NOFILE to what it
 * has open, or uses every descriptor, makes each such open fail with EMFILE
 * (or the system's table ENFILE): then fdkeep_open hands out a descriptor
 * kept since the file was made, at a high number, once it has checked that
 * the number still refers to that file (device and inode), so a descriptor
 * the program closed and reused is never touched.
 *
 * Registration happens while the process is starting a recording, before
 * any thread can sample: start_recording resets, and each file's owner adds
 * its file as it sets it up (blockw_file_create, logxml_init, loadmap's
 * map.xml); fdkeep_open and
 * fdkeep_done are SIGNAL_SAFE (raw openat, fstat, close).
 */
#ifndef COLLECTOR_FDKEEP_H
#define COLLECTOR_FDKEEP_H

/* How many files can be kept: data files, log.xml, map.xml. */
#define FDKEEP_MAX 8

/*
 * Keep a descriptor of path opened with flags (O_CLOEXEC is added) at a
 * number at or above fdkeep_floor().  0, or -errno (the file then has no
 * fallback; nothing else changes).
 */
int fdkeep_add(const char *path, int flags);

/*
 * Forget every kept descriptor, closing those that still refer to their file
 * (in a fork child they are the parent's files; one the program reused is
 * left alone).
 */
void fdkeep_reset(void);

/*
 * Open path with flags (O_CLOEXEC is added).  When the system call fails
 * with EMFILE or ENFILE and a descriptor of the same path opened with the
 * same flags (O_CREAT aside) is kept and still refers to that file, return it with *kept = 1
 * (give it back with fdkeep_done, never close it).  Else the descriptor or
 * -errno, *kept = 0.  SIGNAL_SAFE.
 */
int fdkeep_open(const char *path, int flags, int *kept);

/* Done with a descriptor from fdkeep_open: closed unless kept. SIGNAL_SAFE. */
void fdkeep_done(int fd, int kept);

/*
 * The lowest number for descriptors the collector keeps, away from the
 * numbers a program expects to get: half the soft RLIMIT_NOFILE, at least
 * 512 when the limit allows, else as high as it allows.  Not signal-safe.
 */
int fdkeep_floor(void);

#endif
