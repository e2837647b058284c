/*
 * symver.h - ELF symbol versions in function names.  A versioned symbol is
 * named NAME@VERSION (a non-default version: "memcpy@GLIBC_2.2.5") or
 * NAME@@VERSION (the default one: "memcpy@@GLIBC_2.14"); the symbol tables of
 * glibc and of any library built with a version script are full of them.
 *
 * Analysis names a function by its base name and keeps the version beside it,
 * so that `__libc_start_main` is found and shown as itself; reports show the
 * version only where it tells apart two functions of the same listing that
 * share a base name (symver_disambiguate).  Pure functions of their arguments;
 * thread-safe.
 */
#ifndef ANALYSIS_SYMVER_H
#define ANALYSIS_SYMVER_H

#include <stddef.h>
#include <stdint.h>

/*
 * The length of `name`'s base: the bytes before its version suffix ("@VER"
 * or "@@VER": an '@' that is not the first byte, an optional second '@', then
 * at least one byte and no other '@'), or strlen(name) when it has none.
 * The suffix is name + symver_base_len(name) ("" when none).
 */
size_t symver_base_len(const char *name);

struct symver_name {
	const char *base;    /* the name without its version */
	const char *version; /* "@VER", "@@VER", or "" (none) */
	uint32_t object;     /* the load object defining it */
};

/*
 * Which names of a listing need their version shown: ret_show[i] = 1 when
 * names[i] has a version and another name of the listing has the same base
 * and object but a different version (or none), e.g. libc's memcpy@GLIBC_2.2.5
 * next to its memcpy@@GLIBC_2.14; else 0.  Functions of one name in two
 * objects (libc's clock_gettime and the vDSO's) are told apart by their
 * object, not their version.  A base that only one version uses (however
 * many entries carry it) needs no version.  O(n log n).
 * Returns 0, or -ENOMEM (ret_show then all 0).
 */
int symver_disambiguate(const struct symver_name *names, size_t n, uint8_t *ret_show);

#endif
