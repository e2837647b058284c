/*
 * report_source.c - annotated source (`source`) and disassembly (`disasm`):
 * every line of a source file with the metrics of its code, functions marked
 * where they start, hot lines (>= sthresh % of the hottest) prefixed "##";
 * every instruction of a function with its metrics, its line, and the source
 * lines interleaved.  Source files are looked up through `pathmap` prefixes,
 * as recorded, in the experiments' archives/src (er_archive -A src), and
 * along the `setpath`/`addpath` list.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/disasm.h"
#include "analysis/lines.h"
#include "er_print/erp.h"
#include "er_print/report.h"
#include "er_print/table.h"

#define MAX_SOURCE_LINES 1000000

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
	/* a copy er_archive -A src made: <exp>/archives/src/<absolute path> */
	for (size_t x = 0; recorded[0] == '/' && x < profile_experiment_count(e->prof); x++) {
		const char *ep = profile_experiment(e->prof, x)->path;
		if ((size_t)snprintf(ret, room, "%s/archives/src%s", ep, recorded) < room &&
		    readable_file(ret))
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
				const char *ep = profile_experiment(e->prof, x)->path;
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

int report_func_position(struct erp *e, const struct pfunc *f, struct line_loc *ret)
{
	if (f->obj == PROFILE_NO_OBJECT || (f->kind != PFUNC_SYMBOL && f->kind != PFUNC_SYNTH))
		return 0;
	struct lines *ln = profile_object_lines(e->prof, f->obj);
	return ln && lines_lookup(ln, f->addr, ret) && ret->line;
}

struct src_line {
	uint64_t excl, incl;
	int has;
	const char *func_start; /* "<Function: name>" before this line */
};

static int build_columns(struct erp *e, struct table_col *cols, struct mspec_item *items, char titles[][64])
{
	return (int)report_columns(e, cols, items, titles);
}

int report_source(struct erp *e, const char *arg)
{
	if (report_prepare(e) < 0)
		return -1;
	if (!arg || !*arg) {
		erp_error(e, "source: a function or file name is required");
		return -1;
	}
	/* which file: a function's, or a file named directly */
	const char *file = NULL;
	const struct pfunc *focus = NULL;
	uint32_t fid;
	struct line_loc pos;
	if (profile_find_funcs(e->prof, arg, &fid, 1) > 0 || strchr(arg, ' ')) {
		if (report_resolve_function(e, arg, &fid) < 0)
			return -1;
		focus = profile_func(e->prof, fid);
		if (!report_func_position(e, focus, &pos)) {
			char buf[4096];
			erp_error(
				e,
				"source: %s has no line information (compiled without -g, or its debug file is missing)",
				erp_func_name(e, focus, buf, sizeof buf));
			return -1;
		}
		file = pos.file;
	} else {
		for (uint32_t i = 0; i < profile_line_count(e->prof); i++) {
			const struct pline *l = profile_line(e->prof, i);
			if (l->file && (strcmp(l->file, arg) == 0 || strcmp(base_name(l->file), arg) == 0)) {
				file = l->file;
				break;
			}
		}
		if (!file) {
			erp_error(e, "source: no function or source file named '%s' in the experiment", arg);
			return -1;
		}
	}
	/* metrics per line of that file, over every function whose code is there */
	const struct metrics *lm = profile_line_metrics(e->prof);
	size_t sortm = e->sort.items[0].kind == MSPEC_METRIC ? (size_t)e->sort.items[0].metric : 0;
	uint32_t maxline = 0;
	for (uint32_t i = 0; i < profile_line_count(e->prof); i++) {
		const struct pline *l = profile_line(e->prof, i);
		if (l->file && strcmp(l->file, file) == 0 && l->line > maxline && l->line < MAX_SOURCE_LINES)
			maxline = l->line;
	}
	char path[4096];
	FILE *src = find_source(e, file, path, sizeof path) == 0 ? fopen(path, "r") : NULL;
	/* count the file's lines, to annotate all of them */
	char **text = NULL;
	size_t ntext = 0, captext = 0;
	if (src) {
		char buf[8192];
		while (fgets(buf, sizeof buf, src) && ntext < MAX_SOURCE_LINES) {
			size_t n = strcspn(buf, "\n");
			buf[n] = '\0';
			if (ntext == captext) {
				captext = captext ? captext * 2 : 256;
				char **t2 = realloc(text, captext * sizeof *t2);
				if (!t2)
					break;
				text = t2;
			}
			text[ntext++] = strdup(buf);
		}
		fclose(src);
	}
	size_t nl = (ntext > maxline ? ntext : maxline) + 1;
	struct src_line *sl = calloc(nl, sizeof *sl);
	if (!sl) {
		erp_error(e, "out of memory");
		return -1;
	}
	uint64_t hot = 0;
	for (uint32_t i = 0; i < profile_line_count(e->prof); i++) {
		const struct pline *l = profile_line(e->prof, i);
		if (!l->file || strcmp(l->file, file) != 0 || l->line >= nl || !metrics_seen(lm, i + 1))
			continue;
		sl[l->line].excl += metrics_exclusive(lm, i + 1)[sortm];
		sl[l->line].incl += metrics_inclusive(lm, i + 1)[sortm];
		sl[l->line].has = 1;
	}
	for (size_t i = 0; i < nl; i++)
		hot = sl[i].excl > hot ? sl[i].excl : hot;
	/* function start markers, for functions seen in the experiment */
	char **markers = calloc(nl, sizeof *markers);
	for (uint32_t f = 0; markers && f < profile_func_count(e->prof); f++) {
		const struct pfunc *pf = profile_func(e->prof, f);
		if (!metrics_seen(profile_metrics(e->prof), f) || !report_func_position(e, pf, &pos) ||
		    strcmp(pos.file, file) != 0 || pos.line >= nl || markers[pos.line])
			continue;
		char buf[4096], name[4200];
		snprintf(name, sizeof name, "<Function: %s>", erp_func_name(e, pf, buf, sizeof buf));
		markers[pos.line] = strdup(name);
	}
	const struct pobject *o =
		focus && focus->obj != PROFILE_NO_OBJECT ? profile_object(e->prof, focus->obj) : NULL;
	fprintf(e->out, "Source file: %s\n", src || ntext ? path : file);
	if (o) {
		fprintf(e->out, "Object file: %s\n", o->symbol_file ? o->symbol_file : o->path);
		fprintf(e->out, "Load Object: %s\n", o->path);
	}
	fputc('\n', e->out);
	if (!ntext)
		fprintf(e->out, "(source file %s not found; use setpath, addpath or pathmap)\n\n", file);
	struct table_col cols[MSPEC_MAX];
	struct mspec_item items[MSPEC_MAX];
	char titles[MSPEC_MAX][64];
	size_t nc = (size_t)build_columns(e, cols, items, titles);
	struct table *t = table_new(cols, nc);
	if (!t) {
		erp_error(e, "out of memory");
		free(sl);
		return -1;
	}
	table_set_indent(t);
	for (size_t ln = 1; ln < nl; ln++) {
		if (markers && markers[ln]) {
			char mline[4300];
			snprintf(mline, sizeof mline, "%*s%s", 0, "", markers[ln]);
			table_add_annotated(t, NULL, mline, NULL, 1);
		}
		uint64_t vals[MSPEC_MAX];
		for (size_t c = 0; c < nc; c++) {
			vals[c] = 0;
			if (items[c].kind != MSPEC_METRIC)
				continue;
			/* per-line values for each column's flavor and metric */
			uint64_t v = 0;
			for (uint32_t i = 0; i < profile_line_count(e->prof) && sl[ln].has; i++) {
				const struct pline *l = profile_line(e->prof, i);
				if (l->line == ln && l->file && strcmp(l->file, file) == 0)
					v += report_item_value(lm, &items[c], i + 1);
			}
			vals[c] = v;
		}
		char name[8300];
		snprintf(name, sizeof name, "%5zu. %s", ln, ln <= ntext && text[ln - 1] ? text[ln - 1] : "");
		int is_hot = hot && sl[ln].excl && sl[ln].excl * 100 >= hot * (uint64_t)e->sthresh;
		table_add_annotated(t, vals, name, is_hot ? "## " : NULL, !sl[ln].has && ln <= ntext);
	}
	erp_table_print(e, t);
	fputc('\n', e->out);
	table_free(t);
	for (size_t i = 0; i < ntext; i++)
		free(text[i]);
	free(text);
	for (size_t i = 0; markers && i < nl; i++)
		free(markers[i]);
	free(markers);
	free(sl);
	return 0;
}

/* ------------------------------------------------------------ disassembly */

struct dis_ctx {
	struct erp *e;
	struct table *t;
	struct lines *ln;
	uint32_t obj;
	struct mspec_item *items;
	size_t nc;
	uint64_t hot;
	const char *last_file;
	uint32_t last_line;
	char **text; /* source of last_file, if found */
	size_t ntext;
	const char *text_file;
};

static void load_text(struct dis_ctx *c, const char *file)
{
	if (c->text_file && strcmp(c->text_file, file) == 0)
		return;
	for (size_t i = 0; i < c->ntext; i++)
		free(c->text[i]);
	free(c->text);
	c->text = NULL;
	c->ntext = 0;
	c->text_file = file;
	char path[4096];
	FILE *f = find_source(c->e, file, path, sizeof path) == 0 ? fopen(path, "r") : NULL;
	if (!f)
		return;
	char buf[8192];
	size_t cap = 0;
	while (fgets(buf, sizeof buf, f) && c->ntext < MAX_SOURCE_LINES) {
		buf[strcspn(buf, "\n")] = '\0';
		if (c->ntext == cap) {
			cap = cap ? cap * 2 : 256;
			char **t2 = realloc(c->text, cap * sizeof *t2);
			if (!t2)
				break;
			c->text = t2;
		}
		c->text[c->ntext++] = strdup(buf);
	}
	fclose(f);
}

static void on_insn(void *ctx, const struct disasm_insn *in)
{
	struct dis_ctx *c = ctx;
	struct line_loc loc = {0};
	int has = c->ln && lines_lookup(c->ln, in->addr, &loc) && loc.line;
	if (has && (!c->last_file || strcmp(c->last_file, loc.file) != 0 || c->last_line != loc.line)) {
		load_text(c, loc.file);
		char sline[8300];
		snprintf(sline, sizeof sline, "%5u. %s", loc.line,
			 loc.line <= c->ntext && c->text[loc.line - 1] ? c->text[loc.line - 1] : "");
		table_add_annotated(c->t, NULL, sline, NULL, 1);
		c->last_file = loc.file;
		c->last_line = loc.line;
	}
	int64_t pc = profile_find_pc(c->e->prof, c->obj, in->addr);
	const struct metrics *pm = profile_pc_metrics(c->e->prof);
	uint64_t vals[MSPEC_MAX], first = 0;
	for (size_t k = 0; k < c->nc; k++) {
		vals[k] = pc >= 0 && c->items[k].kind == MSPEC_METRIC
				  ? report_item_value(pm, &c->items[k], (uint32_t)pc + 1)
				  : 0;
		if (k == 0)
			first = vals[k];
	}
	char row[512];
	if (has)
		snprintf(row, sizeof row, "       [%2u] %8llx:  %s", loc.line, (unsigned long long)in->addr,
			 in->text);
	else
		snprintf(row, sizeof row, "       [ ?] %8llx:  %s", (unsigned long long)in->addr, in->text);
	int is_hot = c->hot && first && first * 100 >= c->hot * (uint64_t)c->e->dthresh;
	table_add_annotated(c->t, vals, row, is_hot ? "## " : NULL, 0);
}

static int disasm_one(struct erp *e, const struct pfunc *f)
{
	char nbuf[4096];
	if (f->obj == PROFILE_NO_OBJECT || (f->kind != PFUNC_SYMBOL && f->kind != PFUNC_SYNTH) || !f->size) {
		erp_error(e, "disasm: %s has no code of its own to show (%s)",
			  erp_func_name(e, f, nbuf, sizeof nbuf),
			  f->kind == PFUNC_INLINE ? "inlined: see the functions it was inlined into"
						  : "no address range");
		return -1;
	}
	const struct pobject *o = profile_object(e->prof, f->obj);
	size_t size = f->size > (1u << 20) ? (1u << 20) : (size_t)f->size;
	uint8_t *code = malloc(size);
	long got = code ? disasm_read_code(o->read_path, f->addr, code, size) : -ENOMEM;
	if (got <= 0) {
		erp_error(e, "disasm: cannot read the code of %s from %s: %s",
			  erp_func_name(e, f, nbuf, sizeof nbuf), o->read_path,
			  got == 0 ? "address not in the file" : strerror((int)-got));
		free(code);
		return -1;
	}
	struct table_col cols[MSPEC_MAX];
	struct mspec_item items[MSPEC_MAX];
	char titles[MSPEC_MAX][64];
	size_t nc = (size_t)build_columns(e, cols, items, titles);
	struct table *t = table_new(cols, nc);
	struct dis_ctx c = {.e = e,
			    .t = t,
			    .ln = profile_object_lines(e->prof, f->obj),
			    .obj = f->obj,
			    .items = items,
			    .nc = nc};
	/* the hottest instruction of the function, for the dthresh marks */
	for (uint64_t a = f->addr; a < f->addr + size; a++) {
		int64_t pc = profile_find_pc(e->prof, f->obj, a);
		if (pc >= 0 && nc && items[0].kind == MSPEC_METRIC) {
			uint64_t v =
				report_item_value(profile_pc_metrics(e->prof), &items[0], (uint32_t)pc + 1);
			c.hot = v > c.hot ? v : c.hot;
		}
	}
	struct line_loc pos = {0};
	fprintf(e->out, "Source file: %s\n",
		c.ln && lines_lookup(c.ln, f->addr, &pos) && pos.line ? pos.file : "(unknown)");
	fprintf(e->out, "Object file: %s\n", o->symbol_file ? o->symbol_file : o->path);
	fprintf(e->out, "Load Object: %s\n\n", o->path);
	if (!t) {
		free(code);
		erp_error(e, "out of memory");
		return -1;
	}
	table_set_indent(t);
	char mline[4300];
	snprintf(mline, sizeof mline, "<Function: %s>", erp_func_name(e, f, nbuf, sizeof nbuf));
	table_add_annotated(t, NULL, mline, NULL, 1);
	long n = disasm_code(code, (size_t)got, f->addr, on_insn, &c);
	if (n < 0)
		erp_error(e, "disasm: capstone could not be used (%s)", strerror((int)-n));
	erp_table_print(e, t);
	fputc('\n', e->out);
	table_free(t);
	for (size_t i = 0; i < c.ntext; i++)
		free(c.text[i]);
	free(c.text);
	free(code);
	return n < 0 ? -1 : 0;
}

static int cmp_func_addr(const void *a, const void *b)
{
	const struct pfunc *x = *(const struct pfunc *const *)a, *y = *(const struct pfunc *const *)b;
	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int report_disasm(struct erp *e, const char *arg)
{
	if (report_prepare(e) < 0)
		return -1;
	if (!arg || !*arg) {
		erp_error(e, "disasm: a function or file name is required");
		return -1;
	}
	uint32_t fid;
	if (profile_find_funcs(e->prof, arg, &fid, 1) > 0 || strchr(arg, ' ')) {
		if (report_resolve_function(e, arg, &fid) < 0)
			return -1;
		return disasm_one(e, profile_func(e->prof, fid));
	}
	/* a source file: every function seen in the experiment whose code starts there */
	size_t nf = profile_func_count(e->prof), n = 0;
	const struct pfunc **v = malloc((nf ? nf : 1) * sizeof *v);
	if (!v) {
		erp_error(e, "out of memory");
		return -1;
	}
	for (uint32_t i = 0; i < nf; i++) {
		const struct pfunc *f = profile_func(e->prof, i);
		struct line_loc pos;
		if (metrics_seen(profile_metrics(e->prof), i) && report_func_position(e, f, &pos) &&
		    (strcmp(pos.file, arg) == 0 || strcmp(base_name(pos.file), arg) == 0))
			v[n++] = f;
	}
	if (n == 0) {
		free(v);
		erp_error(e, "disasm: no function or source file named '%s' in the experiment", arg);
		return -1;
	}
	qsort(v, n, sizeof *v, cmp_func_addr);
	int r = 0;
	for (size_t i = 0; i < n; i++)
		if (disasm_one(e, v[i]) < 0)
			r = -1;
	free(v);
	return r;
}
