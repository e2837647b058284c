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
	const char *title; /* e.g. "Excl. Total CPU", "Size", "PC Addr." */
	/* for the other printmodes (0/NULL: taken from the title): */
	char flavor;           /* 'e', 'i' or 'a': exclusive, inclusive, attributed */
	const char *keyword;   /* the metric's keyword: json key "e.totalcpu" */
	const char *username;  /* "Total CPU Time" (delimiter header) */
	int sort;              /* the sort column (delimiter: "V", html: a nabla, json: "sort") */
	enum metric_unit unit; /* metric columns */
	int show_value, show_percent;
	uint64_t percent_base; /* 100% */
	/*
	 * Compare mode (er_print `compare`): `group` is the experiment (group)
	 * the column shows, printed above its title, and side its number from
	 * 1 (json keys "e.totalcpu#2"); compare 'd' shows the value as the
	 * signed difference from column compare_base's value in the same row
	 * ("+0.030"), 'r' as their ratio ("x 1.600"; "x 1.000" for 0 against
	 * 0, "x >99.999" against 0 or beyond), 0 as the value itself.
	 */
	const char *group;
	int side;
	char compare;
	size_t compare_base;
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

/*
 * printmode (er_print(1)): the same table as delimiter-separated values
 * (gprofng's layout: every cell quoted, four header rows, V on the sort
 * column, "%%" for percent), an HTML <table>, or a JSON object
 * {"columns": [...], "rows": [...]} with typed numbers: each metric in its
 * integer unit (ns, count, bytes) under its key, and each column's total
 * (the 100% of its percentages).
 */
void table_print_delim(const struct table *t, char delim, FILE *out);
void table_print_html(const struct table *t, FILE *out);
void table_print_json(const struct table *t, FILE *out);

/* Format a value as the tables do ("2.000", "0.", "12"), into buf. */
void table_format_value(enum metric_unit unit, uint64_t v, char *buf, size_t room);
/*
 * One metric line of a summary (fsummary, lsummary, psummary):
 * "\t<label>: <value> (<percent of total>)", the label right-aligned in 24;
 * a ratio (IPC) has no percentage.
 */
void table_summary_line(FILE *out, const char *label, enum metric_unit unit, uint64_t v, uint64_t total);
void table_format_percent(uint64_t v, uint64_t base, char *buf, size_t room);

#endif
