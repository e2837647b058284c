/*
 * select.h - which load objects er_archive archives: those a frame of a
 * recorded call stack of the founder or of a subexperiment of its
 * descendants lies in (one archive covers the tree), but not the
 * collector's own library (reports drop its frames) nor the vDSO (its image
 * is in the experiment).  Reads log.xml, map.xml and the stacks file
 * (experiment_open_stacks), never the event files.
 */
#ifndef ER_ARCHIVE_SELECT_H
#define ER_ARCHIVE_SELECT_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/experiment.h"
#include "er_archive/index.h"
#include "er_archive/options.h"

/*
 * Open the founder and then subs[0..nsubs), the subexperiments of its
 * descendants, into exps, adding their objects to *nobjs; returns how many
 * opened.  A founder that cannot be read ends it; a damaged subexperiment
 * is skipped (reported; the run fails at the end).
 */
size_t ar_open_tree(const char *founder, char **subs, int nsubs, struct experiment **exps, size_t *nobjs);

/*
 * Which load objects of exps[x] the reports read: *ret_used[x] is per
 * object (calloc'd; the caller frees); returns how many are used in all,
 * with the stacks recorded in *ret_nstacks, or -ENOMEM.
 */
long ar_used_objects(struct experiment **exps, size_t nexps, uint8_t **ret_used, size_t *ret_nstacks);

/*
 * The objects mapped but on no recorded call stack, each once (an object
 * used in any process of the tree, one of v[0..n), is archived): listed
 * with -n, else counted in one line unless -q.
 */
void ar_report_unused(const struct ar_options *opt, struct experiment **exps, size_t nexps, uint8_t **used,
		      const struct ar_entry *v, size_t n);

#endif
