/*
 * export.c - the `export` command: FORMAT[:METRIC] FILE.  The format table
 * below names one renderer per format; each gets an open stream and a base
 * metric (EXPORT_METRIC_ALL when none was named) and builds on
 * profile_foreach_stack.  The file is only created once the
 * arguments are valid, and a failed write names the file and the error.
 */
#include "er_print/export.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "er_print/show.h"

struct export_format {
	const char *name;
	int (*write)(struct erp *e, FILE *f, size_t metric);
};

static const struct export_format formats[] = {
	{"folded", export_folded},   {"pprof", export_pprof},   {"speedscope", export_speedscope},
	{"firefox", export_firefox}, {"chrome", export_chrome},
};
#define NFORMATS (sizeof formats / sizeof formats[0])

/* The format names, "folded, speedscope, ...". */
static const char *known_formats(void)
{
	static char list[128];
	if (!list[0])
		for (size_t i = 0; i < NFORMATS; i++) {
			size_t l = strlen(list);
			snprintf(list + l, sizeof list - l, "%s%s", i ? ", " : "", formats[i].name);
		}
	return list;
}

/* The metric named by keyword kw[0..len), or -1 after an error message. */
static long find_metric(struct erp *e, const char *kw, size_t len)
{
	char name[256];
	snprintf(name, sizeof name, "%.*s", (int)len, kw);
	long k = profile_metric_find(e->prof, name);
	size_t n;
	const struct metric_def *d = profile_metric_defs(e->prof, &n);
	if (k >= 0 && d[k].unit == METRIC_UNIT_RATIO) {
		erp_error(
			e,
			"export: %s is a ratio (%s / %s), not a quantity to add up along stacks; export %s and %s",
			name, d[k].ratio_num, d[k].ratio_den, d[k].ratio_num, d[k].ratio_den);
		return -1;
	}
	if (k >= 0)
		return k;
	const char *needs = profile_metric_needs(e->prof, name);
	if (needs) {
		erp_error(e, "export: %s needs %s", name, needs);
		return -1;
	}
	char list[256] = "";
	for (size_t i = 0; i < n; i++) {
		if (d[i].unit == METRIC_UNIT_RATIO)
			continue;
		size_t l = strlen(list);
		snprintf(list + l, sizeof list - l, "%s%s", l ? ", " : "", d[i].keyword);
	}
	erp_error(e, "export: unknown metric '%.*s' (expected one of %s)", (int)len, kw, list);
	return -1;
}

int show_export(struct erp *e, const char *arg)
{
	const char *p = arg, *word = p;
	while (*p && !isspace((unsigned char)*p))
		p++;
	size_t wlen = (size_t)(p - word);
	while (isspace((unsigned char)*p))
		p++;
	const char *file = p;
	if (!*file) {
		erp_error(e, "export: missing file (export FORMAT[:METRIC] FILE, - for standard output)");
		return -1;
	}
	const char *colon = memchr(word, ':', wlen);
	size_t flen = colon ? (size_t)(colon - word) : wlen;
	const struct export_format *fmt = NULL;
	for (size_t i = 0; i < NFORMATS; i++)
		if (strlen(formats[i].name) == flen && strncmp(formats[i].name, word, flen) == 0)
			fmt = &formats[i];
	if (!fmt) {
		erp_error(e, "export: unknown format '%.*s' (known: %s)", (int)flen, word, known_formats());
		return -1;
	}
	long metric = (long)EXPORT_METRIC_ALL;
	if (colon && (metric = find_metric(e, colon + 1, wlen - flen - 1)) < 0)
		return -1;
	if (show_prepare(e) < 0)
		return -1;
	int to_stdout = strcmp(file, "-") == 0;
	FILE *f = to_stdout ? stdout : fopen(file, "w");
	if (!f) {
		erp_error(e, "export: cannot write '%s': %s", file, strerror(errno));
		return -1;
	}
	errno = 0;
	int r = fmt->write(e, f, (size_t)metric);
	int werr = ferror(f) ? (errno ? errno : EIO) : 0;
	if (fflush(f) != 0 && !werr)
		werr = errno;
	if (!to_stdout && fclose(f) != 0 && !werr)
		werr = errno;
	if (r == 0 && werr) {
		erp_error(e, "export: cannot write '%s': %s", to_stdout ? "standard output" : file,
			  strerror(werr));
		r = -1;
	}
	return r;
}
