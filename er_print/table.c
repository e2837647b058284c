/*
 * table.c - gprofng-compatible text tables (the other printmodes:
 * table_modes.c, which shares table_internal.h).  Rows keep names as
 * given; every renderer but json's writes them escaped (textout.h), and so
 * do its lines and the experiment names of compare mode.
 */
#include "er_print/table.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "er_print/table_internal.h"
#include "er_print/textout.h"

void table_format_value(enum metric_unit unit, uint64_t v, char *buf, size_t room)
{
	if (unit == METRIC_UNIT_TIME) {
		if (v == 0)
			snprintf(buf, room, "0.   ");
		else
			snprintf(buf, room, "%.3f", (double)v / 1e9);
	} else if (unit == METRIC_UNIT_RATIO) {
		snprintf(buf, room, "%.3f", (double)v / METRIC_RATIO_SCALE);
	} else {
		snprintf(buf, room, "%llu", (unsigned long long)v);
	}
}

void table_summary_line(FILE *out, const char *label, enum metric_unit unit, uint64_t v, uint64_t total)
{
	char val[64];
	table_format_value(unit, v, val, sizeof val);
	if (unit == METRIC_UNIT_RATIO)
		textout_printf(out, "\t%24s: %s\n", label, val); /* a ratio is no share of a total */
	else if (v && total)
		textout_printf(out, "\t%24s: %s (%5.1f%%)\n", label, val, 100.0 * (double)v / (double)total);
	else
		textout_printf(out, "\t%24s: %s (  0. %%)\n", label, val);
}

void table_format_percent(uint64_t v, uint64_t base, char *buf, size_t room)
{
	if (v == 0 || base == 0)
		snprintf(buf, room, "0.  "); /* aligned on the point of "100.00" */
	else
		snprintf(buf, room, "%.2f", 100.0 * (double)v / (double)base);
}

/* A compare cell: v against the baseline's value b, as delta ('d') or ratio ('r', without the "x "). */
static void format_compare(const struct table_col *col, uint64_t v, uint64_t b, char *buf, size_t room)
{
	if (col->compare == 'd') {
		uint64_t d = v >= b ? v - b : b - v;
		char sign = v >= b ? '+' : '-';
		if (d < 500000 && col->unit == METRIC_UNIT_TIME) /* "0.000" either way */
			snprintf(buf, room, "+0.   ");
		else if (col->unit == METRIC_UNIT_TIME)
			snprintf(buf, room, "%c%.3f", sign, (double)d / 1e9);
		else if (col->unit == METRIC_UNIT_RATIO)
			snprintf(buf, room, "%c%.3f", sign, (double)d / METRIC_RATIO_SCALE);
		else
			snprintf(buf, room, "%c%llu", sign, (unsigned long long)d);
		return;
	}
	double q = b ? (double)v / (double)b : 0;
	if (v == 0 && b == 0)
		snprintf(buf, room, "1.000");
	else if (b == 0 || q > 99.999)
		snprintf(buf, room, ">99.999");
	else if (v == 0)
		snprintf(buf, room, "0.   ");
	else
		snprintf(buf, room, "%.3f", q);
}

struct table *table_new(const struct table_col *cols, size_t ncols)
{
	if (ncols > MAX_COLS)
		return NULL;
	struct table *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	memcpy(t->cols, cols, ncols * sizeof *cols);
	t->ncols = ncols;
	for (size_t c = 0; c < ncols; c++)
		if (t->cols[c].kind == TABLE_METRIC && t->cols[c].unit == METRIC_UNIT_RATIO) {
			t->cols[c].show_value = 1; /* a ratio is no share of a total */
			t->cols[c].show_percent = 0;
		}
	return t;
}

static void row_free(struct row *r, size_t ncols)
{
	if (r->cells)
		for (size_t i = 0; i < 2 * ncols; i++)
			free(r->cells[i]);
	free(r->cells);
	free(r->vals);
	free(r->name);
}

void table_free(struct table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nrows; i++)
		row_free(&t->rows[i], t->ncols);
	free(t->rows);
	free(t);
}

static struct row *new_row(struct table *t)
{
	if (t->nrows == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct row *r = realloc(t->rows, cap * sizeof *r);
		if (!r)
			return NULL;
		t->rows = r;
		t->cap = cap;
	}
	struct row *r = &t->rows[t->nrows];
	memset(r, 0, sizeof *r);
	return r;
}

void table_set_indent(struct table *t)
{
	t->indent = 1;
}

int table_add_annotated(struct table *t, const uint64_t *vals, const char *name, const char *prefix,
			int blank)
{
	static const uint64_t zeros[MAX_COLS];
	int r = table_add_row(t, vals ? vals : zeros, NULL, name, 0);
	if (r == 0) {
		struct row *row = &t->rows[t->nrows - 1];
		row->blank = blank;
		snprintf(row->prefix, sizeof row->prefix, "%-3.3s", prefix ? prefix : "");
	}
	return r;
}

int table_add_line(struct table *t, const char *line)
{
	struct row *r = new_row(t);
	if (!r || !(r->name = strdup(line)))
		return -ENOMEM;
	r->is_line = 1;
	t->nrows++;
	return 0;
}

int table_add_row(struct table *t, const uint64_t *vals, const char *const *texts, const char *name,
		  char marker)
{
	struct row *r = new_row(t);
	if (!r)
		return -ENOMEM;
	r->cells = calloc(2 * (t->ncols ? t->ncols : 1), sizeof *r->cells);
	r->vals = calloc(t->ncols ? t->ncols : 1, sizeof *r->vals);
	r->name = strdup(name);
	r->marker = marker;
	if (!r->cells || !r->vals || !r->name)
		goto nomem;
	for (size_t c = 0; c < t->ncols; c++) {
		const struct table_col *col = &t->cols[c];
		char buf[64];
		if (col->kind == TABLE_TEXT) {
			if (!(r->cells[2 * c] = strdup(texts && texts[c] ? texts[c] : "")))
				goto nomem;
			continue;
		}
		r->vals[c] = vals[c];
		if (col->show_value) {
			if (col->compare && col->compare_base < t->ncols)
				format_compare(col, vals[c], vals[col->compare_base], buf, sizeof buf);
			else
				table_format_value(col->unit, vals[c], buf, sizeof buf);
			if (!(r->cells[2 * c] = strdup(buf)))
				goto nomem;
		}
		if (col->show_percent) {
			table_format_percent(vals[c], col->percent_base, buf, sizeof buf);
			if (!(r->cells[2 * c + 1] = strdup(buf)))
				goto nomem;
		}
	}
	t->nrows++;
	return 0;
nomem:
	row_free(r, t->ncols);
	return -ENOMEM;
}

/* Width of a metric column's value and percent parts. */
static void col_widths(const struct table *t, size_t c, size_t *wv, size_t *wp)
{
	const struct table_col *col = &t->cols[c];
	*wv = 0;
	*wp = 0;
	if (col->kind == TABLE_TEXT) {
		*wv = strlen(col->title);
	} else {
		if (col->show_value)
			*wv = col->compare ? 5 : col->unit == METRIC_UNIT_TIME ? 5 : 1;
		if (col->show_percent)
			*wp = 6;
	}
	for (size_t i = 0; i < t->nrows; i++) {
		const struct row *r = &t->rows[i];
		if (r->is_line)
			continue;
		size_t x = col->compare == 'r' ? 2 : 0; /* "x " before a ratio */
		if (r->cells[2 * c] && strlen(r->cells[2 * c]) + x > *wv)
			*wv = strlen(r->cells[2 * c]) + x;
		if (r->cells[2 * c + 1] && strlen(r->cells[2 * c + 1]) > *wp)
			*wp = strlen(r->cells[2 * c + 1]);
	}
}

static size_t col_width(const struct table *t, size_t c, size_t wv, size_t wp)
{
	(void)t, (void)c;
	return wv + wp + (wv && wp ? 1 : 0);
}

/*
 * Split a title into lines of at most `width` chars at spaces (greedy);
 * *rest: 1 if words were left over after maxlines lines.
 */
static size_t wrap(const char *title, size_t width, char lines[][64], size_t maxlines, int *rest)
{
	size_t n = 0;
	const char *p = title;
	while (*p && n < maxlines) {
		while (*p == ' ')
			p++;
		size_t len = 0, last_fit = 0;
		const char *q = p;
		while (*q) {
			const char *w = q;
			while (*w && *w != ' ')
				w++;
			size_t cand = (size_t)(w - p);
			if (cand > width && last_fit)
				break;
			last_fit = cand;
			q = w;
			if (!*q)
				break;
			q++;
		}
		len = last_fit;
		if (len > 63)
			len = 63;
		memcpy(lines[n], p, len);
		lines[n][len] = '\0';
		n++;
		p += last_fit;
	}
	while (*p == ' ')
		p++;
	*rest = *p != '\0';
	return n;
}

static void put_right(FILE *out, const char *s, size_t w)
{
	size_t n = s ? strlen(s) : 0;
	for (size_t i = n; i < w; i++)
		fputc(' ', out);
	if (s)
		fputs(s, out);
}

/* s escaped, then blanks to width w. */
static void put_left(FILE *out, const char *s, size_t w)
{
	textout_printf(out, "%-*s", (int)w, s);
}

/* Emit `line` without trailing blanks. */
static void flush_line(FILE *out, char *line)
{
	size_t n = strlen(line);
	while (n && line[n - 1] == ' ')
		n--;
	line[n] = '\0';
	fputs(line, out);
	fputc('\n', out);
}

/* Column widths (value, percent, whole) and wrapped titles of a table. */
struct layout {
	size_t wv[MAX_COLS], wp[MAX_COLS], w[MAX_COLS];
	char titles[MAX_COLS][4][64];
	size_t nt[MAX_COLS], hdr_lines;
	int grouped; /* compare mode: a first header line of experiment names */
};

static void layout_of(const struct table *t, struct layout *L)
{
	L->hdr_lines = 1;
	L->grouped = 0;
	for (size_t c = 0; c < t->ncols; c++)
		L->grouped |= t->cols[c].group != NULL;
	for (size_t c = 0; c < t->ncols; c++) {
		col_widths(t, c, &L->wv[c], &L->wp[c]);
		L->w[c] = col_width(t, c, L->wv[c], L->wp[c]);
		if (t->cols[c].group && textout_len(t->cols[c].group, 0) > L->w[c])
			L->w[c] = textout_len(t->cols[c].group, 0);
		/* a title of more than three lines at the values' width widens the column */
		int rest;
		while ((L->nt[c] = wrap(t->cols[c].title, L->w[c], L->titles[c], 3, &rest)), rest)
			L->w[c]++;
		for (size_t i = 0; i < L->nt[c]; i++)
			if (strlen(L->titles[c][i]) > L->w[c])
				L->w[c] = strlen(L->titles[c][i]);
		if (L->w[c] > L->wv[c] + L->wp[c] + (L->wv[c] && L->wp[c]))
			L->wv[c] = L->w[c] - L->wp[c] - (L->wp[c] ? 1 : 0);
		size_t lines = L->nt[c] + (t->cols[c].kind == TABLE_METRIC ? 1 : 0);
		if (lines > L->hdr_lines)
			L->hdr_lines = lines;
	}
	L->hdr_lines += (size_t)L->grouped;
}

/* The compare mode's first header line: each column's experiment (group) name. */
static void group_line(const struct table *t, const struct layout *L, FILE *m)
{
	if (t->indent)
		fputs("   ", m);
	for (size_t c = 0; c < t->ncols; c++) {
		put_left(m, t->cols[c].group ? t->cols[c].group : "", L->w[c]);
		fputs(c + 1 < t->ncols ? "  " : "   ", m);
	}
}

/* Header line l: title lines top-aligned, units on the last line. */
static void header_line(const struct table *t, const struct layout *L, size_t l, FILE *m)
{
	if (L->grouped && l == 0) {
		group_line(t, L, m);
		return;
	}
	l -= (size_t)L->grouped;
	if (t->indent)
		fputs("   ", m);
	for (size_t c = 0; c < t->ncols; c++) {
		const struct table_col *col = &t->cols[c];
		const char *sep = c + 1 < t->ncols ? "  " : "   ";
		if (col->kind == TABLE_METRIC && l == L->hdr_lines - 1 - (size_t)L->grouped) {
			const char *unit = col->compare == 'd'             ? "delta"
					   : col->compare == 'r'           ? "ratio"
					   : col->unit == METRIC_UNIT_TIME ? " sec."
									   : "";
			if (L->wv[c])
				put_right(m, unit, L->wv[c]);
			if (L->wv[c] && L->wp[c])
				fputc(' ', m);
			if (L->wp[c])
				put_right(m, "%", L->wp[c]);
		} else {
			put_left(m, l < L->nt[c] ? L->titles[c][l] : "", L->w[c]);
		}
		fputs(sep, m);
	}
	if (t->ncols == 0)
		fputs("   ", m);
	if (l == 0)
		fputs("Name", m);
}

static void print_header(const struct table *t, const struct layout *L, FILE *out)
{
	size_t linecap = 4096;
	char *line = malloc(linecap);
	if (!line)
		return;
	for (size_t l = 0; l < L->hdr_lines; l++) {
		FILE *m = fmemopen(line, linecap - 1, "w");
		if (!m)
			break;
		header_line(t, L, l, m);
		fclose(m);
		line[linecap - 1] = '\0';
		flush_line(out, line);
	}
	free(line);
}

static void print_cell(const struct table *t, const struct layout *L, const struct row *r, size_t c,
		       FILE *out)
{
	const struct table_col *col = &t->cols[c];
	if (r->blank) {
		for (size_t k = 0; k < L->w[c]; k++)
			fputc(' ', out);
	} else if (col->kind == TABLE_TEXT) {
		put_right(out, r->cells[2 * c], L->w[c]);
	} else {
		if (L->wv[c] && col->compare == 'r' && r->cells[2 * c]) {
			fputs("x ", out);
			put_right(out, r->cells[2 * c], L->wv[c] - 2);
		} else if (L->wv[c]) {
			put_right(out, r->cells[2 * c], L->wv[c]);
		}
		if (L->wv[c] && L->wp[c])
			fputc(' ', out);
		if (L->wp[c])
			put_right(out, r->cells[2 * c + 1], L->wp[c]);
	}
}

static void print_row(const struct table *t, const struct layout *L, const struct row *r, FILE *out)
{
	if (r->is_line) {
		textout_puts(out, r->name, 0);
		fputc('\n', out);
		return;
	}
	if (t->indent)
		fputs(r->prefix[0] ? r->prefix : "   ", out);
	for (size_t c = 0; c < t->ncols; c++) {
		print_cell(t, L, r, c, out);
		if (c + 1 < t->ncols)
			fputs("  ", out);
	}
	fputs(r->marker ? "  " : "   ", out);
	if (r->marker)
		fputc(r->marker, out);
	textout_puts(out, r->name, table_name_flags(t));
	fputc('\n', out);
}

void table_print(const struct table *t, FILE *out)
{
	struct layout L;
	layout_of(t, &L);
	print_header(t, &L, out);
	for (size_t i = 0; i < t->nrows; i++)
		print_row(t, &L, &t->rows[i], out);
}
