/*
 * export.h - er_print's `export FORMAT[:METRIC] FILE`: the selection's call
 * stacks (profile_foreach_stack) written in a format other tools read.
 * export.c parses the command and opens the file; one renderer per format
 * (export_folded.c ...) writes to an open stream.  Internal to er_print.
 */
#ifndef ER_PRINT_EXPORT_H
#define ER_PRINT_EXPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "er_print/erp.h"

/* The `export` command: "FORMAT[:METRIC] FILE" (FILE "-" = standard output). */
int show_export(struct erp *e, const char *arg);

/*
 * A renderer: write the current selection's stacks valued by metric
 * `metric` (an index of profile_metric_defs) to f.  0, or -1 after one error message
 * (erp_error); write errors on f are the caller's to detect.  `metric` is
 * EXPORT_METRIC_ALL when the command named none: a format that carries one
 * metric then uses PROFILE_METRIC_TOTALCPU, one that carries several
 * carries every metric the experiments have.
 */
#define EXPORT_METRIC_ALL SIZE_MAX

int export_folded(struct erp *e, FILE *f, size_t metric);
int export_pprof(struct erp *e, FILE *f, size_t metric);
int export_speedscope(struct erp *e, FILE *f, size_t metric);
int export_firefox(struct erp *e, FILE *f, size_t metric);
int export_chrome(struct erp *e, FILE *f, size_t metric);

#endif
