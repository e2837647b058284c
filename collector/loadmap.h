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

/*
 * Fork: the table's lock is held from the prepare handler to the parent's
 * and child's handlers, so the child gets a consistent table.  In the child,
 * loadmap_fork_child writes dir/map.xml's <load>s from the elements the
 * parent wrote (every object the parent has is the child's) and the vDSO,
 * without dl_iterate_phdr, whose lock another thread may have held at fork.
 */
void loadmap_lock_fork(void);
void loadmap_unlock_fork(void);
int loadmap_fork_child(const char *dir);

/* A descendant's end: close map.xml (</map>); collect closes the founder's. */
void loadmap_finish(void);

/*
 * dlopen and dlclose once the collector is initialised (interpose.c exports
 * them): the real call, then a rescan that appends <load>/<unload>.  caller:
 * the return address of the program's dlopen call, whose object's search
 * path (RUNPATH, $ORIGIN) a bare file name is looked up in.
 */
void *loadmap_dlopen(const char *file, int mode, const void *caller);
int loadmap_dlclose(void *handle);

#endif
