/*
 * table_modes.c - a table in the printmodes other than text (table.h):
 * delimiter-separated values in gprofng's layout, an HTML table, and a
 * JSON object with typed numbers.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "analysis/json_schema.h"
#include "common/jsonw.h"
#include "er_print/table_internal.h"

/* ------------------------------------------------------------ delimiter */

/*
 * One quoted cell, escaped (textout.h) so that it stays on its line, '"'
 * doubled; trim: leading and trailing blanks dropped.
 */
static void put_cell_flags(FILE *out, const char *s, int first, char delim, int trim, unsigned flags)
{
	if (!first)
		fputc(delim, out);
	fputc('"', out);
	if (s) {
		while (trim && *s == ' ')
			s++;
		size_t n = strlen(s);
		while (trim && n && s[n - 1] == ' ')
			n--;
		struct strbuf b;
		strbuf_init(&b, 0);
		if (!textout_is_clean(s, n, flags)) {
			textout_escape(&b, s, n, flags);
			s = strbuf_str(&b);
			n = b.len;
		}
		for (size_t i = 0; i < n; i++) {
			if (s[i] == '"')
				fputc('"', out);
			fputc(s[i], out);
		}
		strbuf_release(&b);
	}
	fputc('"', out);
}

static void put_cell_trim(FILE *out, const char *s, int first, char delim, int trim)
{
	put_cell_flags(out, s, first, delim, trim, 0);
}

static void put_cell(FILE *out, const char *s, int first, char delim)
{
	put_cell_trim(out, s, first, delim, 1);
}

/* The flavor word of a metric column ("Exclusive"), from its title's first word when not set. */
static const char *flavor_of(const struct table_col *c)
{
	if (c->flavor)
		return c->flavor == 'e' ? "Exclusive" : c->flavor == 'i' ? "Inclusive" : "Attributed";
	if (c->kind != TABLE_METRIC)
		return c->title;
	if (strncmp(c->title, "Excl.", 5) == 0)
		return "Exclusive";
	if (strncmp(c->title, "Incl.", 5) == 0)
		return "Inclusive";
	if (strncmp(c->title, "Attr.", 5) == 0)
		return "Attributed";
	return "";
}

/* The metric's name ("Total CPU Time"), else the title without its flavor word. */
static const char *username_of(const struct table_col *c)
{
	if (c->username)
		return c->username;
	if (c->kind != TABLE_METRIC)
		return "";
	const char *sp = strchr(c->title, ' ');
	return sp && strchr(c->title, '.') < sp ? sp + 1 : c->title;
}

/* Header row k (0..3) of the delimiter layout: blank, flavor, name, units with the sort mark. */
static void delim_header_row(const struct table *t, int k, char delim, FILE *out)
{
	int first = 1;
	for (size_t c = 0; c < t->ncols; c++) {
		const struct table_col *col = &t->cols[c];
		int parts = col->kind == TABLE_METRIC ? !!col->show_value + !!col->show_percent : 1;
		for (int p = 0; p < parts; p++) {
			char unit[32];
			int is_pct = col->kind == TABLE_METRIC && (p == 1 || !col->show_value);
			const char *u = is_pct                          ? "%%"
					: col->compare == 'd'           ? "delta"
					: col->compare == 'r'           ? "ratio"
					: col->unit == METRIC_UNIT_TIME ? "(sec.)"
									: "";
			snprintf(unit, sizeof unit, "%s%s", col->sort ? "V  " : "   ", u);
			const char *cell = k == 0   ? (col->group ? col->group : "")
					   : k == 1 ? flavor_of(col)
					   : k == 2 ? username_of(col)
						    : unit;
			put_cell_trim(out, k == 3 && col->kind != TABLE_METRIC ? "   " : cell, first, delim,
				      0);
			first = 0;
		}
	}
	put_cell_trim(out, k == 1 ? "Name" : k == 3 ? "   " : "", first, delim, 0);
	fputc('\n', out);
}

void table_print_delim(const struct table *t, char delim, FILE *out)
{
	for (int k = 0; k < 4; k++)
		delim_header_row(t, k, delim, out);
	for (size_t i = 0; i < t->nrows; i++) {
		const struct row *r = &t->rows[i];
		if (r->is_line) {
			if (*r->name)
				textout_printf(out, "%s\n", r->name);
			continue;
		}
		int first = 1;
		for (size_t c = 0; c < t->ncols; c++) {
			const struct table_col *col = &t->cols[c];
			if (col->kind == TABLE_TEXT || col->show_value) {
				put_cell(out, r->blank ? "" : r->cells[2 * c], first, delim);
				first = 0;
			}
			if (col->kind == TABLE_METRIC && col->show_percent) {
				put_cell(out, r->blank ? "" : r->cells[2 * c + 1], first, delim);
				first = 0;
			}
		}
		put_cell_flags(out, r->name, first, delim, 1, table_name_flags(t));
		fputc('\n', out);
	}
}

/* ------------------------------------------------------------ html */

/* s escaped (textout.h), then as HTML text. */
static void html_text_flags(FILE *out, const char *s, unsigned flags)
{
	struct strbuf b;
	strbuf_init(&b, 0);
	if (s && !textout_is_clean(s, strlen(s), flags)) {
		textout_escape(&b, s, strlen(s), flags);
		s = strbuf_str(&b);
	}
	for (; s && *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '&': fputs("&amp;", out); break;
		case '"': fputs("&quot;", out); break;
		default: fputc(*s, out);
		}
	}
	strbuf_release(&b);
}

static void html_text(FILE *out, const char *s)
{
	html_text_flags(out, s, 0);
}

/* Text of a cell without the text layout's padding. */
static void html_cell(FILE *out, const char *s)
{
	fputs("<td align=\"right\">", out);
	while (s && *s == ' ')
		s++;
	size_t n = s ? strlen(s) : 0;
	while (n && s[n - 1] == ' ')
		n--;
	char buf[128];
	snprintf(buf, sizeof buf, "%.*s", (int)n, s ? s : "");
	html_text(out, buf);
	fputs("</td>", out);
}

static void html_header(const struct table *t, FILE *out)
{
	fputs("<tr>", out);
	for (size_t c = 0; c < t->ncols; c++) {
		const struct table_col *col = &t->cols[c];
		int span = col->kind == TABLE_METRIC ? !!col->show_value + !!col->show_percent : 1;
		fprintf(out, "<th colspan=\"%d\">", span ? span : 1);
		if (col->group) { /* compare mode: the experiment, and how the value is shown */
			html_text(out, col->group);
			fputs(col->compare == 'd'   ? " (delta)<br>"
			      : col->compare == 'r' ? " (ratio)<br>"
						    : "<br>",
			      out);
		}
		html_text(out, col->title);
		if (col->sort)
			fputs(" &nabla;", out);
		if (col->kind == TABLE_METRIC)
			fputs(col->unit == METRIC_UNIT_TIME ? "<br>sec." : "", out);
		fputs("</th>", out);
	}
	fputs("<th>Name</th></tr>\n", out);
}

void table_print_html(const struct table *t, FILE *out)
{
	size_t ncells = 1;
	for (size_t c = 0; c < t->ncols; c++)
		ncells += t->cols[c].kind == TABLE_METRIC
				  ? !!t->cols[c].show_value + !!t->cols[c].show_percent
				  : 1;
	fputs("<table border=\"1\" cellspacing=\"0\" cellpadding=\"2\">\n", out);
	html_header(t, out);
	for (size_t i = 0; i < t->nrows; i++) {
		const struct row *r = &t->rows[i];
		if (r->is_line) {
			fprintf(out, "<tr><td colspan=\"%zu\"><b>", ncells);
			html_text(out, r->name);
			fputs("</b></td></tr>\n", out);
			continue;
		}
		fputs(strncmp(r->prefix, "##", 2) == 0 ? "<tr style=\"font-weight:bold\">" : "<tr>", out);
		for (size_t c = 0; c < t->ncols; c++) {
			const struct table_col *col = &t->cols[c];
			if (col->kind == TABLE_TEXT || col->show_value)
				html_cell(out, r->blank ? "" : r->cells[2 * c]);
			if (col->kind == TABLE_METRIC && col->show_percent)
				html_cell(out, r->blank ? "" : r->cells[2 * c + 1]);
		}
		fputs("<td><pre style=\"margin:0\">", out);
		if (r->marker && r->marker != ' ')
			fputc(r->marker, out);
		html_text_flags(out, r->name, table_name_flags(t));
		fputs("</pre></td></tr>\n", out);
	}
	fputs("</table>\n", out);
}

/* ------------------------------------------------------------ json */

/* Column c as the library's JSON schema has it (analysis/json_schema.h). */
static struct json_col json_col_of(const struct table_col *c)
{
	return (struct json_col){.title = c->title,
				 .keyword = c->kind == TABLE_METRIC ? c->keyword : NULL,
				 .flavor = c->flavor,
				 .unit = c->unit,
				 .show_percent = c->show_percent,
				 .total = c->percent_base,
				 .sort = c->sort,
				 .group = c->group,
				 .side = c->side,
				 .compare = c->compare};
}

static void json_row(const struct table *t, const struct json_col *cols, const struct row *r,
		     const char *section, struct jsonw *w)
{
	const char *texts[MAX_COLS];
	for (size_t c = 0; c < t->ncols; c++)
		texts[c] = r->cells ? r->cells[2 * c] : NULL;
	struct json_row jr = {.section = section,
			      .vals = r->vals,
			      .texts = texts,
			      .blank = r->blank,
			      .marker = r->marker,
			      .hot = strncmp(r->prefix, "##", 2) == 0,
			      .name = r->name};
	jsonw_object_begin(w);
	json_row_fields(w, cols, t->ncols, &jr);
	jsonw_object_end(w);
}

/* "============== Callers" -> "Callers" (a section of the rows that follow). */
static const char *section_name(const char *line)
{
	while (*line == '=' || isspace((unsigned char)*line))
		line++;
	return *line ? line : NULL;
}

void table_print_json(const struct table *t, FILE *out)
{
	struct jsonw w;
	jsonw_init(&w, out, NULL, 0);
	jsonw_object_begin(&w);
	struct json_col cols[MAX_COLS];
	for (size_t c = 0; c < t->ncols; c++)
		cols[c] = json_col_of(&t->cols[c]);
	json_columns(&w, cols, t->ncols, NULL, NULL);
	jsonw_key(&w, "rows");
	jsonw_array_begin(&w);
	const char *section = NULL;
	for (size_t i = 0; i < t->nrows; i++) {
		const struct row *r = &t->rows[i];
		if (r->is_line) {
			const char *s = section_name(r->name);
			if (s)
				section = s;
			continue;
		}
		json_row(t, cols, r, section, &w);
	}
	jsonw_array_end(&w);
	jsonw_object_end(&w);
	jsonw_finish(&w);
}
