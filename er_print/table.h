/*
 * table.h - render a report table in gprofng's `display text` layout:
 * a header of wrapped metric titles (top-aligned) with a units line, metric
 * columns right-aligned (times "%.3f" seconds, zero as "0." aligned on the
 * decimal point, percentages "%.2f"), two spaces between metric columns and
 * three before the name (whose last space becomes a marker such as '*').
 */
#ifndef ER_PRINT_TABLE_H
#define ER_PRINT_TABLE_H

#include <stdint.h>
#include <stdio.h>

#include "analysis/profile.h"

enum table_col_kind { TABLE_METRIC, TABLE_TEXT };

struct table_col {
	enum table_col_kind kind;
	const char *title;     /* e.g. "Excl. Total CPU", "Size", "PC Addr." */
	enum metric_unit unit; /* metric columns */
	int show_value, show_percent;
	uint64_t percent_base; /* 100% */
};

struct table;

struct table *table_new(const struct table_col *cols, size_t ncols);
void table_free(struct table *t);
/* vals[i] for metric columns, texts[i] for text columns (others ignored). 0 or -ENOMEM. */
int table_add_row(struct table *t, const uint64_t *vals, const char *const *texts, const char *name,
		  char marker);
/*
 * Annotated listings: every header line and row starts with 3 characters,
 * the row's `prefix` ("## " for a hot line) or blanks; a row may have blank
 * metric cells (source lines outside any function).
 */
void table_set_indent(struct table *t);
int table_add_annotated(struct table *t, const uint64_t *vals, const char *name, const char *prefix,
			int blank);

/* Add a literal line (e.g. "============== Callers") printed in row order. */
int table_add_line(struct table *t, const char *line);
void table_print(const struct table *t, FILE *out);

/* Format a value as the tables do ("2.000", "0.", "12"), into buf. */
void table_format_value(enum metric_unit unit, uint64_t v, char *buf, size_t room);
void table_format_percent(uint64_t v, uint64_t base, char *buf, size_t room);

#endif
