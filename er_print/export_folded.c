/*
 * export_folded.c - Brendan Gregg's folded ("collapsed") stacks, as read by
 * flamegraph.pl, inferno, speedscope and others: one line per distinct
 * stack, "root;caller;...;leaf VALUE".
 *
 *  - VALUE is the chosen base metric in its integer unit: nanoseconds of
 *    CPU time (default), or counts, or bytes; stacks whose value is 0 are
 *    left out, so the values sum to <Total> of that metric exactly.
 *  - Frame names are the names er_print shows under the current `name`
 *    setting (with a symbol version where two functions share a name).
 *    A ';' in a name becomes ',' and a control character (newline, tab...)
 *    a space, so that every line splits back into frames and a value.
 *  - Lines are sorted by their text; stacks that render the same (two
 *    functions of one name in different objects, say) are one line.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"
#include "common/vec.h"
#include "er_print/export.h"

struct folded_line {
	char *text; /* the frames, without the value */
	uint64_t value;
};

struct folded {
	struct erp *e;
	size_t metric;
	VEC(struct folded_line) lines;
};

/* Append a function name with ';' and control characters replaced. */
static void add_name(struct strbuf *b, const char *name)
{
	for (const char *q = name; *q; q++) {
		char c = *q;
		if (c == ';')
			c = ',';
		else if ((unsigned char)c < 0x20 || c == 0x7f)
			c = ' ';
		strbuf_add(b, &c, 1);
	}
}

static int collect_line(const struct profile_stack *s, void *arg)
{
	struct folded *fo = arg;
	uint64_t v = s->metrics[fo->metric];
	if (!v)
		return 0;
	struct strbuf b;
	strbuf_init(&b, 0);
	char name[4096];
	for (size_t i = 0; i < s->nframes; i++) {
		if (i)
			strbuf_add(&b, ";", 1);
		add_name(&b,
			 erp_func_name(fo->e, profile_func(fo->e->prof, s->frames[i]), name, sizeof name));
	}
	struct folded_line l = {.text = strbuf_detach(&b), .value = v};
	if (b.failed || !l.text || VEC_PUSH(&fo->lines, l) < 0) {
		free(l.text);
		return -ENOMEM;
	}
	return 0;
}

static int cmp_line(const void *pa, const void *pb)
{
	const struct folded_line *a = pa, *b = pb;
	return strcmp(a->text, b->text);
}

int export_folded(struct erp *e, FILE *f, size_t metric)
{
	struct folded fo = {.e = e, .metric = metric == EXPORT_METRIC_ALL ? PROFILE_METRIC_TOTALCPU : metric};
	int r = profile_foreach_stack(e->prof, NULL, collect_line, &fo);
	if (r < 0) {
		erp_error(e, "export: %s", strerror(-r));
	} else {
		qsort(fo.lines.v, fo.lines.n, sizeof *fo.lines.v, cmp_line);
		for (size_t i = 0; i < fo.lines.n; i++) {
			uint64_t v = fo.lines.v[i].value;
			while (i + 1 < fo.lines.n && strcmp(fo.lines.v[i].text, fo.lines.v[i + 1].text) == 0)
				v += fo.lines.v[++i].value;
			fprintf(f, "%s %" PRIu64 "\n", fo.lines.v[i].text, v);
		}
	}
	for (size_t i = 0; i < fo.lines.n; i++)
		free(fo.lines.v[i].text);
	free(fo.lines.v);
	return r < 0 ? -1 : 0;
}
