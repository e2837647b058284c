/*
 * test_why.c - common/why.h: the words go into the caller's buffer, cut to
 * its size, none when it wants none, and the errno comes back.
 */
#include "common/why.h"

#include <errno.h>
#include <string.h>

#include "tests/unit/check.h"

int main(void)
{
	char why[16];
	CHECK(why_set(why, sizeof why, -ENOENT, "%s: %d", "a.er", 7) == -ENOENT);
	CHECK_EQ_STR(why, "a.er: 7");
	CHECK(why_set(why, sizeof why, -EFBIG, "%s", "a much longer reason than 16") == -EFBIG);
	CHECK_EQ_STR(why, "a much longer r"); /* cut, still terminated */
	memcpy(why, "untouched", 10);
	CHECK(why_set(why, 0, -EIO, "%s", "not wanted") == -EIO);
	CHECK_EQ_STR(why, "untouched");
	CHECK(why_set(NULL, 0, 0, "%s", "nowhere") == 0);
	return check_done();
}
