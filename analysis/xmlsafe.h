/*
 * xmlsafe.h - an expat parser for the XML files of an experiment (log.xml,
 * map.xml, processes.xml), which are untrusted input.
 *
 * A document that declares an entity is refused: internal entities are how
 * "billion laughs" turns a few hundred bytes into gigabytes of text, and
 * external ones name files or URLs to read.  So is one whose DOCTYPE names an
 * external DTD.  Nothing external is ever loaded (no parameter-entity
 * parsing, and external entity references fail).  The files collect and the
 * collector write have no DOCTYPE at all, so no real experiment is refused.
 *
 * The caller's handlers receive its `ud`, as with plain expat; expat's own
 * queries (XML_GetCurrentLineNumber, ...) work on the `parser` member.  The
 * struct is the parser's user data: it must not move between xmlsafe_init
 * and xmlsafe_release.  No global state; one parser is not thread-safe.
 */
#ifndef ANALYSIS_XMLSAFE_H
#define ANALYSIS_XMLSAFE_H

#include <stddef.h>

#include <expat.h>

struct xmlsafe {
	XML_Parser parser; /* owned; NULL after xmlsafe_release */
	void *ud;          /* handed to the handlers below */
	XML_StartElementHandler start;
	XML_EndElementHandler end;
	XML_CharacterDataHandler text; /* may be NULL */
	const char *refused;           /* static text: why the parse was refused, or NULL */
};

/*
 * Create the parser (UTF-8) with the caller's handlers; start and end are
 * required, text may be NULL.  Returns 0 or -ENOMEM.
 */
int xmlsafe_init(struct xmlsafe *x, void *ud, XML_StartElementHandler start, XML_EndElementHandler end,
		 XML_CharacterDataHandler text);

/*
 * XML_Parse of len bytes (final: the last piece).  Returns 0; -EPERM when
 * the document was refused (x->refused says why, e.g. "entity declarations
 * are not allowed"; the parse cannot go on); -EBADMSG when it is malformed
 * (XML_GetErrorCode(x->parser) says how); -EFBIG when len passes INT_MAX.
 */
int xmlsafe_parse(struct xmlsafe *x, const char *s, size_t len, int final);

/* Why the last xmlsafe_parse failed: x->refused, else expat's error text. */
const char *xmlsafe_error(const struct xmlsafe *x);

/* Free the parser; NULL-safe, and safe to call twice. */
void xmlsafe_release(struct xmlsafe *x);

#endif
