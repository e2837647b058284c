/*
 * test_expname.c - experiment naming rules (experiment/expname.h): the
 * default name, numbering with gaps, non-numbered names, bad suffixes.
 * Works in a fresh temporary directory it removes at the end.
 */
#include "experiment/expname.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/unit/check.h"

static char tmp[PATH_MAX / 2];

static void make(const char *name)
{
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s/%s", tmp, name);
	CHECK(mkdir(p, 0755) == 0);
}

static void touch(const char *name)
{
	char p[PATH_MAX];
	FILE *f;
	snprintf(p, sizeof p, "%s/%s", tmp, name);
	f = fopen(p, "w");
	CHECK(f != NULL);
	if (f)
		fclose(f);
}

static void cleanup(void)
{
	DIR *d = opendir(tmp);
	struct dirent *de;
	char p[PATH_MAX];

	if (!d)
		return;
	while ((de = readdir(d)) != NULL) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(p, sizeof p, "%s/%s", tmp, de->d_name);
		if (rmdir(p) != 0)
			unlink(p);
	}
	closedir(d);
	rmdir(tmp);
}

/* expname_next in tmp, returning the name (or "ERR<errno>") in a static buffer */
static const char *next(const char *name)
{
	static char out[EXPNAME_MAX_BYTES + 1];
	int rc = expname_next(tmp, name, out, sizeof out);
	if (rc < 0)
		snprintf(out, sizeof out, "ERR%d", -rc);
	return out;
}

static void test_validate(void)
{
	CHECK(expname_validate("test.1.er") == 0);
	CHECK(expname_validate("a.er") == 0);
	CHECK(expname_validate("my run.er") == 0);
	CHECK(expname_validate(".er") == -EINVAL);
	CHECK(expname_validate("foo") == -EINVAL);
	CHECK(expname_validate("foo.ER") == -EINVAL);
	CHECK(expname_validate("foo.er.bak") == -EINVAL);
	CHECK(expname_validate("dir/foo.er") == -EINVAL);
	CHECK(expname_validate("") == -EINVAL);
	CHECK(expname_validate(NULL) == -EINVAL);

	char long_name[EXPNAME_MAX_BYTES + 8];
	memset(long_name, 'x', sizeof long_name);
	strcpy(long_name + EXPNAME_MAX_BYTES - 2, ".er"); /* exactly 256 bytes */
	CHECK(expname_validate(long_name) == -ENAMETOOLONG);
	strcpy(long_name + EXPNAME_MAX_BYTES - 3, ".er"); /* exactly 255 bytes */
	CHECK(expname_validate(long_name) == 0);
}

static void test_parse(void)
{
	size_t stem = 99;
	unsigned long n = 99;

	CHECK(expname_parse("test.1.er", &stem, &n) == 1);
	CHECK_EQ_U64(stem, 4);
	CHECK_EQ_U64(n, 1);
	CHECK(expname_parse("a.b.17.er", &stem, &n) == 1);
	CHECK_EQ_U64(stem, 3);
	CHECK_EQ_U64(n, 17);
	CHECK(expname_parse("x.007.er", &stem, &n) == 1);
	CHECK_EQ_U64(n, 7);
	CHECK(expname_parse("abc.er", NULL, NULL) == 0);
	CHECK(expname_parse("abc5.er", NULL, NULL) == 0); /* no '.' before N */
	CHECK(expname_parse(".5.er", NULL, NULL) == 0);   /* empty stem */
	CHECK(expname_parse("x.1a.er", NULL, NULL) == 0);
	CHECK(expname_parse("x.1.erx", NULL, NULL) == 0);
	CHECK(expname_parse("x..er", NULL, NULL) == 0);
	CHECK(expname_parse("x.99999999999999999999999.er", NULL, NULL) == -EOVERFLOW);
}

static void test_next(void)
{
	char small[4];

	/* default name, empty directory */
	CHECK_EQ_STR(next(NULL), "test.1.er");
	make("test.1.er");
	CHECK_EQ_STR(next(NULL), "test.2.er");
	CHECK_EQ_STR(next("test.1.er"), "test.2.er");
	/* gaps are not filled: one more than the highest */
	make("test.5.er");
	CHECK_EQ_STR(next(NULL), "test.6.er");
	/* a free numbered name is used as given, even below the highest */
	CHECK_EQ_STR(next("test.3.er"), "test.3.er");
	/* a plain file counts as "in use" too */
	touch("test.9.er");
	CHECK_EQ_STR(next(NULL), "test.10.er");
	/* other stems and non-numbered names do not count */
	make("test.er");
	make("test.x.er");
	make("testing.50.er");
	make("test.40.erx");
	CHECK_EQ_STR(next(NULL), "test.10.er");
	/* -o abc.5.er twice -> abc.6.er */
	CHECK_EQ_STR(next("abc.5.er"), "abc.5.er");
	make("abc.5.er");
	CHECK_EQ_STR(next("abc.5.er"), "abc.6.er");
	/* a higher number than all existing ones, in use: +1 of itself */
	make("big.100.er");
	make("big.7.er");
	CHECK_EQ_STR(next("big.100.er"), "big.101.er");
	CHECK_EQ_STR(next("big.7.er"), "big.101.er");
	/* non-numbered name: free -> as is, in use -> EEXIST */
	CHECK_EQ_STR(next("heap.er"), "heap.er");
	make("heap.er");
	CHECK_EQ_STR(next("heap.er"), "ERR17");
	/* bad names */
	CHECK_EQ_STR(next("heap"), "ERR22");
	CHECK_EQ_STR(next("a/b.er"), "ERR22");
	/* result buffer too small */
	CHECK(expname_next(tmp, NULL, small, sizeof small) == -ENOSPC);
	/* directory problems */
	CHECK(expname_next("/nonexistent/dir/x", NULL, small, sizeof small) == -ENOENT);
	{
		char p[PATH_MAX], out[64];
		snprintf(p, sizeof p, "%s/test.9.er", tmp); /* a regular file */
		CHECK(expname_next(p, NULL, out, sizeof out) == -ENOTDIR);
	}
	/* overflow of the next number */
	{
		char out[64];
		make("o.18446744073709551615.er");
		CHECK(expname_next(tmp, "o.1.er", out, sizeof out) == 0);
		CHECK_EQ_STR(out, "o.1.er");
		make("o.1.er");
		CHECK(expname_next(tmp, "o.1.er", out, sizeof out) == -EOVERFLOW);
	}
}

int main(void)
{
	const char *base = getenv("TMPDIR");
	snprintf(tmp, sizeof tmp, "%s/test_expname.XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return 1;
	}
	test_validate();
	test_parse();
	test_next();
	cleanup();
	return check_done();
}
