/*
 * er_rm - remove experiments and experiment groups (the Oracle manual's
 * chapter 8; docs/man/er_rm.1).  Every operand is checked first
 * (er_manage/expcheck.h): when one is refused nothing is removed.  A group
 * operand removes its members, then the group file.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "er_manage/cli.h"
#include "er_manage/expcheck.h"
#include "er_manage/exptree.h"

#define PROG "er_rm"

static const char usage_text[] =
	"Usage: er_rm [-f] [-V] EXPERIMENT|GROUP.erg...\n"
	"       er_rm --help\n"
	"\n"
	"Remove each experiment (a NAME.er directory, with its subexperiments and\n"
	"archives) and each experiment group (the experiments it names, then the\n"
	"group file).  Every name is checked before anything is removed: one that\n"
	"is not an experiment, or a subexperiment inside its founder, stops it all.\n"
	"\n"
	"  -f          no message, and exit status 0, for a name that does not exist\n"
	"  -V          print the version and exit\n"
	"  --help      print this help and exit\n"
	"\n"
	"Exit status: 0 done, 1 a name refused or a removal failed, 2 a usage error.\n";

/* Remove the experiments of L; 0 or 1 after a message for each failure. */
static int remove_items(const struct expcheck_list *l, int *failed_group)
{
	int status = 0;
	for (size_t i = 0; i < l->count; i++) {
		const struct expcheck_item *it = &l->items[i];
		char where[PATH_MAX];
		if (it->missing)
			continue;
		int rc = exptree_remove(it->path, where, sizeof where);
		if (rc < 0) {
			fprintf(stderr, PROG ": cannot remove %s: %s: %s\n", it->path, where, strerror(-rc));
			status = 1;
			if (it->group >= 0)
				failed_group[it->group] = 1;
		}
	}
	return status;
}

int main(int argc, char **argv)
{
	char set[128];
	int first = cli_parse(argc, argv, PROG, usage_text, "f", set);
	if (first >= argc)
		cli_usage_error(PROG, usage_text, "no experiment named");
	struct expcheck_list l;
	if (expcheck_collect(&l, argv + first, (size_t)(argc - first), set['f'] ? EXPCHECK_MISSING_OK : 0,
			     PROG) != 0) {
		expcheck_list_release(&l);
		return 1;
	}
	int *failed_group = calloc(l.ngroups ? l.ngroups : 1, sizeof *failed_group);
	if (!failed_group) {
		fprintf(stderr, PROG ": out of memory\n");
		expcheck_list_release(&l);
		return 1;
	}
	int status = remove_items(&l, failed_group);
	for (size_t g = 0; g < l.ngroups; g++) {
		if (failed_group[g]) {
			fprintf(stderr, PROG ": %s kept: not all of its experiments were removed\n",
				l.groups[g].path);
			continue;
		}
		if (unlink(l.groups[g].path) < 0 && !(errno == ENOENT && set['f'])) {
			fprintf(stderr, PROG ": cannot remove %s: %s\n", l.groups[g].path, strerror(errno));
			status = 1;
		}
	}
	free(failed_group);
	expcheck_list_release(&l);
	return status;
}
