/*
 * test_xmlsafe.c - analysis/xmlsafe.h: ordinary documents reach the caller's
 * handlers with its user data (predefined entities and character references
 * included); any entity declaration (internal, parameter, external, unparsed)
 * and any external DTD is refused with -EPERM and its reason before anything
 * is expanded or loaded, also when the declaration is split across pieces;
 * malformed XML stays -EBADMSG with expat's reason.
 */
#include "analysis/xmlsafe.h"

#include <errno.h>

#include "tests/unit/check.h"

struct seen {
	int starts, ends;
	size_t text_bytes;
	char text[256];
};

static void on_start(void *ud, const XML_Char *name, const XML_Char **a)
{
	struct seen *s = ud;
	(void)name, (void)a;
	s->starts++;
}

static void on_end(void *ud, const XML_Char *name)
{
	struct seen *s = ud;
	(void)name;
	s->ends++;
}

static void on_text(void *ud, const XML_Char *t, int len)
{
	struct seen *s = ud;
	for (int i = 0; i < len; i++, s->text_bytes++)
		if (s->text_bytes + 1 < sizeof s->text)
			s->text[s->text_bytes] = t[i];
}

/* Parse doc in one piece; returns xmlsafe_parse's result, *why its reason or "". */
static int parse(const char *doc, struct seen *s, const char **why)
{
	static char reason[128];
	struct xmlsafe x;
	*s = (struct seen){0};
	if (xmlsafe_init(&x, s, on_start, on_end, on_text) < 0)
		return -ENOMEM;
	int r = xmlsafe_parse(&x, doc, strlen(doc), 1);
	snprintf(reason, sizeof reason, "%s", r < 0 ? xmlsafe_error(&x) : "");
	*why = reason;
	xmlsafe_release(&x);
	xmlsafe_release(&x); /* twice is fine */
	return r;
}

static const char laughs[] =
	"<?xml version=\"1.0\"?>\n"
	"<!DOCTYPE lolz [\n"
	" <!ENTITY lol \"lol\">\n"
	" <!ENTITY lol1 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">\n"
	" <!ENTITY lol2 \"&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;\">\n"
	" <!ENTITY lol3 \"&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;\">\n"
	"]>\n"
	"<lolz>&lol3;</lolz>\n";

int main(void)
{
	struct seen s;
	const char *why;

	/* an ordinary document, as collect writes them */
	CHECK_EQ_U64(parse("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<map><a>x&amp;y&#65;</a><b/></map>",
			   &s, &why),
		     0);
	CHECK_EQ_U64(s.starts, 3);
	CHECK_EQ_U64(s.ends, 3);
	CHECK_EQ_STR(s.text, "x&yA");

	/* a DTD of element declarations only: nothing to expand, accepted */
	CHECK_EQ_U64(
		parse("<!DOCTYPE r [ <!ELEMENT r ANY> <!ATTLIST r a CDATA #IMPLIED> ]><r a='1'/>", &s, &why),
		0);
	CHECK_EQ_U64(s.starts, 1);

	/* billion laughs: refused at the first declaration, nothing expanded */
	CHECK_EQ_U64(parse(laughs, &s, &why), (uint64_t)-EPERM);
	CHECK_EQ_STR(why, "entity declarations are not allowed");
	CHECK_EQ_U64(s.starts, 0);
	CHECK_EQ_U64(s.text_bytes, 0);

	/* a single internal entity, and a parameter entity */
	CHECK_EQ_U64(parse("<!DOCTYPE r [<!ENTITY p \"/etc/passwd\">]><r a=\"&p;\"/>", &s, &why),
		     (uint64_t)-EPERM);
	CHECK_EQ_STR(why, "entity declarations are not allowed");
	CHECK_EQ_U64(parse("<!DOCTYPE r [<!ENTITY % p \"<!ENTITY q 'x'>\">]><r/>", &s, &why),
		     (uint64_t)-EPERM);
	CHECK_EQ_STR(why, "entity declarations are not allowed");

	/* external entities: SYSTEM, PUBLIC, unparsed (NDATA); none is read */
	CHECK_EQ_U64(parse("<!DOCTYPE r [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><r>&x;</r>", &s, &why),
		     (uint64_t)-EPERM);
	CHECK_EQ_STR(why, "external entities are not allowed");
	CHECK_EQ_U64(s.text_bytes, 0);
	CHECK_EQ_U64(parse("<!DOCTYPE r [<!ENTITY x PUBLIC \"-//x//y\" \"http://127.0.0.1:9/x\">]><r>&x;</r>",
			   &s, &why),
		     (uint64_t)-EPERM);
	CHECK_EQ_STR(why, "external entities are not allowed");
	CHECK_EQ_U64(parse("<!DOCTYPE r [<!NOTATION n SYSTEM \"n\"><!ENTITY x SYSTEM \"f\" NDATA n>]><r/>",
			   &s, &why),
		     (uint64_t)-EPERM);
	CHECK_EQ_STR(why, "external entities are not allowed");
	CHECK_EQ_U64(
		parse("<!DOCTYPE r [<!ENTITY % x SYSTEM \"http://127.0.0.1:9/x.dtd\"> %x;]><r/>", &s, &why),
		(uint64_t)-EPERM);
	CHECK_EQ_STR(why, "external entities are not allowed");

	/* an external DTD, with or without an internal subset */
	CHECK_EQ_U64(parse("<!DOCTYPE r SYSTEM \"http://127.0.0.1:9/r.dtd\"><r>&undeclared;</r>", &s, &why),
		     (uint64_t)-EPERM);
	CHECK_EQ_STR(why, "external DTDs are not allowed");
	CHECK_EQ_U64(parse("<!DOCTYPE r PUBLIC \"-//x//y\" \"r.dtd\" [<!ELEMENT r ANY>]><r/>", &s, &why),
		     (uint64_t)-EPERM);
	CHECK_EQ_STR(why, "external DTDs are not allowed");

	/* a declaration split across two pieces is refused in the second */
	struct xmlsafe x;
	CHECK(xmlsafe_init(&x, &s, on_start, on_end, NULL) == 0);
	s = (struct seen){0};
	const char *p1 = "<!DOCTYPE r [<!ENT", *p2 = "ITY a \"b\">]><r>&a;</r>";
	CHECK_EQ_U64(xmlsafe_parse(&x, p1, strlen(p1), 0), 0);
	CHECK_EQ_U64(xmlsafe_parse(&x, p2, strlen(p2), 1), (uint64_t)-EPERM);
	CHECK_EQ_STR(xmlsafe_error(&x), "entity declarations are not allowed");
	CHECK_EQ_U64(s.starts, 0);
	xmlsafe_release(&x);

	/* malformed XML is not a refusal; an undeclared entity is expat's error */
	CHECK_EQ_U64(parse("<r><unclosed></r>", &s, &why), (uint64_t)-EBADMSG);
	CHECK_EQ_STR(why, "mismatched tag");
	CHECK_EQ_U64(parse("<r>&nope;</r>", &s, &why), (uint64_t)-EBADMSG);
	CHECK_EQ_STR(why, "undefined entity");
	return check_done();
}
