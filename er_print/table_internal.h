/*
 * table_internal.h - the table's rows, shared by table.c (text) and
 * table_modes.c (the other printmodes).  Internal to er_print/table*.c.
 */
#ifndef ER_PRINT_TABLE_INTERNAL_H
#define ER_PRINT_TABLE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "er_print/table.h"
#include "er_print/textout.h"

#define MAX_COLS 40

struct row {
	char **cells;   /* per column: value text, percent text (2 per metric col); text columns' text */
	uint64_t *vals; /* per metric column: the value */
	char *name;
	char marker;
	int is_line;
	int blank;      /* metric cells left empty */
	char prefix[4]; /* with an indented table: "## " or "   " */
};

struct table {
	struct table_col cols[MAX_COLS];
	size_t ncols;
	struct row *rows;
	size_t nrows, cap;
	int indent;
};

/*
 * How the renderers escape a row's name (textout.h): the rows of an
 * annotated listing are lines of a source file or a disassembly, whose tabs
 * are layout; elsewhere a tab is escaped like every control character.
 */
static inline unsigned table_name_flags(const struct table *t)
{
	return t->indent ? TEXTOUT_KEEP_TAB : 0;
}

#endif
