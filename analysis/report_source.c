/*
 * report_source.c - annotated source and disassembly rows (see
 * report_source.h).  Line figures are the line engine's (profile_line_metrics)
 * summed per source line; instruction figures the PC engine's.
 */
#include "analysis/report_source.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/disasm.h"
#include "analysis/report_list.h"

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

int report_func_position(struct profile *p, const struct pfunc *f, struct line_loc *ret)
{
	if (f->obj == PROFILE_NO_OBJECT || (f->kind != PFUNC_SYMBOL && f->kind != PFUNC_SYNTH))
		return 0;
	struct lines *ln = profile_object_lines(p, f->obj);
	return ln && lines_lookup(ln, f->addr, ret) && ret->line;
}

const char *report_find_source_file(const struct profile *p, const char *name)
{
	for (uint32_t i = 0; i < profile_line_count(p); i++) {
		const struct pline *l = profile_line(p, i);
		if (l->file && (strcmp(l->file, name) == 0 || strcmp(base_name(l->file), name) == 0))
			return l->file;
	}
	return NULL;
}

static int cmp_func_addr(const void *a, const void *b, void *ctx)
{
	const struct profile *p = ctx;
	const struct pfunc *x = profile_func(p, *(const uint32_t *)a),
			   *y = profile_func(p, *(const uint32_t *)b);
	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

long report_funcs_in_file(struct profile *p, const char *name, uint32_t **ret)
{
	size_t nf = profile_func_count(p), n = 0;
	uint32_t *v = malloc((nf ? nf : 1) * sizeof *v);
	*ret = NULL;
	if (!v)
		return -ENOMEM;
	for (uint32_t i = 0; i < nf; i++) {
		struct line_loc pos;
		if (metrics_seen(profile_metrics(p), i) &&
		    report_func_position(p, profile_func(p, i), &pos) &&
		    (strcmp(pos.file, name) == 0 || strcmp(base_name(pos.file), name) == 0))
			v[n++] = i;
	}
	if (!n) {
		free(v);
		return 0;
	}
	qsort_r(v, n, sizeof *v, cmp_func_addr, p);
	*ret = v;
	return (long)n;
}

/* ------------------------------------------------------------ source */

void report_source_free(struct report_source *s)
{
	if (!s)
		return;
	free(s->lines);
	free(s->cols);
	free(s->percent_base);
	free(s->values);
	free(s);
}

/* 1 + the last line of file that some code has (below the cap), at least text_lines + 1. */
static size_t source_extent(const struct profile *p, const char *file, size_t text_lines)
{
	uint32_t maxline = 0;
	for (uint32_t i = 0; i < profile_line_count(p); i++) {
		const struct pline *l = profile_line(p, i);
		if (l->file && strcmp(l->file, file) == 0 && l->line > maxline &&
		    l->line < REPORT_SOURCE_MAX_LINES)
			maxline = l->line;
	}
	return (text_lines > maxline ? text_lines : maxline) + 1;
}

/*
 * The registry indices of column c's numerator and denominator into
 * rnum[c], rden[c] when it is a ratio (IPC), else -1: a source line of
 * several line ids (one line in two functions, an inlined one) adds up
 * their values, but a ratio is that of its added-up parts.
 */
static void ratio_columns(const struct profile *p, const struct report_source *s, long *rnum, long *rden)
{
	size_t nd;
	const struct metric_def *d = profile_metric_defs(p, &nd);
	for (size_t c = 0; c < s->ncols; c++) {
		const struct mspec_item *it = &s->cols[c];
		int ratio = it->kind == MSPEC_METRIC && (size_t)it->metric < nd && d[it->metric].ratio_num;
		rnum[c] = ratio ? profile_metric_find(p, d[it->metric].ratio_num) : -1;
		rden[c] = ratio ? profile_metric_find(p, d[it->metric].ratio_den) : -1;
		if (rnum[c] < 0 || rden[c] < 0)
			rnum[c] = rden[c] = -1;
	}
}

/* Each line's values, whether it has data, and which lines are hot. */
static int source_values(struct profile *p, const char *file, size_t sortm, unsigned hot_percent,
			 struct report_source *s)
{
	const struct metrics *lm = profile_line_metrics(p);
	uint64_t *excl = calloc(s->nlines, sizeof *excl), hot = 0;
	/* per line and column: a ratio column's summed numerator and denominator */
	uint64_t *parts = calloc(2 * s->nlines * (s->ncols ? s->ncols : 1), sizeof *parts);
	long rnum[MSPEC_MAX], rden[MSPEC_MAX];
	if (!excl || !parts || s->ncols > MSPEC_MAX) { /* the columns come from an mspec: at most MSPEC_MAX */
		free(excl);
		free(parts);
		return s->ncols > MSPEC_MAX ? -E2BIG : -ENOMEM;
	}
	ratio_columns(p, s, rnum, rden);
	for (uint32_t i = 0; i < profile_line_count(p); i++) {
		const struct pline *l = profile_line(p, i);
		if (!l->file || strcmp(l->file, file) != 0 || l->line >= s->nlines ||
		    !metrics_seen(lm, i + 1))
			continue;
		excl[l->line] += metrics_exclusive(lm, i + 1)[sortm];
		s->lines[l->line].has = 1;
		for (size_t c = 0; c < s->ncols; c++) {
			size_t k = l->line * s->ncols + c;
			s->values[k] += report_item_value(lm, &s->cols[c], i + 1);
			if (rnum[c] < 0)
				continue;
			struct mspec_item part = s->cols[c];
			part.metric = (int)rnum[c];
			parts[2 * k] += report_item_value(lm, &part, i + 1);
			part.metric = (int)rden[c];
			parts[2 * k + 1] += report_item_value(lm, &part, i + 1);
		}
	}
	for (size_t k = 0; k < s->nlines * s->ncols; k++)
		if (rnum[k % s->ncols] >= 0)
			s->values[k] =
				parts[2 * k + 1] ? parts[2 * k] * METRIC_RATIO_SCALE / parts[2 * k + 1] : 0;
	free(parts);
	for (size_t ln = 0; ln < s->nlines; ln++)
		hot = excl[ln] > hot ? excl[ln] : hot;
	for (size_t ln = 0; ln < s->nlines; ln++)
		s->lines[ln].hot = hot && excl[ln] && excl[ln] * 100 >= hot * (uint64_t)hot_percent;
	free(excl);
	return 0;
}

/* The first function (by id) with data whose entry is each line. */
static void source_markers(struct profile *p, const char *file, struct report_source *s)
{
	for (size_t ln = 0; ln < s->nlines; ln++)
		s->lines[ln].func = UINT32_MAX;
	for (uint32_t f = 0; f < profile_func_count(p); f++) {
		struct line_loc pos;
		if (!metrics_seen(profile_metrics(p), f) ||
		    !report_func_position(p, profile_func(p, f), &pos) || strcmp(pos.file, file) != 0 ||
		    pos.line >= s->nlines || s->lines[pos.line].func != UINT32_MAX)
			continue;
		s->lines[pos.line].func = f;
	}
}

int report_source_new(struct profile *p, const char *file, const struct mspec *spec,
		      const struct mspec_item *sort, unsigned hot_percent, size_t text_lines,
		      struct report_source **ret)
{
	*ret = NULL;
	struct report_source *s = calloc(1, sizeof *s);
	if (!s)
		return -ENOMEM;
	s->nlines = source_extent(p, file, text_lines);
	long nc = report_columns_of(REPORT_FUNCTIONS, spec, profile_metrics(p), &s->cols, &s->percent_base);
	int r = nc < 0 ? (int)nc : 0;
	s->ncols = nc < 0 ? 0 : (size_t)nc;
	s->lines = calloc(s->nlines, sizeof *s->lines);
	s->values = calloc(s->nlines * (s->ncols ? s->ncols : 1), sizeof *s->values);
	if (r == 0 && (!s->lines || !s->values))
		r = -ENOMEM;
	if (r == 0)
		r = source_values(p, file, sort->kind == MSPEC_METRIC ? (size_t)sort->metric : 0, hot_percent,
				  s);
	if (r < 0) {
		report_source_free(s);
		return r;
	}
	source_markers(p, file, s);
	*ret = s;
	return 0;
}

/* ------------------------------------------------------------ disassembly */

void report_disasm_free(struct report_disasm *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nrows; i++)
		free(d->rows[i].text);
	free(d->rows);
	free(d->cols);
	free(d->percent_base);
	free(d->values);
	free(d);
}

struct dis_ctx {
	struct profile *p;
	struct report_disasm *d;
	struct lines *ln;
	uint32_t obj;
	size_t cap;
	uint64_t hot;
	unsigned hot_percent;
	const char *last_file;
	uint32_t last_line;
	int nomem;
};

/* A new row (values zeroed), or NULL. */
static struct report_disasm_row *add_row(struct dis_ctx *c)
{
	struct report_disasm *d = c->d;
	if (d->nrows == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64, nc = d->ncols ? d->ncols : 1;
		struct report_disasm_row *rows = realloc(d->rows, cap * sizeof *rows);
		if (rows)
			d->rows = rows;
		uint64_t *vals = realloc(d->values, cap * nc * sizeof *vals);
		if (vals)
			d->values = vals;
		if (!rows || !vals)
			return NULL;
		c->cap = cap;
	}
	memset(d->values + d->nrows * d->ncols, 0, d->ncols * sizeof *d->values);
	struct report_disasm_row *r = &d->rows[d->nrows++];
	memset(r, 0, sizeof *r);
	return r;
}

static void on_insn(void *ctx, const struct disasm_insn *in)
{
	struct dis_ctx *c = ctx;
	struct report_disasm *d = c->d;
	struct line_loc loc = {0};
	int has = c->ln && lines_lookup(c->ln, in->addr, &loc) && loc.line;
	if (c->nomem)
		return;
	if (has && (!c->last_file || strcmp(c->last_file, loc.file) != 0 || c->last_line != loc.line)) {
		struct report_disasm_row *r = add_row(c);
		if (!r) {
			c->nomem = 1;
			return;
		}
		*r = (struct report_disasm_row){
			.kind = REPORT_DISASM_SOURCE, .file = loc.file, .line = loc.line};
		c->last_file = loc.file;
		c->last_line = loc.line;
	}
	struct report_disasm_row *r = add_row(c);
	char *text = strdup(in->text);
	if (!r || !text) {
		free(text);
		c->nomem = 1;
		return;
	}
	*r = (struct report_disasm_row){.kind = REPORT_DISASM_INSN,
					.addr = in->addr,
					.text = text,
					.file = has ? loc.file : NULL,
					.line = has ? loc.line : 0};
	int64_t pc = profile_find_pc(c->p, c->obj, in->addr);
	uint64_t *vals = d->values + (d->nrows - 1) * d->ncols;
	for (size_t k = 0; pc >= 0 && k < d->ncols; k++)
		if (d->cols[k].kind == MSPEC_METRIC)
			vals[k] = report_item_value(profile_pc_metrics(c->p), &d->cols[k], (uint32_t)pc + 1);
	uint64_t first = d->ncols ? vals[0] : 0;
	r->hot = c->hot && first && first * 100 >= c->hot * (uint64_t)c->hot_percent;
}

/* The hottest instruction of [addr, addr + size): the first column's largest value. */
static uint64_t hottest(struct profile *p, const struct report_disasm *d, uint32_t obj, uint64_t addr,
			size_t size)
{
	uint64_t hot = 0;
	if (!d->ncols || d->cols[0].kind != MSPEC_METRIC)
		return 0;
	for (uint64_t a = addr; a < addr + size; a++) {
		int64_t pc = profile_find_pc(p, obj, a);
		if (pc >= 0) {
			uint64_t v = report_item_value(profile_pc_metrics(p), &d->cols[0], (uint32_t)pc + 1);
			hot = v > hot ? v : hot;
		}
	}
	return hot;
}

/* f's code, read from its object's file: its size (> 0) with *ret malloc'd, or a negative errno. */
static long read_code(struct profile *p, const struct pfunc *f, uint8_t **ret)
{
	if (f->obj == PROFILE_NO_OBJECT || (f->kind != PFUNC_SYMBOL && f->kind != PFUNC_SYNTH) || !f->size)
		return -EINVAL;
	size_t size = f->size > (1u << 20) ? (1u << 20) : (size_t)f->size;
	uint8_t *code = malloc(size);
	long got =
		code ? disasm_read_code(profile_object(p, f->obj)->read_path, f->addr, code, size) : -ENOMEM;
	if (got <= 0) {
		free(code);
		return got == 0 ? -ERANGE : got;
	}
	*ret = code;
	return got;
}

int report_disasm_new(struct profile *p, uint32_t f, const struct mspec *spec, unsigned hot_percent,
		      struct report_disasm **ret)
{
	*ret = NULL;
	const struct pfunc *pf = profile_func(p, f);
	uint8_t *code = NULL;
	long got = pf ? read_code(p, pf, &code) : -EINVAL;
	if (got < 0)
		return (int)got;
	struct report_disasm *d = calloc(1, sizeof *d);
	long nc =
		d ? report_columns_of(REPORT_FUNCTIONS, spec, profile_metrics(p), &d->cols, &d->percent_base)
		  : -ENOMEM;
	if (nc < 0) {
		free(code);
		report_disasm_free(d);
		return (int)nc;
	}
	d->ncols = (size_t)nc;
	struct dis_ctx c = {.p = p,
			    .d = d,
			    .ln = profile_object_lines(p, pf->obj),
			    .obj = pf->obj,
			    .hot_percent = hot_percent};
	size_t size = pf->size > (1u << 20) ? (1u << 20) : (size_t)pf->size;
	c.hot = hottest(p, d, pf->obj, pf->addr, size);
	struct line_loc pos = {0};
	d->entry_file = c.ln && lines_lookup(c.ln, pf->addr, &pos) && pos.line ? pos.file : NULL;
	long n = disasm_code(code, (size_t)got, pf->addr, on_insn, &c);
	free(code);
	if (c.nomem) {
		report_disasm_free(d);
		return -ENOMEM;
	}
	d->disasm_error = n < 0 ? (int)n : 0;
	*ret = d;
	return 0;
}
