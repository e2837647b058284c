/*
 * printmode.c - er_print's `printmode text|html|json|<character>`: how
 * reports are written.  text is gprofng's layout; a single character
 * writes tables as delimiter-separated values (gprofng's layout), other
 * output as it is; html writes tables as HTML tables and other output in
 * <pre>; json writes each report as one JSON object on one line (JSON
 * Lines): {"report": NAME, "arg": ARG, "tables": [...], "text": [...]},
 * each table {"columns": [...], "rows": [...]} with typed numbers
 * (table_print_json), and the report's other lines as strings.
 *
 * html and json capture a report's output (open_memstream): tables are
 * framed by two control bytes in the capture, so they are told apart from
 * the text around them.
 */
#include <stdlib.h>
#include <string.h>

#include "common/jsonw.h"
#include "er_print/erp.h"
#include "er_print/table.h"

#define FRAME_BEGIN '\001'
#define FRAME_END '\002'

int cmd_printmode(struct erp *e, const char *arg)
{
	if (!arg) {
		if (e->printmode == ERP_PRINT_DELIM)
			fprintf(e->out, "printmode is set to `%c'\n", e->delim);
		else
			fprintf(e->out, "printmode is set to `%s'\n",
				e->printmode == ERP_PRINT_HTML   ? "html"
				: e->printmode == ERP_PRINT_JSON ? "json"
								 : "text");
		return 0;
	}
	if (strcmp(arg, "text") == 0) {
		e->printmode = ERP_PRINT_TEXT;
	} else if (strcmp(arg, "html") == 0) {
		e->printmode = ERP_PRINT_HTML;
	} else if (strcmp(arg, "json") == 0) {
		e->printmode = ERP_PRINT_JSON;
	} else if (strlen(arg) == 1 && arg[0] != '"' && (unsigned char)arg[0] > ' ' && arg[0] != 0x7f) {
		e->printmode = ERP_PRINT_DELIM;
		e->delim = arg[0];
	} else {
		erp_error(e, "printmode: '%s' is not text, html, json or a single delimiter character", arg);
		return -1;
	}
	return 0;
}

void erp_table_print(struct erp *e, const struct table *t)
{
	switch (e->printmode) {
	case ERP_PRINT_TEXT: table_print(t, e->out); break;
	case ERP_PRINT_DELIM: table_print_delim(t, e->delim, e->out); break;
	case ERP_PRINT_HTML:
	case ERP_PRINT_JSON:
		fputc(FRAME_BEGIN, e->out);
		if (e->printmode == ERP_PRINT_HTML)
			table_print_html(t, e->out);
		else
			table_print_json(t, e->out);
		fputc(FRAME_END, e->out);
		break;
	}
}

/* One JSON string value (escaped by jsonw). */
static void json_str(FILE *out, const char *s, size_t n)
{
	struct jsonw w;
	jsonw_init(&w, out, NULL, 0);
	jsonw_string_n(&w, s, n);
}

/* The text lines of [p, end), without blank lines at either end, as JSON strings. */
static int json_lines(FILE *out, const char *p, const char *end, int first)
{
	while (p < end && (*p == '\n'))
		p++;
	while (end > p && (end[-1] == '\n'))
		end--;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		if (!first)
			fputc(',', out);
		json_str(out, p, (size_t)(le - p));
		first = 0;
		p = nl ? nl + 1 : end;
	}
	return first;
}

static void emit_json(FILE *out, const char *name, const char *arg, const char *buf, size_t len)
{
	const char *end = buf + len;
	fputs("{\"report\":", out);
	json_str(out, name, strlen(name));
	fputs(",\"arg\":", out);
	if (arg)
		json_str(out, arg, strlen(arg));
	else
		fputs("null", out);
	fputs(",\"tables\":[", out);
	int first = 1;
	for (const char *p = buf; p < end; p++) {
		if (*p != FRAME_BEGIN)
			continue;
		const char *q = memchr(p, FRAME_END, (size_t)(end - p));
		if (!q)
			break;
		size_t n = (size_t)(q - p - 1);
		while (n && p[n] == '\n') /* jsonw_finish's newline */
			n--;
		fprintf(out, "%s%.*s", first ? "" : ",", (int)n, p + 1);
		first = 0;
		p = q;
	}
	fputs("],\"text\":[", out);
	first = 1;
	const char *p = buf;
	while (p < end) {
		const char *f = memchr(p, FRAME_BEGIN, (size_t)(end - p));
		const char *stop = f ? f : end;
		first = json_lines(out, p, stop, first);
		const char *q = f ? memchr(f, FRAME_END, (size_t)(end - f)) : NULL;
		p = q ? q + 1 : end;
	}
	fputs("]}\n", out);
}

static void html_pre(FILE *out, const char *p, const char *end)
{
	while (p < end && *p == '\n')
		p++;
	while (end > p && end[-1] == '\n')
		end--;
	if (p == end)
		return;
	fputs("<pre>", out);
	for (; p < end; p++) {
		if (*p == '<')
			fputs("&lt;", out);
		else if (*p == '>')
			fputs("&gt;", out);
		else if (*p == '&')
			fputs("&amp;", out);
		else
			fputc(*p, out);
	}
	fputs("</pre>\n", out);
}

static void emit_html(FILE *out, const char *buf, size_t len)
{
	const char *end = buf + len, *p = buf;
	while (p < end) {
		const char *f = memchr(p, FRAME_BEGIN, (size_t)(end - p));
		html_pre(out, p, f ? f : end);
		if (!f)
			break;
		const char *q = memchr(f, FRAME_END, (size_t)(end - f));
		fwrite(f + 1, 1, (size_t)((q ? q : end) - f - 1), out);
		p = q ? q + 1 : end;
	}
}

int printmode_run(struct erp *e, int (*fn)(struct erp *, const char *), const char *name, const char *arg)
{
	if (e->printmode != ERP_PRINT_HTML && e->printmode != ERP_PRINT_JSON)
		return fn(e, arg);
	int (*typed)(struct erp *, const char *) = e->printmode == ERP_PRINT_JSON ? show_json_of(name) : NULL;
	if (typed)
		return typed(e, arg);
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	if (!mem)
		return fn(e, arg);
	FILE *out = e->out;
	e->out = mem;
	int r = fn(e, arg);
	e->out = out;
	fclose(mem);
	if (len && e->printmode == ERP_PRINT_JSON)
		emit_json(out, name, arg, buf, len);
	else if (len)
		emit_html(out, buf, len);
	free(buf);
	return r;
}
