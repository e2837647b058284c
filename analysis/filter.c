/*
 * filter.c - the filter expression language (see filter.h): a recursive
 * descent parser emitting a postfix program, and a stack machine running it.
 * Invariant: a compiled program is well formed and needs at most
 * FILTER_MAX_STACK values on the stack, so evaluation checks nothing and
 * allocates nothing.
 */
#include "analysis/filter.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/strbuf.h"
#include "common/vec.h"

#define FILTER_MAX_STACK 64
#define FILTER_MAX_DEPTH 48 /* parentheses and ! nested */
#define FILTER_MAX_TEXT 8192

enum op { OP_CONST, OP_PROP, OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, OP_AND, OP_OR, OP_NOT, OP_IN };

struct insn {
	uint8_t op;
	uint8_t prop;   /* OP_PROP */
	uint32_t count; /* OP_IN: ranges[first .. first + count) */
	uint64_t k;     /* OP_CONST: the value; OP_IN: first */
};

struct range {
	uint64_t lo, hi;
};

struct filter {
	char *text;
	unsigned props;
	struct insn *code;
	size_t ncode;
	struct range *ranges;
};

static const struct {
	const char *name;
	enum filter_prop prop;
	const char *help;
} prop_names[] = {
	{"THRID", FILTER_THRID, "thread number, as thread_list shows it (1, 2, ...)"},
	{"LWPID", FILTER_LWPID, "the thread's kernel id (Linux TID)"},
	{"CPU", FILTER_CPU, "CPU the event was recorded on (clock profiling only)"},
	{"SAMPLE", FILTER_SAMPLE, "number of the sample holding the event, as sample_list shows it"},
	{"TSTAMP", FILTER_TSTAMP, "event time in ns from its experiment's start"},
	{"EXPID", FILTER_EXPID, "experiment number, as experiment_list shows it (1, 2, ...)"},
	{"CPUID", FILTER_CPU, NULL}, /* Oracle's name of CPU */
};
#define NPROP_NAMES (sizeof prop_names / sizeof prop_names[0])

const char *filter_property_name(enum filter_prop prop)
{
	return (size_t)prop < FILTER_NPROPS ? prop_names[prop].name : NULL;
}

const char *filter_property_help(enum filter_prop prop)
{
	return (size_t)prop < FILTER_NPROPS ? prop_names[prop].help : NULL;
}

/* ------------------------------------------------------------ parser */

struct parser {
	const char *s, *p; /* the text, the next character */
	VEC(struct insn) code;
	VEC(struct range) ranges;
	unsigned props;
	int depth, sp, max_sp;
	char *err;
};

/* Record the first error at column (1-based) of q; always -EINVAL. */
static int fail_at(struct parser *ps, const char *q, const char *what)
{
	if (!ps->err) {
		struct strbuf m;
		strbuf_init(&m, 0);
		strbuf_addf(&m, "column %zu: %s", (size_t)(q - ps->s) + 1, what);
		ps->err = strbuf_detach(&m);
	}
	return -EINVAL;
}

static void skip_space(struct parser *ps)
{
	while (isspace((unsigned char)*ps->p))
		ps->p++;
}

static int fail_expected(struct parser *ps, const char *expected)
{
	struct strbuf m;
	strbuf_init(&m, 0);
	if (*ps->p)
		strbuf_addf(&m, "expected %s, found '%.12s'", expected, ps->p);
	else
		strbuf_addf(&m, "expected %s, found the end of the expression", expected);
	char *t = strbuf_detach(&m);
	int r = fail_at(ps, ps->p, t ? t : "syntax error");
	free(t);
	return r;
}

/* Emit an instruction with its effect on the stack depth. */
static int emit(struct parser *ps, struct insn in, int push)
{
	ps->sp += push;
	if (ps->sp > ps->max_sp)
		ps->max_sp = ps->sp;
	if (ps->max_sp > FILTER_MAX_STACK)
		return fail_at(ps, ps->p, "expression too complex");
	return VEC_PUSH(&ps->code, in) < 0 ? -ENOMEM : 0;
}

/* 1 and skip it if the text continues with token t. */
static int accept(struct parser *ps, const char *t)
{
	skip_space(ps);
	size_t n = strlen(t);
	if (strncmp(ps->p, t, n) != 0)
		return 0;
	ps->p += n;
	return 1;
}

/* An integer literal (or a decimal one with a time unit: 0.5s) with its optional time suffix into *ret. */
static int parse_number(struct parser *ps, uint64_t *ret)
{
	const char *q = ps->p;
	int base = q[0] == '0' && (q[1] == 'x' || q[1] == 'X') ? 16 : 10;
	if (base == 16)
		q += 2;
	uint64_t v = 0;
	const char *digits = q;
	for (; isxdigit((unsigned char)*q) && (base == 16 || isdigit((unsigned char)*q)); q++) {
		unsigned d = isdigit((unsigned char)*q) ? (unsigned)(*q - '0')
							: (unsigned)(tolower((unsigned char)*q) - 'a' + 10);
		if (v > (UINT64_MAX - d) / (unsigned)base)
			return fail_at(ps, ps->p, "number too large");
		v = v * (unsigned)base + d;
	}
	if (q == digits)
		return fail_at(ps, ps->p, "expected hex digits after 0x");
	uint64_t frac = 0, fden = 1; /* a decimal fraction: frac / fden, to the ns of a second */
	if (base == 10 && *q == '.' && isdigit((unsigned char)q[1]))
		for (q++; isdigit((unsigned char)*q); q++)
			if (fden < 1000000000) {
				frac = frac * 10 + (uint64_t)(*q - '0');
				fden *= 10;
			}
	int scaled = 0;
	static const struct {
		const char *s;
		uint64_t scale;
	} sfx[] = {{"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000}};
	for (size_t i = 0; i < sizeof sfx / sizeof sfx[0]; i++) {
		size_t n = strlen(sfx[i].s);
		if (strncmp(q, sfx[i].s, n) == 0 && !isalnum((unsigned char)q[n]) && q[n] != '_') {
			if (v > (UINT64_MAX - sfx[i].scale) / sfx[i].scale)
				return fail_at(ps, ps->p, "number too large");
			v = v * sfx[i].scale + frac * sfx[i].scale / fden;
			q += n;
			scaled = 1;
			break;
		}
	}
	if (fden > 1 && !scaled)
		return fail_at(ps, ps->p, "a number with a fraction needs a time unit (ns, us, ms or s)");
	if (isalnum((unsigned char)*q) || *q == '_')
		return fail_at(ps, q, "unknown suffix after a number (expected ns, us, ms or s)");
	ps->p = q;
	*ret = v;
	return 0;
}

static int parse_or(struct parser *ps);

/* A property name at ps->p. */
static int parse_property(struct parser *ps)
{
	const char *q = ps->p;
	while (isalnum((unsigned char)*q) || *q == '_')
		q++;
	size_t n = (size_t)(q - ps->p);
	for (size_t i = 0; i < NPROP_NAMES; i++)
		if (strlen(prop_names[i].name) == n && strncasecmp(prop_names[i].name, ps->p, n) == 0) {
			ps->p = q;
			ps->props |= 1u << prop_names[i].prop;
			return emit(ps, (struct insn){.op = OP_PROP, .prop = (uint8_t)prop_names[i].prop}, 1);
		}
	struct strbuf m;
	strbuf_init(&m, 0);
	strbuf_addf(&m, "unknown property '%.*s' (known: THRID, LWPID, CPU, SAMPLE, TSTAMP, EXPID)",
		    (int)(n > 32 ? 32 : n), ps->p);
	char *t = strbuf_detach(&m);
	int r = fail_at(ps, ps->p, t ? t : "unknown property");
	free(t);
	return r;
}

/* value: number | property | ( expr ) | ! value */
static int parse_unary(struct parser *ps)
{
	skip_space(ps);
	if (++ps->depth > FILTER_MAX_DEPTH)
		return fail_at(ps, ps->p, "expression nested too deeply");
	int r;
	if (*ps->p == '!' && ps->p[1] != '=') {
		ps->p++;
		r = parse_unary(ps);
		if (r == 0)
			r = emit(ps, (struct insn){.op = OP_NOT}, 0);
	} else if (*ps->p == '(') {
		ps->p++;
		r = parse_or(ps);
		if (r == 0 && !accept(ps, ")"))
			r = fail_expected(ps, "')'");
	} else if (isdigit((unsigned char)*ps->p)) {
		uint64_t v;
		r = parse_number(ps, &v);
		if (r == 0)
			r = emit(ps, (struct insn){.op = OP_CONST, .k = v}, 1);
	} else if (isalpha((unsigned char)*ps->p) || *ps->p == '_') {
		r = parse_property(ps);
	} else {
		r = fail_expected(ps, "a number, a property, '(' or '!'");
	}
	ps->depth--;
	return r;
}

/* One list item, a value or lo:hi. */
static int parse_item(struct parser *ps)
{
	struct range rg;
	skip_space(ps);
	if (!isdigit((unsigned char)*ps->p))
		return fail_expected(ps, "a number in the IN list");
	int r = parse_number(ps, &rg.lo);
	rg.hi = rg.lo;
	if (r == 0 && accept(ps, ":")) {
		skip_space(ps);
		const char *q = ps->p;
		if (!isdigit((unsigned char)*ps->p))
			return fail_expected(ps, "the end of the range lo:hi");
		r = parse_number(ps, &rg.hi);
		if (r == 0 && rg.hi < rg.lo)
			return fail_at(ps, q, "range end below its start");
	}
	if (r == 0 && VEC_PUSH(&ps->ranges, rg) < 0)
		r = -ENOMEM;
	return r;
}

/* IN ( item, ... ) after its operand. */
static int parse_in_list(struct parser *ps)
{
	if (!accept(ps, "("))
		return fail_expected(ps, "'(' after IN");
	size_t first = ps->ranges.n;
	int r;
	do
		r = parse_item(ps);
	while (r == 0 && accept(ps, ","));
	if (r == 0 && !accept(ps, ")"))
		r = fail_expected(ps, "',' or ')' in the IN list");
	if (r == 0)
		r = emit(ps,
			 (struct insn){.op = OP_IN, .k = first, .count = (uint32_t)(ps->ranges.n - first)},
			 0);
	return r;
}

/* 1 and skip it if the next word is IN (any case). */
static int accept_in(struct parser *ps)
{
	skip_space(ps);
	if (strncasecmp(ps->p, "in", 2) != 0 || isalnum((unsigned char)ps->p[2]) || ps->p[2] == '_')
		return 0;
	ps->p += 2;
	return 1;
}

/* relational: unary ((< <= > >= ) unary | IN (list))* */
static int parse_rel(struct parser *ps)
{
	int r = parse_unary(ps);
	while (r == 0) {
		enum op op;
		if (accept_in(ps)) {
			r = parse_in_list(ps);
			continue;
		}
		if (accept(ps, "<="))
			op = OP_LE;
		else if (accept(ps, ">="))
			op = OP_GE;
		else if (accept(ps, "<"))
			op = OP_LT;
		else if (accept(ps, ">"))
			op = OP_GT;
		else
			break;
		r = parse_unary(ps);
		if (r == 0)
			r = emit(ps, (struct insn){.op = (uint8_t)op}, -1);
	}
	return r;
}

/* equality: rel ((== !=) rel)* */
static int parse_eq(struct parser *ps)
{
	int r = parse_rel(ps);
	while (r == 0) {
		enum op op;
		if (accept(ps, "=="))
			op = OP_EQ;
		else if (accept(ps, "!="))
			op = OP_NE;
		else if (*ps->p == '=')
			return fail_at(ps, ps->p, "'=' is not an operator (use == to compare)");
		else
			break;
		r = parse_rel(ps);
		if (r == 0)
			r = emit(ps, (struct insn){.op = (uint8_t)op}, -1);
	}
	return r;
}

static int parse_and(struct parser *ps)
{
	int r = parse_eq(ps);
	while (r == 0 && accept(ps, "&&")) {
		r = parse_eq(ps);
		if (r == 0)
			r = emit(ps, (struct insn){.op = OP_AND}, -1);
	}
	return r;
}

static int parse_or(struct parser *ps)
{
	int r = parse_and(ps);
	while (r == 0 && accept(ps, "||")) {
		r = parse_and(ps);
		if (r == 0)
			r = emit(ps, (struct insn){.op = OP_OR}, -1);
	}
	return r;
}

int filter_compile(const char *text, struct filter **ret, char **ret_err)
{
	*ret = NULL;
	*ret_err = NULL;
	struct parser ps = {.s = text, .p = text};
	int r = strlen(text) > FILTER_MAX_TEXT ? fail_at(&ps, text, "expression too long") : parse_or(&ps);
	if (r == 0) {
		skip_space(&ps);
		if (*ps.p == '&' || *ps.p == '|')
			r = fail_at(&ps, ps.p, "'&' and '|' are not operators (use && or ||)");
		else if (*ps.p)
			r = fail_expected(&ps, "an operator or the end of the expression");
	}
	struct filter *f = r == 0 ? calloc(1, sizeof *f) : NULL;
	if (r == 0 && (!f || !(f->text = strdup(text))))
		r = -ENOMEM;
	if (r < 0) {
		free(f);
		free(ps.code.v);
		free(ps.ranges.v);
		if (r == -EINVAL)
			*ret_err = ps.err;
		else
			free(ps.err);
		return r;
	}
	f->props = ps.props;
	f->code = ps.code.v;
	f->ncode = ps.code.n;
	f->ranges = ps.ranges.v;
	*ret = f;
	return 0;
}

void filter_free(struct filter *f)
{
	if (!f)
		return;
	free(f->text);
	free(f->code);
	free(f->ranges);
	free(f);
}

const char *filter_text(const struct filter *f)
{
	return f->text;
}

unsigned filter_props(const struct filter *f)
{
	return f->props;
}

/* ------------------------------------------------------------ evaluation */

static uint64_t in_ranges(const struct range *rg, uint32_t n, uint64_t v)
{
	for (uint32_t i = 0; i < n; i++)
		if (v >= rg[i].lo && v <= rg[i].hi)
			return 1;
	return 0;
}

int filter_eval(const struct filter *f, const uint64_t *v)
{
	if ((f->props & (1u << FILTER_CPU)) && v[FILTER_CPU] == FILTER_NO_CPU)
		return 0;
	uint64_t st[FILTER_MAX_STACK];
	size_t sp = 0;
	for (size_t i = 0; i < f->ncode; i++) {
		const struct insn *in = &f->code[i];
		switch ((enum op)in->op) {
		case OP_CONST: st[sp++] = in->k; break;
		case OP_PROP: st[sp++] = v[in->prop]; break;
		case OP_NOT: st[sp - 1] = !st[sp - 1]; break;
		case OP_IN: st[sp - 1] = in_ranges(f->ranges + in->k, in->count, st[sp - 1]); break;
		case OP_EQ: sp--, st[sp - 1] = st[sp - 1] == st[sp]; break;
		case OP_NE: sp--, st[sp - 1] = st[sp - 1] != st[sp]; break;
		case OP_LT: sp--, st[sp - 1] = st[sp - 1] < st[sp]; break;
		case OP_LE: sp--, st[sp - 1] = st[sp - 1] <= st[sp]; break;
		case OP_GT: sp--, st[sp - 1] = st[sp - 1] > st[sp]; break;
		case OP_GE: sp--, st[sp - 1] = st[sp - 1] >= st[sp]; break;
		case OP_AND: sp--, st[sp - 1] = st[sp - 1] && st[sp]; break;
		case OP_OR: sp--, st[sp - 1] = st[sp - 1] || st[sp]; break;
		}
	}
	return sp == 1 && st[0] != 0;
}
