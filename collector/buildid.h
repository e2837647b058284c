/*
 * buildid.h - the GNU build-id of a loaded object (and whether it is Go
 * code), read from its PT_NOTE segments in memory (no file access, no
 * allocation).  Used for map.xml, to find an object's separate debug file
 * and Go's function table.  Not signal-safe only in that it
 * reads the object's mapped notes, which the caller must keep loaded (call it
 * from dl_iterate_phdr).
 */
#ifndef COLLECTOR_BUILDID_H
#define COLLECTOR_BUILDID_H

#include <link.h>
#include <stddef.h>

/* Lower-case hex build-id into out (room bytes), "" if the object has none. */
void buildid_of_object(const struct dl_phdr_info *info, char *out, size_t room);

/* 1 if the object carries the Go toolchain's build-id note (owner "Go", type 4): Go code. */
int buildid_is_go(const struct dl_phdr_info *info);

#endif
