/*
 * report.h - helpers shared by er_print's metric reports: computing the
 * profile, the sorted function list, table columns from the metric list, and
 * function lookup by name.  Internal to er_print.
 */
#ifndef ER_PRINT_REPORT_H
#define ER_PRINT_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/lines.h"
#include "analysis/report_list.h"
#include "er_print/erp.h"
#include "er_print/table.h"

/* Compute metrics for the current selection; -1 after an error message. */
int report_prepare(struct erp *e);
/* report_prepare, then an error (-1) unless the experiments have heap data. */
int report_heap_prepare(struct erp *e);
void report_sort_title(struct erp *e, char *buf, size_t room);
/* Rows to print of a list of n whose first row is <Total>: <Total> + `limit`. */
size_t report_rows(const struct erp *e, size_t n);
size_t report_sorted_funcs(struct erp *e, uint32_t **ret_ids, char ***ret_names);
void report_free_names(struct erp *e, char **names);
size_t report_columns(struct erp *e, struct table_col *cols, struct mspec_item *items, char titles[][64]);
void report_row(struct erp *e, const struct mspec_item *items, size_t ncols, uint32_t f, uint64_t *vals,
		char texts[][32]);
/*
 * The source file and first line of a function, from its entry address
 * (report_source.c): 1 and *ret, or 0 (a pseudo-function, or no line
 * information).  ret->file belongs to the object's line table.
 */
int report_func_position(struct erp *e, const struct pfunc *f, struct line_loc *ret);
/* "name" or "name N" -> function id; -1 after an error message. */
int report_resolve_function(struct erp *e, const char *arg, uint32_t *ret);

#endif
