/*
 * hwcdesc.c - counters in PA_PARAMS (see hwcdesc.h).
 */
#include "experiment/hwcdesc.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int hwcdesc_format(const struct hwcdesc *c, size_t n, char *buf, size_t room)
{
	size_t len = strlen(buf);
	if (n > EXP_HWC_MAX_COUNTERS)
		return -EINVAL;
	int w = snprintf(buf + len, room - len, ";h=%zu", n);
	for (size_t i = 0; i < n && w >= 0 && (size_t)w < room - len; i++) {
		if (strchr(c[i].name, ';')) {
			buf[len] = '\0';
			return -EINVAL;
		}
		size_t at = len + (size_t)w;
		int k = snprintf(buf + at, room - at, ";h%zu=%u:%llu:%llu:%llu:%d:%d:%llu:%s", i, c[i].type,
				 (unsigned long long)c[i].config, (unsigned long long)c[i].config1,
				 (unsigned long long)c[i].config2, c[i].exclude_kernel, c[i].precise,
				 (unsigned long long)c[i].interval, c[i].name);
		w = k < 0 ? k : w + k;
	}
	if (w < 0 || (size_t)w >= room - len) {
		buf[len] = '\0';
		return -ENOSPC;
	}
	return 0;
}

static uint64_t parse_u64(const char **s)
{
	uint64_t v = 0;
	while (**s >= '0' && **s <= '9')
		v = v * 10 + (uint64_t)(*(*s)++ - '0');
	return v;
}

/* One "type:config:config1:config2:xk:precise:interval:name" value; 0 or -EINVAL. */
static int parse_one(const char *s, struct hwcdesc *d)
{
	uint64_t f[7];
	for (int i = 0; i < 7; i++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		f[i] = parse_u64(&s);
		if (*s++ != ':')
			return -EINVAL;
	}
	size_t n = strcspn(s, ";");
	if (n == 0 || n >= sizeof d->name || f[6] == 0 || f[0] > UINT32_MAX)
		return -EINVAL;
	d->type = (uint32_t)f[0];
	d->config = f[1];
	d->config1 = f[2];
	d->config2 = f[3];
	d->exclude_kernel = f[4] != 0;
	d->precise = f[5] > 3 ? 3 : (int)f[5];
	d->interval = f[6];
	memcpy(d->name, s, n);
	d->name[n] = '\0';
	return 0;
}

size_t hwcdesc_parse(const char *s, struct hwcdesc *ret)
{
	size_t want = 0, n = 0;
	while (s && *s) {
		if (s[0] == 'h' && s[1] == '=') {
			s += 2;
			uint64_t v = parse_u64(&s);
			want = v > EXP_HWC_MAX_COUNTERS ? EXP_HWC_MAX_COUNTERS : (size_t)v;
		} else if (s[0] == 'h' && s[1] >= '0' && s[1] <= '9' && s[2] == '=') {
			size_t k = (size_t)(s[1] - '0');
			if (k == n && k < EXP_HWC_MAX_COUNTERS && parse_one(s + 3, &ret[k]) == 0)
				n++;
		}
		while (*s && *s != ';')
			s++;
		if (*s == ';')
			s++;
	}
	return n < want ? n : want;
}

void hwcdesc_attr(const struct hwcdesc *c, struct perf_event_attr *a)
{
	memset(a, 0, sizeof *a);
	a->size = sizeof *a;
	a->type = c->type;
	a->config = c->config;
	a->config1 = c->config1;
	a->config2 = c->config2;
	a->sample_period = c->interval;
	a->sample_type = 0; /* header-only samples: the collector only counts them */
	a->disabled = 1;
	a->exclude_kernel = (unsigned)c->exclude_kernel;
	a->exclude_hv = 1;
	a->precise_ip = (unsigned)c->precise;
	a->wakeup_events = 1; /* a signal per overflow */
}
