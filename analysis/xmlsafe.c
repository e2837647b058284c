/*
 * xmlsafe.c - expat with entity declarations, external DTDs and external
 * entities refused (contract in xmlsafe.h).
 *
 * The parser's user data is the struct xmlsafe itself, so the refusing
 * handlers can stop the parser and record why; the caller's element and
 * text handlers are reached through three small trampolines.  Refusal uses
 * expat's own hooks: a declaration handler that stops the parser before
 * anything is expanded, never-parse for parameter entities (the external
 * DTD), and an external entity handler that fails.
 */
#include "analysis/xmlsafe.h"

#include <errno.h>
#include <limits.h>

#define REFUSED_ENTITY "entity declarations are not allowed"
#define REFUSED_EXTERNAL_ENTITY "external entities are not allowed"
#define REFUSED_EXTERNAL_DTD "external DTDs are not allowed"

static void refuse(struct xmlsafe *x, const char *why)
{
	if (!x->refused)
		x->refused = why;
	XML_StopParser(x->parser, XML_FALSE);
}

static void on_start(void *ud, const XML_Char *name, const XML_Char **atts)
{
	struct xmlsafe *x = ud;
	x->start(x->ud, name, atts);
}

static void on_end(void *ud, const XML_Char *name)
{
	struct xmlsafe *x = ud;
	x->end(x->ud, name);
}

static void on_text(void *ud, const XML_Char *s, int len)
{
	struct xmlsafe *x = ud;
	x->text(x->ud, s, len);
}

static void on_doctype(void *ud, const XML_Char *name, const XML_Char *sysid, const XML_Char *pubid,
		       int has_internal_subset)
{
	(void)name, (void)has_internal_subset;
	if (sysid || pubid)
		refuse(ud, REFUSED_EXTERNAL_DTD);
}

static void on_entity_decl(void *ud, const XML_Char *name, int is_parameter_entity, const XML_Char *value,
			   int value_length, const XML_Char *base, const XML_Char *sysid,
			   const XML_Char *pubid, const XML_Char *notation)
{
	(void)name, (void)is_parameter_entity, (void)value, (void)value_length, (void)base, (void)notation;
	refuse(ud, sysid || pubid ? REFUSED_EXTERNAL_ENTITY : REFUSED_ENTITY);
}

/* Not reached while declarations are refused; a failure here is XML_ERROR_EXTERNAL_ENTITY_HANDLING. */
static int on_external_ref(XML_Parser p, const XML_Char *context, const XML_Char *base, const XML_Char *sysid,
			   const XML_Char *pubid)
{
	(void)p, (void)context, (void)base, (void)sysid, (void)pubid;
	return XML_STATUS_ERROR;
}

int xmlsafe_init(struct xmlsafe *x, void *ud, XML_StartElementHandler start, XML_EndElementHandler end,
		 XML_CharacterDataHandler text)
{
	*x = (struct xmlsafe){.ud = ud, .start = start, .end = end, .text = text};
	x->parser = XML_ParserCreate("UTF-8");
	if (!x->parser)
		return -ENOMEM;
	XML_SetUserData(x->parser, x);
	XML_SetElementHandler(x->parser, on_start, on_end);
	if (text)
		XML_SetCharacterDataHandler(x->parser, on_text);
	XML_SetStartDoctypeDeclHandler(x->parser, on_doctype);
	XML_SetEntityDeclHandler(x->parser, on_entity_decl);
	XML_SetExternalEntityRefHandler(x->parser, on_external_ref);
	XML_SetParamEntityParsing(x->parser, XML_PARAM_ENTITY_PARSING_NEVER);
	return 0;
}

int xmlsafe_parse(struct xmlsafe *x, const char *s, size_t len, int final)
{
	if (len > INT_MAX)
		return -EFBIG;
	if (XML_Parse(x->parser, s, (int)len, final) == XML_STATUS_OK)
		return 0;
	if (!x->refused && XML_GetErrorCode(x->parser) == XML_ERROR_EXTERNAL_ENTITY_HANDLING)
		x->refused = REFUSED_EXTERNAL_ENTITY;
	return x->refused ? -EPERM : -EBADMSG;
}

const char *xmlsafe_error(const struct xmlsafe *x)
{
	return x->refused ? x->refused : XML_ErrorString(XML_GetErrorCode(x->parser));
}

void xmlsafe_release(struct xmlsafe *x)
{
	if (x && x->parser) {
		XML_ParserFree(x->parser);
		x->parser = NULL;
	}
}
