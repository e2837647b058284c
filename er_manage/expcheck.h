/*
 * expcheck.h - what er_rm, er_mv and er_cp accept as an operand, checked
 * before anything is touched: an experiment directory (founder) or a group
 * file (.erg, experiment/expgroup.h) whose members are all experiments.
 *
 * Refused, with a reason: a name that does not exist, a symbolic link, a
 * file that is not a directory (nor a group), a directory without log.xml,
 * a log.xml whose root element is not <experiment> or that is not a regular
 * file of the experiment (a FIFO, a device, a link out of it: never opened
 * so as to block, common/regfile.h), a log.xml with a DOCTYPE the readers
 * refuse (an entity declaration, an external DTD: analysis/xmlsafe.h), and a subexperiment
 * (_f1.er, _f1_x1.er, ... inside a founder), which belongs to its founder.
 * Messages go to stderr prefixed with the program's name.
 */
#ifndef ER_MANAGE_EXPCHECK_H
#define ER_MANAGE_EXPCHECK_H

#include <stddef.h>

/*
 * Whether PATH is an experiment that may be managed on its own: 0, or
 * -ENOENT (does not exist), -EINVAL (another refusal) with the reason in
 * WHY (ROOM bytes, e.g. "not an experiment: it has no log.xml").
 */
int expcheck_experiment(const char *path, char *why, size_t room);

/* One experiment to act on: an operand, or a member of a group operand. */
struct expcheck_item {
	char *path;  /* as given, or as resolved from its group */
	long group;  /* index into expcheck_list.groups, or -1 */
	int missing; /* does not exist (kept only with EXPCHECK_MISSING_OK) */
};

struct expcheck_group {
	const char *path;    /* the group file as given */
	size_t first, count; /* its members in items */
};

struct expcheck_list {
	struct expcheck_item *items;
	size_t count;
	struct expcheck_group *groups;
	size_t ngroups;
};

#define EXPCHECK_MISSING_OK 1 /* er_rm -f: a name that does not exist is kept, quietly, as missing */

/*
 * Check each of the N operands ARGS, expanding groups, into *RET (release
 * with expcheck_list_release).  Prints one message per refusal, prefixed
 * with PROG; returns 0 when all were accepted (also the same experiment
 * named twice is refused), else 1.
 */
int expcheck_collect(struct expcheck_list *ret, char *const *args, size_t n, int flags, const char *prog);
void expcheck_list_release(struct expcheck_list *l);

/* The last component of PATH, ignoring trailing slashes, into RET (ROOM bytes). */
void expcheck_basename(const char *path, char *ret, size_t room);

#endif
