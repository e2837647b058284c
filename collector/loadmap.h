/*
 * loadmap.h - map.xml: the load objects of the target and their changes.
 *
 * At init every object reported by dl_iterate_phdr gets a <load> element with
 * its PT_LOAD <segment>s and GNU build-id (the executable's path comes from
 * /proc/self/exe; the vDSO is dumped to <experiment>/vdso.so).  The interposed
 * dlopen/dlclose rescan after the real call and append <load>/<unload>.  The
 * table of known objects is a fixed mmap'd array; each element is one
 * write(2).  Not signal-safe (takes a mutex, runs under the loader lock).
 */
#ifndef COLLECTOR_LOADMAP_H
#define COLLECTOR_LOADMAP_H

/* Remember dir/map.xml, dump the vDSO and write the initial <load>s. 0 or -errno. */
int loadmap_init(const char *dir);

#endif
