/*
 * report_source.h - the annotated source and disassembly models (er_print
 * `source`, `disasm`; any other front end): per source line of a file the
 * metrics of its code, where functions start and which lines are hot; per
 * instruction of a function its metrics, its source line and the source
 * lines to interleave.  The source text itself is the front end's to find
 * and show (search paths are its settings).  No printing.
 */
#ifndef ANALYSIS_REPORT_SOURCE_H
#define ANALYSIS_REPORT_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/lines.h"
#include "analysis/mspec.h"
#include "analysis/profile.h"

/* Lines past this are not annotated (a corrupt line number must not size an array). */
#define REPORT_SOURCE_MAX_LINES 1000000

/*
 * The source position of f's entry (its file as DWARF names it and first
 * line), for a function with code of its own in a load object with line
 * information.  1 with *ret filled, else 0.
 */
int report_func_position(struct profile *p, const struct pfunc *f, struct line_loc *ret);

/*
 * The source file (as recorded) of the first line (by id) whose file is
 * `name` or whose file's base name is `name`, or NULL.
 */
const char *report_find_source_file(const struct profile *p, const char *name);

/*
 * The functions with data whose entry (report_func_position) is in file
 * `name` (as recorded, or its base name), by load object and address.
 * Returns their count with *ret malloc'd (NULL when 0), or -ENOMEM.
 */
long report_funcs_in_file(struct profile *p, const char *name, uint32_t **ret);

struct report_source_line {
	int has; /* some code of this line has data */
	int hot; /* exclusive value of the sort metric >= hot_percent % of the hottest line's (and not 0) */
	uint32_t func; /* the first function (by id) with data whose entry is this line, or UINT32_MAX */
};

/*
 * Annotated source of `file` (as recorded).  lines[1 .. nlines) are the
 * file's lines (index 0 unused): up to the last line any code of the
 * experiments has, or text_lines (the lines of the text the front end
 * found), whichever is more.  The columns are those of a function list
 * for `spec` (report_list.h); values[ln * ncols + c] is column c summed over
 * the code of line ln (0 for a static column).
 */
struct report_source {
	size_t nlines;
	struct report_source_line *lines;
	size_t ncols;
	struct mspec_item *cols;
	uint64_t *percent_base; /* per column: its metric's total */
	uint64_t *values;
};

/* After profile_compute.  0 with *ret (report_source_free), or -ENOMEM. */
int report_source_new(struct profile *p, const char *file, const struct mspec *spec,
		      const struct mspec_item *sort, unsigned hot_percent, size_t text_lines,
		      struct report_source **ret);
void report_source_free(struct report_source *s);

enum report_disasm_kind {
	REPORT_DISASM_SOURCE, /* a source line: the instructions that follow are its code */
	REPORT_DISASM_INSN,
};

struct report_disasm_row {
	enum report_disasm_kind kind;
	uint64_t addr; /* an instruction's ELF address */
	char *text;    /* an instruction's text, "mov    %rsp,%rbp" */
	const char *file;
	uint32_t line; /* its source line, 0 when unknown (an instruction without line information) */
	int hot; /* first column's value >= hot_percent % of the function's hottest instruction's (and not 0) */
};

/*
 * The annotated disassembly of function f: every instruction (with its
 * metrics in the columns of a function list for `spec`) and, before the
 * first instruction of each run of one source line, that line.
 */
struct report_disasm {
	const char *entry_file; /* the file of f's entry, or NULL */
	size_t nrows;
	struct report_disasm_row *rows;
	size_t ncols;
	struct mspec_item *cols;
	uint64_t *percent_base;
	uint64_t *values; /* nrows x ncols; 0 on source rows */
	int disasm_error; /* 0, or capstone's negative errno (the rows are what was decoded) */
};

/*
 * After profile_compute.  0 with *ret (report_disasm_free); -EINVAL when f
 * has no code of its own (a pseudo or inlined function, no address range),
 * -ERANGE when its address is not in its object's file, another negative
 * errno when the file cannot be read, -ENOMEM.
 */
int report_disasm_new(struct profile *p, uint32_t f, const struct mspec *spec, unsigned hot_percent,
		      struct report_disasm **ret);
void report_disasm_free(struct report_disasm *d);

#endif
