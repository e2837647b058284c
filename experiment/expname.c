/*
 * expname.c - experiment directory naming: validate NAME.er, parse
 * STEM.N.er, and pick the next free name in a directory.  No printing, no
 * static state; errors are negative errno values.
 */
#include "experiment/expname.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define SUFFIX ".er"
#define SUFFIX_BYTES 3

int expname_validate(const char *name)
{
	size_t n;

	if (!name)
		return -EINVAL;
	n = strlen(name);
	if (n > EXPNAME_MAX_BYTES)
		return -ENAMETOOLONG;
	if (n <= SUFFIX_BYTES || strcmp(name + n - SUFFIX_BYTES, SUFFIX) != 0)
		return -EINVAL;
	if (strchr(name, '/'))
		return -EINVAL;
	return 0;
}

int expname_parse(const char *name, size_t *ret_stem_bytes, unsigned long *ret_number)
{
	size_t n, end, start;
	unsigned long v = 0;

	if (!name)
		return 0;
	n = strlen(name);
	if (n <= SUFFIX_BYTES || strcmp(name + n - SUFFIX_BYTES, SUFFIX) != 0)
		return 0;
	end = n - SUFFIX_BYTES; /* digits are name[start, end) */
	start = end;
	while (start > 0 && name[start - 1] >= '0' && name[start - 1] <= '9')
		start--;
	/* need at least one digit, a '.' before them, and a non-empty stem */
	if (start == end || start < 2 || name[start - 1] != '.')
		return 0;
	for (size_t i = start; i < end; i++) {
		unsigned d = (unsigned)(name[i] - '0');
		if (v > (ULONG_MAX - d) / 10)
			return -EOVERFLOW;
		v = v * 10 + d;
	}
	if (ret_stem_bytes)
		*ret_stem_bytes = start - 1;
	if (ret_number)
		*ret_number = v;
	return 1;
}

static int copy_out(const char *s, char *ret_name, size_t room)
{
	size_t n = strlen(s);

	if (!ret_name || n + 1 > room)
		return -ENOSPC;
	memcpy(ret_name, s, n + 1);
	return 0;
}

/* 1 if DIR/NAME exists (any file type), 0 if not, -errno on other errors. */
static int name_exists(const char *dir, const char *name)
{
	char path[PATH_MAX];
	struct stat st;
	int n = snprintf(path, sizeof path, "%s/%s", dir, name);

	if (n < 0 || (size_t)n >= sizeof path)
		return -ENAMETOOLONG;
	if (lstat(path, &st) == 0)
		return 1;
	return errno == ENOENT ? 0 : -errno;
}

int expname_next(const char *dir, const char *name, char *ret_name, size_t room)
{
	char buf[EXPNAME_MAX_BYTES + 32];
	size_t stem_bytes = 0;
	unsigned long number = 0, highest;
	struct stat st;
	struct dirent *de;
	DIR *d;
	int rc;

	if (!dir)
		dir = ".";
	if (!name)
		name = EXPNAME_DEFAULT;
	rc = expname_validate(name);
	if (rc < 0)
		return rc;
	if (stat(dir, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	rc = name_exists(dir, name);
	if (rc < 0)
		return rc;
	if (rc == 0)
		return copy_out(name, ret_name, room);
	rc = expname_parse(name, &stem_bytes, &number);
	if (rc < 0)
		return rc;
	if (rc == 0)
		return -EEXIST;

	/* In use and numbered: one more than the highest STEM.M.er present. */
	highest = number;
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d)) != NULL) {
		size_t sb;
		unsigned long m;

		if (expname_parse(de->d_name, &sb, &m) != 1)
			continue;
		if (sb == stem_bytes && memcmp(de->d_name, name, sb) == 0 && m > highest)
			highest = m;
	}
	closedir(d);
	if (highest == ULONG_MAX)
		return -EOVERFLOW;
	rc = snprintf(buf, sizeof buf, "%.*s.%lu" SUFFIX, (int)stem_bytes, name, highest + 1);
	if (rc < 0 || (size_t)rc >= sizeof buf || (size_t)rc > EXPNAME_MAX_BYTES)
		return -ENAMETOOLONG;
	return copy_out(buf, ret_name, room);
}
