/*
 * test_lines_index.c - the on-disk line index (analysis/lines_cache.c):
 * opening a DWARF file through a cache directory gives the same answers as
 * reading its DWARF, on tests/fixtures/lines_prog.c built -O2 -g and on the
 * system's libc (libc6-dbg); the second open maps the index; a corrupt,
 * truncated or stale index is rebuilt (or, where the damage is in a table
 * not checksummed, answers without a wild read: ASan watches); writers
 * racing each other leave one whole index and no temporary file; a cache
 * directory that cannot be written costs nothing but time.
 */
#include "analysis/lines.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analysis/lines_internal.h"
#include "tests/unit/check.h"
#include "tests/unit/fixture.h"

static char tmp[64];

/* Every answer of l for the addresses lo..hi (step), as text. */
static char *answers(struct lines *l, uint64_t lo, uint64_t hi, uint64_t step, size_t *ret_len)
{
	size_t cap = 1 << 16, n = 0;
	char *out = malloc(cap);
	for (uint64_t a = lo; out && a < hi; a += step) {
		char buf[8192];
		int k = 0;
		struct line_loc loc;
		if (lines_lookup(l, a, &loc))
			k += snprintf(buf + k, sizeof(buf) - (size_t)k, "%llx %s:%u:%u",
				      (unsigned long long)a, loc.file, loc.line, loc.column);
		struct line_inline in[8];
		size_t ni = lines_inlines(l, a, in, 8);
		for (size_t i = 0; i < ni && i < 8 && k < 6000; i++)
			k += snprintf(buf + k, sizeof(buf) - (size_t)k, " [%s|%s %s:%u:%u %llx-%llx]",
				      in[i].name, in[i].mangled, in[i].call.file, in[i].call.line,
				      in[i].call.column, (unsigned long long)in[i].lo,
				      (unsigned long long)in[i].hi);
		if (k == 0)
			continue;
		buf[k++] = '\n';
		while (n + (size_t)k + 1 > cap) {
			cap *= 2;
			char *o = realloc(out, cap);
			if (!o) {
				free(out);
				return NULL;
			}
			out = o;
		}
		memcpy(out + n, buf, (size_t)k);
		n += (size_t)k;
	}
	if (out)
		out[n] = '\0';
	*ret_len = n;
	return out;
}

static void count_row(void *ctx, uint64_t addr, const struct line_loc *loc)
{
	(void)addr;
	(void)loc;
	(*(size_t *)ctx)++;
}

struct object {
	const char *path, *build_id;
	uint64_t lo, hi, step;
	bool own_dwarf; /* the object holds its DWARF (no separate debug file) */
	char *ref;      /* the answers read from DWARF */
	size_t ref_len, rows;
};

/* The object's answers through cache `dir`: 0 when they equal the reference (-1: differ, else -errno). */
static int check_through(struct object *o, const char *dir, bool *mapped)
{
	struct lines_options opt = {.cache_dir = dir};
	struct lines *l = NULL;
	int rc = lines_open(o->path, o->build_id, &opt, &l);
	if (rc < 0)
		return rc;
	size_t n, rows = 0;
	char *a = answers(l, o->lo, o->hi, o->step, &n);
	lines_rows(l, 0, UINT64_MAX, count_row, &rows);
	if (mapped)
		*mapped = l->map != NULL;
	lines_free(l);
	int same = a && n == o->ref_len && memcmp(a, o->ref, n) == 0 && rows == o->rows;
	if (!same)
		fprintf(stderr, "# answers differ through %s (%zu vs %zu bytes, %zu vs %zu rows)\n", dir, n,
			o->ref_len, rows, o->rows);
	free(a);
	return same ? 0 : -1;
}

static bool reference(struct object *o)
{
	struct lines *l = NULL;
	if (lines_open(o->path, o->build_id, NULL, &l) < 0)
		return false;
	o->ref = answers(l, o->lo, o->hi, o->step, &o->ref_len);
	o->rows = 0;
	lines_rows(l, 0, UINT64_MAX, count_row, &o->rows);
	lines_free(l);
	return o->ref && o->ref_len > 0 && o->rows > 0;
}

/* The one index file under dir (its path into ret), and no temporary file beside it. */
static bool one_index(const char *dir, char *ret, size_t room)
{
	char cmd[512], line[256];
	snprintf(cmd, sizeof(cmd), "ls -A '%s'", dir);
	FILE *p = popen(cmd, "r");
	int n = 0, other = 0;
	while (p && fgets(line, sizeof(line), p)) {
		line[strcspn(line, "\n")] = '\0';
		size_t len = strlen(line);
		if (len > 6 && strcmp(line + len - 6, ".lines") == 0 && line[0] != '.' &&
		    snprintf(ret, room, "%s/%s", dir, line) < (int)room) {
			n++;
		} else {
			other++;
		}
	}
	if (p)
		pclose(p);
	return n == 1 && other == 0;
}

/* Overwrite len bytes at off of file with byte b (or truncate it to off when len is 0). */
static void damage(const char *file, off_t off, size_t len, uint8_t b)
{
	int fd = open(file, O_WRONLY);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	if (len == 0) {
		CHECK(ftruncate(fd, off) == 0);
	} else {
		uint8_t buf[64];
		memset(buf, b, sizeof(buf));
		CHECK(len <= sizeof(buf) && pwrite(fd, buf, len, off) == (ssize_t)len);
	}
	close(fd);
}

static struct lines_index_header read_header(const char *file)
{
	struct lines_index_header h;
	memset(&h, 0, sizeof(h));
	int fd = open(file, O_RDONLY);
	if (fd >= 0) {
		CHECK(pread(fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h));
		close(fd);
	}
	return h;
}

static void test_object(struct object *o, const char *name)
{
	if (!reference(o)) {
		CHECK(!"reference answers");
		return;
	}
	char dir[256], idx[512];
	snprintf(dir, sizeof(dir), "%s/cache-%s/lines", tmp, name);
	bool mapped = true;
	/* the first open reads the DWARF, writes the index and maps it; the second maps it */
	CHECK_EQ_U64(check_through(o, dir, &mapped), 0);
	CHECK(one_index(dir, idx, sizeof(idx)));
	CHECK(mapped);
	struct stat st0, st1;
	CHECK(stat(idx, &st0) == 0);
	CHECK_EQ_U64(check_through(o, dir, &mapped), 0);
	CHECK(mapped);
	CHECK(stat(idx, &st1) == 0 && st0.st_ino == st1.st_ino); /* not rewritten */
	fprintf(stderr, "# %s: index of %lld bytes, %zu rows\n", name, (long long)st0.st_size, o->rows);

	/* Damage the checked parts: each is found and the index rebuilt (a new inode). */
	struct lines_index_header h = read_header(idx);
	const struct {
		const char *what;
		off_t off;
		size_t len;
	} cuts[] = {
		{"magic", 0, 4},
		{"version", 8, 4},
		{"file size", 16, 8},
		{"row count", offsetof(struct lines_index_header, nrows), 8},
		{"a table offset", offsetof(struct lines_index_header, off_pool), 8},
		{"the CU table", (off_t)h.off_cus, 16},
		{"the string offsets", (off_t)h.off_stroff, 8},
		{"the blob's end", (off_t)(h.off_blob + h.blob_len - 1), 1},
		{"truncated", (off_t)(h.file_size / 2), 0},
		{"emptied", 0, 0},
	};
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		damage(idx, cuts[i].off, cuts[i].len, 0xa5);
		struct stat sd;
		CHECK(stat(idx, &sd) == 0);
		int rc = check_through(o, dir, &mapped);
		if (rc != 0)
			fprintf(stderr, "# after damage to %s: %d\n", cuts[i].what, rc);
		CHECK_EQ_U64(rc, 0);
		CHECK(mapped && one_index(dir, idx, sizeof(idx)));
		CHECK(stat(idx, &st1) == 0 && st1.st_ino != sd.st_ino);
	}

	/* Damage the tables checked block by block: the answers stay right (read from the DWARF
	 * once a block fails) and the index is removed, to be rebuilt by the next open. */
	static const char *const tables[] = {"rows",          "CU ranges", "inline instances",
					     "inline ranges", "intervals", "chains"};
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		CHECK_EQ_U64(check_through(o, dir, &mapped), 0); /* an index there to damage */
		CHECK(one_index(dir, idx, sizeof(idx)));
		h = read_header(idx);
		const uint64_t offs[] = {h.off_rows, h.off_cur, h.off_inst, h.off_rg, h.off_iv, h.off_pool};
		const uint64_t ends[] = {h.off_cur, h.off_cus, h.off_rg, h.off_iv, h.off_pool, h.off_sums};
		if (ends[i] < offs[i] + 64)
			continue; /* too small a table here */
		/* in the middle of the table: a block the lookups of every address reach */
		damage(idx, (off_t)(offs[i] + (ends[i] - offs[i]) / 2) & ~(off_t)7, 64, 0xff);
		int rc = check_through(o, dir, &mapped);
		if (rc != 0)
			fprintf(stderr, "# after damage to the %s: %d\n", tables[i], rc);
		CHECK_EQ_U64(rc, 0);
		if (i == 0) /* every lookup's first probe is the middle row: found, and the index removed */
			CHECK(!exists(idx));
	}
	CHECK_EQ_U64(check_through(o, dir, &mapped), 0);

	/* A stale index (the DWARF file changed since) is rebuilt. */
	CHECK(stat(idx, &st0) == 0);
	struct object fresh = *o;
	char copy[512];
	snprintf(copy, sizeof(copy), "%s/copy-%s", tmp, name);
	if (sh("cp '%s' '%s'", o->path, copy) == 0) {
		fresh.path = copy;
		CHECK_EQ_U64(check_through(&fresh, dir, &mapped), 0);
		/* (libc's DWARF is in its debug file, which the copy shares: its index holds) */
		CHECK(stat(idx, &st1) == 0 && (st1.st_ino != st0.st_ino) == o->own_dwarf);
		/* and the original's, used again, is rebuilt for the original */
		CHECK_EQ_U64(check_through(o, dir, &mapped), 0);
		CHECK(mapped);
	}

	/* Writers racing: every one answers the same, one index is left and no temporary file. */
	sh("rm -rf '%s'", dir);
	for (int round = 0; round < 3; round++) {
		pid_t kids[4];
		for (int k = 0; k < 4; k++) {
			kids[k] = fork();
			if (kids[k] == 0)
				_exit(check_through(o, dir, NULL) == 0 ? 0 : 1);
		}
		for (int k = 0; k < 4; k++) {
			int status = 0;
			CHECK(kids[k] > 0 && waitpid(kids[k], &status, 0) == kids[k]);
			CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		}
		CHECK(one_index(dir, idx, sizeof(idx)));
		if (round == 1)
			sh("rm -f '%s'", idx);
	}

	/* A cache directory that cannot be made: the DWARF is read, nothing else happens. */
	char blocked[512];
	snprintf(blocked, sizeof(blocked), "%s/blocked-%s", tmp, name);
	CHECK(sh("touch '%s'", blocked) == 0);
	snprintf(dir, sizeof(dir), "%s/blocked-%s/lines", tmp, name);
	CHECK_EQ_U64(check_through(o, dir, &mapped), 0);
	CHECK(!mapped);
	free(o->ref);
}

/* The .text range of file (objdump -h). */
static bool text_range(const char *file, uint64_t *lo, uint64_t *hi)
{
	char cmd[4096], line[1024];
	snprintf(cmd, sizeof(cmd), "objdump -h '%s' 2>/dev/null", file);
	FILE *p = popen(cmd, "r");
	bool ok = false;
	while (p && fgets(line, sizeof(line), p)) {
		unsigned idx;
		char name[64];
		unsigned long long size, vma;
		if (sscanf(line, "%u %63s %llx %llx", &idx, name, &size, &vma) == 4 &&
		    strcmp(name, ".text") == 0) {
			*lo = vma;
			*hi = vma + size;
			ok = size > 0;
		}
	}
	if (p)
		pclose(p);
	return ok;
}

static bool libc_path(char *ret, size_t room)
{
	char line[4200];
	FILE *m = fopen("/proc/self/maps", "r");
	bool ok = false;
	while (m && fgets(line, sizeof(line), m)) {
		char *p = strchr(line, '/');
		if (p && strstr(p, "/libc.so.6")) {
			p[strcspn(p, "\n")] = '\0';
			snprintf(ret, room, "%s", p);
			ok = true;
			break;
		}
	}
	if (m)
		fclose(m);
	return ok;
}

int main(void)
{
	char fixtures[1024], src[1200];
	if (!find_fixtures_dir(fixtures, sizeof(fixtures), "lines_prog.c")) {
		fprintf(stderr, "tests/fixtures/lines_prog.c not found (set PA_TOP)\n");
		return 1;
	}
	snprintf(src, sizeof(src), "%s/lines_prog.c", fixtures);
	snprintf(tmp, sizeof(tmp), "/tmp/test_lines_index.XXXXXX");
	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return 1;
	}
	char prog[256];
	snprintf(prog, sizeof(prog), "%s/prog", tmp);
	CHECK(sh("cc -O2 -g -o %s %s", prog, src) == 0);
	struct object fix = {.path = prog, .step = 1, .own_dwarf = true};
	if (text_range(prog, &fix.lo, &fix.hi))
		test_object(&fix, "fixture");
	else
		CHECK(!"the fixture's .text");

	char libc[4096];
	struct lines *probe = NULL;
	if (libc_path(libc, sizeof(libc)) && lines_open(libc, NULL, NULL, &probe) == 0) {
		lines_free(probe);
		struct object lc = {.path = libc, .step = 61};
		if (text_range(libc, &lc.lo, &lc.hi))
			test_object(&lc, "libc");
	} else {
		fprintf(stderr, "# libc has no DWARF here (libc6-dbg): its checks skipped\n");
	}
	sh("rm -rf %s", tmp);
	return check_done();
}
