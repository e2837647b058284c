/*
 * main.c - er_print: the command language over libanalysis (its commands
 * are session.c's).
 *
 *   er_print [-script FILE | -COMMAND [ARG] | - | -V]... EXPERIMENT...
 *
 * Commands given as options run left to right after every experiment was
 * read; with none, er_print reads commands interactively ("(er_print) "
 * prompt with line editing on a terminal, plain lines otherwise).  A command
 * may be abbreviated to any unambiguous prefix (case-insensitive).
 */
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include <editline/readline.h>

#include "er_print/commands.h"
#include "er_print/erp.h"
#include "er_print/export.h"
#include "er_print/show.h"
#include "er_print/textout.h"
#include "experiment/expgroup.h"

#define PROG "er_print"
/* ------------------------------------------------------------ main */

static void usage(FILE *f)
{
	textout_printf(
		f,
		"Usage: er_print [-script FILE | -COMMAND [ARG] | - | -V]... EXPERIMENT...\n"
		"Print reports from Performance Analyzer experiments (NAME.er directories,\n"
		"or GROUP.erg experiment groups, which stand for the experiments they name).\n"
		"Commands given as options run in order; with none, er_print reads commands\n"
		"interactively. Several experiments are aggregated (or compared). Common commands:\n"
		"  -functions  -callers-callees  -calltree  -fsummary  -fsingle NAME\n"
		"  -metrics SPEC  -sort SPEC  -limit N  -header  -statistics  -thread_list\n"
		"  -thread_select SPEC  -objects  -outfile FILE  -script FILE  -help\n"
		"  -compare on|delta|ratio (with several experiments or groups: side by side)\n"
		"  -printmode text|html|json|C (tables as HTML, JSON or C-separated values)\n"
		"  -leaks  -allocs  -heap  -heapstat (heap tracing, collect -H on)\n"
		"  -synclocks (synchronization wait tracing, collect -s)\n"
		"  -ioactivity  -iodetail  -iocallstack  -iostat (I/O tracing, collect -i on)\n"
		"  -export FORMAT[:METRIC] FILE (folded, pprof, speedscope, firefox, chrome; FILE - = stdout)\n"
		"Run 'er_print -help' for every command; see er_print(1).\n");
}

/*
 * Commands from standard input: typed at the prompt on a terminal, else
 * read as a script is.  0, or -1 when a command failed (the exit status
 * says so, as for -script and the command line).
 */
static int interactive(struct erp *e)
{
	if (!isatty(0))
		return erp_run_lines(e, stdin, "standard input");
	int r = 0;
	while (!e->quit) {
		char *line = readline("(" PROG ") ");
		if (!line)
			break;
		if (*line)
			add_history(line);
		if (erp_run_line(e, line) < 0)
			r = -1;
		free(line);
	}
	if (!e->quit)
		fputc('\n', stdout);
	return r;
}

struct pending {
	const struct command *cmd;
	const char *arg;
	char *owned_arg; /* arg when joined from two arguments (ARG_TWO) */
	int is_script;
	int stdin_cmds;
};

static void free_pending(struct pending *todo, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(todo[i].owned_arg);
	free(todo);
}

/*
 * The argument(s) of command-line option c at argv[*i] into *arg (*owned: a
 * malloc'd join of two, for ARG_TWO), *i advanced past them.  0, or the exit
 * status after a message.
 */
/*
 * header's, statistics' and overview's exp_id on the command line: "all" or a number
 * list ("1", "1,3-5"), and not an experiment of that name in the current
 * directory.
 */
static int is_exp_id(const char *s)
{
	if (access(s, F_OK) == 0)
		return 0;
	return strcmp(s, "all") == 0 || (*s && strspn(s, "0123456789,-") == strlen(s));
}

static int option_arg(const struct command *c, int argc, char **argv, int *i, const char **arg, char **owned)
{
	*arg = NULL;
	*owned = NULL;
	int need = c->arg == ARG_TWO || c->fn == cmd_pathmap ? 2
		   : c->arg == ARG_ONE || c->arg == ARG_REST ||
				   (c->arg == ARG_OPT && *i + 1 < argc && argv[*i + 1][0] != '-' &&
				    ((c->fn != show_header && c->fn != show_statistics &&
				      c->fn != show_overview && c->fn != cmd_filters) ||
				     (c->fn == cmd_filters ? access(argv[*i + 1], F_OK) != 0
							   : is_exp_id(argv[*i + 1]))))
			   ? 1
			   : 0;
	if (*i + need >= argc) {
		textout_printf(stderr, "%s: -%s: missing argument (%s)\n", PROG, c->name, c->args_help);
		return 2;
	}
	if (need == 1) {
		*arg = argv[++*i];
	} else if (need == 2) {
		size_t n = strlen(argv[*i + 1]) + strlen(argv[*i + 2]) + 2;
		if (!(*owned = malloc(n))) {
			textout_printf(stderr, "%s: out of memory\n", PROG);
			return 1;
		}
		snprintf(*owned, n, "%s %s", argv[*i + 1], argv[*i + 2]);
		*arg = *owned;
		*i += 2;
	}
	return 0;
}

/*
 * The command line into the commands to run (todo) and the experiments
 * (exps).  -1 to go on, else the exit status: 0 after --help or --version,
 * 1 or 2 after an error message.
 */
static int parse_command_line(struct erp *e, int argc, char **argv, struct pending *todo, size_t *ntodo,
			      const char **exps, size_t *nexps)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (a[0] != '-') {
			exps[(*nexps)++] = a;
			continue;
		}
		if (strcmp(a, "-") == 0) {
			todo[(*ntodo)++] = (struct pending){.stdin_cmds = 1};
			continue;
		}
		if (strcmp(a, "-V") == 0 || strcmp(a, "--version") == 0) {
			cmd_version(e, NULL);
			return 0;
		}
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			usage(stdout);
			return 0;
		}
		if (strcmp(a, "-help") == 0) { /* every command, with or without an experiment */
			cmd_help(e, NULL);
			return 0;
		}
		const struct command *c = erp_command_lookup(e, a + 1 + (a[1] == '-'));
		if (!c)
			return 2;
		const char *arg;
		char *owned;
		int r = option_arg(c, argc, argv, &i, &arg, &owned);
		if (r)
			return r;
		todo[(*ntodo)++] = (struct pending){.cmd = c, .arg = arg, .owned_arg = owned};
	}
	return -1;
}

/*
 * Read the experiments into e->prof (path i's first one is experiment
 * first_of[i]; first_of[nexps] is the count), then set the default metric
 * list and sort.  0, or 1 after a message.
 */
static int load_experiments(struct erp *e, const char *const *exps, size_t nexps, size_t *first_of)
{
	int status = 0;
	char err[256];
	if (nexps > 0)
		erp_rc_preload(e);
	for (size_t i = 0; i < nexps; i++) {
		char *msg = NULL;
		first_of[i] = profile_experiment_count(e->prof);
		int r = profile_add_experiment(e->prof, exps[i], &msg);
		if (r < 0) {
			textout_printf(stderr, "%s: cannot read experiment %s: %s\n", PROG, exps[i],
				       msg ? msg : strerror(-r));
			free(msg);
			status = 1;
		}
	}
	first_of[nexps] = profile_experiment_count(e->prof);
	/* the default lists over the metrics the experiments registered; with
	 * heap or I/O data, gprofng's default lists (mspec_default_metrics) */
	if (status == 0 && nexps > 0 &&
	    (mspec_parse(e->prof, mspec_default_metrics(e->prof), 0, &e->metrics, err, sizeof err) < 0 ||
	     mspec_parse(e->prof, mspec_default_sort(e->prof), 1, &e->sort, err, sizeof err) < 0)) {
		textout_printf(stderr, "%s: default metrics: %s\n", PROG, err);
		status = 1;
	}
	return status;
}

int main(int argc, char **argv)
{
	struct erp e = {.out = stdout, .prog = PROG, .sthresh = 75, .dthresh = 75};
	clock_gettime(CLOCK_MONOTONIC, &e.start);
	signal(SIGXFSZ, SIG_IGN); /* past ulimit -f a write fails (EFBIG), which is reported */
	char err[256];
	if (argc == 1) {
		usage(stderr);
		return 2;
	}
	struct pending *todo = calloc((size_t)argc, sizeof *todo);
	const char **exps = calloc((size_t)argc, sizeof *exps);
	if (!todo || !exps) {
		textout_printf(stderr, "%s: out of memory\n", PROG);
		return 1;
	}
	size_t ntodo = 0, nexps = 0;
	int status = parse_command_line(&e, argc, argv, todo, &ntodo, exps, &nexps);
	if (status >= 0) { /* --help, --version or an error */
		free_pending(todo, ntodo);
		free(exps);
		return status;
	}
	status = 0;
	char **paths = NULL; /* exps with each group replaced by its experiments */
	size_t nexps_given = nexps;
	if (expgroup_expand(exps, nexps, &paths, &nexps, err, sizeof err) < 0) {
		textout_printf(stderr, "%s: %s\n", PROG, err);
		free_pending(todo, ntodo);
		free(exps);
		return 1;
	}
	const char **given = exps;
	exps = (const char **)paths;
	size_t *first_of = calloc(nexps + 1, sizeof *first_of);
	if (profile_new(&e.prof) < 0 || !first_of) {
		textout_printf(stderr, "%s: out of memory\n", PROG);
		return 1;
	}
	status = load_experiments(&e, exps, nexps, first_of);
	if (status == 0 && report_compare_sides(given, nexps_given, first_of, &e.sides, &e.nsides) < 0) {
		textout_printf(stderr, "%s: out of memory\n", PROG);
		status = 1;
	}
	if (status == 0 && nexps > 0)
		erp_rc_load(&e); /* after the sides: an rc may set `compare` */
	free(first_of);
	free(given);
	if (nexps == 0) {
		textout_printf(stderr, "%s: %s\n", PROG,
			       nexps_given ? "the groups given name no experiment" : "no experiment given");
		usage(stderr);
		status = 2;
	}
	if (status == 0) {
		if (ntodo == 0 && interactive(&e) < 0)
			status = 1;
		for (size_t i = 0; i < ntodo && !e.quit; i++) {
			if (todo[i].stdin_cmds ? interactive(&e) < 0
					       : erp_command_run(&e, todo[i].cmd, todo[i].arg) < 0)
				status = 1;
		}
	}
	if (erp_end_out(&e) < 0 && status == 0)
		status = 1;
	free(e.search_path);
	for (int i = 0; i < e.npathmaps; i++) {
		free(e.pathmap_from[i]);
		free(e.pathmap_to[i]);
	}
	profile_free(e.prof);
	report_compare_sides_free(e.sides, e.nsides);
	free_pending(todo, ntodo);
	expgroup_free_paths(paths, nexps);
	return status;
}
