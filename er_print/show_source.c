/*
 * show_source.c - annotated source (`source`) and disassembly (`disasm`):
 * every line of a source file with the metrics of its code, functions marked
 * where they start, hot lines (>= sthresh % of the hottest) prefixed "##";
 * every instruction of a function with its metrics, its line, and the source
 * lines interleaved.  Source files are looked up through `pathmap` prefixes,
 * as recorded, in the experiments' archives/src (er_archive -A src), and
 * along the `setpath`/`addpath` list.  The rows, their values and hot marks
 * are analysis/report_source.h's model; this file finds and shows the text.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/experiment.h"
#include "analysis/report_source.h"
#include "common/regfile.h"
#include "er_print/erp.h"
#include "er_print/show.h"
#include "er_print/table.h"
#include "er_print/textout.h"

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

static int readable_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* Find the source file `recorded` (as DWARF names it): 0 and ret_path, or -ENOENT. */
static int find_source(struct erp *e, const char *recorded, char *ret, size_t room)
{
	for (int i = 0; i < e->npathmaps; i++) {
		size_t n = strlen(e->pathmap_from[i]);
		if (strncmp(recorded, e->pathmap_from[i], n) == 0 &&
		    (size_t)snprintf(ret, room, "%s%s", e->pathmap_to[i], recorded + n) < room &&
		    readable_file(ret))
			return 0;
	}
	if (readable_file(recorded) && (size_t)snprintf(ret, room, "%s", recorded) < room)
		return 0;
	/* a copy er_archive -A src made: <exp>/archives/src/<absolute path>, a file of the experiment */
	for (size_t x = 0; recorded[0] == '/' && x < profile_experiment_count(e->prof); x++) {
		const char *ep = experiment_path(profile_experiment(e->prof, x));
		char rel[4096];
		int fd = (size_t)snprintf(rel, sizeof rel, "archives/src%s", recorded) < sizeof rel
				 ? regfile_open_in(ep, rel, NULL)
				 : -ENAMETOOLONG;
		if (fd >= 0)
			close(fd);
		if (fd >= 0 && (size_t)snprintf(ret, room, "%s/%s", ep, rel) < room)
			return 0;
	}
	const char *path = e->search_path ? e->search_path : "$expts:.";
	char dir[4096];
	for (const char *p = path; *p;) {
		const char *c = strchr(p, ':');
		size_t n = c ? (size_t)(c - p) : strlen(p);
		snprintf(dir, sizeof dir, "%.*s", (int)n, p);
		p += n + (c != NULL);
		if (strcmp(dir, "$expts") == 0) {
			for (size_t x = 0; x < profile_experiment_count(e->prof); x++) {
				const char *ep = experiment_path(profile_experiment(e->prof, x));
				if ((size_t)snprintf(ret, room, "%s/../%s", ep, base_name(recorded)) < room &&
				    readable_file(ret))
					return 0;
			}
			continue;
		}
		if ((size_t)snprintf(ret, room, "%s/%s", dir, base_name(recorded)) < room &&
		    readable_file(ret))
			return 0;
	}
	return -ENOENT;
}

/* The source text of a file: its lines (malloc'd), as found along the search rules. */
struct text {
	const char *file; /* as recorded */
	int found;
	char path[4096]; /* where it was found */
	char **lines;
	size_t n;
};

static void text_release(struct text *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->lines[i]);
	free(t->lines);
	t->lines = NULL;
	t->n = 0;
	t->found = 0;
	t->file = NULL;
}

/* Read `file`'s text into t (nothing when it is not found; a line cut at 8 KiB). */
static void text_load(struct erp *e, const char *file, struct text *t)
{
	text_release(t);
	t->file = file;
	struct stat st;
	int fd = find_source(e, file, t->path, sizeof t->path) == 0 ? regfile_open(t->path, &st) : -ENOENT;
	if (fd >= 0 && regfile_is_sparse(fd, &st, NULL)) { /* gigabytes of holes: not a source file */
		close(fd);
		fd = -REGFILE_ESPARSE;
	}
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL; /* a regular file only, opened without blocking */
	if (!f) {
		if (fd >= 0)
			close(fd);
		return;
	}
	t->found = 1;
	char buf[8192];
	size_t cap = 0;
	while (fgets(buf, sizeof buf, f) && t->n < REPORT_SOURCE_MAX_LINES) {
		buf[strcspn(buf, "\n")] = '\0';
		if (t->n == cap) {
			cap = cap ? cap * 2 : 256;
			char **v = realloc(t->lines, cap * sizeof *v);
			if (!v)
				break;
			t->lines = v;
		}
		t->lines[t->n++] = strdup(buf);
	}
	fclose(f);
}

/* Line ln (1-based) of t, "" when there is none. */
static const char *text_line(const struct text *t, size_t ln)
{
	return ln >= 1 && ln <= t->n && t->lines[ln - 1] ? t->lines[ln - 1] : "";
}

/*
 * The file a `source` argument names: a function's (*focus set), or a
 * source file named directly.  NULL after an error message.
 */
static const char *source_file_of(struct erp *e, const char *arg, const struct pfunc **focus)
{
	uint32_t fid;
	*focus = NULL;
	if (profile_find_funcs(e->prof, arg, &fid, 1) == 0 && !strchr(arg, ' ')) {
		const char *file = report_find_source_file(e->prof, arg);
		if (!file)
			erp_error(e, "source: no function or source file named '%s' in the experiment", arg);
		return file;
	}
	if (show_resolve_function(e, arg, &fid) < 0)
		return NULL;
	*focus = profile_func(e->prof, fid);
	struct line_loc pos;
	if (!report_func_position(e->prof, *focus, &pos)) {
		char buf[4096];
		erp_error(
			e,
			"source: %s has no line information (compiled without -g, or its debug file is missing)",
			erp_func_name(e, *focus, buf, sizeof buf));
		return NULL;
	}
	return pos.file;
}

/* The model's columns as a table (whose titles live in titles); NULL after an error message. */
static struct table *model_table(struct erp *e, const struct mspec_item *items, size_t n,
				 const uint64_t *base, char titles[][64])
{
	struct table_col cols[MSPEC_MAX];
	struct table *t = table_new(cols, show_columns(e, items, n, base, cols, titles));
	if (!t)
		erp_error(e, "out of memory");
	else
		table_set_indent(t);
	return t;
}

/* Every line of the file with its values, function markers and hot marks. */
static void source_rows(struct erp *e, struct table *t, const struct report_source *s, const struct text *tx)
{
	for (size_t ln = 1; ln < s->nlines; ln++) {
		const struct report_source_line *sl = &s->lines[ln];
		if (sl->func != UINT32_MAX) {
			char buf[4096], mline[4300];
			snprintf(mline, sizeof mline, "<Function: %s>",
				 erp_func_name(e, profile_func(e->prof, sl->func), buf, sizeof buf));
			table_add_annotated(t, NULL, mline, NULL, 1);
		}
		char name[8300];
		snprintf(name, sizeof name, "%5zu. %s", ln, text_line(tx, ln));
		table_add_annotated(t, s->values + ln * s->ncols, name, sl->hot ? "## " : NULL,
				    !sl->has && ln <= tx->n);
	}
}

int show_source(struct erp *e, const char *arg)
{
	if (show_prepare(e) < 0)
		return -1;
	if (!arg || !*arg) {
		erp_error(e, "source: a function or file name is required");
		return -1;
	}
	const struct pfunc *focus;
	const char *file = source_file_of(e, arg, &focus);
	if (!file)
		return -1;
	struct text tx = {0};
	text_load(e, file, &tx);
	struct report_source *s;
	if (report_source_new(e->prof, file, &e->metrics, &e->sort.items[0], (unsigned)e->sthresh, tx.n, &s) <
	    0) {
		text_release(&tx);
		erp_error(e, "out of memory");
		return -1;
	}
	const struct pobject *o =
		focus && focus->obj != PROFILE_NO_OBJECT ? profile_object(e->prof, focus->obj) : NULL;
	textout_printf(e->out, "Source file: %s\n", tx.found || tx.n ? tx.path : file);
	if (o) {
		textout_printf(e->out, "Object file: %s\n", o->symbol_file ? o->symbol_file : o->path);
		textout_printf(e->out, "Load Object: %s\n", o->path);
	}
	fputc('\n', e->out);
	if (!tx.n)
		textout_printf(e->out, "(source file %s not found; use setpath, addpath or pathmap)\n\n",
			       file);
	char titles[MSPEC_MAX][64];
	struct table *t = model_table(e, s->cols, s->ncols, s->percent_base, titles);
	if (t) {
		source_rows(e, t, s, &tx);
		erp_table_print(e, t);
		fputc('\n', e->out);
		table_free(t);
	}
	report_source_free(s);
	text_release(&tx);
	return t ? 0 : -1;
}

/* ------------------------------------------------------------ disassembly */

/* The rows of a disassembly: source lines (their text from tx, loaded per file) and instructions. */
static void disasm_rows(struct erp *e, struct table *t, const struct report_disasm *d, struct text *tx)
{
	for (size_t i = 0; i < d->nrows; i++) {
		const struct report_disasm_row *r = &d->rows[i];
		char row[8300];
		if (r->kind == REPORT_DISASM_SOURCE) {
			if (!tx->file || strcmp(tx->file, r->file) != 0)
				text_load(e, r->file, tx);
			snprintf(row, sizeof row, "%5u. %s", r->line, text_line(tx, r->line));
			table_add_annotated(t, NULL, row, NULL, 1);
		} else if (r->line) {
			snprintf(row, 512, "       [%2u] %8llx:  %s", r->line, (unsigned long long)r->addr,
				 r->text);
			table_add_annotated(t, d->values + i * d->ncols, row, r->hot ? "## " : NULL, 0);
		} else {
			snprintf(row, 512, "       [ ?] %8llx:  %s", (unsigned long long)r->addr, r->text);
			table_add_annotated(t, d->values + i * d->ncols, row, r->hot ? "## " : NULL, 0);
		}
	}
}

/* The message for a function whose disassembly cannot be shown. */
static void disasm_failed(struct erp *e, const struct pfunc *f, int r)
{
	char nbuf[4096];
	const char *name = erp_func_name(e, f, nbuf, sizeof nbuf);
	if (r == -EINVAL)
		erp_error(e, "disasm: %s has no code of its own to show (%s)", name,
			  f->kind == PFUNC_INLINE ? "inlined: see the functions it was inlined into"
						  : "no address range");
	else if (r == -ENOMEM)
		erp_error(e, "out of memory");
	else
		erp_error(e, "disasm: cannot read the code of %s from %s: %s", name,
			  profile_object(e->prof, f->obj)->read_path,
			  r == -ERANGE ? "address not in the file" : strerror(-r));
}

/* 1 if some loaded experiment has counter overflow data (collect -h). */
static int has_counters(struct erp *e)
{
	for (size_t x = 0; x < profile_experiment_count(e->prof); x++) {
		struct exp_header h;
		experiment_header(profile_experiment(e->prof, x), &h);
		if (h.has_hwc)
			return 1;
	}
	return 0;
}

static int disasm_one(struct erp *e, const struct pfunc *f)
{
	struct report_disasm *d;
	int r = report_disasm_new(e->prof, f->id, &e->metrics, (unsigned)e->dthresh, &d);
	if (r < 0) {
		disasm_failed(e, f, r);
		return -1;
	}
	const struct pobject *o = profile_object(e->prof, f->obj);
	textout_printf(e->out, "Source file: %s\n", d->entry_file ? d->entry_file : "(unknown)");
	textout_printf(e->out, "Object file: %s\n", o->symbol_file ? o->symbol_file : o->path);
	textout_printf(e->out, "Load Object: %s\n\n", o->path);
	if (has_counters(e))
		textout_printf(
			e->out,
			"Counter overflows are charged to the instruction where the thread was interrupted:\n"
			"for a hardware counter that may be an instruction or more after the one that caused\n"
			"the event (skid); precise events (COUNTER:p, :pp) narrow it where the processor has them.\n\n");
	char titles[MSPEC_MAX][64];
	struct table *t = model_table(e, d->cols, d->ncols, d->percent_base, titles);
	if (!t) {
		report_disasm_free(d);
		return -1;
	}
	char nbuf[4096], mline[4300];
	snprintf(mline, sizeof mline, "<Function: %s>", erp_func_name(e, f, nbuf, sizeof nbuf));
	table_add_annotated(t, NULL, mline, NULL, 1);
	struct text tx = {0};
	disasm_rows(e, t, d, &tx);
	if (d->disasm_error)
		erp_error(e, "disasm: capstone could not be used (%s)", strerror(-d->disasm_error));
	erp_table_print(e, t);
	fputc('\n', e->out);
	table_free(t);
	text_release(&tx);
	r = d->disasm_error ? -1 : 0;
	report_disasm_free(d);
	return r;
}

int show_disasm(struct erp *e, const char *arg)
{
	if (show_prepare(e) < 0)
		return -1;
	if (!arg || !*arg) {
		erp_error(e, "disasm: a function or file name is required");
		return -1;
	}
	uint32_t fid;
	if (profile_find_funcs(e->prof, arg, &fid, 1) > 0 || strchr(arg, ' ')) {
		if (show_resolve_function(e, arg, &fid) < 0)
			return -1;
		return disasm_one(e, profile_func(e->prof, fid));
	}
	/* a source file: every function seen in the experiment whose code starts there */
	uint32_t *v;
	long n = report_funcs_in_file(e->prof, arg, &v);
	if (n < 0) {
		erp_error(e, "out of memory");
		return -1;
	}
	if (n == 0) {
		erp_error(e, "disasm: no function or source file named '%s' in the experiment", arg);
		return -1;
	}
	int r = 0;
	for (long i = 0; i < n; i++)
		if (disasm_one(e, profile_func(e->prof, v[i])) < 0)
			r = -1;
	free(v);
	return r;
}
