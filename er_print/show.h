/*
 * report.h - helpers shared by er_print's metric reports: computing the
 * profile, display names, the list models (analysis/report_list.h) as
 * tables, table columns from the metric list, and function lookup by name.
 * Internal to er_print.
 */
#ifndef ER_PRINT_REPORT_H
#define ER_PRINT_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/report_heap.h"
#include "analysis/report_list.h"
#include "er_print/erp.h"
#include "er_print/table.h"

/* Compute metrics for the current selection; -1 after an error message. */
int show_prepare(struct erp *e);
/* show_prepare, then an error (-1) unless the experiments have heap data. */
int show_heap_prepare(struct erp *e);
/*
 * show_heap_prepare, then the stacks with a figure under key, largest first
 * (report_heap_items): their number with *ret malloc'd, or -1 after a message.
 */
ssize_t show_heap_stacks(struct erp *e, enum report_heap_key key, struct report_heap_item **ret);
void show_sort_title(struct erp *e, char *buf, size_t room);
/* Rows to print of a list of n whose first row is <Total>: <Total> + `limit`. */
size_t show_rows(const struct erp *e, size_t n);

/* The display name of a function, object ("<libc.so.6>"), line or PC (a report_name_fn; arg is the erp). */
const char *show_entity_name(void *arg, enum report_what what, uint32_t id, char *buf, size_t room);
/* "work, line 10 in \"prog.c\"" and "work + 0x00000036, line 10 in \"prog.c\"" (show_lines.c). */
const char *show_line_name(struct erp *e, uint32_t line, char *buf, size_t room);
const char *show_pc_name(struct erp *e, uint32_t pc, char *buf, size_t room);
/* The list model of `what` for the current metrics and sort; NULL after an error message. */
struct report_list *show_list_get(struct erp *e, enum report_what what);
/* Table columns (cols, titles) for metric-list items; percent_base[i] is item i's 100%. */
size_t show_columns(struct erp *e, const struct mspec_item *items, size_t n, const uint64_t *percent_base,
		    struct table_col *cols, char titles[][64]);
/*
 * Print a list model as a table (<Total> and `limit` rows); func_texts: the
 * rows are functions, whose size and address columns are filled.  0, or -1
 * after an error message.
 */
int show_print_list(struct erp *e, const struct report_list *l, int func_texts);
/*
 * Attributed columns (callers-callees), one per metric of the list; base[k]
 * is metric k's 100%.  Returns the count; items (MSPEC_MAX), cols and
 * titles are filled (show_calls.c).
 */
size_t show_attr_columns(struct erp *e, const uint64_t *base, struct mspec_item *items,
			 struct table_col *cols, char titles[][64]);
/* "name" or "name N" -> function id; -1 after an error message. */
int show_resolve_function(struct erp *e, const char *arg, uint32_t *ret);

#endif
