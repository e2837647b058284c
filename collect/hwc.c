/*
 * hwc.c - collect's counter names, intervals and lists (see hwc.h).
 *
 * A name is looked up in the alias table first (Oracle's aliases and the
 * perf-style names, each with its on/hi/lo intervals and unit), then given
 * to libpfm4 as it is (a native event of a present PMU, perf::NAME, a raw
 * rNNNN); libpfm4 turns the event into perf_event_attr fields.  Software
 * events count in the kernel too (a context switch happens there); hardware
 * ones count user mode only, as Oracle's do.
 */
#include "collect/hwc.h"

#include <ctype.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "experiment/hwcdesc.h"

/* Raw counters' intervals (Oracle's default for raw counters is 1000003). */
#define RAW_ON 1000003u
#define RAW_HI 100003u
#define RAW_LO 10000019u

struct hwc_alias {
	const char *name;  /* what the user types: "insts" */
	const char *event; /* libpfm4's name of the generic perf event */
	const char *desc;  /* what it counts, for the list */
	const char *unit;
	uint64_t on, hi, lo;
};

#define CYC 9999991u, 1000003u, 100000007u  /* cycles and instructions: ~100 samples/s at 1 GHz */
#define MISS 100003u, 10007u, 1000003u      /* cache, TLB and branch misses */
#define BR 1000003u, 100003u, 10000019u     /* branches, references */
#define CLK 10000019u, 1000003u, 100000007u /* task-clock, cpu-clock: ~10 ms, 1 ms, 100 ms of CPU */
#define PF 1009u, 101u, 10007u              /* page faults */
#define CS 101u, 11u, 1009u                 /* context switches */
#define RARE 11u, 1u, 101u                  /* major faults, migrations */

static const struct hwc_alias aliases[] = {
	/* Oracle's aliases, on the generic perf events */
	{"cycles", "perf::CYCLES", "CPU Cycles", "CPU-cycles", CYC},
	{"insts", "perf::INSTRUCTIONS", "Instructions Executed", "events", CYC},
	{"dcrm", "perf::L1-DCACHE-LOAD-MISSES", "D$ Read Misses", "load events", MISS},
	{"dcwm", "perf::L1-DCACHE-STORE-MISSES", "D$ Write Misses", "store events", MISS},
	{"icm", "perf::L1-ICACHE-LOAD-MISSES", "I$ Misses", "events", MISS},
	{"l3m", "perf::LLC-LOAD-MISSES", "L3 Cache Misses", "load events", MISS},
	{"dtlbm", "perf::DTLB-LOAD-MISSES", "DTLB Misses", "load events", MISS},
	{"itlbm", "perf::ITLB-LOAD-MISSES", "ITLB Misses", "events", MISS},
	{"br_ins", "perf::BRANCH-INSTRUCTIONS", "Branch Instructions", "events", BR},
	{"br_msp", "perf::BRANCH-MISSES", "Branch Mispredicts", "events", MISS},
	/* perf-style names */
	{"cpu-cycles", "perf::CPU-CYCLES", "CPU Cycles", "CPU-cycles", CYC},
	{"instructions", "perf::INSTRUCTIONS", "Instructions Executed", "events", CYC},
	{"cache-references", "perf::CACHE-REFERENCES", "Cache References", "events", BR},
	{"cache-misses", "perf::CACHE-MISSES", "Cache Misses", "events", MISS},
	{"branches", "perf::BRANCHES", "Branch Instructions", "events", BR},
	{"branch-instructions", "perf::BRANCH-INSTRUCTIONS", "Branch Instructions", "events", BR},
	{"branch-misses", "perf::BRANCH-MISSES", "Branch Mispredicts", "events", MISS},
	{"bus-cycles", "perf::BUS-CYCLES", "Bus Cycles", "events", CYC},
	{"ref-cycles", "perf::REF-CYCLES", "Reference Cycles", "events", CYC},
	{"task-clock", "perf::TASK-CLOCK", "Task Clock", "nanoseconds", CLK},
	{"cpu-clock", "perf::CPU-CLOCK", "CPU Clock", "nanoseconds", CLK},
	{"page-faults", "perf::PAGE-FAULTS", "Page Faults", "events", PF},
	{"faults", "perf::FAULTS", "Page Faults", "events", PF},
	{"minor-faults", "perf::MINOR-FAULTS", "Minor Page Faults", "events", PF},
	{"major-faults", "perf::MAJOR-FAULTS", "Major Page Faults", "events", RARE},
	{"context-switches", "perf::CONTEXT-SWITCHES", "Context Switches", "events", CS},
	{"cs", "perf::CS", "Context Switches", "events", CS},
	{"cpu-migrations", "perf::CPU-MIGRATIONS", "CPU Migrations", "events", RARE},
	{"migrations", "perf::MIGRATIONS", "CPU Migrations", "events", RARE},
};
#define NALIASES (sizeof aliases / sizeof aliases[0])

static int pfm_ready; /* 1 initialised, -1 failed */

static int pfm_init(void)
{
	if (!pfm_ready)
		pfm_ready = pfm_initialize() == PFM_SUCCESS ? 1 : -1;
	return pfm_ready > 0;
}

static const struct hwc_alias *alias_find(const char *name)
{
	for (size_t i = 0; i < NALIASES; i++)
		if (strcmp(aliases[i].name, name) == 0)
			return &aliases[i];
	return NULL;
}

/*
 * Copy libpfm4's full name of an event without its privilege-level and
 * grouping attributes (":u=1:k=0:...", which the attr fields say), keeping
 * the event's own (umasks).
 */
static void event_name(char *dst, size_t room, const char *fstr)
{
	static const char *const drop[] = {"u", "k", "h", "mg", "mh", "excl", "precise"};
	size_t n = 0;
	const char *p = strstr(fstr, "::");
	p = p ? p + 2 : fstr;
	size_t head = (size_t)(strcspn(p, ":") + (size_t)(p - fstr));
	n = head < room - 1 ? head : room - 1;
	memcpy(dst, fstr, n);
	for (p = fstr + head; *p == ':';) {
		const char *q = p + 1;
		size_t len = strcspn(q, ":");
		size_t key = strcspn(q, "=");
		int keep = 1;
		for (size_t i = 0; i < sizeof drop / sizeof drop[0] && key < len; i++)
			if (key == strlen(drop[i]) && memcmp(q, drop[i], key) == 0)
				keep = 0;
		if (keep && n + 1 + len < room) {
			dst[n++] = ':';
			memcpy(dst + n, q, len);
			n += len;
		}
		p = q + len;
	}
	dst[n] = '\0';
}

/* Encode libpfm4 event `event` into c's attr fields; 0 or -EINVAL. */
static int encode(const char *event, struct hwc_counter *c)
{
	if (!pfm_init())
		return -EINVAL;
	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;
	char *fstr = NULL;
	memset(&attr, 0, sizeof attr);
	memset(&arg, 0, sizeof arg);
	arg.attr = &attr;
	arg.size = sizeof arg;
	arg.fstr = &fstr;
	if (pfm_get_os_event_encoding(event, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg) != PFM_SUCCESS)
		return -EINVAL;
	event_name(c->event, sizeof c->event, fstr ? fstr : event);
	free(fstr);
	c->type = attr.type;
	c->config = attr.config;
	c->config1 = attr.config1;
	c->config2 = attr.config2;
	c->exclude_kernel = attr.type == PERF_TYPE_SOFTWARE ? 0 : 1;
	if (attr.precise_ip > (unsigned)c->precise)
		c->precise = (int)attr.precise_ip;
	return 0;
}

/* Strip a trailing ":p", ":pp" or ":ppp" from name into c->precise. */
static void strip_precise(char *name, struct hwc_counter *c)
{
	char *colon = strrchr(name, ':');
	if (!colon || colon == name || colon[-1] == ':')
		return; /* no modifier, or libpfm4's "pmu::event" */
	size_t n = strlen(colon + 1);
	if (n < 1 || n > 3 || strspn(colon + 1, "p") != n)
		return;
	c->precise = (int)n;
	*colon = '\0';
}

static int resolve(const char *given, size_t len, struct hwc_counter *c, char *err, size_t room)
{
	memset(c, 0, sizeof *c);
	if (len == 0 || len >= sizeof c->name) {
		snprintf(err, room, "-h: invalid counter name '%.*s'", (int)len, given);
		return -EINVAL;
	}
	memcpy(c->name, given, len);
	c->name[len] = '\0';
	for (const char *q = c->name; *q; q++)
		if (*q == ';' || *q == '=' || isspace((unsigned char)*q)) {
			snprintf(err, room, "-h: invalid counter name '%s'", c->name);
			return -EINVAL;
		}
	strip_precise(c->name, c);
	const struct hwc_alias *a = alias_find(c->name);
	if (encode(a ? a->event : c->name, c) < 0) {
		snprintf(err, room, "-h: unknown counter '%s' (collect -h lists the counters of this system)",
			 c->name);
		return -EINVAL;
	}
	c->desc = a ? a->desc : NULL;
	c->unit = a ? a->unit : "events";
	c->interval = a ? a->on : RAW_ON;
	return 0;
}

/* Interval word or number s (n bytes) for counter c: 1 if it is one, 0 if not, -EINVAL if bad. */
static int interval(const char *s, size_t n, struct hwc_counter *c)
{
	const struct hwc_alias *a = alias_find(c->name);
	uint64_t on = a ? a->on : RAW_ON, hi = a ? a->hi : RAW_HI, lo = a ? a->lo : RAW_LO;
	static const char *const words[] = {"on", "hi", "high", "lo", "low"};
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (n == strlen(words[i]) && memcmp(s, words[i], n) == 0) {
			c->interval = i == 0 ? on : i < 3 ? hi : lo;
			return 1;
		}
	if (n == 0 || !isdigit((unsigned char)s[0]))
		return 0;
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]) || v > (UINT64_MAX >> 4) / 10)
			return -EINVAL;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v == 0)
		return -EINVAL;
	c->interval = v;
	return 1;
}

int hwc_parse(const char *spec, struct hwc_counter *ret, size_t max, char *err, size_t room)
{
	if (strcmp(spec, "off") == 0)
		return 0;
	size_t n = 0;
	const char *p = spec;
	while (*p) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		if (n == max) {
			snprintf(err, room, "-h: at most %zu counters can be recorded at once", max);
			return -EINVAL;
		}
		if (resolve(p, len, &ret[n], err, room) < 0)
			return -EINVAL;
		p += len + (comma != NULL);
		if (comma) {
			const char *c2 = strchr(p, ',');
			size_t l2 = c2 ? (size_t)(c2 - p) : strlen(p);
			int r = interval(p, l2, &ret[n]);
			if (r < 0) {
				snprintf(err, room,
					 "-h: invalid interval '%.*s' for %s (expected on, hi, lo or a "
					 "positive number of events)",
					 (int)l2, p, ret[n].name);
				return -EINVAL;
			}
			if (r > 0)
				p += l2 + (c2 != NULL);
		}
		for (size_t k = 0; k < n; k++)
			if (strcmp(ret[k].name, ret[n].name) == 0) {
				snprintf(err, room, "-h: counter %s given twice", ret[n].name);
				return -EINVAL;
			}
		n++;
	}
	if (n == 0) {
		snprintf(err, room, "-h: no counter given");
		return -EINVAL;
	}
	return (int)n;
}

/* What the collector gets of c (experiment/hwcdesc.h). */
static void desc_of(const struct hwc_counter *c, struct hwcdesc *d)
{
	memset(d, 0, sizeof *d);
	d->type = c->type;
	d->config = c->config;
	d->config1 = c->config1;
	d->config2 = c->config2;
	d->exclude_kernel = c->exclude_kernel;
	d->precise = c->precise;
	d->interval = c->interval;
	snprintf(d->name, sizeof d->name, "%s", c->name);
}

/* 0 if c opens on the calling thread, else the errno. */
static int try_open(const struct hwc_counter *c)
{
	struct hwcdesc d;
	struct perf_event_attr a;
	desc_of(c, &d);
	hwcdesc_attr(&d, &a); /* as the collector will open it */
	long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0UL);
	if (fd < 0)
		return errno;
	close((int)fd);
	return 0;
}

static int paranoid_level(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v = 2;
	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 2;
		fclose(f);
	}
	return v;
}

int hwc_probe(const struct hwc_counter *c, char *err, size_t room)
{
	int e = try_open(c);
	if (!e)
		return 0;
	int hardware = c->type != PERF_TYPE_SOFTWARE;
	if (hardware && (e == ENOENT || e == EOPNOTSUPP || e == ENODEV))
		snprintf(err, room,
			 "-h %s: hardware counter %s is not supported: this system has no hardware "
			 "performance counters (perf_event_open: %s); software events work "
			 "(collect -h lists them)",
			 c->name, c->event, strerror(e));
	else if (e == EACCES || e == EPERM)
		snprintf(err, room,
			 "-h %s: not permitted to open %s (perf_event_open: %s; perf_event_paranoid "
			 "is %d: run as root or set it to 1 or less)",
			 c->name, c->event, strerror(e), paranoid_level());
	else if (c->precise && e == EINVAL)
		snprintf(err, room,
			 "-h %s: %s cannot be made precise (:%.*s) on this processor (perf_event_open: %s)",
			 c->name, c->event, c->precise, "ppp", strerror(e));
	else
		snprintf(err, room, "-h %s: counter %s cannot be opened on this system (perf_event_open: %s)",
			 c->name, c->event, strerror(e));
	return -e;
}

void hwc_describe(const struct hwc_counter *c, size_t n, struct hwcdesc *ret)
{
	for (size_t i = 0; i < n; i++)
		desc_of(&c[i], &ret[i]);
}

/* ------------------------------------------------------------ lists */

static void print_alias(FILE *o, const struct hwc_alias *a)
{
	fprintf(o, "%s,%llu ('%s', alias for %s; %s)\n", a->name, (unsigned long long)a->on, a->desc,
		a->event, a->unit);
}

/* The present PMU's events: every event of a hardware PMU, those of the perf generic PMU that open. */
static size_t print_pmu_events(FILE *o, const pfm_pmu_info_t *pi)
{
	int generic = strcmp(pi->name, "perf") == 0 || strcmp(pi->name, "perf_raw") == 0;
	size_t n = 0;
	for (int i = pi->first_event; i != -1; i = pfm_get_event_next(i)) {
		pfm_event_info_t ei;
		memset(&ei, 0, sizeof ei);
		ei.size = sizeof ei;
		if (pfm_get_event_info(i, PFM_OS_PERF_EVENT, &ei) != PFM_SUCCESS)
			continue;
		char full[192];
		snprintf(full, sizeof full, "%s::%s", pi->name, ei.name);
		struct hwc_counter c;
		memset(&c, 0, sizeof c);
		snprintf(c.name, sizeof c.name, "%s", ei.name);
		if (generic && (encode(full, &c) < 0 || (c.interval = RAW_ON, try_open(&c) != 0)))
			continue;
		fprintf(o, "%s,%u (%s)\n", full, RAW_ON,
			c.type == PERF_TYPE_SOFTWARE && (c.config == PERF_COUNT_SW_TASK_CLOCK ||
							 c.config == PERF_COUNT_SW_CPU_CLOCK)
				? "nanoseconds"
				: "events");
		n++;
	}
	return n;
}

void hwc_print_list(FILE *o)
{
	fprintf(o, "Aliased HW counters available for profiling:\n");
	int hw_err = 0;
	for (size_t i = 0; i < NALIASES; i++) {
		struct hwc_counter c;
		memset(&c, 0, sizeof c);
		snprintf(c.name, sizeof c.name, "%s", aliases[i].name);
		if (encode(aliases[i].event, &c) < 0)
			continue;
		c.interval = aliases[i].on;
		int e = try_open(&c);
		if (e && c.type != PERF_TYPE_SOFTWARE && strcmp(aliases[i].name, "cycles") == 0)
			hw_err = e;
		if (!e)
			print_alias(o, &aliases[i]);
	}
	fprintf(o, "Raw HW counters available for profiling:\n");
	int hw_pmus = 0;
	pfm_pmu_t p;
	if (pfm_init()) {
		pfm_for_all_pmus(p)
		{
			pfm_pmu_info_t pi;
			memset(&pi, 0, sizeof pi);
			pi.size = sizeof pi;
			if (pfm_get_pmu_info(p, &pi) != PFM_SUCCESS || !pi.is_present)
				continue;
			if (strcmp(pi.name, "perf") != 0 && strcmp(pi.name, "perf_raw") != 0)
				hw_pmus++;
			print_pmu_events(o, &pi);
		}
	}
	if (hw_err || !hw_pmus) {
		fprintf(o, "\nThis system has no hardware performance counters");
		if (hw_err)
			fprintf(o, " (perf_event_open of cycles: %s)", strerror(hw_err));
		else
			fprintf(o, " that libpfm4 knows");
		fprintf(o,
			":\nhardware counters such as cycles and insts cannot be profiled here; the software\n"
			"events listed above can (collect -h page-faults,1 ...).\n");
	}
	fprintf(o,
		"\nSyntax: -h COUNTER[,INTERVAL][,COUNTER2[,INTERVAL2]]... (at most %u counters);\n"
		"INTERVAL is on (the default above), hi (about 10 times more often), lo (10 times\n"
		"less often) or the number of events between overflows; COUNTER:p, :pp, :ppp ask\n"
		"for precise events where the processor has them.  -h off: no counters.\n",
		HWC_MAX_COUNTERS);
}
