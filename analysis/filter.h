/*
 * filter.h - the Oracle filter expression language of er_print's `filters`
 * command, compiled once into a small postfix program and evaluated per
 * event with no allocation.
 *
 * Grammar (C precedence, lowest first): a || b, a && b, == !=, < <= > >=
 * and `x IN (list)`, then !a, then values: integers (decimal or 0x hex,
 * with an optional time suffix ns, us, ms or s that scales to ns; with a
 * suffix, a decimal fraction to the ns: 0.25s), the
 * properties below (case-insensitive), and parentheses.  A list holds
 * values and ranges lo:hi (inclusive, as Oracle's).  Values are unsigned
 * 64-bit; a comparison or a logical operator gives 1 or 0, and the event
 * passes when the whole expression is not 0 (so `1` passes every event, `0`
 * none).
 *
 * Properties (filter_property_names):
 *   THRID   the thread number, as thread_list and thread_select count (1, 2, ...)
 *   LWPID   the thread's kernel id (the Linux TID, what Linux calls the LWP)
 *   CPU     the CPU the event was recorded on (alias CPUID, Oracle's name)
 *   SAMPLE  the number of the sample holding the event, as sample_list counts
 *   TSTAMP  the event's time in ns from its experiment's start
 *   EXPID   the experiment's number, as experiment_list counts (1, 2, ...)
 * An event recorded without a CPU (heap, synchronization, I/O and counter
 * events) fails every filter that names CPU, whatever the term: where it ran
 * is unknown, so no CPU term can be said to hold for it.
 *
 * Thread-safe: a compiled filter is read-only.
 */
#ifndef ANALYSIS_FILTER_H
#define ANALYSIS_FILTER_H

#include <stddef.h>
#include <stdint.h>

enum filter_prop {
	FILTER_THRID,
	FILTER_LWPID,
	FILTER_CPU,
	FILTER_SAMPLE,
	FILTER_TSTAMP,
	FILTER_EXPID,
	FILTER_NPROPS
};

/* The value of FILTER_CPU for an event recorded without a CPU. */
#define FILTER_NO_CPU UINT64_MAX

struct filter;

/*
 * Compile text into *ret (free with filter_free).  0; -EINVAL with *ret_err
 * (malloc'd, "column N: the problem") on a syntax error; -ENOMEM.
 */
int filter_compile(const char *text, struct filter **ret, char **ret_err);
void filter_free(struct filter *f);

/* The expression as given. */
const char *filter_text(const struct filter *f);

/* Bit (1u << prop) set for each property the expression names. */
unsigned filter_props(const struct filter *f);

/*
 * 1 if the event whose property values are v[FILTER_NPROPS] passes (only
 * the properties of filter_props need be set), else 0.
 */
int filter_eval(const struct filter *f, const uint64_t *v);

/* The name of property prop ("THRID"), and a line describing it. */
const char *filter_property_name(enum filter_prop prop);
const char *filter_property_help(enum filter_prop prop);

#endif
