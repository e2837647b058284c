/*
 * er_archive - record the build-id of each load object of an experiment that
 * the reports will read (a frame of a recorded call stack lies in it) and
 * copy those objects (and their separate debug files) into the experiment's
 * archives/ directory, so that er_print can still read the code that ran
 * after the program is rebuilt or deleted; an experiment that recorded
 * nothing gets nothing.  It reads log.xml, map.xml and the stacks file, never
 * the event files.  collect runs it (with -q) when the target has ended.
 * Layout and lookup: analysis/archive.h; usage: docs/man/er_archive.1.
 * The roles: options.h (the command line), select.h (which objects),
 * writer.h (the archive writer), sources.h (-A src), index.h (what became
 * of each object: archives/index.xml), report.h (messages), copy.h (copies).
 *
 * Invariant: nothing appears half-written.  Every file is copied to a hidden
 * temporary name in its final directory, checked (the copy must carry the
 * build-id map.xml recorded) and renamed; index.xml is rewritten the same way.
 * A source object that cannot be read or has changed is a warning; a write
 * into the experiment that fails (permissions, full disk) is an error (exit 1).
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/archive.h"
#include "analysis/experiment.h"
#include "er_archive/copy.h"
#include "er_archive/index.h"
#include "er_archive/options.h"
#include "er_archive/report.h"
#include "er_archive/select.h"
#include "er_archive/sources.h"
#include "er_archive/writer.h"
#include "experiment/expgroup.h"

#define EXIT_USAGE 2

/*
 * Archive the objects of exps[x] that used[x] marks (with -A src, their
 * sources too) into the experiment ep, one entry each in v, until a write
 * fails; returns how many entries.
 */
static size_t archive_objects(const struct ar_options *opt, const char *ep, struct experiment **exps,
			      size_t nexps, uint8_t **used, struct ar_entry *v)
{
	size_t n = 0;
	for (size_t x = 0; x < nexps; x++) {
		size_t nobjs;
		const struct exp_loadobj *objs = experiment_objects(exps[x], &nobjs);
		for (size_t i = 0; i < nobjs && !ar_failed(); i++) {
			const struct exp_loadobj *lo = &objs[i];
			if (!used[x][i])
				continue; /* mapped, but no recorded stack runs its code */
			ar_writer_add_object(ep, lo, v, &n);
		}
		if (opt->mode == AR_MODE_SRC)
			for (size_t i = 0; i < nobjs && !ar_failed(); i++)
				if (used[x][i])
					ar_archive_sources(opt, ep, &objs[i]);
	}
	return n;
}

/* Archive the experiment opt->exp (and its descendants' subexperiments); the exit status. */
static int archive_experiment(const struct ar_options *opt)
{
	struct experiment **exps = NULL;
	size_t nexps = 0;
	struct ar_entry *v = NULL;
	uint8_t **used = NULL;
	size_t n = 0, nobjs = 0, nstacks = 0;
	char root[PATH_MAX];
	char **subs = NULL;
	int rc = 1;

	/* the founder and the subexperiments of its descendants: one archive covers all */
	int nsubs = experiment_descendants(opt->exp, &subs);
	if (nsubs < 0)
		nsubs = 0;
	exps = calloc((size_t)nsubs + 1, sizeof *exps);
	used = calloc((size_t)nsubs + 1, sizeof *used);
	if (!exps || !used) {
		fprintf(stderr, "er_archive: out of memory\n");
		return 1;
	}
	nexps = ar_open_tree(opt->exp, subs, nsubs, exps, &nobjs);
	for (int k = 0; k < nsubs; k++)
		free(subs[k]);
	free(subs);
	if (nexps == 0) {
		free(exps);
		free(used);
		return 1;
	}
	const char *ep = experiment_path(exps[0]);
	long nused = ar_used_objects(exps, nexps, used, &nstacks);
	if (nused < 0) {
		fprintf(stderr, "er_archive: out of memory\n");
		goto out;
	}
	if (nused == 0) {
		/* reports will read no object: nothing to archive, not even archives/ */
		if (!opt->quiet)
			printf("%s: %s; nothing archived\n", ep,
			       nstacks ? "no load object is on a recorded call stack"
				       : "nothing was recorded (no clock sample or heap call with a call stack)");
		rc = ar_failed() ? 1 : 0;
		goto out;
	}
	if ((size_t)snprintf(root, sizeof root, "%s/%s", ep, ARCHIVE_DIR_NAME) >= sizeof root) {
		fprintf(stderr, "er_archive: %s: path too long\n", ep);
		goto out;
	}
	if (!opt->dry_run && mkdir(root, 0755) < 0 && errno != EEXIST) {
		fprintf(stderr, "er_archive: cannot create %s: %s\n", root, strerror(errno));
		goto out;
	}
	ar_writer_begin(opt);

	v = calloc(nobjs ? nobjs : 1, sizeof *v);
	if (!v) {
		fprintf(stderr, "er_archive: out of memory\n");
		goto out;
	}
	n = archive_objects(opt, ep, exps, nexps, used, v);
	ar_report_unused(opt, exps, nexps, used, v, n);
	if (!opt->dry_run && !ar_failed())
		ar_index_write(ep, v, n, ar_writer_cache_root());
	rc = ar_failed() ? 1 : 0;
out:
	for (size_t i = 0; i < n; i++)
		free(v[i].note);
	free(v);
	for (size_t x = 0; x < nexps; x++) {
		free(used[x]);
		experiment_free(exps[x]);
	}
	free(used);
	free(exps);
	return rc;
}

int main(int argc, char **argv)
{
	char **paths, err[512];
	size_t n;
	int rc = 0;

	struct ar_options opt;
	int r = ar_options_parse(&opt, argc, argv, err, sizeof err);
	if (r == AR_HELP) {
		fputs(ar_usage_text, stdout);
		return 0;
	}
	if (r == AR_VERSION) {
		printf("er_archive (Performance Analyzer for Linux) %s\n", PA_VERSION);
		return 0;
	}
	if (r < 0) {
		fprintf(stderr, "er_archive: %s\n", err);
		fputs(ar_usage_short, stderr);
		return EXIT_USAGE;
	}
	ar_report_init(opt.quiet);
	copy_cleanup_install();
	/* a group: each experiment it names, in turn */
	if (expgroup_expand(&opt.exp, 1, &paths, &n, err, sizeof err) < 0) {
		fprintf(stderr, "er_archive: %s\n", err);
		return 1;
	}
	const char *given = opt.exp;
	for (size_t i = 0; i < n; i++) {
		opt.exp = paths[i];
		ar_report_reset();
		rc |= archive_experiment(&opt);
	}
	if (n == 0)
		fprintf(stderr, "er_archive: %s names no experiment\n", given);
	expgroup_free_paths(paths, n);
	return n ? rc : 1;
}
