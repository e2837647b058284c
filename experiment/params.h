/*
 * params.h - PA_PARAMS, the collection parameters collect hands to
 * libcollector.so in the target's environment: the one definition of that
 * contract (docs/experiment-format.md).  collect fills a struct exp_params
 * from its options and encodes it (params_encode); the collector decodes
 * the variable once at start (params_decode) and gives each tracer its part
 * (the sync threshold, the counters).  A descendant gets the same string
 * again, unchanged (collector/lineage.c); log.xml records it as
 * `descriptor`.
 *
 * The wire format: ';'-separated items KEY=VALUE, KEY one letter, values
 * unsigned decimal:
 *   p=<us>               clock-profiling interval, 0: off (always written)
 *   d=<frames>           call stack depth limit (always written)
 *   t=<start_s>:<end_s>  the data window (collect -t), end 0: open
 *   H=1, i=1, s=1        the tracers' keys (enum exp_params_tracer): on
 *   w=<us>               the sync threshold (after s=1); absent: calibrate
 *   S=<s>                periodic sample points, 0 none (absent: 1)
 *   l=<signal>           a sample point on this signal
 *   y=<signal>[p]        pause/resume on this signal; p: start paused
 *   F=0|2                follow descendants: off, by PA_FOLLOW's regex
 *                        (absent, or another value: on)
 *   h=<n>;h0=..;h<n-1>=  counters (collect -h), each
 *                        type:config:config1:config2:exclude_kernel:
 *                        precise:interval:name (experiment/hwcdesc.h)
 * The encoder writes them in this order, and only what differs from the
 * defaults (params_init), except p= and d=; so the same options always give
 * the same bytes.  Each key is named once, in params.c's table.
 *
 * The decoder is lenient, as the collector must be with whatever its
 * environment holds: unknown keys and items without '=' are ignored, a
 * later item overrides an earlier one of the same key, a number ends at the
 * first non-digit (no digits: 0; past 2^64: wraps), out-of-range values are
 * clamped as each field says; F= other than 0 and 2 is on; counters are
 * taken in order h0=, h1=, ...: the first one missing or malformed ends
 * the list, and h=<n> caps it.
 *
 * Libc only, no allocation, no locale, no stdio.  params_init and
 * params_decode are SIGNAL_SAFE (the collector decodes in its constructor
 * and may in a fork child); params_encode is too, though only collect
 * calls it.
 */
#ifndef EXPERIMENT_PARAMS_H
#define EXPERIMENT_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "experiment/format.h"
#include "experiment/hwcdesc.h"

#define EXP_PARAMS_INTERVAL_MAX_US 1000000000u /* p= is clamped to this */
#define EXP_PARAMS_DEPTH_DEFAULT 4096u         /* d= absent */
#define EXP_PARAMS_DEPTH_MAX 6000u             /* d= is clamped to 1 .. this */
#define EXP_PARAMS_SAMPLE_MAX_S 86400u         /* S= is clamped to this */
#define EXP_PARAMS_SIGNAL_MAX 64               /* l=, y= above it: none */
/*
 * The room of PA_PARAMS with its NUL: every struct exp_params params_encode
 * accepts fits (8 counters with the longest names and fields take about 1.4 KiB);
 * collect encodes into this much and the collector saves this much for its
 * descendants (collector/lineage.c).
 */
#define EXP_PARAMS_MAX_BYTES 2048u

/* The tracers: each one's key is an index here (collector/tracer.h `param`). */
enum exp_params_tracer {
	EXP_PARAMS_HEAP, /* H=: heap tracing (collect -H on) */
	EXP_PARAMS_SYNC, /* s=: synchronization wait tracing (-s) */
	EXP_PARAMS_IO,   /* i=: I/O tracing (-i on) */
	EXP_PARAMS_HWC,  /* h=: counter overflow profiling (-h); on when h=<n> is not 0 */
	EXP_PARAMS_TRACERS
};

/* F=: which descendants record (the values are the wire's). */
enum exp_params_follow { EXP_PARAMS_FOLLOW_OFF = 0, EXP_PARAMS_FOLLOW_ON = 1, EXP_PARAMS_FOLLOW_REGEX = 2 };

struct exp_params {
	uint32_t interval_us;                     /* p=; 0 off, at most EXP_PARAMS_INTERVAL_MAX_US */
	uint32_t depth_limit;                     /* d=; 1 .. EXP_PARAMS_DEPTH_MAX */
	int window_set;                           /* t= given */
	uint64_t window_start_s, window_end_s;    /* t=; end 0: open (t=<start> alone: end unchanged) */
	int tracer[EXP_PARAMS_TRACERS];           /* each tracer's key: 1 on (the encoder writes
						     H, s, i when set; h= follows hwc_count) */
	int sync_threshold_set;                   /* w= given */
	uint64_t sync_threshold_us;               /* w= */
	uint32_t sample_period_s;                 /* S=; default 1, 0 none, decoded at most 86400 */
	int sample_signal;                        /* l=; 0 none (decoded: above 64 is none) */
	int pause_signal;                         /* y=; 0 none (decoded: above 64 is none) */
	int start_paused;                         /* y=<sig>p (decoded: 0 without a signal) */
	enum exp_params_follow follow;            /* F=; default on */
	size_t hwc_count;                         /* h=<n>: counters in hwc[] */
	struct hwcdesc hwc[EXP_HWC_MAX_COUNTERS]; /* hK=: decoded in order, at most h=<n> */
};

/* The defaults, what an empty or absent PA_PARAMS means: all off, depth 4096, S=1, follow on. */
void params_init(struct exp_params *p);

/*
 * p as PA_PARAMS into buf (room bytes, NUL-terminated).  Returns the
 * length, or -ENOSPC when it does not fit, or -EINVAL for what the decoder
 * would not read back as given: a negative signal, a follow mode not of the
 * enum, more than EXP_HWC_MAX_COUNTERS counters, a counter whose name is
 * empty, holds ';' or does not end within its array, whose interval is 0,
 * exclude_kernel not 0 or 1, precise not 0..3.  buf holds "" then.
 */
int params_encode(const struct exp_params *p, char *buf, size_t room);

/* PA_PARAMS s (NULL: absent) into *ret, from the defaults, as the header says.  Never fails. */
void params_decode(const char *s, struct exp_params *ret);

#endif
