/*
 * mspec.c - parse and print metric lists.
 */
#include "er_print/mspec.h"

#include <stdio.h>
#include <string.h>

#include "analysis/profile.h"

static int find_metric(const char *name, size_t len)
{
	size_t n;
	const struct metric_def *d = profile_metric_defs(&n);
	for (size_t i = 0; i < n; i++)
		if (strlen(d[i].keyword) == len && strncmp(d[i].keyword, name, len) == 0)
			return (int)i;
	return -1;
}

static int add(struct mspec *m, struct mspec_item it, char *err, size_t errlen)
{
	if (m->n == MSPEC_MAX) {
		snprintf(err, errlen, "too many metrics (at most %d)", MSPEC_MAX);
		return -1;
	}
	m->items[m->n++] = it;
	return 0;
}

static int parse_item(const char *s, size_t len, int sort, struct mspec *m, char *err, size_t errlen)
{
	const char *end = s + len, *p = s;
	char flavors[4] = {0};
	size_t nf = 0;
	while (p < end && strchr("eia", *p) && nf < 3) {
		/* a flavor letter only if a visibility char or more letters follow: "i.total" vs "index" */
		const char *q = p;
		while (q < end && strchr("eia", *q))
			q++;
		if (q == end || !strchr(".+%!", *q))
			break;
		flavors[nf++] = *p++;
	}
	int vis_value = 0, vis_pct = 0, hidden = 0;
	while (p < end && strchr(".+%!", *p)) {
		if (*p == '.' || *p == '+')
			vis_value = 1;
		else if (*p == '%')
			vis_pct = 1;
		else
			hidden = 1;
		p++;
	}
	size_t nlen = (size_t)(end - p);
	if (nlen == 0) {
		snprintf(err, errlen, "missing metric name in '%.*s'", (int)len, s);
		return -1;
	}
	struct mspec_item it = {.show_value = vis_value, .show_percent = vis_pct, .hidden = hidden};
	if ((nlen == 4 && strncmp(p, "name", 4) == 0) || (nlen == 4 && strncmp(p, "size", 4) == 0) ||
	    (nlen == 7 && strncmp(p, "address", 7) == 0)) {
		if (nf) {
			snprintf(err, errlen, "'%.*s' takes no flavor", (int)nlen, p);
			return -1;
		}
		it.kind = p[0] == 'n' ? MSPEC_NAME : p[0] == 's' ? MSPEC_SIZE : MSPEC_ADDRESS;
		it.flavor = MSPEC_STATIC;
		if (sort && it.kind != MSPEC_NAME) {
			snprintf(err, errlen, "cannot sort by '%.*s'", (int)nlen, p);
			return -1;
		}
		return add(m, it, err, errlen);
	}
	int metric = find_metric(p, nlen);
	if (metric < 0) {
		snprintf(
			err, errlen,
			"unknown metric '%.*s' (available: totalcpu, heapalloccnt, heapallocbytes, heapleakcnt, heapleakbytes, "
			"name, size, address)",
			(int)nlen, p);
		return -1;
	}
	if (!nf)
		flavors[nf++] = sort ? 'e' : 'e';
	if (!vis_value && !vis_pct && !hidden)
		vis_value = 1;
	it.kind = MSPEC_METRIC;
	it.metric = metric;
	it.show_value = vis_value;
	it.show_percent = vis_pct;
	for (size_t i = 0; i < nf; i++) {
		it.flavor = (enum mspec_flavor)flavors[i];
		if (add(m, it, err, errlen) < 0)
			return -1;
	}
	return 0;
}

int mspec_parse(const char *text, int sort, struct mspec *ret, char *err, size_t errlen)
{
	struct mspec m = {0};
	while (*text == ' ')
		text++;
	if (strcmp(text, "default") == 0)
		text = sort ? MSPEC_DEFAULT_SORT : MSPEC_DEFAULT_METRICS;
	if (!*text) {
		snprintf(err, errlen, "empty metric list");
		return -1;
	}
	const char *s = text;
	for (;;) {
		const char *c = strchr(s, ':');
		size_t len = c ? (size_t)(c - s) : strlen(s);
		while (len && s[len - 1] == ' ')
			len--;
		if (len == 0) {
			snprintf(err, errlen, "empty item in metric list '%s'", text);
			return -1;
		}
		if (parse_item(s, len, sort, &m, err, errlen) < 0)
			return -1;
		if (!c)
			break;
		s = c + 1;
		while (*s == ' ')
			s++;
	}
	if (sort && m.n != 1) {
		snprintf(err, errlen, "sort takes one metric, e.g. e.totalcpu or name");
		return -1;
	}
	*ret = m;
	return 0;
}

void mspec_format(const struct mspec *m, char *buf, size_t room)
{
	size_t n;
	const struct metric_def *d = profile_metric_defs(&n);
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
