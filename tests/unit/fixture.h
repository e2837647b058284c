/*
 * fixture.h - helpers for unit tests that build fixture programs at test
 * time: run a shell command, test a path, read a clock, and find
 * tests/fixtures (from PA_TOP, else relative to this header when the test
 * is compiled from the top directory).
 */
#ifndef TESTS_UNIT_FIXTURE_H
#define TESTS_UNIT_FIXTURE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Run a printf-formatted shell command; its exit status, reported when not 0. */
static inline int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline int sh(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(cmd))
		return -1;
	int rc = system(cmd);
	if (rc != 0)
		fprintf(stderr, "command failed (%d): %s\n", rc, cmd);
	return rc;
}

static inline bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static inline double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Put the tests/fixtures directory in dir (room bytes) if it holds `probe`. */
static inline bool find_fixtures_dir(char *dir, size_t room, const char *probe)
{
	char p[4200];
	const char *top = getenv("PA_TOP");
	snprintf(dir, room, "%s/tests/fixtures", top ? top : ".");
	snprintf(p, sizeof(p), "%s/%s", dir, probe);
	if (exists(p))
		return true;
	const char *slash = strrchr(__FILE__, '/'); /* tests/unit/fixture.h */
	snprintf(dir, room, "%.*s/../fixtures", slash ? (int)(slash - __FILE__) : 1, slash ? __FILE__ : ".");
	snprintf(p, sizeof(p), "%s/%s", dir, probe);
	return exists(p);
}

/*
 * Write `script` (tests/tools/mkexp's language) to DIR/NAME.txt and make the
 * synthetic experiment DIR/NAME.er with the mkexp of $PA_BUILD.  0, or -1
 * after a message (no PA_BUILD: run through tests/run.sh).
 */
static inline int make_exp(const char *dir, const char *name, const char *script)
{
	const char *build = getenv("PA_BUILD");
	char path[4200];
	if (!build) {
		fprintf(stderr, "PA_BUILD is not set (run through tests/run.sh)\n");
		return -1;
	}
	snprintf(path, sizeof(path), "%s/%s.txt", dir, name);
	FILE *f = fopen(path, "w");
	if (!f || fputs(script, f) < 0) {
		if (f)
			fclose(f);
		fprintf(stderr, "cannot write %s\n", path);
		return -1;
	}
	fclose(f);
	return sh("'%s/tests/tools/mkexp' '%s/%s.er' < '%s'", build, dir, name, path) == 0 ? 0 : -1;
}

/*
 * As make_exp, over the symbols of tests/fixtures/cc_prog.c (main, both,
 * fast, slow, work) compiled -O0 -g into DIR/prog: the script's frames name
 * them ("work+10").  0, or -1 after a message.
 */
static inline int make_prog_exp(const char *dir, const char *name, const char *script)
{
	char fixtures[4096], prog[4200];
	if (!find_fixtures_dir(fixtures, sizeof(fixtures), "cc_prog.c")) {
		fprintf(stderr, "no tests/fixtures/cc_prog.c\n");
		return -1;
	}
	snprintf(prog, sizeof(prog), "%s/prog", dir);
	if (!exists(prog) && sh("cc -O0 -g -o '%s' '%s/cc_prog.c'", prog, fixtures) != 0)
		return -1;
	size_t n = strlen(prog) + strlen(script) + 16;
	char *text = malloc(n);
	if (!text)
		return -1;
	snprintf(text, n, "object %s\n%s", prog, script);
	int r = make_exp(dir, name, text);
	free(text);
	return r;
}

#endif
