/*
 * params.c - PA_PARAMS (see params.h): one table of keys, each with the
 * code that writes it and the code that reads it back.
 */
#include "experiment/params.h"

#include <errno.h>
#include <string.h>

/* ------------------------------------------------------------ writing */

struct out {
	char *buf;
	size_t room, len;
	int err; /* the first failure: -ENOSPC or -EINVAL */
};

static void put_char(struct out *o, char c)
{
	if (o->len + 1 >= o->room) {
		o->err = o->err ? o->err : -ENOSPC;
		return;
	}
	o->buf[o->len++] = c;
}

static void put_str(struct out *o, const char *s)
{
	while (*s)
		put_char(o, *s++);
}

static void put_u64(struct out *o, uint64_t v)
{
	char digits[20];
	int n = 0;
	do
		digits[n++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	while (n > 0)
		put_char(o, digits[--n]);
}

/* ";" before every item but the first, then "K=" (index >= 0: "K<index>="). */
static void put_key(struct out *o, char name, int index)
{
	if (o->len)
		put_char(o, ';');
	put_char(o, name);
	if (index >= 0)
		put_u64(o, (uint64_t)index);
	put_char(o, '=');
}

static void refuse(struct out *o)
{
	o->err = o->err ? o->err : -EINVAL;
}

/* ------------------------------------------------------------ reading */

/* What decoding carries from item to item. */
struct dec {
	struct exp_params *p;
	size_t hwc_taken; /* counters read whole, in order */
	size_t hwc_want;  /* h=<n>, at most EXP_HWC_MAX_COUNTERS */
};

static uint64_t get_u64(const char **s)
{
	uint64_t v = 0;
	while (**s >= '0' && **s <= '9')
		v = v * 10 + (uint64_t)(*(*s)++ - '0');
	return v;
}

static int get_signal(const char **s)
{
	uint64_t v = get_u64(s);
	return v <= EXP_PARAMS_SIGNAL_MAX ? (int)v : 0;
}

/* ------------------------------------------------------------ the keys */

struct key;
typedef void (*put_fn)(struct out *o, const struct key *k, const struct exp_params *p);
/* v: the value, after "K=" (index: K<index>=, or -1). */
typedef void (*get_fn)(struct dec *d, const struct key *k, const char *v, int index);

struct key {
	char name;
	int tracer;  /* the tracer whose key it is (enum exp_params_tracer), or -1 */
	int indexed; /* K<digit>= items belong to it too */
	put_fn put;
	get_fn get;
};

static void put_interval(struct out *o, const struct key *k, const struct exp_params *p)
{
	put_key(o, k->name, -1);
	put_u64(o, p->interval_us);
}

static void get_interval(struct dec *d, const struct key *k, const char *v, int index)
{
	(void)k, (void)index;
	uint64_t us = get_u64(&v);
	d->p->interval_us = us > EXP_PARAMS_INTERVAL_MAX_US ? EXP_PARAMS_INTERVAL_MAX_US : (uint32_t)us;
}

static void put_depth(struct out *o, const struct key *k, const struct exp_params *p)
{
	put_key(o, k->name, -1);
	put_u64(o, p->depth_limit);
}

static void get_depth(struct dec *d, const struct key *k, const char *v, int index)
{
	(void)k, (void)index;
	uint64_t n = get_u64(&v);
	d->p->depth_limit = n < 1 ? 1 : n > EXP_PARAMS_DEPTH_MAX ? EXP_PARAMS_DEPTH_MAX : (uint32_t)n;
}

static void put_window(struct out *o, const struct key *k, const struct exp_params *p)
{
	if (!p->window_set)
		return;
	put_key(o, k->name, -1);
	put_u64(o, p->window_start_s);
	put_char(o, ':');
	put_u64(o, p->window_end_s);
}

static void get_window(struct dec *d, const struct key *k, const char *v, int index)
{
	(void)k, (void)index;
	d->p->window_set = 1;
	d->p->window_start_s = get_u64(&v);
	if (*v == ':') {
		v++;
		d->p->window_end_s = get_u64(&v);
	}
}

static void put_tracer(struct out *o, const struct key *k, const struct exp_params *p)
{
	if (!p->tracer[k->tracer])
		return;
	put_key(o, k->name, -1);
	put_char(o, '1');
}

static void get_tracer(struct dec *d, const struct key *k, const char *v, int index)
{
	(void)index;
	d->p->tracer[k->tracer] = get_u64(&v) != 0;
}

static void put_threshold(struct out *o, const struct key *k, const struct exp_params *p)
{
	if (!p->sync_threshold_set)
		return;
	put_key(o, k->name, -1);
	put_u64(o, p->sync_threshold_us);
}

static void get_threshold(struct dec *d, const struct key *k, const char *v, int index)
{
	(void)k, (void)index;
	d->p->sync_threshold_set = 1;
	d->p->sync_threshold_us = get_u64(&v);
}

static void put_sample(struct out *o, const struct key *k, const struct exp_params *p)
{
	if (p->sample_period_s == 1)
		return;
	put_key(o, k->name, -1);
	put_u64(o, p->sample_period_s);
}

static void get_sample(struct dec *d, const struct key *k, const char *v, int index)
{
	(void)k, (void)index;
	uint64_t s = get_u64(&v);
	d->p->sample_period_s = s > EXP_PARAMS_SAMPLE_MAX_S ? EXP_PARAMS_SAMPLE_MAX_S : (uint32_t)s;
}

static void put_sample_signal(struct out *o, const struct key *k, const struct exp_params *p)
{
	if (!p->sample_signal)
		return;
	if (p->sample_signal < 0)
		refuse(o);
	put_key(o, k->name, -1);
	put_u64(o, (uint64_t)p->sample_signal);
}

static void get_sample_signal(struct dec *d, const struct key *k, const char *v, int index)
{
	(void)k, (void)index;
	d->p->sample_signal = get_signal(&v);
}

static void put_pause(struct out *o, const struct key *k, const struct exp_params *p)
{
	if (!p->pause_signal)
		return;
	if (p->pause_signal < 0)
		refuse(o);
	put_key(o, k->name, -1);
	put_u64(o, (uint64_t)p->pause_signal);
	if (p->start_paused)
		put_char(o, 'p');
}

static void get_pause(struct dec *d, const struct key *k, const char *v, int index)
{
	(void)k, (void)index;
	d->p->pause_signal = get_signal(&v);
	d->p->start_paused = d->p->pause_signal && *v == 'p'; /* no signal: nothing to pause on */
}

static void put_follow(struct out *o, const struct key *k, const struct exp_params *p)
{
	if (p->follow == EXP_PARAMS_FOLLOW_ON)
		return;
	if (p->follow != EXP_PARAMS_FOLLOW_OFF && p->follow != EXP_PARAMS_FOLLOW_REGEX)
		refuse(o);
	put_key(o, k->name, -1);
	put_u64(o, (uint64_t)p->follow);
}

static void get_follow(struct dec *d, const struct key *k, const char *v, int index)
{
	(void)k, (void)index;
	uint64_t f = get_u64(&v);
	d->p->follow = f == 0   ? EXP_PARAMS_FOLLOW_OFF
		       : f == 2 ? EXP_PARAMS_FOLLOW_REGEX
				: EXP_PARAMS_FOLLOW_ON;
}

/* 1 if c's name is non-empty, ends within its array and holds no ';'. */
static int name_ok(const struct hwcdesc *c)
{
	size_t n = 0;
	while (n < sizeof c->name && c->name[n] && c->name[n] != ';')
		n++;
	return n > 0 && n < sizeof c->name && c->name[n] == '\0';
}

/* One counter's value: type:config:config1:config2:exclude_kernel:precise:interval:name. */
static void put_counter(struct out *o, const struct hwcdesc *c)
{
	if (!name_ok(c) || c->interval == 0 || (c->exclude_kernel != 0 && c->exclude_kernel != 1) ||
	    c->precise < 0 || c->precise > 3) {
		refuse(o);
		return;
	}
	const uint64_t f[7] = {c->type,
			       c->config,
			       c->config1,
			       c->config2,
			       (uint64_t)c->exclude_kernel,
			       (uint64_t)c->precise,
			       c->interval};
	for (int i = 0; i < 7; i++) {
		put_u64(o, f[i]);
		put_char(o, ':');
	}
	put_str(o, c->name);
}

static void put_hwc(struct out *o, const struct key *k, const struct exp_params *p)
{
	if (!p->hwc_count)
		return;
	if (p->hwc_count > EXP_HWC_MAX_COUNTERS) {
		refuse(o);
		return;
	}
	put_key(o, k->name, -1);
	put_u64(o, p->hwc_count);
	for (size_t i = 0; i < p->hwc_count; i++) {
		put_key(o, k->name, (int)i);
		put_counter(o, &p->hwc[i]);
	}
}

/* One counter's value into c: 0, or -EINVAL (c may be changed then). */
static int get_counter(const char *s, struct hwcdesc *c)
{
	uint64_t f[7];
	for (int i = 0; i < 7; i++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		f[i] = get_u64(&s);
		if (*s++ != ':')
			return -EINVAL;
	}
	size_t n = 0;
	while (s[n] && s[n] != ';')
		n++;
	if (n == 0 || n >= sizeof c->name || f[6] == 0 || f[0] > UINT32_MAX)
		return -EINVAL;
	c->type = (uint32_t)f[0];
	c->config = f[1];
	c->config1 = f[2];
	c->config2 = f[3];
	c->exclude_kernel = f[4] != 0;
	c->precise = f[5] > 3 ? 3 : (int)f[5];
	c->interval = f[6];
	memcpy(c->name, s, n);
	c->name[n] = '\0';
	return 0;
}

static void get_hwc(struct dec *d, const struct key *k, const char *v, int index)
{
	if (index < 0) { /* h=<n>: the tracer on, and at most n counters */
		uint64_t n = get_u64(&v);
		d->p->tracer[k->tracer] = n != 0;
		d->hwc_want = n > EXP_HWC_MAX_COUNTERS ? EXP_HWC_MAX_COUNTERS : (size_t)n;
	} else if ((size_t)index == d->hwc_taken && d->hwc_taken < EXP_HWC_MAX_COUNTERS &&
		   get_counter(v, &d->p->hwc[index]) == 0) {
		d->hwc_taken++;
	}
}

/* Every key, in the order the encoder writes them. */
static const struct key keys[] = {
	{'p', -1, 0, put_interval, get_interval},
	{'d', -1, 0, put_depth, get_depth},
	{'t', -1, 0, put_window, get_window},
	{'H', EXP_PARAMS_HEAP, 0, put_tracer, get_tracer},
	{'i', EXP_PARAMS_IO, 0, put_tracer, get_tracer},
	{'s', EXP_PARAMS_SYNC, 0, put_tracer, get_tracer},
	{'w', -1, 0, put_threshold, get_threshold},
	{'S', -1, 0, put_sample, get_sample},
	{'l', -1, 0, put_sample_signal, get_sample_signal},
	{'y', -1, 0, put_pause, get_pause},
	{'F', -1, 0, put_follow, get_follow},
	{'h', EXP_PARAMS_HWC, 1, put_hwc, get_hwc},
};
#define NKEYS (sizeof keys / sizeof keys[0])

/* ------------------------------------------------------------ the API */

void params_init(struct exp_params *p)
{
	memset(p, 0, sizeof *p);
	p->depth_limit = EXP_PARAMS_DEPTH_DEFAULT;
	p->sample_period_s = 1;
	p->follow = EXP_PARAMS_FOLLOW_ON;
}

int params_encode(const struct exp_params *p, char *buf, size_t room)
{
	struct out o = {.buf = buf, .room = room};
	if (room == 0)
		return -ENOSPC;
	for (size_t i = 0; i < NKEYS && !o.err; i++)
		keys[i].put(&o, &keys[i], p);
	buf[o.err ? 0 : o.len] = '\0';
	return o.err ? o.err : (int)o.len;
}

/* The item at s, if its key is known: KEY=VALUE, or K<digit>=VALUE for an indexed key. */
static void decode_item(struct dec *d, const char *s)
{
	for (size_t i = 0; i < NKEYS; i++) {
		const struct key *k = &keys[i];
		if (s[0] != k->name)
			continue;
		if (s[1] == '=')
			k->get(d, k, s + 2, -1);
		else if (k->indexed && s[1] >= '0' && s[1] <= '9' && s[2] == '=')
			k->get(d, k, s + 3, s[1] - '0');
		return;
	}
}

void params_decode(const char *s, struct exp_params *ret)
{
	struct dec d = {.p = ret};
	params_init(ret);
	while (s && *s) {
		decode_item(&d, s);
		while (*s && *s != ';')
			s++;
		if (*s == ';')
			s++;
	}
	ret->hwc_count = d.hwc_taken < d.hwc_want ? d.hwc_taken : d.hwc_want;
}
