/*
 * cpmv.c - er_cp and er_mv (cpmv.h).  Two passes: every check first
 * (operands through expcheck, then each destination: absent, not inside its
 * source, no two sources landing on one name), then the copies or moves in
 * order, stopping at the first failure.
 */
#include "er_manage/cpmv.h"

#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/regfile.h"
#include "er_manage/cli.h"
#include "er_manage/expcheck.h"
#include "er_manage/exptree.h"
#include "experiment/expgroup.h"
#include "experiment/expname.h"

static const char cp_usage[] = "Usage: er_cp [-V] EXPERIMENT NEW.er\n"
			       "       er_cp [-V] EXPERIMENT|GROUP.erg... DIRECTORY\n"
			       "       er_cp --help\n"
			       "\n"
			       "Copy an experiment to a new name, or experiments and experiment groups\n"
			       "into an existing directory.  A copy keeps everything: subexperiments,\n"
			       "archives/ (links stay links), notes, compressed data, permissions and\n"
			       "times.  A group copied into DIRECTORY gets a group file of the same name\n"
			       "there, naming the copies.  Nothing is copied when a name is refused (not\n"
			       "an experiment, a subexperiment, a destination that exists); a copy that\n"
			       "fails (disk full) is removed.\n"
			       "\n"
			       "  -V          print the version and exit\n"
			       "  --help      print this help and exit\n"
			       "\n"
			       "Exit status: 0 done, 1 a name refused or a copy failed, 2 a usage error.\n";

static const char mv_usage[] = "Usage: er_mv [-V] EXPERIMENT NEW.er\n"
			       "       er_mv [-V] EXPERIMENT|GROUP.erg... DIRECTORY\n"
			       "       er_mv --help\n"
			       "\n"
			       "Move (rename) an experiment to a new name, or experiments and experiment\n"
			       "groups into an existing directory.  Within a filesystem this is a rename;\n"
			       "across filesystems the experiment is copied (everything, as er_cp does),\n"
			       "synced, and only then removed.  A group moved into DIRECTORY gets a group\n"
			       "file of the same name there, naming the new locations, and the old group\n"
			       "file is removed.  Nothing is moved when a name is refused.\n"
			       "\n"
			       "  -V          print the version and exit\n"
			       "  --help      print this help and exit\n"
			       "\n"
			       "Exit status: 0 done, 1 a name refused or a move failed, 2 a usage error.\n";

struct job {
	const char *prog;
	int move;
	struct expcheck_list l;
	char **dst; /* per item: where it goes */
};

/* A is B or inside it (both real paths). */
static int is_within(const char *a, const char *b)
{
	size_t n = strlen(b);
	return strncmp(a, b, n) == 0 && (a[n] == '\0' || a[n] == '/' || strcmp(b, "/") == 0);
}

/* The directory part of PATH into RET ("." when none). */
static void dir_of(const char *path, char *ret, size_t room)
{
	size_t n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		n--;
	while (n > 0 && path[n - 1] != '/')
		n--;
	while (n > 1 && path[n - 1] == '/')
		n--;
	snprintf(ret, room, "%.*s", n ? (int)n : 1, n ? path : ".");
}

/* Refuse a destination directory DIR inside the source SRC. */
static int check_not_inside(const struct job *j, const char *src, const char *dir)
{
	char rs[PATH_MAX], rd[PATH_MAX];
	if (!realpath(src, rs) || !realpath(dir, rd) || !is_within(rd, rs))
		return 0;
	fprintf(stderr, "%s: cannot %s %s into itself (%s is inside it)\n", j->prog,
		j->move ? "move" : "copy", src, dir);
	return 1;
}

static int set_dst(struct job *j, size_t i, const char *dst)
{
	free(j->dst[i]);
	j->dst[i] = strdup(dst);
	return j->dst[i] ? 0 : -ENOMEM;
}

/* EXP1 EXP2: one experiment to a new name. */
static int plan_rename(struct job *j, const char *dst)
{
	char base[NAME_MAX + 1], parent[PATH_MAX];
	struct stat st;
	if (j->l.ngroups) {
		fprintf(stderr,
			"%s: %s: a group can only be %s into a directory (%s GROUP.erg... DIRECTORY)\n",
			j->prog, j->l.groups[0].path, j->move ? "moved" : "copied", j->prog);
		return 1;
	}
	if (lstat(dst, &st) == 0) {
		fprintf(stderr, "%s: %s already exists%s\n", j->prog, dst,
			S_ISDIR(st.st_mode) ? " (and is an experiment)" : "");
		return 1;
	}
	expcheck_basename(dst, base, sizeof base);
	if (expname_validate(base) < 0) {
		fprintf(stderr, "%s: %s: an experiment name must end in .er\n", j->prog, dst);
		return 1;
	}
	dir_of(dst, parent, sizeof parent);
	if (stat(parent, &st) < 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "%s: %s: directory %s does not exist\n", j->prog, dst, parent);
		return 1;
	}
	if (check_not_inside(j, j->l.items[0].path, parent))
		return 1;
	return set_dst(j, 0, dst) < 0 ? -ENOMEM : 0;
}

/* EXPERIMENT|GROUP... DIR: each into DIR under its own name. */
static int plan_into(struct job *j, const char *dir)
{
	int bad = 0;
	char p[PATH_MAX], base[NAME_MAX + 1];
	struct stat st;
	for (size_t i = 0; i < j->l.count; i++) {
		expcheck_basename(j->l.items[i].path, base, sizeof base);
		if ((size_t)snprintf(p, sizeof p, "%s/%s", dir, base) >= sizeof p)
			return -ENAMETOOLONG;
		if (lstat(p, &st) == 0) {
			fprintf(stderr, "%s: %s already exists\n", j->prog, p);
			bad = 1;
		} else if (check_not_inside(j, j->l.items[i].path, dir)) {
			bad = 1;
		}
		for (size_t k = 0; k < i; k++)
			if (j->dst[k] && strcmp(j->dst[k], p) == 0) {
				fprintf(stderr, "%s: %s and %s would both become %s\n", j->prog,
					j->l.items[k].path, j->l.items[i].path, p);
				bad = 1;
			}
		if (set_dst(j, i, p) < 0)
			return -ENOMEM;
	}
	for (size_t g = 0; g < j->l.ngroups; g++) {
		expcheck_basename(j->l.groups[g].path, base, sizeof base);
		snprintf(p, sizeof p, "%s/%s", dir, base);
		if (lstat(p, &st) == 0) {
			fprintf(stderr, "%s: %s already exists\n", j->prog, p);
			bad = 1;
		}
	}
	return bad;
}

/* Copy or move item I; 0 or 1 after a message. */
static int do_one(struct job *j, size_t i)
{
	const char *src = j->l.items[i].path, *dst = j->dst[i];
	char where[PATH_MAX];
	if (j->move) {
		if (renameat2(AT_FDCWD, src, AT_FDCWD, dst, RENAME_NOREPLACE) == 0 ||
		    (errno == EINVAL &&
		     rename(src, dst) == 0)) /* no RENAME_NOREPLACE here; dst was checked */
			return 0;
		if (errno != EXDEV) {
			fprintf(stderr, "%s: cannot move %s to %s: %s\n", j->prog, src, dst, strerror(errno));
			return 1;
		}
	}
	int rc = exptree_copy(src, dst, j->move ? EXPTREE_SYNC : 0, where, sizeof where);
	if (rc < 0) {
		fprintf(stderr, "%s: cannot %s %s to %s: %s: %s (the partial copy was removed)\n", j->prog,
			j->move ? "move" : "copy", src, dst, where, regfile_strerror(rc));
		return 1;
	}
	if (j->move && (rc = exptree_remove(src, where, sizeof where)) < 0) {
		fprintf(stderr, "%s: %s was copied to %s, but removing it failed: %s: %s\n", j->prog, src,
			dst, where, regfile_strerror(rc));
		return 1;
	}
	return 0;
}

/* The group file of group G in DIR naming its members' new names; for er_mv, the old one goes. */
static int write_group(struct job *j, size_t g, const char *dir)
{
	const struct expcheck_group *grp = &j->l.groups[g];
	char base[NAME_MAX + 1], p[PATH_MAX];
	const char **names = calloc(grp->count ? grp->count : 1, sizeof *names);
	char(*bases)[NAME_MAX + 1] = calloc(grp->count ? grp->count : 1, sizeof *bases);
	int rc = names && bases ? 0 : -ENOMEM;
	for (size_t k = 0; k < grp->count && rc == 0; k++) {
		expcheck_basename(j->dst[grp->first + k], bases[k], sizeof bases[k]);
		names[k] = bases[k];
	}
	expcheck_basename(grp->path, base, sizeof base);
	snprintf(p, sizeof p, "%s/%s", dir, base);
	if (rc == 0)
		rc = expgroup_write(p, names, grp->count);
	free(names);
	free(bases);
	if (rc < 0) {
		fprintf(stderr, "%s: cannot write group file %s: %s\n", j->prog, p, strerror(-rc));
		return 1;
	}
	if (j->move && unlink(grp->path) < 0) {
		fprintf(stderr, "%s: cannot remove the old group file %s: %s\n", j->prog, grp->path,
			strerror(errno));
		return 1;
	}
	return 0;
}

static int run(struct job *j, const char *dir)
{
	for (size_t i = 0; i < j->l.count; i++) {
		if (do_one(j, i) != 0) {
			if (i)
				fprintf(stderr, "%s: stopped; the %zu experiment%s before %s %s %s\n",
					j->prog, i, i == 1 ? "" : "s", j->l.items[i].path,
					i == 1 ? "was" : "were", j->move ? "moved" : "copied");
			return 1;
		}
	}
	int status = 0;
	for (size_t g = 0; g < j->l.ngroups; g++)
		status |= write_group(j, g, dir);
	return status;
}

int cpmv_main(int argc, char **argv, int move)
{
	struct job j = {.prog = move ? "er_mv" : "er_cp", .move = move};
	const char *usage = move ? mv_usage : cp_usage;
	signal(SIGXFSZ, SIG_IGN); /* past ulimit -f a write fails (EFBIG) and the copy is undone */
	char set[128];
	int first = cli_parse(argc, argv, j.prog, usage, "", set);
	if (argc - first < 2)
		cli_usage_error(j.prog, usage,
				argc - first == 1 ? "no destination named" : "no experiment named");
	const char *dst = argv[argc - 1];
	size_t nsrc = (size_t)(argc - first - 1);
	struct stat st;
	char log[PATH_MAX];
	snprintf(log, sizeof log, "%s/log.xml", dst);
	int into = stat(dst, &st) == 0 && S_ISDIR(st.st_mode) && access(log, F_OK) != 0;
	if (!into && nsrc > 1) {
		fprintf(stderr, "%s: %s: %s\n", j.prog, dst,
			access(log, F_OK) == 0
				? "is an experiment, not a directory to put experiments into"
				: "not a directory (several experiments go into an existing one)");
		return 1;
	}
	int status = expcheck_collect(&j.l, argv + first, nsrc, 0, j.prog);
	j.dst = calloc(j.l.count ? j.l.count : 1, sizeof *j.dst);
	if (status == 0 && !j.dst)
		status = -ENOMEM;
	if (status == 0)
		status = into ? plan_into(&j, dst) : plan_rename(&j, dst);
	if (status < 0)
		fprintf(stderr, "%s: %s\n", j.prog, strerror(-status));
	if (status == 0)
		status = run(&j, dst);
	for (size_t i = 0; j.dst && i < j.l.count; i++)
		free(j.dst[i]);
	free(j.dst);
	expcheck_list_release(&j.l);
	return status ? 1 : 0;
}
