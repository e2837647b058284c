/*
 * select.c - the load objects to archive (contract in select.h).
 */
#include "er_archive/select.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "er_archive/report.h"

static int same_object(const struct exp_loadobj *a, const struct exp_loadobj *b)
{
	return strcmp(a->path, b->path) == 0 &&
	       strcmp(a->build_id ? a->build_id : "", b->build_id ? b->build_id : "") == 0;
}

/*
 * Which load objects of exps[x] the reports read: those a frame of a recorded
 * call stack lies in (experiment_used_objects), but not the collector's own
 * library (reports drop its frames) and not the vDSO (its image is in the
 * experiment).  *ret_used[x] is per object; returns how many are used in
 * all, with the stacks recorded in *ret_nstacks, or -ENOMEM.
 */
long ar_used_objects(struct experiment **exps, size_t nexps, uint8_t **ret_used, size_t *ret_nstacks)
{
	long total = 0;
	*ret_nstacks = 0;
	for (size_t x = 0; x < nexps; x++) {
		const struct experiment *exp = exps[x];
		size_t nobjs;
		const struct exp_loadobj *objs = experiment_objects(exp, &nobjs);
		ret_used[x] = calloc(nobjs ? nobjs : 1, 1);
		if (!ret_used[x] || experiment_used_objects(exp, ret_used[x]) < 0)
			return -ENOMEM;
		*ret_nstacks += experiment_stack_count(exp);
		for (size_t i = 0; i < nobjs; i++) {
			const struct exp_loadobj *lo = &objs[i];
			if (lo->kind == EXP_OBJ_VDSO || !lo->path || !lo->path[0] ||
			    experiment_is_collector_object(lo))
				ret_used[x][i] = 0;
			total += ret_used[x][i];
		}
	}
	return total;
}

/*
 * The objects mapped but on no recorded call stack, each once (an object
 * used in any process of the tree is archived): listed with -n, else counted
 * in one line.
 */
void ar_report_unused(const struct ar_options *opt, struct experiment **exps, size_t nexps, uint8_t **used,
		      const struct ar_entry *v, size_t n)
{
	size_t count = 0;
	for (size_t x = 0; x < nexps; x++) {
		size_t nobjs;
		const struct exp_loadobj *objs = experiment_objects(exps[x], &nobjs);
		for (size_t i = 0; i < nobjs; i++) {
			const struct exp_loadobj *lo = &objs[i];
			if (used[x][i] || lo->kind == EXP_OBJ_VDSO || !lo->path || !lo->path[0] ||
			    experiment_is_collector_object(lo))
				continue;
			int seen = 0;
			for (size_t j = 0; j < n && !seen; j++)
				seen = same_object(v[j].lo, lo);
			for (size_t y = 0; y <= x && !seen; y++) {
				size_t ny;
				const struct exp_loadobj *oy = experiment_objects(exps[y], &ny);
				for (size_t k = 0; k < (y == x ? i : ny) && !seen; k++)
					seen = !used[y][k] && same_object(&oy[k], lo);
			}
			if (seen)
				continue;
			count++;
			if (opt->dry_run)
				printf("would skip (on no recorded call stack) %s\n", lo->path);
		}
	}
	if (count && !opt->dry_run && !opt->quiet)
		printf("not archived: %zu mapped load object%s on no recorded call stack\n", count,
		       count == 1 ? "" : "s");
}

/*
 * Open the founder opt->exp and then subs[0..nsubs), the subexperiments of
 * its descendants, into exps (their maps and call stacks, never the large
 * event files), adding their objects to *nobjs; returns how many opened.
 * A founder that cannot be read ends it; a damaged subexperiment is skipped
 * (exit 1 at the end).
 */
size_t ar_open_tree(const char *founder, char **subs, int nsubs, struct experiment **exps, size_t *nobjs)
{
	size_t nexps = 0;
	char *err = NULL;
	for (int k = -1; k < nsubs; k++) {
		const char *path = k < 0 ? founder : subs[k];
		int r = experiment_open_stacks(path, &exps[nexps], &err);
		if (r < 0) {
			fprintf(stderr, "er_archive: cannot read experiment %s\n", err ? err : strerror(-r));
			free(err);
			err = NULL;
			if (k < 0)
				break; /* the founder: nothing to archive */
			ar_fail();     /* a damaged subexperiment: archive the rest, exit 1 */
			continue;
		}
		size_t n;
		experiment_objects(exps[nexps++], &n);
		*nobjs += n;
	}
	return nexps;
}
