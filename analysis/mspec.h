/*
 * mspec.h - metric lists in the Oracle/gprofng syntax:
 *   item[:item...], item = FLAVOR VISIBILITY NAME, e.g. "e.%totalcpu:i.totalcpu:name"
 *   FLAVOR: e (exclusive), i (inclusive), a (attributed), or several ("ei")
 *   VISIBILITY: "." as time, "+" as value, "%" as percent (combinable), "!" hidden
 *   NAME: a metric keyword of the profile's registry (totalcpu), or the
 *         static name/size/address
 * "default" is the default list.  Pure parsing; no output.  The metric names
 * are those of profile_metric_defs(p): a list names metrics by their index
 * in the registry, valid for that profile (the registry only grows).
 */
#ifndef ANALYSIS_MSPEC_H
#define ANALYSIS_MSPEC_H

#include <stddef.h>

#include "analysis/profile.h"

#define MSPEC_MAX 32

enum mspec_flavor { MSPEC_EXCL = 'e', MSPEC_INCL = 'i', MSPEC_ATTR = 'a', MSPEC_STATIC = 's' };
enum mspec_kind { MSPEC_METRIC, MSPEC_NAME, MSPEC_SIZE, MSPEC_ADDRESS };

struct mspec_item {
	enum mspec_kind kind;
	enum mspec_flavor flavor;
	int metric;       /* registry index (profile_metric_defs) for MSPEC_METRIC */
	int show_value;   /* "." or "+" */
	int show_percent; /* "%" */
	int hidden;       /* "!" */
};

struct mspec {
	struct mspec_item items[MSPEC_MAX];
	size_t n;
};

#define MSPEC_DEFAULT_METRICS "e.%totalcpu:i.%totalcpu:name"
#define MSPEC_DEFAULT_SORT "e.totalcpu"
/* The default list when an experiment has heap data (gprofng's: heap metrics first). */
#define MSPEC_DEFAULT_HEAP_METRICS \
	"i.heapleakbytes:i.heapleakcnt:i.heapallocbytes:i.heapalloccnt:e.%totalcpu:i.%totalcpu:name"
/* With I/O data, gprofng's: the four I/O times after the CPU (with heap data too, after it). */
#define MSPEC_DEFAULT_IO_METRICS \
	"e.%totalcpu:i.%totalcpu:i.ioreadtime:i.iowritetime:i.ioothertime:i.ioerrortime:name"
#define MSPEC_DEFAULT_HEAP_IO_METRICS                                                            \
	"i.heapleakbytes:i.heapleakcnt:i.heapallocbytes:i.heapalloccnt:e.%totalcpu:i.%totalcpu:" \
	"i.ioreadtime:i.iowritetime:i.ioothertime:i.ioerrortime:name"

/*
 * The default sort for p's data: MSPEC_DEFAULT_SORT, or the first counter's
 * exclusive metric when p has counter data and no clock data (collect -h
 * without -p).  Valid as long as p.
 */
const char *mspec_default_sort(const struct profile *p);

/*
 * The default metric list for p's data: one of the MSPEC_DEFAULT_*_METRICS, with
 * e. and i. of each counter of collect -h after the CPU columns when p has
 * counter data (valid until the next call or profile_add_experiment).
 */
const char *mspec_default_metrics(const struct profile *p);

/*
 * Parse `text` into *ret, the metrics named from p's registry.  Returns 0,
 * or -EINVAL with a message in err (e.g. "unknown metric 'foo' (available:
 * ...)", "metric 'heapalloccnt' needs heap data (collect -H on)" for a
 * metric whose data no experiment of p has, "metric 'x' has no attributed
 * flavor"); *ret is unchanged then.  `sort` = 1 parses a sort spec: one
 * metric (or "name"), flavors e/i/a, visibility ignored.  A metric without
 * a flavor is exclusive; without a visibility, shown as a value.
 */
int mspec_parse(const struct profile *p, const char *text, int sort, struct mspec *ret, char *err,
		size_t errlen);

/* Canonical text of a list of p's metrics, e.g. "e.%totalcpu:i.%totalcpu:name". */
void mspec_format(const struct profile *p, const struct mspec *m, char *buf, size_t room);

#endif
