/*
 * unwtab.h - the unwind tables of the loaded objects, as one immutable
 * snapshot that the sampling signal handler reads.
 *
 * Tables are built outside signal context when an object appears (init, and
 * the dlopen/dlclose rescans of loadmap.c, inside dl_iterate_phdr so the
 * object cannot be unloaded while it is parsed), from its PT_GNU_EH_FRAME, or
 * from .debug_frame in the object's file or its separate debug file
 * (/usr/lib/debug/.build-id/xx/rest.debug) when it has none; a Go object
 * (one with Go's build-id note) also gets rows for its Go code from its
 * pclntab (gopcln.h), and the thread-pointer offset of the runtime's current
 * goroutine (runtime.tlsg), whose stack bounds unwind.c reads.  Each change
 * publishes a new snapshot with an atomic release store; the handler takes
 * it with unwtab_acquire, which also publishes a hazard pointer in the
 * thread's unwind state, and the updater frees an old snapshot or an unloaded
 * object's table only when no hazard still names a snapshot that can reach
 * it.  So a lookup never touches freed memory and never faults: tables are
 * the collector's own mmap'd memory, never the target's.
 */
#ifndef COLLECTOR_UNWTAB_H
#define COLLECTOR_UNWTAB_H

#include <link.h>
#include <stdint.h>

#include "collector/cfi.h"

struct unwtab_obj {
	uint64_t lo, hi;               /* executable run-time range */
	const struct cfi_table *table; /* NULL: no CFI (frame-pointer fallback) */
	const struct cfi_table *gotab; /* Go code's rows (looked up first), or NULL */
	uint64_t key;                  /* dlpi_phdr */
};

/* Go runtimes whose current goroutine a thread's TLS names (one per Go object; rarely more than one). */
#define UNWTAB_GO_MAX 4

struct unwtab_snap {
	uint64_t gen;
	uint32_t n;
	uint32_t ngo;
	/* offsets from the thread pointer (%fs) of each Go runtime's g: a
	 * pointer to the running goroutine, whose first two words are its
	 * stack's [lo, hi) */
	int64_t go_g_tls[UNWTAB_GO_MAX];
	struct unwtab_obj obj[]; /* sorted by lo, not overlapping */
};

struct unwtab_stats {
	uint32_t objects, objects_without_cfi;
	uint32_t shared; /* of the objects, those whose table another process built (cfishare.h) */
	uint64_t rows, bytes, unsupported;
	uint64_t build_ns;
	uint32_t go_objects, go_without_table,
		go_without_tls; /* Go objects; of them without rows, without g */
	uint64_t go_funcs, go_rows;
};

/*
 * Calls fn with the hazard of every thread that may be inside the handler
 * (threads_scan_hazards).
 */
typedef void (*unwtab_scan_fn)(void (*fn)(const void *hazard, void *ctx), void *ctx);

/* One-time setup; scan finds the handlers' hazards. 0 or -errno. Not signal-safe. */
int unwtab_init(unwtab_scan_fn scan);

/*
 * Rescan protocol, called by loadmap.c with its lock held: unwtab_begin, then
 * unwtab_seen for every object dl_iterate_phdr reports (from inside its
 * callback), then unwtab_commit, which drops objects not seen, publishes the
 * new snapshot and frees what no handler can reach any more.
 */
void unwtab_begin(void);
void unwtab_seen(const struct dl_phdr_info *info);
void unwtab_commit(void);

/*
 * Handler side, SIGNAL_SAFE: take the current snapshot and protect it with
 * *hazard (the calling thread's slot, visible to the updater); release clears
 * the hazard.  Returns NULL if there is none yet.
 */
const struct unwtab_snap *unwtab_acquire(const void *_Atomic *hazard);
void unwtab_release(const void *_Atomic *hazard);

/*
 * The generation of the current snapshot (0: none yet): a walk remembered
 * under one generation is replayed only under the same.  SIGNAL_SAFE.
 */
uint64_t unwtab_generation(void);

/* The object whose executable range holds pc, or NULL. SIGNAL_SAFE. */
const struct unwtab_obj *unwtab_find(const struct unwtab_snap *s, uint64_t pc);

void unwtab_get_stats(struct unwtab_stats *ret);

#endif
