/*
 * test_strbuf.c - common/strbuf.h: appends and printf growing past the first
 * allocation, the cap (exactly max bytes fit, one more fails and keeps the
 * text), reset, detach (caller owns the string, the buffer is empty again),
 * and an empty buffer reading as "".
 */
#include "common/strbuf.h"

#include <stdlib.h>

#include "tests/unit/check.h"

static void test_grow(void)
{
	struct strbuf b;
	strbuf_init(&b, 0);
	CHECK_EQ_STR(strbuf_str(&b), "");
	CHECK_EQ_U64(b.len, 0);
	for (int i = 0; i < 1000; i++)
		strbuf_addf(&b, "%d,", i % 10);
	CHECK_EQ_U64(b.len, 2000);
	CHECK(!b.failed && b.cap > b.len && b.s[b.len] == '\0');
	CHECK(strncmp(strbuf_str(&b), "0,1,2,", 6) == 0);
	strbuf_reset(&b);
	CHECK_EQ_STR(strbuf_str(&b), "");
	strbuf_adds(&b, "ab");
	strbuf_add(&b, "cdef", 2);
	CHECK_EQ_STR(strbuf_str(&b), "abcd");
	char *s = strbuf_detach(&b);
	CHECK_EQ_STR(s, "abcd");
	CHECK_EQ_STR(strbuf_str(&b), "");
	CHECK_EQ_U64(b.len, 0);
	free(s);
	s = strbuf_detach(&b); /* empty: "" the caller frees */
	CHECK_EQ_STR(s, "");
	free(s);
	strbuf_release(&b);
}

static void test_cap(void)
{
	struct strbuf b;
	strbuf_init(&b, 8);
	strbuf_adds(&b, "12345678");
	CHECK(!b.failed);
	CHECK_EQ_STR(strbuf_str(&b), "12345678");
	strbuf_adds(&b, "9");
	CHECK(b.failed);
	CHECK_EQ_STR(strbuf_str(&b), "12345678"); /* keeps what it had */
	strbuf_release(&b);
	strbuf_init(&b, 4);
	strbuf_addf(&b, "%s", "toolong");
	CHECK(b.failed);
	CHECK_EQ_STR(strbuf_str(&b), "");
	strbuf_release(&b);
	CHECK_EQ_U64(b.max, 4); /* release keeps the cap */
}

int main(void)
{
	test_grow();
	test_cap();
	return check_done();
}
