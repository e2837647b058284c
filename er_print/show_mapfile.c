/*
 * show_mapfile.c - er_print's `mapfile LOAD_OBJECT FILE` (the Oracle
 * tools' link-order file, issue #16 item 6): the functions of one load
 * object that have data, in the order of the function list (the current
 * sort metric, hottest first), one linker symbol name (mangled, without
 * never with a version) per line, for GNU ld's and lld's --symbol-ordering-file, or
 * as the ".text.NAME" sections of gold's --section-ordering-file after a
 * -ffunction-sections build.  FILE "-" is the current output.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "er_print/erp.h"
#include "er_print/show.h"
#include "er_print/textout.h"

/* The load object named obj (its name, "<name>" or its path), or -1 after a message. */
static long find_object(struct erp *e, const char *obj)
{
	size_t n = strlen(obj);
	for (uint32_t o = 0; o < profile_object_count(e->prof); o++) {
		const struct pobject *po = profile_object(e->prof, o);
		int bracketed = n >= 2 && obj[0] == '<' && obj[n - 1] == '>' && strlen(po->name) == n - 2 &&
				strncmp(obj + 1, po->name, n - 2) == 0;
		if (bracketed || strcmp(obj, po->name) == 0 || strcmp(obj, po->path) == 0)
			return o;
	}
	erp_error(e, "mapfile: no load object named '%s' (see object_list)", obj);
	return -1;
}

int show_mapfile(struct erp *e, const char *arg)
{
	char obj[4096], path[4096];
	if (sscanf(arg, "%4095s %4095s", obj, path) != 2) {
		erp_error(e, "mapfile: expected LOAD_OBJECT FILE (FILE - for the output)");
		return -1;
	}
	if (show_prepare(e) < 0)
		return -1;
	long o = find_object(e, obj);
	if (o < 0)
		return -1;
	struct report_list *l = show_list_get(e, REPORT_FUNCTIONS);
	if (!l)
		return -1;
	FILE *f = strcmp(path, "-") == 0 ? e->out : fopen(path, "w");
	if (!f) {
		erp_error(e, "mapfile: cannot write %s: %s", path, strerror(errno));
		report_list_free(l);
		return -1;
	}
	size_t written = 0;
	for (size_t i = 1; i < l->nrows; i++) {
		const struct pfunc *pf = profile_func(e->prof, l->ids[i]);
		if (pf->obj != (uint32_t)o || (pf->kind != PFUNC_SYMBOL && pf->kind != PFUNC_SYNTH) ||
		    !*pf->mangled)
			continue;
		textout_printf(f, "%s\n", pf->mangled);
		written++;
	}
	int bad = f != e->out && fclose(f) != 0;
	report_list_free(l);
	if (bad) {
		erp_error(e, "mapfile: cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	if (f != e->out)
		textout_printf(e->out, "Wrote %zu functions of %s to %s\n", written, obj, path);
	return 0;
}
