/*
 * test_lines.c - source lines and inline chains (analysis/lines.c) on
 * tests/fixtures/lines_prog.c built at test time with -O2 -g in DWARF 5 and
 * DWARF 4, with its debug info split off (found by build-id under a fake debug
 * root, by .gnu_debuglink with and without a build-id), on the system's libc
 * with libc6-dbg (compressed DWARF 5 sections), and on corrupt files.  The
 * oracle is binutils addr2line -i -f, run once per object on every
 * instruction address of .text; line numbers of the markers come from the
 * fixture's text.  Timing figures are printed, never asserted.
 */
#include "analysis/lines.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/regfile.h"
#include "tests/unit/check.h"
#include "tests/unit/fixture.h"

static char tmp[64];
static char fixtures[1024];
static char src[1200];

/* The line of the fixture holding "LINE:<tag> " (0 if absent). */
static uint32_t marker_line(const char *tag)
{
	FILE *f = fopen(src, "r");
	char line[1024], want[64];
	snprintf(want, sizeof(want), "/* LINE:%s */", tag);
	uint32_t n = 0, found = 0;
	while (f && fgets(line, sizeof(line), f)) {
		n++;
		if (strstr(line, want)) {
			found = n;
			break;
		}
	}
	if (f)
		fclose(f);
	return found;
}

/* Address and size of `name` per nm (0 if absent); a "@version" suffix is ignored. */
static uint64_t nm_sym(const char *file, const char *opts, const char *name, uint64_t *ret_size)
{
	char cmd[4096], line[8192];
	snprintf(cmd, sizeof(cmd), "nm -S %s --defined-only '%s' 2>/dev/null", opts, file);
	FILE *p = popen(cmd, "r");
	uint64_t addr = 0;
	*ret_size = 0;
	if (!p)
		return 0;
	while (fgets(line, sizeof(line), p)) {
		unsigned long long a, s;
		char t, nm[4096];
		if (sscanf(line, "%llx %llx %c %4095s", &a, &s, &t, nm) != 4)
			continue;
		char *at = strchr(nm, '@');
		if (at)
			*at = '\0';
		if (strcmp(nm, name) == 0 && (t == 'T' || t == 't' || t == 'W' || t == 'i')) {
			addr = a;
			*ret_size = s;
			break;
		}
	}
	pclose(p);
	return addr;
}

static bool read_build_id(const char *file, char *ret, size_t size)
{
	char cmd[4096], line[1024];
	snprintf(cmd, sizeof(cmd), "readelf -n '%s' 2>/dev/null", file);
	FILE *p = popen(cmd, "r");
	bool ok = false;
	while (p && fgets(line, sizeof(line), p)) {
		char *b = strstr(line, "Build ID: ");
		if (b && sscanf(b + 10, "%127s", ret) == 1 && strlen(ret) < size) {
			ok = true;
			break;
		}
	}
	if (p)
		pclose(p);
	return ok;
}

/* ------------------------------------------------------------------ the addr2line oracle */

struct frame {
	char name[256];
	char file[1024];
	uint32_t line;
};

struct oracle_entry {
	uint64_t addr;
	size_t nframes; /* addr2line's pairs: innermost inline first, the real function last */
	struct frame fr[8];
};

/* Parse "file:line", "file:line:column" (eu-addr2line) or "file:line (discriminator n)";
 * "??" files and "?" lines give line 0. */
static void parse_loc(const char *s, struct frame *f)
{
	char buf[1200];
	snprintf(buf, sizeof(buf), "%.1199s", s);
	buf[strcspn(buf, "\n")] = '\0';
	char *d = strstr(buf, " (discriminator");
	if (d)
		*d = '\0';
	char *colon = strrchr(buf, ':');
	f->line = 0;
	if (colon) {
		*colon = '\0';
		char *prev = strrchr(buf, ':');
		if (prev && prev[1] >= '0' && prev[1] <= '9' &&
		    strspn(prev + 1, "0123456789") == strlen(prev + 1)) {
			*prev = '\0'; /* file:line:column */
			colon = prev;
		}
		f->line = (uint32_t)strtoul(colon + 1, NULL, 10);
	}
	if (strcmp(buf, "??") == 0 || buf[0] == '\0')
		f->line = 0;
	snprintf(f->file, sizeof(f->file), "%.1023s", f->line ? buf : "??");
}

/* Run `tool` -a -i -f (addr2line or eu-addr2line) once on addrs[0..n) of `file`;
 * returns entries (n of them) or NULL. */
static struct oracle_entry *run_tool(const char *tool, const char *file, const uint64_t *addrs, size_t n)
{
	char in[256], cmd[4096], line[2048];
	snprintf(in, sizeof(in), "%s/addrs.txt", tmp);
	FILE *f = fopen(in, "w");
	if (!f)
		return NULL;
	for (size_t i = 0; i < n; i++)
		fprintf(f, "0x%" PRIx64 "\n", addrs[i]);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s -a -i -f -e '%s' < '%s'", tool, file, in);
	FILE *p = popen(cmd, "r");
	struct oracle_entry *e = calloc(n ? n : 1, sizeof(*e));
	if (!p || !e) {
		if (p)
			pclose(p);
		free(e);
		return NULL;
	}
	size_t k = SIZE_MAX;
	while (fgets(line, sizeof(line), p)) {
		if (line[0] == '0' && line[1] == 'x') {
			k = k == SIZE_MAX ? 0 : k + 1;
			if (k >= n)
				break;
			e[k].addr = strtoull(line, NULL, 16);
			continue;
		}
		if (k >= n || e[k].nframes >= 8)
			continue;
		struct frame *fr = &e[k].fr[e[k].nframes];
		snprintf(fr->name, sizeof(fr->name), "%.255s", line);
		fr->name[strcspn(fr->name, "\n")] = '\0';
		char *inl = strstr(fr->name, " inlined at ");
		if (inl)
			*inl = '\0';
		if (!fgets(line, sizeof(line), p))
			break;
		parse_loc(line, fr);
		e[k].nframes++;
	}
	pclose(p);
	if (k + 1 != n) {
		free(e);
		return NULL;
	}
	return e;
}

/* Every instruction address of .text per objdump -d. */
static uint64_t *text_insns(const char *file, size_t *ret_n)
{
	char cmd[4096], line[4096];
	snprintf(cmd, sizeof(cmd), "objdump -d --no-show-raw-insn -j .text '%s' 2>/dev/null", file);
	FILE *p = popen(cmd, "r");
	size_t n = 0, cap = 1024;
	uint64_t *v = malloc(cap * sizeof(*v));
	while (p && v && fgets(line, sizeof(line), p)) {
		unsigned long long a;
		char c;
		if (sscanf(line, " %llx%c", &a, &c) != 2 || c != ':' || line[0] != ' ')
			continue;
		if (n == cap) {
			uint64_t *w = realloc(v, 2 * cap * sizeof(*v));
			if (!w)
				break;
			v = w;
			cap *= 2;
		}
		v[n++] = a;
	}
	if (p)
		pclose(p);
	*ret_n = n;
	return v;
}

struct agreement {
	size_t addrs, lines_same, lines_ours_only, lines_theirs_only, lines_diff;
	size_t chains_same, chains_diff;
};

/* Compare lines_lookup and lines_inlines with addr2line at every instruction
 * of the .text of `file`, whose DWARF is in `dwarf_file`. */
static void compare_with_addr2line(struct lines *l, const char *file, const char *dwarf_file,
				   struct agreement *ag, bool verbose)
{
	memset(ag, 0, sizeof(*ag));
	size_t n;
	uint64_t *addrs = text_insns(file, &n);
	CHECK(addrs && n > 20);
	if (!addrs || n == 0) {
		free(addrs);
		return;
	}
	struct oracle_entry *e = run_tool("addr2line", dwarf_file, addrs, n);
	CHECK(e != NULL);
	for (size_t i = 0; e && i < n; i++) {
		CHECK_EQ_U64(e[i].addr, addrs[i]);
		ag->addrs++;
		struct line_loc loc;
		int found = lines_lookup(l, addrs[i], &loc);
		const struct frame *f0 = &e[i].fr[0];
		bool theirs = e[i].nframes > 0 && f0->line != 0;
		if (!found && !theirs)
			ag->lines_same++;
		else if (found && theirs && loc.line == f0->line && strcmp(loc.file, f0->file) == 0)
			ag->lines_same++;
		else if (found && !theirs)
			ag->lines_ours_only++;
		else if (!found && theirs)
			ag->lines_theirs_only++;
		else if (found || theirs) {
			ag->lines_diff++;
			if (verbose)
				fprintf(stderr,
					"line differs at 0x%" PRIx64 ": ours %s:%u, addr2line %s:%u\n",
					addrs[i], loc.file, loc.line, f0->file, f0->line);
		}

		struct line_inline chain[8];
		size_t k = lines_inlines(l, addrs[i], chain, 8);
		bool same = e[i].nframes == (k < 8 ? k + 1 : 0) || (e[i].nframes <= 1 && k == 0);
		for (size_t j = 0; same && j < k && j + 1 < e[i].nframes; j++) {
			same = strcmp(chain[j].name, e[i].fr[j].name) == 0 &&
			       chain[j].call.line == e[i].fr[j + 1].line &&
			       strcmp(chain[j].call.file, e[i].fr[j + 1].file) == 0 &&
			       chain[j].lo <= addrs[i] && addrs[i] < chain[j].hi;
		}
		if (same)
			ag->chains_same++;
		else {
			ag->chains_diff++;
			if (verbose)
				fprintf(stderr,
					"chain differs at 0x%" PRIx64 ": ours %zu, addr2line %zu frames\n",
					addrs[i], k, e[i].nframes);
		}
	}
	free(e);
	free(addrs);
}

/* ------------------------------------------------------------------ fixture checks */

struct rows_ctx {
	uint64_t lo, hi, prev;
	size_t n, bad;
	struct lines *l;
};

static void rows_cb(void *ctx, uint64_t addr, const struct line_loc *loc)
{
	struct rows_ctx *c = ctx;
	c->bad += addr < c->lo || addr >= c->hi || addr < c->prev || !loc->file || !loc->file[0];
	c->prev = addr;
	c->n++;
}

/* The markers: lines found, inline chains named and placed, in one object. */
static void test_fixture(const char *prog, const char *dwarf_file, const char *root)
{
	struct lines_options opt = {.debug_root = root};
	struct lines *l = NULL;
	double t0 = now_s();
	int rc = lines_open(prog, NULL, &opt, &l);
	double t1 = now_s();
	CHECK_EQ_U64(rc, 0);
	if (rc) {
		fprintf(stderr, "lines_open(%s): %s\n", prog, strerror(-rc));
		return;
	}
	fprintf(stderr, "# %s: opened in %.2f ms, DWARF from %s\n", prog, (t1 - t0) * 1e3,
		lines_debug_file(l));
	CHECK_EQ_STR(lines_debug_file(l), dwarf_file);

	uint32_t hot_line = marker_line("hot"), call1 = marker_line("call1"), call2 = marker_line("call2");
	uint32_t inner = marker_line("inner"), nested = marker_line("nested"), outer = marker_line("outer");
	CHECK(hot_line && call1 && call2 && inner && nested && outer);

	/* The hot loop: some address of hot() is on the hot line, and every
	 * address on that line is inside hot(). */
	uint64_t hot_size, hot = nm_sym(prog, "", "hot", &hot_size);
	CHECK(hot && hot_size);
	size_t on_hot = 0;
	for (uint64_t a = hot; a < hot + hot_size; a++) {
		struct line_loc loc;
		if (lines_lookup(l, a, &loc) && loc.line == hot_line) {
			on_hot++;
			CHECK_EQ_STR(loc.file, src);
		}
		struct line_inline in[4];
		CHECK_EQ_U64(lines_inlines(l, a, in, 4), 0); /* nothing is inlined into hot() */
	}
	CHECK(on_hot > 0);

	/* twice(): square inlined at call1 and at call2. */
	uint64_t tw_size, tw = nm_sym(prog, "", "twice", &tw_size);
	CHECK(tw && tw_size);
	size_t at1 = 0, at2 = 0;
	for (uint64_t a = tw; a < tw + tw_size; a++) {
		struct line_inline in[4];
		size_t k = lines_inlines(l, a, in, 4);
		CHECK(k <= 1);
		if (k != 1)
			continue;
		CHECK_EQ_STR(in[0].name, "square");
		CHECK_EQ_STR(in[0].mangled, "");
		CHECK_EQ_STR(in[0].call.file, src);
		CHECK(in[0].lo <= a && a < in[0].hi && in[0].lo >= tw && in[0].hi <= tw + tw_size);
		at1 += in[0].call.line == call1;
		at2 += in[0].call.line == call2;
		CHECK(in[0].call.line == call1 || in[0].call.line == call2);
		struct line_loc loc;
		if (lines_lookup(l, a, &loc))
			CHECK(loc.line == inner || loc.line == 0);
	}
	CHECK(at1 > 0);
	CHECK(at2 > 0);

	/* main(): square inlined into sum_squares inlined into main. */
	uint64_t m_size, m = nm_sym(prog, "", "main", &m_size);
	CHECK(m && m_size);
	size_t deep = 0, shallow = 0;
	for (uint64_t a = m; a < m + m_size; a++) {
		struct line_inline in[4];
		size_t k = lines_inlines(l, a, in, 4);
		CHECK(k <= 2);
		if (k == 2) {
			deep++;
			CHECK_EQ_STR(in[0].name, "square");
			CHECK_EQ_U64(in[0].call.line, nested);
			CHECK_EQ_STR(in[1].name, "sum_squares");
			CHECK_EQ_U64(in[1].call.line, outer);
			CHECK(in[1].lo <= in[0].lo && in[0].hi <= in[1].hi);
			/* Only `max` entries are stored, the full length is returned. */
			struct line_inline one[1];
			CHECK_EQ_U64(lines_inlines(l, a, one, 1), 2);
			CHECK_EQ_STR(one[0].name, "square");
			CHECK_EQ_U64(lines_inlines(l, a, NULL, 0), 2);
		} else if (k == 1 && strcmp(in[0].name, "sum_squares") == 0) {
			shallow++;
			CHECK_EQ_U64(in[0].call.line, outer);
		}
	}
	CHECK(deep > 0);
	CHECK(shallow > 0);

	/* lines_rows over twice(): in range, in order, agreeing with lookups. */
	struct rows_ctx rc2 = {.lo = tw, .hi = tw + tw_size, .l = l};
	size_t nrows = lines_rows(l, tw, tw + tw_size, rows_cb, &rc2);
	CHECK(nrows > 0);
	CHECK_EQ_U64(nrows, rc2.n);
	CHECK_EQ_U64(rc2.bad, 0);
	CHECK_EQ_U64(lines_rows(l, tw, tw, rows_cb, &rc2), 0);
	CHECK_EQ_U64(lines_rows(l, tw, tw + tw_size, NULL, NULL), nrows);

	/* No line information outside the code. */
	struct line_loc loc;
	CHECK_EQ_U64(lines_lookup(l, 0, &loc), 0);
	CHECK_EQ_U64(lines_lookup(l, UINT64_MAX, &loc), 0);
	CHECK_EQ_U64(lines_inlines(l, UINT64_MAX, NULL, 0), 0);

	/* Every instruction of .text against addr2line. */
	struct agreement ag;
	compare_with_addr2line(l, prog, dwarf_file, &ag, true);
	fprintf(stderr,
		"# %s vs addr2line: %zu addrs, lines same %zu, ours only %zu, theirs only %zu, differ %zu;"
		" inline chains same %zu, differ %zu\n",
		prog, ag.addrs, ag.lines_same, ag.lines_ours_only, ag.lines_theirs_only, ag.lines_diff,
		ag.chains_same, ag.chains_diff);
	CHECK(ag.addrs > 20);
	CHECK_EQ_U64(ag.lines_diff + ag.lines_ours_only + ag.lines_theirs_only, 0);
	CHECK_EQ_U64(ag.chains_diff, 0);
	lines_free(l);
}

/* The debug info split off: by build-id under a fake root, by debuglink. */
static void test_split(const char *prog)
{
	char split[256], dbg[256], root[256], bid[130], path[512];
	snprintf(split, sizeof(split), "%s/split", tmp);
	snprintf(dbg, sizeof(dbg), "%s/split.debug", tmp);
	snprintf(root, sizeof(root), "%s/root", tmp);
	bool ok = sh("cp %s %s && objcopy --only-keep-debug %s %s && strip -g %s && "
		     "objcopy --add-gnu-debuglink=%s %s",
		     prog, split, split, dbg, split, dbg, split) == 0 &&
		  read_build_id(split, bid, sizeof(bid));
	CHECK(ok);
	if (!ok)
		return;
	/* The debuglink next to the object. */
	test_fixture(split, dbg, root);

	/* By build-id under the fake root (the debuglink file moved away). */
	snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s.debug", root, bid, bid + 2);
	CHECK(sh("mkdir -p %s/.build-id/%.2s && mv %s %s", root, bid, dbg, path) == 0);
	test_fixture(split, path, root);

	/* The object gone: its build-id still finds the debug file. */
	struct lines_options opt = {.debug_root = root};
	struct lines *l = NULL;
	char gone[4200];
	snprintf(gone, sizeof(gone), "%s/no-such-object", tmp);
	CHECK_EQ_U64(lines_open(gone, bid, &opt, &l), 0);
	CHECK(l && strcmp(lines_debug_file(l), path) == 0);
	lines_free(l);
	l = NULL;
	CHECK(lines_open(gone, NULL, &opt, &l) == -ENOENT && !l);
	CHECK(lines_open(gone, "zz", &opt, &l) == -ENOENT && !l);

	/* Another root: no debug file anywhere. */
	opt.debug_root = tmp;
	CHECK(lines_open(split, NULL, &opt, &l) == -ENODATA && !l);

	/* <dir>/.debug/<link> and <root><dir>/<link>. */
	char real_dir[4096];
	CHECK(realpath(tmp, real_dir) != NULL);
	CHECK(sh("mkdir -p %s/.debug && cp %s %s/.debug/split.debug", tmp, path, tmp) == 0);
	opt.debug_root = tmp;
	snprintf(gone, sizeof(gone), "%s/.debug/split.debug", real_dir);
	CHECK_EQ_U64(lines_open(split, NULL, &opt, &l), 0);
	CHECK(l && strcmp(lines_debug_file(l), gone) == 0);
	lines_free(l);
	l = NULL;
	CHECK(sh("rm -rf %s/.debug && mkdir -p %s%s && cp %s %s%s/split.debug", tmp, root, real_dir, path,
		 root, real_dir) == 0);
	CHECK(sh("rm -rf %s/.build-id", root) == 0);
	opt.debug_root = root;
	CHECK_EQ_U64(lines_open(split, NULL, &opt, &l), 0);
	lines_free(l);
	l = NULL;

	/* A debug file whose build-id differs is rejected. */
	char other[256];
	snprintf(other, sizeof(other), "%s/p4", tmp);
	CHECK(sh("objcopy --only-keep-debug %s %s%s/split.debug", other, root, real_dir) == 0);
	CHECK(lines_open(split, NULL, &opt, &l) == -ENODATA && !l);
}

/* No build-id at all: the debuglink's CRC decides. */
static void test_debuglink_crc(void)
{
	char prog[256], dbg[256];
	snprintf(prog, sizeof(prog), "%s/nobid", tmp);
	snprintf(dbg, sizeof(dbg), "%s/nobid.debug", tmp);
	bool ok = sh("cc -O2 -g -Wl,--build-id=none -o %s %s && objcopy --only-keep-debug %s %s && "
		     "strip -g %s && objcopy --add-gnu-debuglink=%s %s",
		     prog, src, prog, dbg, prog, dbg, prog) == 0;
	CHECK(ok);
	if (!ok)
		return;
	struct lines_options opt = {.debug_root = tmp};
	struct lines *l = NULL;
	CHECK_EQ_U64(lines_open(prog, NULL, &opt, &l), 0);
	CHECK(l && strcmp(lines_debug_file(l), dbg) == 0);
	lines_free(l);
	l = NULL;
	/* Change the debug file: its CRC no longer matches. */
	CHECK(sh("printf x >> %s", dbg) == 0);
	CHECK(lines_open(prog, NULL, &opt, &l) == -ENODATA && !l);
}

/* ------------------------------------------------------------------ libc */

static void test_libc(void)
{
	char libc[4096] = "", line[4200];
	FILE *m = fopen("/proc/self/maps", "r");
	while (m && fgets(line, sizeof(line), m)) {
		char *p = strchr(line, '/');
		if (p && strstr(p, "/libc.so.6")) {
			p[strcspn(p, "\n")] = '\0';
			snprintf(libc, sizeof(libc), "%s", p);
			break;
		}
	}
	if (m)
		fclose(m);
	char bid[130], dbg[512];
	if (!libc[0] || !read_build_id(libc, bid, sizeof(bid))) {
		fprintf(stderr, "# libc not found: skipped\n");
		return;
	}
	snprintf(dbg, sizeof(dbg), "/usr/lib/debug/.build-id/%.2s/%s.debug", bid, bid + 2);
	if (!exists(dbg)) {
		fprintf(stderr, "# %s not installed (libc6-dbg): libc checks skipped\n", dbg);
		return;
	}
	struct lines *l = NULL;
	double t0 = now_s();
	int rc = lines_open(libc, bid, NULL, &l);
	double t1 = now_s();
	CHECK_EQ_U64(rc, 0);
	if (rc)
		return;
	fprintf(stderr, "# libc: opened in %.1f ms from %s\n", (t1 - t0) * 1e3, lines_debug_file(l));
	CHECK_EQ_STR(lines_debug_file(l), dbg);

	static const struct {
		const char *func, *file;
	} want[] = {{"malloc", "malloc/malloc.c"}, {"qsort", "stdlib/msort.c"}, {"free", "malloc/malloc.c"}};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		uint64_t size, a = nm_sym(libc, "-D", want[i].func, &size);
		CHECK(a && size);
		struct line_loc loc;
		CHECK_EQ_U64(lines_lookup(l, a, &loc), 1);
		CHECK(loc.file && strstr(loc.file, want[i].file) != NULL);
		CHECK(loc.line > 0);
	}
	/* A sample of libc against addr2line (line numbers, inline chains: call
	 * lines) and eu-addr2line (file names: binutils 2.40 picks the wrong
	 * file for some DWARF 5 CUs, e.g. dcigettext.c for eval-plural.h). */
	size_t n;
	uint64_t *addrs = text_insns(libc, &n);
	size_t k = 0;
	for (size_t i = 0; addrs && i < n; i += 64)
		addrs[k++] = addrs[i];
	struct oracle_entry *e = addrs ? run_tool("addr2line", libc, addrs, k) : NULL;
	CHECK(e != NULL);
	bool have_eu = system("eu-addr2line --version >/dev/null 2>&1") == 0;
	struct oracle_entry *eu = have_eu && addrs ? run_tool("eu-addr2line", libc, addrs, k) : NULL;
	CHECK(!have_eu || eu != NULL);
	size_t lines_same = 0, files_same = 0, chains = 0, with_inlines = 0;
	for (size_t i = 0; e && i < k; i++) {
		struct line_loc loc = {.file = "??"};
		if (!lines_lookup(l, addrs[i], &loc))
			loc.line = 0;
		lines_same += loc.line == e[i].fr[0].line;
		if (eu)
			files_same += loc.line == eu[i].fr[0].line &&
				      (loc.line == 0 || strcmp(loc.file, eu[i].fr[0].file) == 0);
		struct line_inline in[8];
		size_t depth = lines_inlines(l, addrs[i], in, 8);
		with_inlines += depth > 0;
		bool same = e[i].nframes == depth + 1;
		for (size_t j = 0; same && j < depth; j++)
			same = in[j].call.line == e[i].fr[j + 1].line;
		chains += same;
	}
	fprintf(stderr,
		"# libc sample: %zu addrs; line same as addr2line %zu, file:line same as eu-addr2line %zu%s,"
		" inline chain (length, call lines) same as addr2line %zu; %zu with inlines\n",
		k, lines_same, files_same, eu ? "" : " (not installed)", chains, with_inlines);
	CHECK(k > 1000);
	CHECK(lines_same * 100 >= k * 99);
	CHECK(!eu || files_same * 100 >= k * 99);
	CHECK(chains * 100 >= k * 98);
	CHECK(with_inlines * 10 >= k);
	free(eu);
	free(e);
	free(addrs);
	lines_free(l);
}

/* ------------------------------------------------------------------ corrupt input */

static void write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		CHECK_EQ_U64(fwrite(p, 1, n, f), n);
		fclose(f);
	}
}

/* Open a file and, if that works, look up every byte of [lo, hi). */
static int open_and_use(const char *path, uint64_t lo, uint64_t hi)
{
	struct lines *l = NULL;
	struct lines_options opt = {.debug_root = tmp};
	int rc = lines_open(path, NULL, &opt, &l);
	CHECK((rc == 0) == (l != NULL));
	if (rc == 0) {
		struct line_loc loc;
		struct line_inline in[8];
		for (uint64_t a = lo; a < hi; a++) {
			lines_lookup(l, a, &loc);
			lines_inlines(l, a, in, 8);
		}
		lines_rows(l, 0, UINT64_MAX, NULL, NULL);
	}
	lines_free(l);
	return rc;
}

/* The file offsets [*lo, *hi) spanned by the .debug_* sections, per readelf. */
static bool debug_span(const char *file, uint64_t *lo, uint64_t *hi)
{
	char cmd[4096], line[1024];
	snprintf(cmd, sizeof(cmd), "readelf -S -W '%s' 2>/dev/null", file);
	FILE *p = popen(cmd, "r");
	*lo = UINT64_MAX;
	*hi = 0;
	while (p && fgets(line, sizeof(line), p)) {
		char name[256], type[64];
		unsigned long long addr, off, size;
		char *b = strchr(line, ']');
		if (!b || sscanf(b + 1, "%255s %63s %llx %llx %llx", name, type, &addr, &off, &size) != 5 ||
		    strncmp(name, ".debug_", 7) != 0)
			continue;
		if (off < *lo)
			*lo = off;
		if (off + size > *hi)
			*hi = off + size;
	}
	if (p)
		pclose(p);
	return *lo < *hi;
}

static void test_corrupt(const char *prog)
{
	char path[256];
	struct lines *l = NULL;
	snprintf(path, sizeof(path), "%s/corrupt", tmp);
	CHECK(lines_open(NULL, NULL, NULL, &l) == -EINVAL);
	CHECK(lines_open(prog, NULL, NULL, NULL) == -EINVAL);
	CHECK(lines_open(tmp, NULL, NULL, &l) == -REGFILE_EDIR && !l); /* a directory */
	char fifo[256]; /* a FIFO (a load object's path in a hostile map.xml): refused, never waited on */
	snprintf(fifo, sizeof fifo, "%s/fifo", tmp);
	CHECK(mkfifo(fifo, 0600) == 0);
	CHECK(lines_open(fifo, NULL, NULL, &l) == -REGFILE_EFIFO && !l);
	unlink(fifo);
	lines_free(NULL);

	FILE *f = fopen(prog, "rb");
	CHECK(f != NULL);
	if (!f)
		return;
	static uint8_t img[1 << 22];
	size_t n = fread(img, 1, sizeof(img), f);
	fclose(f);
	CHECK(n > 4096 && n < sizeof(img));

	write_file(path, img, 0);
	CHECK(lines_open(path, NULL, NULL, &l) == -ENOEXEC && !l);
	write_file(path, "hello, world\n", 13);
	CHECK(lines_open(path, NULL, NULL, &l) == -ENOEXEC && !l);
	uint32_t x = 12345;
	static uint8_t rnd[65536];
	for (size_t i = 0; i < sizeof(rnd); i++) {
		x = x * 1103515245u + 12345u;
		rnd[i] = (uint8_t)(x >> 16);
	}
	write_file(path, rnd, sizeof(rnd));
	CHECK(lines_open(path, NULL, NULL, &l) < 0 && !l);
	memcpy(rnd, img, 64); /* a valid ELF header over random bytes */
	write_file(path, rnd, sizeof(rnd));
	CHECK(lines_open(path, NULL, NULL, &l) < 0 && !l);

	/* Truncated: every cut fails cleanly (the section headers are at the end). */
	static const size_t cuts[] = {16, 63, 64, 1000, 4096, 8192};
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		write_file(path, img, cuts[i]);
		CHECK(lines_open(path, NULL, NULL, &l) < 0 && !l);
	}
	for (size_t cut = n / 2; cut < n; cut += (n - cut) / 3 + 1) {
		write_file(path, img, cut);
		CHECK(lines_open(path, NULL, NULL, &l) < 0 && !l);
	}

	/* Random bytes written over the DWARF sections: an error or a usable
	 * table, never a crash (ASan and UBSan watch). */
	uint64_t m_size, m = nm_sym(prog, "", "main", &m_size);
	uint64_t dlo, dhi;
	CHECK(debug_span(prog, &dlo, &dhi) && dhi <= n);
	size_t opened = 0, runs = 400;
	double t0 = now_s();
	for (size_t r = 0; r < runs; r++) {
		static uint8_t mut[1 << 22];
		memcpy(mut, img, n);
		for (int k = 0; k < 8; k++) {
			x = x * 1103515245u + 12345u;
			size_t off = dlo + (x >> 4) % (dhi - dlo);
			x = x * 1103515245u + 12345u;
			mut[off] = (uint8_t)(x >> 16);
		}
		write_file(path, mut, n);
		opened += open_and_use(path, m, m + m_size) == 0;
	}
	fprintf(stderr, "# %zu mutated files: %zu opened, the rest failed cleanly (%.2f s)\n", runs, opened,
		now_s() - t0);
}

/* ------------------------------------------------------------------ main */

static bool find_fixtures(void)
{
	if (!find_fixtures_dir(fixtures, sizeof(fixtures), "lines_prog.c"))
		return false;
	snprintf(src, sizeof(src), "%s/lines_prog.c", fixtures);
	return true;
}

/* Run fn's lines_open on path in a child: its result, or 1000 when it did not return within 10 s (it blocked). */
static int open_within(const char *path)
{
	int p[2];
	if (pipe(p) < 0)
		return -errno;
	pid_t pid = fork();
	if (pid == 0) {
		alarm(10);
		struct lines *l = NULL;
		int r = lines_open(path, NULL, NULL, &l);
		size_t n = r == 0 ? lines_rows(l, 0, UINT64_MAX, NULL, NULL) : 0;
		lines_free(l);
		long v[2] = {r, (long)n};
		_exit(write(p[1], v, sizeof v) == (ssize_t)sizeof v ? 0 : 1);
	}
	close(p[1]);
	long v[2] = {1000, 0};
	ssize_t got = read(p[0], v, sizeof v);
	close(p[0]);
	int status;
	waitpid(pid, &status, 0);
	if (got != (ssize_t)sizeof v)
		return 1000;
	return v[0] == 0 && v[1] == 0 ? -ENODATA : (int)v[0];
}

/*
 * Files the DWARF names that libdw would open itself, with a blocking
 * open(2): a split unit's .dwo (-gsplit-dwarf) and a dwz alt file
 * (.gnu_debugaltlink).  Each replaced by a FIFO: lines_open returns at once
 * (the skeleton's line table is still read; an alt file that is a FIFO
 * refuses the DWARF).  An alt file that is a matching ELF file is used.
 */
static void test_named_files(void)
{
	char prog[256], dwo[300], alt[256], sec[256], fifo[256];
	snprintf(prog, sizeof prog, "%s/split", tmp);
	if (sh("cd %s && cc -O0 -g -gsplit-dwarf -o split %s", tmp, src) != 0) {
		CHECK(!"cc -gsplit-dwarf");
		return;
	}
	snprintf(dwo, sizeof dwo, "%s/split-lines_prog.dwo", tmp);
	CHECK(open_within(prog) == 0);
	CHECK(unlink(dwo) == 0 && mkfifo(dwo, 0600) == 0);
	CHECK(open_within(prog) == 0); /* not blocked on the .dwo, and its lines are there */
	unlink(dwo);

	/* .gnu_debugaltlink: NAME, NUL, the alt file's build-id */
	char id[130];
	snprintf(alt, sizeof alt, "%s/alt.debug", tmp);
	snprintf(fifo, sizeof fifo, "%s/alt.fifo", tmp);
	snprintf(sec, sizeof sec, "%s/altlink", tmp);
	CHECK(sh("cc -O0 -g -o %s %s", alt, src) == 0 && read_build_id(alt, id, sizeof id));
	CHECK(mkfifo(fifo, 0600) == 0);
	const char *targets[] = {fifo, alt};
	for (int i = 0; i < 2; i++) {
		FILE *f = fopen(sec, "wb");
		CHECK(f != NULL);
		if (!f)
			return;
		fwrite(targets[i], 1, strlen(targets[i]) + 1, f);
		for (size_t k = 0; id[k] && id[k + 1]; k += 2) {
			unsigned b;
			sscanf(id + k, "%2x", &b);
			fputc((int)b, f);
		}
		fclose(f);
		char linked[256];
		snprintf(linked, sizeof linked, "%s/linked%d", tmp, i);
		CHECK(sh("objcopy --add-section .gnu_debugaltlink=%s %s %s", sec, alt, linked) == 0);
		CHECK_EQ_U64(open_within(linked), i == 0 ? -REGFILE_EFIFO : 0);
	}
	unlink(fifo);
}

int main(void)
{
	if (!find_fixtures()) {
		fprintf(stderr, "tests/fixtures/lines_prog.c not found (set PA_TOP)\n");
		return 1;
	}
	/* The fixture is compiled with an absolute source path: DWARF names it so. */
	char *abs = realpath(src, NULL);
	if (!abs)
		return 1;
	snprintf(src, sizeof(src), "%s", abs);
	free(abs);
	snprintf(tmp, sizeof(tmp), "/tmp/test_lines.XXXXXX");
	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return 1;
	}
	char p5[256], p4[256];
	snprintf(p5, sizeof(p5), "%s/p5", tmp);
	snprintf(p4, sizeof(p4), "%s/p4", tmp);
	bool built5 = sh("cc -O2 -g -gdwarf-5 -o %s %s", p5, src) == 0;
	bool built4 = sh("cc -O2 -g -gdwarf-4 -o %s %s", p4, src) == 0;
	CHECK(built5 && built4);
	if (built5) {
		test_fixture(p5, p5, tmp);
		if (built4)
			test_split(p5);
		test_corrupt(p5);
		test_named_files();
	}
	if (built4)
		test_fixture(p4, p4, tmp);
	test_debuglink_crc();
	test_libc();
	sh("rm -rf %s", tmp);
	return check_done();
}
