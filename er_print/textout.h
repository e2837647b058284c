/*
 * textout.h - er_print's text output of strings that come from outside:
 * function, object, file, thread and program names, paths, command lines,
 * messages read from experiments, the user's own arguments.
 *
 * Every character a terminal would act on becomes a visible escape, so that
 * a crafted name cannot colour, move the cursor, retitle the window or start
 * a fake row: a C0 control as \n, \t, \r or \xNN (\x1b), DEL as \x7f, a C1
 * control (U+0080..U+009F, which terminals may read as ESC sequences) as
 * \u0080..\u009f, and each byte that is not part of valid UTF-8 as \xNN.
 * Printable ASCII and valid UTF-8 (C++ names, accented file names) are
 * written as they are; a backslash is not doubled (the escapes are for
 * reading, not for reading back).
 *
 * Reports write with textout_printf, whose format is er_print's own (its
 * newlines and tabs are layout) and whose %s arguments are escaped; the
 * table renderers escape the names and lines of their rows (table.h).
 * Not thread-safe only as stdio is not; no allocation unless a string needs
 * escaping.
 */
#ifndef ER_PRINT_TEXTOUT_H
#define ER_PRINT_TEXTOUT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include "common/strbuf.h"

/* flags: tabs are written as they are (lines of a source file or of notes, where they are layout) */
#define TEXTOUT_KEEP_TAB 0x1u

/* 1 if s[0..n) has nothing to escape under flags, else 0. */
int textout_is_clean(const char *s, size_t n, unsigned flags);

/* Append s[0..n) to b, escaped. */
void textout_escape(struct strbuf *b, const char *s, size_t n, unsigned flags);

/* The length of s escaped (what textout_puts writes). */
size_t textout_len(const char *s, unsigned flags);

/* Write s (s[0..n)) to f, escaped. */
void textout_puts(FILE *f, const char *s, unsigned flags);
void textout_write(FILE *f, const char *s, size_t n, unsigned flags);

/*
 * fprintf(f, fmt, ...) with every %s argument escaped (its precision counts
 * the bytes of the argument, its width those of the escaped text); the
 * other conversions as printf writes them.  fmt may use the conversions of
 * C11 printf but %n and wide characters (%lc, %ls).  0, or -1 after a write
 * error on f.
 */
int textout_printf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int textout_vprintf(FILE *f, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

#endif
