/*
 * sources.h - -A src: copies of the source files an object's line table
 * names, into the experiment's archives/src/<absolute path>; only when the
 * line table is this machine's (the object or debug file at its recorded
 * path, or in the per-user cache), never the DWARF of a copy that came
 * inside the experiment, which may name any file (~/.ssh/id_rsa).
 */
#ifndef ER_ARCHIVE_SOURCES_H
#define ER_ARCHIVE_SOURCES_H

#include "analysis/experiment.h"
#include "er_archive/options.h"

/* Archive the sources of the used object lo of the experiment exp (warnings and errors reported). */
void ar_archive_sources(const struct ar_options *opt, const char *exp, const struct exp_loadobj *lo);

#endif
