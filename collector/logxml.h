/*
 * logxml.h - the collector's appends to log.xml.  Each element is built in a
 * fixed buffer (experiment/xmlw.h) and written with one write(2) on a file
 * opened O_APPEND for that write only (the target may close our fds; when
 * it leaves none free, collector/fdkeep.h has one kept).
 * SIGNAL_SAFE (open, write, close, no allocation), but not reentrant per
 * thread: callers do not nest.
 */
#ifndef COLLECTOR_LOGXML_H
#define COLLECTOR_LOGXML_H

#include <stddef.h>

#include "experiment/xmlw.h"

/* Remember dir/log.xml (a new recording: the file_size_limit warning may come again).  0 or -ENAMETOOLONG. */
int logxml_init(const char *dir);

/* Append a complete element built by the caller (ignored if it overflowed). */
void logxml_append(const struct xmlw *w);

/* Append <warning|error id=".." tstamp_ns="..">text</..>. */
void logxml_note(const char *element, const char *id, const char *text);

/* Append text to a file under the experiment with one write (map.xml too). */
void logxml_append_to(const char *path, const char *text, size_t bytes);

/*
 * Append whole lines to path (O_CREAT when create) with one write(2): when
 * the disk takes only part of them, the part is cut off again, so a reader
 * never meets half an element.  Lines that would take the file to the file
 * size limit (collector/fsize.h) are not written: -EFBIG, counted in
 * col_counters()->fsize_dropped, and said once per recording in log.xml
 * (<warning id="file_size_limit">, unless log.xml is that file).  0 or
 * -errno.  SIGNAL_SAFE.
 */
int logxml_append_whole(const char *path, const char *text, size_t bytes, int create);

#endif
