/*
 * test_expgroup.c - experiment group files (experiment/expgroup.h): the
 * header, comments and blanks, relative members resolved against the group's
 * directory, CRLF, every refusal (header, NUL, nesting, long lines, too many
 * members), and append/write/expand through real files in a temporary
 * directory it removes at the end.
 */
#include "experiment/expgroup.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/regfile.h"
#include "tests/unit/check.h"

static char tmp[PATH_MAX / 2];
static char err[512];

static int parse(const char *text, const char *dir, struct expgroup *g)
{
	err[0] = '\0';
	return expgroup_parse(text, strlen(text), dir, g, err, sizeof err);
}

static void test_parse(void)
{
	struct expgroup g;
	CHECK_EQ_U64(parse(EXPGROUP_HEADER "\na.er\n\n# a comment\n  /abs/b.er  \r\nsub/c.er", "/g", &g), 3);
	CHECK_EQ_U64(g.count, 3);
	if (g.count == 3) {
		CHECK_EQ_STR(g.members[0], "/g/a.er");
		CHECK_EQ_STR(g.members[1], "/abs/b.er");
		CHECK_EQ_STR(g.members[2], "/g/sub/c.er");
	}
	expgroup_release(&g);
	CHECK(g.members == NULL && g.count == 0);

	CHECK_EQ_U64(parse(EXPGROUP_HEADER "\r\na.er\r\n", NULL, &g), 1);
	if (g.count == 1)
		CHECK_EQ_STR(g.members[0], "a.er");
	expgroup_release(&g);
	CHECK_EQ_U64(parse(EXPGROUP_HEADER "\na.er\n", "/", &g), 1);
	if (g.count == 1)
		CHECK_EQ_STR(g.members[0], "/a.er");
	expgroup_release(&g);
	CHECK_EQ_U64(parse(EXPGROUP_HEADER, "d", &g), 0); /* a group of none */
	expgroup_release(&g);
}

static void test_refusals(void)
{
	struct expgroup g;
	CHECK(parse("", NULL, &g) == -EINVAL && strstr(err, "empty"));
	CHECK(parse("a.er\n", NULL, &g) == -EINVAL && strstr(err, "first line"));
	CHECK(parse("#analyzer experiment groups\na.er\n", NULL, &g) == -EINVAL);
	CHECK(parse(EXPGROUP_HEADER "\na.er\nother.erg\n", NULL, &g) == -EINVAL && strstr(err, "line 3") &&
	      strstr(err, "nested"));
	CHECK(g.members == NULL && g.count == 0);
	const char nul[] = EXPGROUP_HEADER "\na\0.er\n";
	CHECK(expgroup_parse(nul, sizeof nul - 1, NULL, &g, err, sizeof err) == -EINVAL &&
	      strstr(err, "NUL"));

	size_t n = sizeof EXPGROUP_HEADER + EXPGROUP_LINE_MAX_BYTES + 8;
	char *big = malloc(n + 1);
	CHECK(big != NULL);
	if (big) {
		snprintf(big, n + 1, "%s\n", EXPGROUP_HEADER);
		size_t h = strlen(big);
		memset(big + h, 'x', n - h);
		big[n] = '\0';
		CHECK(parse(big, NULL, &g) == -ENAMETOOLONG && strstr(err, "line 2"));
		free(big);
	}
	size_t many = EXPGROUP_MAX_MEMBERS + 1;
	char *text = malloc(sizeof EXPGROUP_HEADER + many * 5 + 1);
	CHECK(text != NULL);
	if (text) {
		char *p = text + sprintf(text, "%s\n", EXPGROUP_HEADER);
		for (size_t i = 0; i < many; i++)
			p += sprintf(p, "a.er\n");
		CHECK(parse(text, NULL, &g) == -E2BIG);
		CHECK(g.count == 0);
		free(text);
	}
}

static void path_of(char *p, size_t room, const char *name)
{
	snprintf(p, room, "%s/%s", tmp, name);
}

static void test_files(void)
{
	char g1[PATH_MAX], plain[PATH_MAX], dir[PATH_MAX], want[PATH_MAX];
	struct expgroup g;

	path_of(g1, sizeof g1, "g.erg");
	path_of(plain, sizeof plain, "noext");
	path_of(dir, sizeof dir, "x.er");
	CHECK(mkdir(dir, 0755) == 0);

	/* append creates the file with its header; a second append adds a line */
	CHECK(expgroup_is_group(g1) == 0);
	CHECK(expgroup_append(g1, "x.er") == 0);
	CHECK(expgroup_append(g1, "/elsewhere/y.er") == 0);
	CHECK(expgroup_append(g1, "bad\nname") == -EINVAL);
	CHECK(expgroup_is_group(g1) == 1);
	CHECK(expgroup_is_group(dir) == 0);
	CHECK_EQ_U64(expgroup_read(g1, &g, err, sizeof err), 2);
	snprintf(want, sizeof want, "%s/x.er", tmp);
	if (g.count == 2) {
		CHECK_EQ_STR(g.members[0], want);
		CHECK_EQ_STR(g.members[1], "/elsewhere/y.er");
	}
	expgroup_release(&g);

	/* a file without .erg is a group only with the header */
	FILE *f = fopen(plain, "w");
	CHECK(f != NULL);
	if (f) {
		fputs("x.er", f); /* no newline: append must add one */
		fclose(f);
	}
	CHECK(expgroup_is_group(plain) == 0);
	CHECK(expgroup_append(plain, "y.er") == -EINVAL);
	CHECK(unlink(plain) == 0);
	f = fopen(plain, "w");
	if (f) {
		fputs(EXPGROUP_HEADER "\nx.er", f);
		fclose(f);
	}
	CHECK(expgroup_is_group(plain) == 1);
	CHECK(expgroup_append(plain, "z.er") == 0);
	CHECK_EQ_U64(expgroup_read(plain, &g, err, sizeof err), 2);
	if (g.count == 2) {
		snprintf(want, sizeof want, "%s/z.er", tmp);
		CHECK_EQ_STR(g.members[1], want);
	}
	expgroup_release(&g);
	CHECK(expgroup_read(dir, &g, err, sizeof err) == -REGFILE_EDIR);
	CHECK_EQ_STR(err, "not a regular file (a directory)");
	/* a FIFO named as a group is refused at once, never opened (it would block) */
	char fifo[PATH_MAX];
	path_of(fifo, sizeof fifo, "fifo.erg");
	CHECK(mkfifo(fifo, 0600) == 0);
	CHECK(expgroup_is_group(fifo) == 0);
	CHECK(expgroup_read(fifo, &g, err, sizeof err) == -REGFILE_EFIFO);
	CHECK_EQ_STR(err, "not a regular file (a FIFO)");
	unlink(fifo);

	/* write: O_EXCL, then expand mixes groups and experiments in order */
	char g2[PATH_MAX];
	path_of(g2, sizeof g2, "w.erg");
	const char *members[] = {"a.er", "b.er"};
	CHECK(expgroup_write(g2, members, 2) == 0);
	CHECK(expgroup_write(g2, members, 2) == -EEXIST);
	const char *args[] = {dir, g2, "missing.er"};
	char **paths = NULL;
	size_t n = 0;
	CHECK(expgroup_expand(args, 3, &paths, &n, err, sizeof err) == 0);
	CHECK_EQ_U64(n, 4);
	if (n == 4) {
		CHECK_EQ_STR(paths[0], dir);
		snprintf(want, sizeof want, "%s/b.er", tmp);
		CHECK_EQ_STR(paths[2], want);
		CHECK_EQ_STR(paths[3], "missing.er");
	}
	expgroup_free_paths(paths, n);

	/* a .erg with a bad header: the error names the group */
	char g3[PATH_MAX];
	path_of(g3, sizeof g3, "bad.erg");
	f = fopen(g3, "w");
	if (f) {
		fputs("hello\n", f);
		fclose(f);
	}
	const char *bad[] = {g3};
	CHECK(expgroup_expand(bad, 1, &paths, &n, err, sizeof err) == -EINVAL);
	CHECK(strstr(err, "bad.erg") && strstr(err, "first line"));

	unlink(g1);
	unlink(g2);
	unlink(g3);
	unlink(plain);
	rmdir(dir);
}

int main(void)
{
	snprintf(tmp, sizeof tmp, "%s/test_expgroup.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return 1;
	}
	test_parse();
	test_refusals();
	test_files();
	CHECK(rmdir(tmp) == 0);
	return check_done();
}
