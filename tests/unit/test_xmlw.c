/*
 * test_xmlw.c - experiment/xmlw.h: escaping, the UTF-8 cleaning of paths
 * and arguments (every invalid sequence byte, and U+FFFE/U+FFFF, becomes
 * '?'; valid text passes unchanged), overflow without a partial element, and
 * that whatever bytes a program passes, the element written parses as XML
 * (expat), so a descendant's command line cannot break processes.xml.
 */
#include "experiment/xmlw.h"

#include <expat.h>
#include <stdlib.h>

#include "tests/unit/check.h"

static const char *attr_of(const char *value, char *buf, size_t room)
{
	struct xmlw w;
	xmlw_init(&w, buf, room);
	xmlw_raw(&w, "<p");
	xmlw_attr_utf8(&w, "v", value);
	xmlw_raw(&w, ">");
	xmlw_text_utf8(&w, value);
	xmlw_raw(&w, "</p>");
	return xmlw_ok(&w) ? buf : NULL;
}

/* the cleaned attribute value alone */
static const char *clean(const char *value)
{
	static char buf[512];
	struct xmlw w;
	xmlw_init(&w, buf, sizeof buf);
	xmlw_text_utf8(&w, value);
	return buf;
}

static int parses(const char *doc)
{
	XML_Parser p = XML_ParserCreate("UTF-8");
	int ok = XML_Parse(p, doc, (int)strlen(doc), 1) == XML_STATUS_OK;
	XML_ParserFree(p);
	return ok;
}

int main(void)
{
	char buf[4096];

	/* escaping and control bytes */
	CHECK_EQ_STR(clean("a&b<c>d\"e'f"), "a&amp;b&lt;c&gt;d&quot;e&apos;f");
	CHECK_EQ_STR(clean("tab\there\nnl\x01\x1f"), "tab\there\nnl??");
	/* valid UTF-8 of every length passes unchanged */
	CHECK_EQ_STR(clean("caf\xc3\xa9 \xe4\xb8\xad\xe6\x96\x87 \xf0\x9f\x98\x80"),
		     "caf\xc3\xa9 \xe4\xb8\xad\xe6\x96\x87 \xf0\x9f\x98\x80");
	/* invalid: stray continuation, overlong, surrogate, beyond U+10FFFF, truncated, FFFE/FFFF */
	CHECK_EQ_STR(clean("\x80x"), "?x");
	CHECK_EQ_STR(clean("\xc0\xafx"), "??x");
	CHECK_EQ_STR(clean("\xe0\x80\xafx"), "???x");
	CHECK_EQ_STR(clean("\xed\xa0\x80x"), "???x");
	CHECK_EQ_STR(clean("\xf4\x90\x80\x80x"), "????x");
	CHECK_EQ_STR(clean("\xe4\xb8"), "??");
	CHECK_EQ_STR(clean("\xef\xbf\xbe\xef\xbf\xbf\xef\xbf\xbd"), "??????\xef\xbf\xbd");
	/* a truncated sequence does not swallow the next character */
	CHECK_EQ_STR(clean("\xc3<"), "?&lt;");

	/* overflow: xmlw_ok says so and the buffer stays NUL-terminated */
	char small[8];
	struct xmlw w;
	xmlw_init(&w, small, sizeof small);
	xmlw_attr_utf8(&w, "name", "a long value");
	CHECK(!xmlw_ok(&w));
	CHECK(strlen(small) < sizeof small);

	/* numbers */
	xmlw_init(&w, buf, sizeof buf);
	xmlw_attr_u64(&w, "u", UINT64_MAX);
	xmlw_attr_i64(&w, "i", -42);
	xmlw_attr_hex(&w, "h", 0xdeadbeefull);
	CHECK(xmlw_ok(&w));
	CHECK_EQ_STR(buf, " u=\"18446744073709551615\" i=\"-42\" h=\"0xdeadbeef\"");

	/* random bytes (what argv and paths may hold) always make well-formed XML */
	unsigned seed = 12345;
	int bad = 0;
	for (int t = 0; t < 20000; t++) {
		char v[64];
		int n = 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 63;
		for (int i = 0; i < n; i++) {
			seed = seed * 1103515245u + 12345u;
			unsigned b = (seed >> 16) & 0xff;
			v[i] = (char)(b ? b : 'z');
		}
		v[n] = '\0';
		if (!attr_of(v, buf, sizeof buf) || !parses(buf))
			bad++;
	}
	CHECK_EQ_U64(bad, 0);
	return check_done();
}
