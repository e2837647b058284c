/*
 * why.c - see why.h.
 */
#include "common/why.h"

#include <stdarg.h>
#include <stdio.h>

int why_set(char *why, size_t room, int r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (room)
		vsnprintf(why, room, fmt, ap);
	va_end(ap);
	return r;
}
