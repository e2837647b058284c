/*
 * options.c - collect's option parser (see options.h).  Getopt-like, but
 * hand written so that every message names the option and the value, and so
 * that Oracle options not implemented yet get their own message.
 */
#include "collect/options.h"

#include <errno.h>
#include <signal.h>
#include <limits.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment/expname.h"

/* Oracle collect options that later work implements: with a value, and without. */
static const char unsupported_with_value[] = "MmjJaLOPcINr";
static const char unsupported_flags[] = "xR";

static int fail(char *err, size_t room, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t room, const char *fmt, ...)
{
	va_list ap;

	if (room) {
		va_start(ap, fmt);
		vsnprintf(err, room, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

int collect_parse_interval(const char *s, int *ret_on, long *ret_interval_us)
{
	static const struct {
		const char *word;
		long us;
	} words[] = {
		{"on", COLLECT_CLOCK_ON_US}, {"hi", COLLECT_CLOCK_HI_US},  {"high", COLLECT_CLOCK_HI_US},
		{"lo", COLLECT_CLOCK_LO_US}, {"low", COLLECT_CLOCK_LO_US}, {"off", 0},
	};
	size_t n, digits = 0, dots = 0;
	double v, us;
	char num[64];

	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
		if (strcmp(s, words[i].word) == 0) {
			*ret_on = words[i].us != 0;
			if (words[i].us)
				*ret_interval_us = words[i].us;
			return 0;
		}
	}
	n = strlen(s);
	if (n == 0 || n >= sizeof num)
		return -EINVAL;
	memcpy(num, s, n + 1);
	double scale = 1000.0; /* milliseconds -> microseconds */
	if (num[n - 1] == 'm') {
		num[--n] = '\0';
	} else if (num[n - 1] == 'u') {
		num[--n] = '\0';
		scale = 1.0;
	}
	for (size_t i = 0; i < n; i++) {
		if (num[i] >= '0' && num[i] <= '9')
			digits++;
		else if (num[i] == '.')
			dots++;
		else
			return -EINVAL;
	}
	if (digits == 0 || dots > 1)
		return -EINVAL;
	v = strtod(num, NULL);
	us = v * scale + 0.5; /* round to the nearest microsecond */
	if (us < COLLECT_CLOCK_MIN_US || us >= COLLECT_CLOCK_MAX_US + 1)
		return -ERANGE;
	*ret_on = 1;
	*ret_interval_us = (long)us;
	return 0;
}

/* "N", "Ns" or "Nm" -> seconds; -EINVAL or -ERANGE. */
static int parse_seconds(const char *s, size_t n, unsigned long *ret)
{
	unsigned long v = 0, mult = 1;

	if (n && (s[n - 1] == 's' || s[n - 1] == 'm')) {
		mult = s[n - 1] == 'm' ? 60 : 1;
		n--;
	}
	if (n == 0)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		if (v > (ULONG_MAX / 60 - 9) / 10)
			return -ERANGE;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	*ret = v * mult;
	return 0;
}

int collect_parse_duration(const char *s, unsigned long *ret_start_s, unsigned long *ret_end_s)
{
	const char *dash = strchr(s, '-');
	unsigned long a, b;
	int rc;

	if (!dash) {
		rc = parse_seconds(s, strlen(s), &b);
		if (rc < 0)
			return rc;
		if (b == 0)
			return -EINVAL;
		*ret_start_s = 0;
		*ret_end_s = b;
		return 0;
	}
	rc = parse_seconds(s, (size_t)(dash - s), &a);
	if (rc < 0)
		return rc;
	rc = parse_seconds(dash + 1, strlen(dash + 1), &b);
	if (rc < 0)
		return rc;
	if (b != 0 && b <= a)
		return -EINVAL;
	*ret_start_s = a;
	*ret_end_s = b;
	return 0;
}

static int parse_sample(const char *s)
{
	if (!strcmp(s, "on") || !strcmp(s, "off"))
		return 0;
	if (!*s || strlen(s) > 9)
		return -EINVAL;
	for (const char *p = s; *p; p++)
		if (*p < '0' || *p > '9')
			return -EINVAL;
	return atol(s) > 0 ? 0 : -EINVAL;
}

static const struct {
	const char *name;
	int sig;
} signal_names[] = {
	{"HUP", SIGHUP},       {"INT", SIGINT},   {"QUIT", SIGQUIT},   {"USR1", SIGUSR1}, {"USR2", SIGUSR2},
	{"PIPE", SIGPIPE},     {"ALRM", SIGALRM}, {"TERM", SIGTERM},   {"CHLD", SIGCHLD}, {"CONT", SIGCONT},
	{"TSTP", SIGTSTP},     {"TTIN", SIGTTIN}, {"TTOU", SIGTTOU},   {"XCPU", SIGXCPU}, {"XFSZ", SIGXFSZ},
	{"VTALRM", SIGVTALRM}, {"PROF", SIGPROF}, {"WINCH", SIGWINCH}, {"IO", SIGIO},     {"PWR", SIGPWR},
	{"SYS", SIGSYS},
};

int collect_parse_signal(const char *s, int *ret_sig)
{
	if (!strncmp(s, "SIG", 3))
		s += 3;
	int sig = 0;
	if (*s >= '0' && *s <= '9') {
		char *end;
		long v = strtol(s, &end, 10);
		if (*end || v < 1 || v > SIGRTMAX)
			return -EINVAL;
		sig = (int)v;
	} else {
		for (size_t i = 0; i < sizeof signal_names / sizeof signal_names[0]; i++)
			if (!strcmp(s, signal_names[i].name))
				sig = signal_names[i].sig;
	}
	/* KILL and STOP cannot be caught; URG is the collector's sampling signal; the rest are faults */
	if (sig == 0 || sig == SIGKILL || sig == SIGSTOP || sig == SIGURG || sig == SIGSEGV ||
	    sig == SIGBUS || sig == SIGILL || sig == SIGFPE || sig == SIGTRAP || sig == SIGABRT)
		return -EINVAL;
	*ret_sig = sig;
	return 0;
}

/* -y SIGNAL[,r] */
static int parse_pause_signal(struct collect_options *o, const char *val)
{
	char name[32];
	const char *comma = strchr(val, ',');
	size_t n = comma ? (size_t)(comma - val) : strlen(val);
	if (n >= sizeof name || (comma && strcmp(comma, ",r") != 0))
		return -EINVAL;
	memcpy(name, val, n);
	name[n] = 0;
	o->pause_resumed = comma != NULL;
	return collect_parse_signal(name, &o->pause_signal);
}

/* The basename of an -o value: what must follow the naming rules. */
static const char *name_base(const char *name)
{
	const char *slash = strrchr(name, '/');
	return slash ? slash + 1 : name;
}

int collect_parse_sync(const char *s, int *ret_on, long *ret_threshold_us)
{
	*ret_on = 1;
	if (!strcmp(s, "on") || !strcmp(s, "calibrate")) {
		*ret_threshold_us = -1;
		return 0;
	}
	if (!strcmp(s, "all")) {
		*ret_threshold_us = 0;
		return 0;
	}
	if (!strcmp(s, "off")) {
		*ret_on = 0;
		return 0;
	}
	char *end;
	errno = 0;
	long v = *s >= '0' && *s <= '9' ? strtol(s, &end, 10) : -1;
	if (v < 0 || errno || *end || v > 1000000000L)
		return -EINVAL;
	*ret_threshold_us = v;
	return 0;
}

/* An on|off option (-H, -i). */
static int set_on_off(int *ret, char opt, const char *val, char *err, size_t room)
{
	if (strcmp(val, "on") != 0 && strcmp(val, "off") != 0)
		return fail(err, room, "-%c: invalid value '%s' (expected on or off)", opt, val);
	*ret = strcmp(val, "on") == 0;
	return 0;
}

/* -S on|off|SECONDS */
static int set_sample(struct collect_options *o, const char *val, char *err, size_t room)
{
	if (parse_sample(val) < 0)
		return fail(err, room, "-S: invalid sampling '%s' (expected on, off or seconds)", val);
	o->sample = val;
	o->sample_period_s = !strcmp(val, "on") ? 1 : !strcmp(val, "off") ? 0 : atol(val);
	return 0;
}

/* -l SIGNAL, -y SIGNAL[,r] */
static int set_signal(struct collect_options *o, char opt, const char *val, char *err, size_t room)
{
	if (opt == 'l' && collect_parse_signal(val, &o->sample_signal) < 0)
		return fail(err, room,
			    "-l: invalid signal '%s' (expected a name such as USR1 or PROF, or a number; "
			    "not KILL, STOP, URG or a fault signal)",
			    val);
	if (opt == 'y' && parse_pause_signal(o, val) < 0)
		return fail(err, room,
			    "-y: invalid value '%s' (expected SIGNAL or SIGNAL,r; a name such as USR2 "
			    "or a number; not KILL, STOP, URG or a fault signal)",
			    val);
	if (o->sample_signal == o->pause_signal)
		return fail(err, room, "-l and -y need different signals");
	return 0;
}

static int set_value(struct collect_options *o, char opt, const char *val, char *err, size_t room)
{
	int rc;

	switch (opt) {
	case 'p':
		rc = collect_parse_interval(val, &o->clock_on, &o->clock_interval_us);
		if (rc == -ERANGE)
			return fail(err, room, "-p: interval '%s' out of range (0.5 to 1000 milliseconds)",
				    val);
		if (rc < 0)
			return fail(err, room,
				    "-p: invalid interval '%s' (expected on, off, lo, hi or milliseconds)",
				    val);
		return 0;
	case 't':
		rc = collect_parse_duration(val, &o->duration_start_s, &o->duration_end_s);
		if (rc == -ERANGE)
			return fail(err, room, "-t: duration '%s' is too large", val);
		if (rc < 0)
			return fail(
				err, room,
				"-t: invalid duration '%s' (expected seconds, optionally with m or s, or START-END)",
				val);
		o->duration_set = 1;
		return 0;
	case 'S': return set_sample(o, val, err, room);
	case 'l':
	case 'y': return set_signal(o, opt, val, err, room);
	case 'H': return set_on_off(&o->heap_on, opt, val, err, room);
	case 'i': return set_on_off(&o->io_on, opt, val, err, room);
	case 's': {
		int on;
		if (collect_parse_sync(val, &on, &o->sync_threshold_us) < 0)
			return fail(err, room,
				    "-s: invalid value '%s' (expected on, off, calibrate, all or a threshold "
				    "in microseconds)",
				    val);
		o->sync = on ? val : NULL;
		return 0;
	}
	case 'F':
		if (!strcmp(val, "on") || !strcmp(val, "all")) {
			o->follow = COLLECT_FOLLOW_ON;
		} else if (!strcmp(val, "off")) {
			o->follow = COLLECT_FOLLOW_OFF;
		} else if (val[0] == '=' && val[1]) {
			regex_t re;
			char msg[128];
			rc = regcomp(&re, val + 1, REG_EXTENDED | REG_NOSUB);
			if (rc != 0) {
				regerror(rc, &re, msg, sizeof msg);
				return fail(err, room, "-F: invalid regular expression '%s': %s", val + 1,
					    msg);
			}
			regfree(&re);
			o->follow = COLLECT_FOLLOW_REGEX;
			o->follow_regex = val + 1;
		} else {
			return fail(err, room, "-F: invalid value '%s' (expected on, off, all or =REGEX)",
				    val);
		}
		o->follow_spec = val;
		return 0;
	case 'A':
		if (strcmp(val, "on") != 0 && strcmp(val, "off") != 0 && strcmp(val, "copy") != 0)
			return fail(err, room, "-A: invalid value '%s' (expected on, off or copy)", val);
		o->archive = val;
		return 0;
	case 'o':
		rc = expname_validate(name_base(val));
		if (rc == -ENAMETOOLONG)
			return fail(err, room, "-o: experiment name '%s' is too long", val);
		if (rc < 0)
			return fail(err, room, "-o: experiment name '%s' must end in .er", val);
		o->name = val;
		return 0;
	case 'd':
		if (!*val)
			return fail(err, room, "-d: empty directory name");
		o->dir = val;
		return 0;
	case 'g': {
		const char *base = name_base(val);
		size_t n = strlen(base);
		if (n <= 4 || strcmp(base + n - 4, ".erg") != 0)
			return fail(err, room, "-g: experiment group name '%s' must end in .erg", val);
		o->group = val;
		return 0;
	}
	case 'C':
		if (o->comment_count == COLLECT_COMMENTS_MAX)
			return fail(err, room, "-C: at most %d comments are allowed", COLLECT_COMMENTS_MAX);
		o->comments[o->comment_count++] = val;
		return 0;
	}
	return fail(err, room, "internal error: option -%c", opt);
}

/*
 * The options of word argv[*i] ("-nv", "-p10", "-p" with its value in the
 * next word, which *i then passes).  0 to go on, 1 when an informational
 * mode was chosen (parsing stops), or -EINVAL with a message.
 */
static int parse_word(struct collect_options *o, int argc, char **argv, int *i, int *clock_given, char *err,
		      size_t room)
{
	for (const char *p = argv[*i] + 1; *p; p++) {
		char c = *p;
		const char *val;

		switch (c) {
		case 'n': o->dry_run = 1; continue;
		case 'v': o->verbose = 1; continue;
		case 'V': o->mode = COLLECT_MODE_VERSION; return 1;
		default: break;
		}
		if (c == 'h') {
			/* -h, -h list: list counters; anything else is a counter spec */
			val = p[1] ? p + 1 : (*i + 1 < argc ? argv[*i + 1] : NULL);
			if (!val || strcmp(val, "list") == 0 || (!p[1] && val[0] == '-')) {
				o->mode = COLLECT_MODE_HWC_LIST;
				return 1;
			}
			o->hwc_spec = val;
			if (!p[1])
				++*i;
			return 0; /* the value used the rest of this word */
		}
		if (strchr(unsupported_flags, c) || strchr(unsupported_with_value, c))
			return fail(err, room, "option -%c is not supported yet", c);
		if (!strchr("ptSHsiFAodCgly", c))
			return fail(err, room, "unknown option -%c (see collect --help)", c);
		if (p[1])
			val = p + 1;
		else if (*i + 1 < argc)
			val = argv[++*i];
		else
			return fail(err, room, "option -%c requires a value", c);
		if (set_value(o, c, val, err, room) < 0)
			return -EINVAL;
		*clock_given |= c == 'p';
		return 0; /* the value used the rest of this word */
	}
	return 0;
}

int collect_options_parse(struct collect_options *o, int argc, char **argv, char *err, size_t room)
{
	int i, clock_given = 0;

	memset(o, 0, sizeof *o);
	o->mode = COLLECT_MODE_RUN;
	o->clock_on = 1;
	o->clock_interval_us = COLLECT_CLOCK_ON_US;
	o->follow = COLLECT_FOLLOW_ON;
	o->follow_spec = "on";
	o->sample_period_s = 1;
	o->archive = "on";
	if (argc <= 1) {
		o->mode = COLLECT_MODE_SUMMARY;
		return 0;
	}
	for (i = 1; i < argc; i++) {
		const char *w = argv[i];

		if (strcmp(w, "--") == 0) {
			i++;
			break;
		}
		if (strcmp(w, "--help") == 0) {
			o->mode = COLLECT_MODE_HELP;
			return 0;
		}
		if (w[0] != '-' || w[1] == '\0')
			break; /* the target ("-" alone is a file name) */
		if (w[1] == '-')
			return fail(err, room, "unknown option %s (see collect --help)", w);
		int r = parse_word(o, argc, argv, &i, &clock_given, err, room);
		if (r != 0)
			return r < 0 ? r : 0;
	}
	if (i >= argc)
		return fail(err, room, "no target program given (see collect --help)");
	if (o->hwc_spec && strcmp(o->hwc_spec, "off") != 0 && !clock_given)
		o->clock_on = 0; /* Oracle: -p on is the default unless -h is given */
	o->target_index = i;
	return 0;
}
