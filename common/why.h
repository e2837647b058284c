/*
 * why.h - a library call's words for its failure: the caller passes a
 * buffer (why, room bytes) and prints it; the callee formats into it and
 * returns the negative errno in one step.  Never prints or allocates.
 */
#ifndef COMMON_WHY_H
#define COMMON_WHY_H

#include <stddef.h>

/* Format fmt into why (room 0: the caller wants no words) and return r. */
int why_set(char *why, size_t room, int r, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#endif
