/*
 * test_jsonw.c - common/jsonw.h: the exact text of nested objects and
 * arrays (compact and pretty), string escaping (every control character,
 * quotes, backslashes, NUL bytes), valid UTF-8 kept and each maximal
 * invalid subpart replaced by one U+FFFD, integer and double and exact
 * decimal numbers, and every misuse rejected with the documented errno,
 * writing nothing and sticking; output to a strbuf with a cap and to a FILE
 * whose writes fail.
 */
#include "common/jsonw.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "tests/unit/check.h"

/* A compact writer on a fresh strbuf. */
static void start(struct jsonw *w, struct strbuf *b)
{
	strbuf_init(b, 0);
	jsonw_init(w, NULL, b, 0);
}

/* The JSON text of one string value. */
static const char *one_string(struct strbuf *b, const char *s, size_t n)
{
	struct jsonw w;
	strbuf_reset(b);
	jsonw_init(&w, NULL, b, 0);
	jsonw_string_n(&w, s, n);
	return jsonw_error(&w) ? "(error)" : strbuf_str(b);
}

static void test_structure(void)
{
	struct strbuf b;
	struct jsonw w;
	start(&w, &b);
	CHECK(jsonw_object_begin(&w) == 0);
	CHECK(jsonw_key_string(&w, "name", "x") == 0);
	jsonw_key(&w, "list");
	jsonw_array_begin(&w);
	jsonw_uint(&w, 1);
	jsonw_int(&w, -2);
	jsonw_object_begin(&w);
	jsonw_object_end(&w);
	jsonw_array_begin(&w);
	jsonw_array_end(&w);
	jsonw_null(&w);
	jsonw_bool(&w, 1);
	jsonw_bool(&w, 0);
	jsonw_string(&w, NULL);
	jsonw_array_end(&w);
	jsonw_key_uint(&w, "n", 7);
	jsonw_key_bool(&w, "b", 0);
	jsonw_key_int(&w, "i", -1);
	jsonw_key_udecimal(&w, "d", 25, 1);
	char *sv[] = {"a", "b\"c"};
	CHECK(jsonw_key_strings(&w, "s", sv, 2) == 0);
	CHECK(jsonw_key_strings(&w, "none", NULL, 0) == 0);
	CHECK(jsonw_object_end(&w) == 0);
	CHECK(jsonw_finish(&w) == 0);
	CHECK_EQ_STR(strbuf_str(&b),
		     "{\"name\":\"x\",\"list\":[1,-2,{},[],null,true,false,null],\"n\":7,\"b\":false,"
		     "\"i\":-1,\"d\":2.5,\"s\":[\"a\",\"b\\\"c\"],\"none\":[]}\n");
	strbuf_release(&b);

	/* a scalar alone is a document */
	start(&w, &b);
	jsonw_uint(&w, 3);
	CHECK(jsonw_finish(&w) == 0);
	CHECK_EQ_STR(strbuf_str(&b), "3\n");
	strbuf_release(&b);
}

static void test_pretty(void)
{
	struct strbuf b;
	struct jsonw w;
	strbuf_init(&b, 0);
	jsonw_init(&w, NULL, &b, JSONW_PRETTY);
	jsonw_object_begin(&w);
	jsonw_key(&w, "a");
	jsonw_array_begin(&w);
	jsonw_uint(&w, 1);
	jsonw_object_begin(&w);
	jsonw_object_end(&w);
	jsonw_array_end(&w);
	jsonw_key_string(&w, "b", "c");
	jsonw_object_end(&w);
	CHECK(jsonw_finish(&w) == 0);
	CHECK_EQ_STR(strbuf_str(&b), "{\n  \"a\": [\n    1,\n    {}\n  ],\n  \"b\": \"c\"\n}\n");
	strbuf_release(&b);
}

static void test_escapes(void)
{
	struct strbuf b;
	strbuf_init(&b, 0);
	CHECK_EQ_STR(one_string(&b, "a\"b\\c/d", 7), "\"a\\\"b\\\\c/d\"");
	CHECK_EQ_STR(one_string(&b, "\n\t\r\b\f", 5), "\"\\n\\t\\r\\b\\f\"");
	CHECK_EQ_STR(one_string(&b, "\x01\x1f\x7f", 3), "\"\\u0001\\u001f\x7f\"");
	CHECK_EQ_STR(one_string(&b, "a\0b", 3), "\"a\\u0000b\"");
	CHECK_EQ_STR(one_string(&b, "", 0), "\"\"");
	/* every control character is escaped: none is left raw */
	for (int c = 0; c < 0x20; c++) {
		char in = (char)c;
		const char *out = one_string(&b, &in, 1);
		int raw = 0;
		for (const char *p = out; *p; p++)
			raw |= (unsigned char)*p < 0x20;
		CHECK(!raw && out[1] == '\\');
	}
	/* keys are escaped the same way */
	struct jsonw w;
	strbuf_reset(&b);
	jsonw_init(&w, NULL, &b, 0);
	jsonw_object_begin(&w);
	jsonw_key_uint(&w, "k\"\n", 1);
	jsonw_object_end(&w);
	CHECK_EQ_STR(strbuf_str(&b), "{\"k\\\"\\n\":1}");
	strbuf_release(&b);
}

static void test_utf8(void)
{
	struct strbuf b;
	strbuf_init(&b, 0);
#define R "\xef\xbf\xbd"
	/* valid: 2, 3 and 4 byte forms, the extremes of each */
	CHECK_EQ_STR(one_string(&b, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9),
		     "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"");
	CHECK_EQ_STR(one_string(&b, "\xc2\x80\xdf\xbf\xe0\xa0\x80\xef\xbf\xbf", 10),
		     "\"\xc2\x80\xdf\xbf\xe0\xa0\x80\xef\xbf\xbf\"");
	CHECK_EQ_STR(one_string(&b, "\xf0\x90\x80\x80\xf4\x8f\xbf\xbf", 8),
		     "\"\xf0\x90\x80\x80\xf4\x8f\xbf\xbf\"");
	/* a lone continuation byte, invalid lead bytes */
	CHECK_EQ_STR(one_string(&b, "a\x80z", 3), "\"a" R "z\"");
	CHECK_EQ_STR(one_string(&b, "\xc0\xaf", 2), "\"" R R "\"");
	CHECK_EQ_STR(one_string(&b, "\xc1\xbf", 2), "\"" R R "\"");
	CHECK_EQ_STR(one_string(&b, "\xf5\x80", 2), "\"" R R "\"");
	CHECK_EQ_STR(one_string(&b, "\xff", 1), "\"" R "\"");
	/* overlong 3 and 4 byte forms, surrogates, above U+10FFFF */
	CHECK_EQ_STR(one_string(&b, "\xe0\x80\x80", 3), "\"" R R R "\"");
	CHECK_EQ_STR(one_string(&b, "\xf0\x80\x80\x80", 4), "\"" R R R R "\"");
	CHECK_EQ_STR(one_string(&b, "\xed\xa0\x80", 3), "\"" R R R "\"");
	CHECK_EQ_STR(one_string(&b, "\xf4\x90\x80\x80", 4), "\"" R R R R "\"");
	/* truncated sequences: the maximal subpart is one replacement */
	CHECK_EQ_STR(one_string(&b, "\xe2\x82", 2), "\"" R "\"");
	CHECK_EQ_STR(one_string(&b, "\xe2\x82x", 3), "\"" R "x\"");
	CHECK_EQ_STR(one_string(&b, "\xf0\x9f\x98", 3), "\"" R "\"");
	CHECK_EQ_STR(one_string(&b, "\xf0\x9f\x98\xc3\xa9", 5), "\"" R "\xc3\xa9\"");
#undef R
	strbuf_release(&b);
}

/* The text of one number written by fn. */
#define NUMBER_TEXT(b, call)                        \
	({                                          \
		struct jsonw w_;                    \
		strbuf_reset(b);                    \
		jsonw_init(&w_, NULL, b, 0);        \
		int r_ = call;                      \
		r_ < 0 ? "(error)" : strbuf_str(b); \
	})

static void test_numbers(void)
{
	struct strbuf b;
	strbuf_init(&b, 0);
	CHECK_EQ_STR(NUMBER_TEXT(&b, jsonw_uint(&w_, UINT64_MAX)), "18446744073709551615");
	CHECK_EQ_STR(NUMBER_TEXT(&b, jsonw_uint(&w_, 0)), "0");
	CHECK_EQ_STR(NUMBER_TEXT(&b, jsonw_int(&w_, INT64_MIN)), "-9223372036854775808");
	CHECK_EQ_STR(NUMBER_TEXT(&b, jsonw_double(&w_, 0.1)), "0.1");
	CHECK_EQ_STR(NUMBER_TEXT(&b, jsonw_double(&w_, -2.5)), "-2.5");
	CHECK_EQ_STR(NUMBER_TEXT(&b, jsonw_double(&w_, 1e300)), "1e+300");
	CHECK_EQ_STR(NUMBER_TEXT(&b, jsonw_double(&w_, 3)), "3");
	double third = 1.0 / 3;
	CHECK(strtod(NUMBER_TEXT(&b, jsonw_double(&w_, third)), NULL) == third);
	CHECK_EQ_STR(NUMBER_TEXT(&b, jsonw_double(&w_, NAN)), "(error)");
	CHECK_EQ_STR(NUMBER_TEXT(&b, jsonw_double(&w_, INFINITY)), "(error)");
	CHECK_EQ_STR(NUMBER_TEXT(&b, jsonw_udecimal(&w_, 1234567, 3)), "1234.567");
	CHECK_EQ_STR(NUMBER_TEXT(&b, jsonw_udecimal(&w_, 1500, 3)), "1.5");
	CHECK_EQ_STR(NUMBER_TEXT(&b, jsonw_udecimal(&w_, 2000, 3)), "2");
	CHECK_EQ_STR(NUMBER_TEXT(&b, jsonw_udecimal(&w_, 5, 3)), "0.005");
	CHECK_EQ_STR(NUMBER_TEXT(&b, jsonw_udecimal(&w_, 0, 6)), "0");
	CHECK_EQ_STR(NUMBER_TEXT(&b, jsonw_udecimal(&w_, 42, 0)), "42");
	CHECK_EQ_STR(NUMBER_TEXT(&b, jsonw_udecimal(&w_, UINT64_MAX, 19)), "1.8446744073709551615");
	CHECK_EQ_STR(NUMBER_TEXT(&b, jsonw_udecimal(&w_, 1, 20)), "(error)");
	strbuf_release(&b);
}

/* Each misuse: the call fails with want, nothing more is written, the error sticks. */
static void test_misuse(void)
{
	struct strbuf b;
	struct jsonw w;
	size_t len;

#define MISUSE(setup, bad, want)                    \
	do {                                        \
		start(&w, &b);                      \
		setup;                              \
		CHECK(jsonw_error(&w) == 0);        \
		len = b.len;                        \
		CHECK((bad) == (want));             \
		CHECK(jsonw_error(&w) == (want));   \
		CHECK(jsonw_uint(&w, 1) == (want)); \
		CHECK(jsonw_finish(&w) == (want));  \
		CHECK_EQ_U64(b.len, len);           \
		strbuf_release(&b);                 \
	} while (0)

	MISUSE(jsonw_object_begin(&w), jsonw_uint(&w, 1), -EINVAL);   /* value where a key is due */
	MISUSE(jsonw_array_begin(&w), jsonw_key(&w, "k"), -EINVAL);   /* key in an array */
	MISUSE((void)0, jsonw_key(&w, "k"), -EINVAL);                 /* key at the top */
	MISUSE(jsonw_array_begin(&w), jsonw_object_end(&w), -EINVAL); /* mismatched end */
	MISUSE((void)0, jsonw_array_end(&w), -EINVAL);                /* end with nothing open */
	MISUSE((jsonw_object_begin(&w), jsonw_key(&w, "k")), jsonw_object_end(&w),
	       -EINVAL); /* key without value */
	MISUSE((jsonw_object_begin(&w), jsonw_key(&w, "k")), jsonw_key(&w, "l"), -EINVAL); /* two keys */
	MISUSE(jsonw_uint(&w, 1), jsonw_uint(&w, 2), -EINVAL); /* a second top-level value */
	MISUSE(jsonw_array_begin(&w), jsonw_double(&w, NAN), -EDOM);

	/* nesting: JSONW_MAX_DEPTH levels are fine, one more is not */
	start(&w, &b);
	for (int i = 0; i < JSONW_MAX_DEPTH; i++)
		jsonw_array_begin(&w);
	CHECK(jsonw_error(&w) == 0);
	len = b.len;
	CHECK(jsonw_array_begin(&w) == -E2BIG);
	CHECK(jsonw_array_end(&w) == -E2BIG);
	CHECK_EQ_U64(b.len, len);
	strbuf_release(&b);
	start(&w, &b);
	for (int i = 0; i < JSONW_MAX_DEPTH; i++)
		jsonw_array_begin(&w);
	for (int i = 0; i < JSONW_MAX_DEPTH; i++)
		jsonw_array_end(&w);
	CHECK(jsonw_finish(&w) == 0);
	strbuf_release(&b);

	/* finish: nothing written, or something still open */
	start(&w, &b);
	CHECK(jsonw_finish(&w) == -EINVAL);
	strbuf_release(&b);
	start(&w, &b);
	jsonw_object_begin(&w);
	CHECK(jsonw_finish(&w) == -EINVAL);
	strbuf_release(&b);
#undef MISUSE
}

static void test_outputs(void)
{
	/* a strbuf with a cap: the write that does not fit fails with -ENOMEM */
	struct strbuf b;
	struct jsonw w;
	strbuf_init(&b, 8);
	jsonw_init(&w, NULL, &b, 0);
	jsonw_array_begin(&w);
	CHECK(jsonw_string(&w, "abc") == 0);
	CHECK(jsonw_string(&w, "defgh") == -ENOMEM);
	CHECK(jsonw_finish(&w) == -ENOMEM);
	strbuf_release(&b);

	/* a FILE: the same text as the strbuf */
	FILE *f = tmpfile();
	CHECK(f != NULL);
	if (f) {
		jsonw_init(&w, f, NULL, 0);
		jsonw_object_begin(&w);
		jsonw_key_string(&w, "k", "v\n");
		jsonw_object_end(&w);
		CHECK(jsonw_finish(&w) == 0);
		char got[64] = "";
		rewind(f);
		size_t n = fread(got, 1, sizeof got - 1, f);
		got[n] = '\0';
		CHECK_EQ_STR(got, "{\"k\":\"v\\n\"}\n");
		fclose(f);
	}

	/* a FILE whose writes fail (unbuffered, so at once) */
	f = fopen("/dev/full", "w");
	if (f) {
		setvbuf(f, NULL, _IONBF, 0);
		jsonw_init(&w, f, NULL, 0);
		CHECK(jsonw_array_begin(&w) == -EIO);
		CHECK(jsonw_finish(&w) == -EIO);
		fclose(f);
	}
}

int main(void)
{
	test_structure();
	test_pretty();
	test_escapes();
	test_utf8();
	test_numbers();
	test_misuse();
	test_outputs();
	return check_done();
}
