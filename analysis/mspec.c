/*
 * mspec.c - parse and print metric lists.
 */
#include "analysis/mspec.h"
#include "analysis/experiment_internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "analysis/profile.h"
#include "analysis/profile_hwc.h"

static int find_metric(const struct profile *p, const char *name, size_t len)
{
	size_t n;
	const struct metric_def *d = profile_metric_defs(p, &n);
	for (size_t i = 0; i < n; i++)
		if (strlen(d[i].keyword) == len && strncmp(d[i].keyword, name, len) == 0)
			return (int)i;
	return -1;
}

static int add(struct mspec *m, struct mspec_item it, char *err, size_t errlen)
{
	if (m->n == MSPEC_MAX) {
		snprintf(err, errlen, "too many metrics (at most %d)", MSPEC_MAX);
		return -EINVAL;
	}
	m->items[m->n++] = it;
	return 0;
}

/* The flavor letters at *p (advanced past them) into flavors; their number. */
static size_t parse_flavors(const char **p, const char *end, char flavors[4])
{
	size_t nf = 0;
	while (*p < end && strchr("eia", **p) && nf < 3) {
		/* a flavor letter only if a visibility char or more letters follow: "i.total" vs "index" */
		const char *q = *p;
		while (q < end && strchr("eia", *q))
			q++;
		if (q == end || !strchr(".+%!", *q))
			break;
		flavors[nf++] = *(*p)++;
	}
	return nf;
}

/* The visibility characters at *p (advanced past them) into it. */
static void parse_visibility(const char **p, const char *end, struct mspec_item *it)
{
	for (; *p < end && strchr(".+%!", **p); (*p)++) {
		if (**p == '.' || **p == '+')
			it->show_value = 1;
		else if (**p == '%')
			it->show_percent = 1;
		else
			it->hidden = 1;
	}
}

/* name, size or address: the static columns; 1 if p[0..nlen) is one (its kind in *kind). */
static int static_column(const char *p, size_t nlen, enum mspec_kind *kind)
{
	static const struct {
		const char *name;
		enum mspec_kind kind;
	} cols[] = {{"name", MSPEC_NAME}, {"size", MSPEC_SIZE}, {"address", MSPEC_ADDRESS}};
	for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
		if (strlen(cols[i].name) == nlen && strncmp(p, cols[i].name, nlen) == 0) {
			*kind = cols[i].kind;
			return 1;
		}
	return 0;
}

static int unknown_metric(const struct profile *prof, const char *p, size_t nlen, char *err, size_t errlen)
{
	char kw[256];
	snprintf(kw, sizeof kw, "%.*s", (int)nlen, p);
	const char *needs = profile_metric_needs(prof, kw);
	if (needs) {
		snprintf(err, errlen, "metric '%s' needs %s", kw, needs);
		return -EINVAL;
	}
	size_t n, len;
	const struct metric_def *d = profile_metric_defs(prof, &n);
	snprintf(err, errlen, "unknown metric '%.*s' (available: ", (int)nlen, p);
	for (size_t i = 0; i < n && (len = strlen(err)) < errlen; i++)
		snprintf(err + len, errlen - len, "%s, ", d[i].keyword);
	if ((len = strlen(err)) < errlen)
		snprintf(err + len, errlen - len, "name, size, address)");
	return -EINVAL;
}

static const char *flavor_name(char f)
{
	return f == 'e' ? "exclusive" : f == 'i' ? "inclusive" : "attributed";
}

static unsigned flavor_bit(char f)
{
	return f == 'e' ? METRIC_FLAVOR_EXCL : f == 'i' ? METRIC_FLAVOR_INCL : METRIC_FLAVOR_ATTR;
}

static int parse_item(const struct profile *prof, const char *s, size_t len, int sort, struct mspec *m,
		      char *err, size_t errlen)
{
	const char *end = s + len, *p = s;
	char flavors[4] = {0};
	size_t nf = parse_flavors(&p, end, flavors);
	struct mspec_item it = {0};
	parse_visibility(&p, end, &it);
	size_t nlen = (size_t)(end - p);
	if (nlen == 0) {
		snprintf(err, errlen, "missing metric name in '%.*s'", (int)len, s);
		return -EINVAL;
	}
	if (static_column(p, nlen, &it.kind)) {
		if (nf) {
			snprintf(err, errlen, "'%.*s' takes no flavor", (int)nlen, p);
			return -EINVAL;
		}
		if (sort && it.kind != MSPEC_NAME) {
			snprintf(err, errlen, "cannot sort by '%.*s'", (int)nlen, p);
			return -EINVAL;
		}
		it.flavor = MSPEC_STATIC;
		return add(m, it, err, errlen);
	}
	int metric = find_metric(prof, p, nlen);
	if (metric < 0)
		return unknown_metric(prof, p, nlen, err, errlen);
	if (!nf)
		flavors[nf++] = 'e';
	size_t nd;
	const struct metric_def *d = profile_metric_defs(prof, &nd);
	for (size_t i = 0; i < nf; i++)
		if (!(d[metric].flavors & flavor_bit(flavors[i]))) {
			snprintf(err, errlen, "metric '%s' has no %s flavor", d[metric].keyword,
				 flavor_name(flavors[i]));
			return -EINVAL;
		}
	if (!it.show_value && !it.show_percent && !it.hidden)
		it.show_value = 1;
	it.kind = MSPEC_METRIC;
	it.metric = metric;
	for (size_t i = 0; i < nf; i++) {
		it.flavor = (enum mspec_flavor)flavors[i];
		int r = add(m, it, err, errlen);
		if (r < 0)
			return r;
	}
	return 0;
}

const char *mspec_default_metrics(const struct profile *p)
{
	int heap = profile_has_heap(p), io = 0;
	for (size_t x = 0; x < profile_experiment_count(p); x++)
		io |= EXP_PRESENT(profile_experiment(p, x), IO);
	const char *base = heap && io ? MSPEC_DEFAULT_HEAP_IO_METRICS
			   : heap     ? MSPEC_DEFAULT_HEAP_METRICS
			   : io       ? MSPEC_DEFAULT_IO_METRICS
				      : MSPEC_DEFAULT_METRICS;
	return profile_hwc_default_metrics(p, base); /* the counters after the CPU columns */
}

const char *mspec_default_sort(const struct profile *p)
{
	return profile_hwc_default_sort(p, MSPEC_DEFAULT_SORT);
}

int mspec_parse(const struct profile *p, const char *text, int sort, struct mspec *ret, char *err,
		size_t errlen)
{
	struct mspec m = {0};
	while (*text == ' ')
		text++;
	if (strcmp(text, "default") == 0)
		text = sort ? mspec_default_sort(p) : mspec_default_metrics(p);
	if (!*text) {
		snprintf(err, errlen, "empty metric list");
		return -EINVAL;
	}
	const char *s = text;
	for (;;) {
		const char *c = strchr(s, ':');
		size_t len = c ? (size_t)(c - s) : strlen(s);
		while (len && s[len - 1] == ' ')
			len--;
		if (len == 0) {
			snprintf(err, errlen, "empty item in metric list '%s'", text);
			return -EINVAL;
		}
		int r = parse_item(p, s, len, sort, &m, err, errlen);
		if (r < 0)
			return r;
		if (!c)
			break;
		s = c + 1;
		while (*s == ' ')
			s++;
	}
	if (sort && m.n != 1) {
		snprintf(err, errlen, "sort takes one metric, e.g. e.totalcpu or name");
		return -EINVAL;
	}
	*ret = m;
	return 0;
}

void mspec_format(const struct profile *p, const struct mspec *m, char *buf, size_t room)
{
	size_t n;
	const struct metric_def *d = profile_metric_defs(p, &n);
	size_t len = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < m->n && len < room; i++) {
		const struct mspec_item *it = &m->items[i];
		const char *name = it->kind == MSPEC_NAME      ? "name"
				   : it->kind == MSPEC_SIZE    ? "size"
				   : it->kind == MSPEC_ADDRESS ? "address"
							       : d[it->metric].keyword;
		char fl[2] = {it->kind == MSPEC_METRIC ? (char)it->flavor : '\0', '\0'};
		int w = snprintf(buf + len, room - len, "%s%s%s%s%s%s", i ? ":" : "", fl,
				 it->kind == MSPEC_METRIC && it->show_value ? "." : "",
				 it->show_percent ? "%" : "", it->hidden ? "!" : "", name);
		if (w < 0)
			break;
		len += (size_t)w;
	}
}
