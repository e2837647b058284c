/*
 * report.c - warnings, errors and plans (contract in report.h).
 */
#include "er_archive/report.h"

#include <stdarg.h>
#include <stdio.h>

static int quiet;
static int io_error;     /* an error writing into the experiment: exit 1 */
static int errors_muted; /* writing into the cache: a failure is not an error */

void ar_report_init(int q)
{
	quiet = q;
}

void ar_warn(const char *fmt, ...)
{
	if (quiet)
		return;
	va_list ap;
	va_start(ap, fmt);
	fputs("er_archive: warning: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

void ar_error(const char *fmt, ...)
{
	if (errors_muted) {
		errors_muted++; /* counted, not reported: the caller falls back */
		return;
	}
	va_list ap;
	va_start(ap, fmt);
	fputs("er_archive: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	io_error = 1;
}

void ar_plan(const char *what, const char *from, const char *to)
{
	printf("%s %s -> %s\n", what, from, to);
}

int ar_failed(void)
{
	return io_error;
}

void ar_fail(void)
{
	io_error = 1;
}

void ar_report_reset(void)
{
	io_error = 0;
}

void ar_mute_errors(void)
{
	errors_muted = 1;
}

int ar_unmute_errors(void)
{
	int n = errors_muted - 1;
	errors_muted = 0;
	return n;
}
