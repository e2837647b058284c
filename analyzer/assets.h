/*
 * assets.h - the page's files compiled into the analyzer (generated from
 * analyzer/web/ by scripts/embed-assets.sh): the only paths it serves
 * besides /api/.  index.html is served as "/".
 */
#ifndef ANALYZER_ASSETS_H
#define ANALYZER_ASSETS_H

#include <stddef.h>

struct asset {
	const char *path; /* "/", "/app.js" */
	const char *type; /* Content-Type */
	const unsigned char *data;
	size_t len;
};

extern const struct asset assets[];
extern const size_t nassets;

#endif
