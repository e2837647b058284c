/*
 * session.c - er_print's session: its command table and the commands that
 * set how reports come out (metrics, sort, limit, names, output files,
 * paths, selections), and erp_run_line, which runs one command line.  The
 * program (main.c) reads experiments and command lines and hands them
 * here; a test can run a session over a profile of its own (commands.h).
 */
#include "er_print/commands.h"

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

#include "analysis/profile_view.h"
#include "er_print/erp.h"
#include "er_print/export.h"
#include "er_print/show.h"
#include "er_print/textout.h"

#define PROG "er_print"

void erp_error(struct erp *e, const char *fmt, ...)
{
	va_list ap;
	fflush(e->out);
	textout_printf(stderr, "%s: ", PROG);
	va_start(ap, fmt);
	textout_vprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

const char *erp_func_name(struct erp *e, const struct pfunc *f, char *buf, size_t room)
{
	const char *name = f->name;
	if (e->name_form == ERP_NAME_MANGLED && f->mangled[0])
		name = f->mangled;
	snprintf(buf, room, "%s", name);
	if (e->name_form == ERP_NAME_SHORT && f->kind == PFUNC_SYMBOL) {
		/* short: without the parameter list of a C++ name */
		char *paren = strchr(buf, '(');
		if (paren && paren != buf)
			*paren = '\0';
	}
	if (f->show_version) { /* another function of the listing has this name: which version */
		size_t len = strlen(buf);
		snprintf(buf + len, room - len, "%s", f->version);
	}
	if (e->name_soname && f->obj != PROFILE_NO_OBJECT && f->kind == PFUNC_SYMBOL) {
		size_t len = strlen(buf);
		snprintf(buf + len, room - len, " [<%s>]", profile_object(e->prof, f->obj)->name);
	}
	return buf;
}

int show_prepare(struct erp *e)
{
	if (profile_experiment_count(e->prof) == 0) {
		erp_error(e, "no experiment is loaded");
		return -1;
	}
	if (profile_compute(e->prof) < 0) {
		erp_error(e, "out of memory while computing metrics");
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------ commands */

static int cmd_metrics(struct erp *e, const char *arg);
static int cmd_metric_list(struct erp *e, const char *arg);
static int cmd_sort(struct erp *e, const char *arg);
static int cmd_limit(struct erp *e, const char *arg);
static int cmd_name(struct erp *e, const char *arg);
static int cmd_outfile(struct erp *e, const char *arg);
static int cmd_appendfile(struct erp *e, const char *arg);
static int cmd_thread_select(struct erp *e, const char *arg);
static int cmd_sample_select(struct erp *e, const char *arg);
static int cmd_experiment_select(struct erp *e, const char *arg);
static int cmd_script(struct erp *e, const char *arg);
static int cmd_inline(struct erp *e, const char *arg);
static int cmd_object_list(struct erp *e, const char *arg);
static int cmd_object_show(struct erp *e, const char *arg);
static int cmd_object_hide(struct erp *e, const char *arg);
static int cmd_object_select(struct erp *e, const char *arg);
static int cmd_objects_default(struct erp *e, const char *arg);
static int cmd_sthresh(struct erp *e, const char *arg);
static int cmd_dthresh(struct erp *e, const char *arg);
static int cmd_setpath(struct erp *e, const char *arg);
static int cmd_addpath(struct erp *e, const char *arg);
static int cmd_viewmode(struct erp *e, const char *arg);
static int cmd_procstats(struct erp *e, const char *arg);
static int cmd_ifreq(struct erp *e, const char *arg);
static int cmd_en_desc(struct erp *e, const char *arg);
static int cmd_viewmode(struct erp *e, const char *arg)
{
	static const char *const modes[] = {"user", "expert", "machine"};
	if (arg) {
		size_t i = 0;
		while (i < 3 && strcasecmp(arg, modes[i]) != 0)
			i++;
		if (i == 3) {
			erp_error(e, "viewmode: '%s' is not user, expert or machine", arg);
			return -1;
		}
		profile_set_viewmode(e->prof, (enum profile_viewmode)i); /* the modes in the enum's order */
	}
	textout_printf(e->out, "Viewmode set to %s\n", modes[profile_viewmode(e->prof)]);
	return 0;
}

/* Count data (Oracle's collect -c, SPARC binary instrumentation) has no Linux equivalent. */
static int cmd_ifreq(struct erp *e, const char *arg)
{
	(void)arg;
	textout_printf(e->out, "Instruction frequency data was not requested when recording experiments\n"
			       "(count data, the Oracle tools' collect -c, is not available on Linux)\n");
	return 0;
}

/* en_desc decides which descendants load: it can only come before the experiments. */
static int cmd_en_desc(struct erp *e, const char *arg)
{
	(void)arg;
	erp_error(e, "en_desc: read only from a defaults file (.er.rc), before the experiments load; "
		     "put 'en_desc on|off|=REGEX' in ./.er.rc or ~/.er.rc");
	return -1;
}

static int cmd_procstats(struct erp *e, const char *arg)
{
	(void)arg;
	struct rusage ru;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	getrusage(RUSAGE_SELF, &ru);
	textout_printf(
		e->out,
		"Processing statistics: %.3f s elapsed, %.3f s user CPU, %.3f s system CPU, %ld MB peak memory\n",
		(double)(now.tv_sec - e->start.tv_sec) + (double)(now.tv_nsec - e->start.tv_nsec) / 1e9,
		(double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6,
		(double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6, ru.ru_maxrss / 1024);
	return 0;
}

static int cmd_quit(struct erp *e, const char *arg);

static const struct command commands[] = {
	{"functions", NULL, ARG_NONE, show_functions, "", "function list with the current metrics"},
	{"metrics", NULL, ARG_OPT, cmd_metrics, "[metric_spec]",
	 "set the metric list (e.g. e.%totalcpu:i.totalcpu:name, default); no argument prints it"},
	{"metric_list", NULL, ARG_NONE, cmd_metric_list, "", "list the available metrics"},
	{"sort", NULL, ARG_OPT, cmd_sort, "[metric_spec]", "set the sort metric (e.g. i.totalcpu, name)"},
	{"limit", NULL, ARG_ONE, cmd_limit, "n", "print at most n rows per report (0 = all)"},
	{"fsummary", NULL, ARG_NONE, show_fsummary, "", "summary of every function"},
	{"fsingle", NULL, ARG_REST, show_fsingle, "function [N]", "summary of one function"},
	{"callers-callees", "gprof", ARG_NONE, show_callers_callees, "",
	 "callers and callees of every function, with attributed metrics"},
	{"csingle", NULL, ARG_REST, show_csingle, "function [N]", "callers and callees of one function"},
	{"calltree", "ctree", ARG_NONE, show_calltree, "", "the dynamic call tree"},
	{"objects", NULL, ARG_NONE, show_objects, "", "load objects with metrics, and their warnings"},
	{"leaks", NULL, ARG_NONE, show_leaks, "", "heap blocks never freed, by call stack (collect -H)"},
	{"allocs", NULL, ARG_NONE, show_allocs, "", "heap allocations by call stack (collect -H)"},
	{"heap", NULL, ARG_NONE, show_heap, "", "allocations and leaks of every call stack (collect -H)"},
	{"heapstat", NULL, ARG_NONE, show_heapstat, "",
	 "heap statistics: peak, size histograms, temporary allocations, memory at the peak"},
	{"synclocks", NULL, ARG_NONE, show_synclocks, "",
	 "synchronization objects ranked by wait time, with the stacks that waited (collect -s)"},
	{"ioactivity", NULL, ARG_NONE, show_ioactivity, "", "I/O by file name (collect -i on)"},
	{"iodetail", NULL, ARG_NONE, show_iodetail, "",
	 "I/O by file descriptor: each life of a descriptor number (collect -i on)"},
	{"iocallstack", NULL, ARG_NONE, show_iocallstack, "", "I/O by call stack (collect -i on)"},
	{"iostat", NULL, ARG_NONE, show_iostat, "",
	 "I/O statistics: read and write size histograms, extremes, totals (collect -i on)"},
	{"mapfile", NULL, ARG_TWO, show_mapfile, "load_object file",
	 "write the object's functions with data, hottest first, as a linker symbol-ordering file (- output)"},
	{"viewmode", NULL, ARG_OPT, cmd_viewmode, "[user|expert|machine]",
	 "how Java and OpenMP stacks are shown (native code: all three are the same)"},
	{"procstats", NULL, ARG_NONE, cmd_procstats, "", "er_print's own time and memory so far"},
	{"ifreq", NULL, ARG_NONE, cmd_ifreq, "",
	 "instruction frequency (count data): not available on Linux"},
	{"en_desc", NULL, ARG_ONE, cmd_en_desc, "on|off|=regex",
	 "which descendants' experiments to read: only in .er.rc, before loading"},
	{"export", NULL, ARG_TWO, show_export, "format[:metric] file",
	 "write the call stacks to file (- stdout): folded, pprof, speedscope, firefox, chrome; one metric or all"},
	{"lines", NULL, ARG_NONE, show_lines, "", "source lines with metrics"},
	{"pcs", NULL, ARG_NONE, show_pcs, "", "instructions (PCs) with metrics"},
	{"lsummary", NULL, ARG_NONE, show_lsummary, "", "summary of every source line"},
	{"psummary", NULL, ARG_NONE, show_psummary, "", "summary of every PC"},
	{"source", "src", ARG_REST, show_source, "function|file [N]",
	 "annotated source, hot lines marked ##"},
	{"disasm", "dis", ARG_REST, show_disasm, "function|file [N]",
	 "annotated disassembly with source lines"},
	{"sthresh", NULL, ARG_ONE, cmd_sthresh, "percent", "hot-line threshold of source (default 75)"},
	{"dthresh", NULL, ARG_ONE, cmd_dthresh, "percent", "hot-line threshold of disassembly (default 75)"},
	{"setpath", NULL, ARG_ONE, cmd_setpath, "path_list",
	 "where source files are looked for ($expts = next to the experiments)"},
	{"addpath", NULL, ARG_ONE, cmd_addpath, "path_list", "add to the source search path"},
	{"pathmap", NULL, ARG_REST, cmd_pathmap, "old_prefix new_prefix",
	 "map a source path prefix to another"},
	{"object_list", NULL, ARG_NONE, cmd_object_list, "",
	 "load objects and whether their functions are shown"},
	{"object_show", NULL, ARG_ONE, cmd_object_show, "obj[,obj...]|all",
	 "list the functions of these objects"},
	{"object_hide", NULL, ARG_ONE, cmd_object_hide, "obj[,obj...]|all",
	 "show all code of these objects as one function <obj>"},
	{"object_select", NULL, ARG_ONE, cmd_object_select, "obj[,obj...]",
	 "show these objects, hide all others"},
	{"objects_default", NULL, ARG_NONE, cmd_objects_default, "", "show every object's functions"},
	{"inline", NULL, ARG_OPT, cmd_inline, "[on|off]",
	 "on (default): inlined functions are functions of their own; off: folded into their caller"},
	{"header", NULL, ARG_OPT, show_header, "[exp_id]",
	 "experiment header: target, host, parameters, errors"},
	{"statistics", NULL, ARG_OPT, show_statistics, "[exp_id]", "execution statistics"},
	{"experiment_list", "exp_list", ARG_NONE, show_experiment_list, "",
	 "the loaded experiments (with descendants: pid, parent, lineage, command)"},
	{"experiment_select", NULL, ARG_ONE, cmd_experiment_select, "spec",
	 "select experiments: all, 1, 1-3, 1,3 (see experiment_list)"},
	{"thread_list", "lwp_list", ARG_NONE, show_thread_list, "", "threads and which are selected"},
	{"thread_select", "lwp_select", ARG_ONE, cmd_thread_select, "spec",
	 "select threads: all, 1, 1-3, 1,3, or exp:spec (e.g. 2:1-3)"},
	{"cpu_list", NULL, ARG_NONE, show_cpu_list, "",
	 "the CPUs of the clock samples and which are selected"},
	{"cpu_select", NULL, ARG_ONE, cmd_cpu_select, "spec",
	 "count only events on these CPUs: all, 0, 0-3, 0,2, or exp:spec (see cpu_list)"},
	{"sample_list", NULL, ARG_NONE, show_sample_list, "",
	 "sample points: each experiment's samples, their labels and which are selected"},
	{"sample_select", NULL, ARG_ONE, cmd_sample_select, "spec",
	 "count only events inside these samples: all, 1, 1-3, 1,3, or exp:spec (see sample_list)"},
	{"overview", "sample_detail", ARG_OPT, show_overview, "[exp_id]",
	 "per-sample data: each sample's CPU time, faults, blocks and context switches"},
	{"filters", NULL, ARG_OPT, cmd_filters, "[expr]",
	 "filter events, e.g. THRID IN (1,3) && CPU==2 || TSTAMP<2s (see describe); 1 or all: none"},
	{"describe", NULL, ARG_NONE, cmd_describe, "", "the properties and operators of filters"},
	{"compare", NULL, ARG_OPT, cmd_compare, "[on|off|delta|ratio]",
	 "with several experiments (or groups): functions, lines, PCs and callers-callees show each "
	 "metric per experiment, the first as values, the others as values, differences or ratios"},
	{"name", NULL, ARG_ONE, cmd_name, "long|short|mangled[:soname|:nosoname]",
	 "how function names are shown"},
	{"outfile", NULL, ARG_ONE, cmd_outfile, "file|-|--", "write reports to file (- stdout, -- stderr)"},
	{"printmode", NULL, ARG_OPT, cmd_printmode, "[text|html|json|c]",
	 "how reports are written: text, HTML, JSON (one object per report), or c-separated values"},
	{"appendfile", NULL, ARG_ONE, cmd_appendfile, "file", "append reports to file"},
	{"script", NULL, ARG_ONE, cmd_script, "file", "run the commands in file"},
	{"help", NULL, ARG_NONE, cmd_help, "", "this list"},
	{"version", NULL, ARG_NONE, cmd_version, "", "print the version"},
	{"quit", "exit", ARG_NONE, cmd_quit, "", "leave er_print"},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

/*
 * Find a command by name, alias or unambiguous prefix.  Returns NULL after an
 * error message for an unknown or ambiguous word.
 */
const struct command *erp_command_lookup(struct erp *e, const char *word)
{
	size_t len = strlen(word);
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcasecmp(commands[i].name, word) == 0 ||
		    (commands[i].alias && strcasecmp(commands[i].alias, word) == 0))
			return &commands[i];
	const struct command *hit = NULL;
	int n = 0;
	char list[1024] = "";
	for (size_t i = 0; i < NCOMMANDS; i++) {
		if (strncasecmp(commands[i].name, word, len) == 0) {
			hit = &commands[i];
			n++;
			size_t l = strlen(list);
			snprintf(list + l, sizeof list - l, "%s%s", l ? ", " : "", commands[i].name);
		}
	}
	if (n == 1 && len > 0)
		return hit;
	if (n > 1)
		erp_error(e, "ambiguous command '%s': %s", word, list);
	else
		erp_error(e, "unknown command '%s' (try 'help')", word);
	return NULL;
}

int erp_command_run(struct erp *e, const struct command *c, const char *arg)
{
	if ((c->arg == ARG_ONE || c->arg == ARG_REST || c->arg == ARG_TWO) && (!arg || !*arg)) {
		erp_error(e, "%s: missing argument (%s %s)", c->name, c->name, c->args_help);
		return -1;
	}
	if (c->arg == ARG_NONE && arg && *arg) {
		erp_error(e, "%s takes no argument", c->name);
		return -1;
	}
	arg = arg && *arg ? arg : NULL;
	/* the commands that change where or how output goes are never captured */
	int direct = c->fn == cmd_outfile || c->fn == cmd_appendfile || c->fn == cmd_printmode ||
		     c->fn == cmd_script || c->fn == cmd_quit;
	int r = direct ? c->fn(e, arg) : printmode_run(e, c->fn, c->name, arg);
	fflush(e->out);
	return r;
}

int erp_run_line(struct erp *e, char *line)
{
	char *p = line;
	while (isspace((unsigned char)*p))
		p++;
	size_t len = strlen(p);
	while (len && isspace((unsigned char)p[len - 1]))
		p[--len] = '\0';
	if (!*p || *p == '#')
		return 0;
	char *word = p;
	while (*p && !isspace((unsigned char)*p))
		p++;
	if (*p)
		*p++ = '\0';
	while (isspace((unsigned char)*p))
		p++;
	if (*word == '-')
		word++;
	const struct command *c = erp_command_lookup(e, word);
	if (!c)
		return -1;
	return erp_command_run(e, c, p);
}

static int cmd_metrics(struct erp *e, const char *arg)
{
	char buf[1024];
	if (arg) {
		struct mspec m;
		if (mspec_parse(e->prof, arg, 0, &m, buf, sizeof buf) < 0) {
			erp_error(e, "metrics: %s", buf);
			return -1;
		}
		e->metrics = m;
	}
	mspec_format(e->prof, &e->metrics, buf, sizeof buf);
	textout_printf(e->out, "Current metrics: %s\n", buf);
	return 0;
}

static int cmd_metric_list(struct erp *e, const char *arg)
{
	(void)arg;
	size_t n;
	const struct metric_def *d = profile_metric_defs(e->prof, &n);
	char buf[1024];
	mspec_format(e->prof, &e->metrics, buf, sizeof buf);
	textout_printf(e->out, "Current metrics: %s\n", buf);
	mspec_format(e->prof, &e->sort, buf, sizeof buf);
	textout_printf(e->out, "Current Sort Metric: %s\n", buf);
	textout_printf(e->out, "Available metrics:\n");
	for (size_t i = 0; i < n; i++) {
		char fl[16] = "";
		for (size_t k = 0; k < 3; k++)
			if (d[i].flavors & (1u << k)) {
				size_t l = strlen(fl);
				snprintf(fl + l, sizeof fl - l, "%s%c", l ? ", " : "", "eia"[k]);
			}
		textout_printf(e->out, "  %s: %s (flavors %s; visibility . + %% !)\n", d[i].keyword,
			       d[i].username, fl);
	}
	textout_printf(e->out, "  size: Size\n  address: PC Address\n  name: Name\n");
	return 0;
}

static int cmd_sort(struct erp *e, const char *arg)
{
	char buf[1024];
	if (arg) {
		struct mspec m;
		if (mspec_parse(e->prof, arg, 1, &m, buf, sizeof buf) < 0) {
			erp_error(e, "sort: %s", buf);
			return -1;
		}
		e->sort = m;
	}
	mspec_format(e->prof, &e->sort, buf, sizeof buf);
	textout_printf(e->out, "Current Sort Metric: %s\n", buf);
	return 0;
}

static int cmd_limit(struct erp *e, const char *arg)
{
	char *end;
	errno = 0;
	long n = strtol(arg, &end, 10);
	if (errno || *end || n < 0) {
		erp_error(e, "limit: '%s' is not a non-negative number", arg);
		return -1;
	}
	e->limit = n;
	textout_printf(e->out, "Print limit set to %ld\n", n);
	return 0;
}

static int cmd_name(struct erp *e, const char *arg)
{
	char form[64];
	const char *colon = strchr(arg, ':');
	snprintf(form, sizeof form, "%.*s", colon ? (int)(colon - arg) : (int)strlen(arg), arg);
	enum erp_name_form nf;
	if (strcmp(form, "long") == 0)
		nf = ERP_NAME_LONG;
	else if (strcmp(form, "short") == 0)
		nf = ERP_NAME_SHORT;
	else if (strcmp(form, "mangled") == 0)
		nf = ERP_NAME_MANGLED;
	else {
		erp_error(e, "name: expected long, short or mangled, not '%s'", form);
		return -1;
	}
	int soname = e->name_soname;
	if (colon) {
		if (strcmp(colon + 1, "soname") == 0 || strcmp(colon + 1, "shared-object-name") == 0)
			soname = 1;
		else if (strcmp(colon + 1, "nosoname") == 0 ||
			 strcmp(colon + 1, "no-shared-object-name") == 0)
			soname = 0;
		else {
			erp_error(e, "name: expected :soname or :nosoname, not ':%s'", colon + 1);
			return -1;
		}
	}
	e->name_form = nf;
	e->name_soname = soname;
	return 0;
}

/*
 * Why writing to fd failed, when the stream no longer knows: a full file
 * system, the file size limit (ulimit -f), else what one more byte meets
 * (the output is short already), else an I/O error.
 */
static int write_failure(int fd)
{
	struct statvfs fs;
	struct stat st;
	struct rlimit lim;
	if (fstatvfs(fd, &fs) == 0 && fs.f_bavail == 0)
		return ENOSPC;
	if (fstat(fd, &st) == 0 && getrlimit(RLIMIT_FSIZE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY &&
	    (rlim_t)st.st_size >= lim.rlim_cur)
		return EFBIG;
	return write(fd, "\n", 1) < 0 && errno ? errno : EIO;
}

/* Flush (and close, if ours) the reports' stream: -1 after saying what was lost. */
int erp_end_out(struct erp *e)
{
	errno = 0;
	int err = fflush(e->out) != 0 ? errno : 0;
	if (!err && ferror(e->out))
		err = write_failure(fileno(e->out));
	if (e->out_owned && fclose(e->out) != 0 && !err)
		err = errno ? errno : EIO;
	if (err)
		erp_error(e, "cannot write the reports to %s%s%s: %s", e->out_name ? "'" : "",
			  e->out_name        ? e->out_name
			  : e->out == stderr ? "standard error"
					     : "standard output",
			  e->out_name ? "'" : "", strerror(err));
	free(e->out_name);
	e->out_name = NULL;
	e->out_owned = 0;
	return err ? -1 : 0;
}

static int set_out(struct erp *e, const char *arg, const char *mode)
{
	FILE *f;
	int owned = 1;
	if (strcmp(arg, "-") == 0) {
		f = stdout;
		owned = 0;
	} else if (strcmp(arg, "--") == 0) {
		f = stderr;
		owned = 0;
	} else if (!(f = fopen(arg, mode))) {
		erp_error(e, "cannot open '%s' for writing: %s", arg, strerror(errno));
		return -1;
	}
	char *name = owned ? strdup(arg) : NULL;
	int r = erp_end_out(e);
	e->out = f;
	e->out_owned = owned;
	e->out_name = name;
	return r;
}

static int cmd_outfile(struct erp *e, const char *arg)
{
	return set_out(e, arg, "w");
}

static int cmd_appendfile(struct erp *e, const char *arg)
{
	return set_out(e, arg, "a");
}

static int cmd_thread_select(struct erp *e, const char *arg)
{
	char *err = NULL;
	if (profile_select_threads(e->prof, arg, &err) < 0) {
		erp_error(e, "thread_select: %s", err ? err : "out of memory");
		free(err);
		return -1;
	}
	return 0;
}

static int cmd_sample_select(struct erp *e, const char *arg)
{
	char *err = NULL;
	if (profile_select_samples(e->prof, arg, &err) < 0) {
		erp_error(e, "sample_select: %s", err ? err : "out of memory");
		free(err);
		return -1;
	}
	return 0;
}

static int cmd_experiment_select(struct erp *e, const char *arg)
{
	char *err = NULL;
	if (profile_select_experiments(e->prof, arg, &err) < 0) {
		erp_error(e, "experiment_select: %s", err ? err : "out of memory");
		free(err);
		return -1;
	}
	return 0;
}

static int cmd_inline(struct erp *e, const char *arg)
{
	if (arg) {
		if (strcmp(arg, "on") == 0)
			profile_set_inline(e->prof, 1);
		else if (strcmp(arg, "off") == 0)
			profile_set_inline(e->prof, 0);
		else {
			erp_error(e, "inline: expected on or off, not '%s'", arg);
			return -1;
		}
	}
	textout_printf(e->out, "Inlined functions: %s\n", profile_inline(e->prof) ? "on" : "off");
	return 0;
}

static int set_thresh(struct erp *e, const char *arg, int *dst, const char *what)
{
	char *end;
	long v = strtol(arg, &end, 10);
	if (*end || end == arg || v < 0 || v > 100) {
		erp_error(e, "%s: '%s' is not a percentage from 0 to 100", what, arg);
		return -1;
	}
	*dst = (int)v;
	return 0;
}

static int cmd_sthresh(struct erp *e, const char *arg)
{
	return set_thresh(e, arg, &e->sthresh, "sthresh");
}

static int cmd_dthresh(struct erp *e, const char *arg)
{
	return set_thresh(e, arg, &e->dthresh, "dthresh");
}

static int cmd_setpath(struct erp *e, const char *arg)
{
	char *p = strdup(arg);
	if (!p) {
		erp_error(e, "out of memory");
		return -1;
	}
	free(e->search_path);
	e->search_path = p;
	return 0;
}

static int cmd_addpath(struct erp *e, const char *arg)
{
	const char *old = e->search_path ? e->search_path : "$expts:.";
	size_t n = strlen(old) + strlen(arg) + 2;
	char *p = malloc(n);
	if (!p) {
		erp_error(e, "out of memory");
		return -1;
	}
	snprintf(p, n, "%s:%s", old, arg);
	free(e->search_path);
	e->search_path = p;
	return 0;
}

int cmd_pathmap(struct erp *e, const char *arg)
{
	const char *from = arg + strspn(arg, " \t");
	size_t nfrom = strcspn(from, " \t");
	const char *to = from + nfrom + strspn(from + nfrom, " \t");
	size_t nto = strcspn(to, " \t");
	if (!nfrom || !nto) {
		erp_error(e, "pathmap: expected OLD_PREFIX NEW_PREFIX");
		return -1;
	}
	if (e->npathmaps == 16) {
		erp_error(e, "pathmap: at most 16 mappings");
		return -1;
	}
	char *f = strndup(from, nfrom), *t = strndup(to, nto);
	if (!f || !t) {
		free(f);
		free(t);
		erp_error(e, "out of memory");
		return -1;
	}
	e->pathmap_from[e->npathmaps] = f;
	e->pathmap_to[e->npathmaps] = t;
	e->npathmaps++;
	return 0;
}

static int cmd_object_list(struct erp *e, const char *arg)
{
	(void)arg;
	textout_printf(e->out, "Sel   Load Object\n==== ==================\n");
	for (uint32_t o = 0; o < profile_object_count(e->prof); o++)
		textout_printf(e->out, "%-4s  %s\n", profile_object_shown(e->prof, o) ? "show" : "hide",
			       profile_object(e->prof, o)->path);
	return 0;
}

/* Apply shown=on/off to the objects named in a comma list ("all" = every one). */
static int set_objects(struct erp *e, const char *arg, int shown, const char *what)
{
	char *names = strdup(arg);
	if (!names) {
		erp_error(e, "out of memory");
		return -1;
	}
	int rc = 0;
	for (char *save = NULL, *t = strtok_r(names, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		while (*t == ' ')
			t++;
		size_t tl = strlen(t);
		if (tl >= 2 && t[0] == '<' && t[tl - 1] == '>') { /* accept "<libc.so.6>" as shown */
			t[tl - 1] = '\0';
			t++;
		}
		int hit = 0;
		for (uint32_t o = 0; o < profile_object_count(e->prof); o++) {
			const struct pobject *po = profile_object(e->prof, o);
			if (strcmp(t, "all") == 0 || strcmp(t, po->name) == 0 || strcmp(t, po->path) == 0) {
				profile_set_object_shown(e->prof, o, shown);
				hit = 1;
			}
		}
		if (!hit) {
			erp_error(e, "%s: no load object named '%s' (see object_list)", what, t);
			rc = -1;
		}
	}
	free(names);
	return rc;
}

static int cmd_object_show(struct erp *e, const char *arg)
{
	return set_objects(e, arg, 1, "object_show");
}

static int cmd_object_hide(struct erp *e, const char *arg)
{
	return set_objects(e, arg, 0, "object_hide");
}

static int cmd_object_select(struct erp *e, const char *arg)
{
	for (uint32_t o = 0; o < profile_object_count(e->prof); o++)
		profile_set_object_shown(e->prof, o, 0);
	return set_objects(e, arg, 1, "object_select");
}

static int cmd_objects_default(struct erp *e, const char *arg)
{
	(void)arg;
	for (uint32_t o = 0; o < profile_object_count(e->prof); o++)
		profile_set_object_shown(e->prof, o, 1);
	return 0;
}

int erp_read_line(FILE *f, struct strbuf *b)
{
	strbuf_reset(b);
	strbuf_add(b, "", 0); /* b->s is a string even for an empty line */
	int c, nul = 0, any = 0;
	while ((c = getc(f)) != EOF && c != '\n') {
		any = 1;
		if (b->len == ERP_LINE_MAX)
			return -E2BIG;
		char ch = (char)c;
		nul |= ch == '\0';
		strbuf_add(b, &ch, 1);
		if (b->failed)
			return -ENOMEM;
	}
	if (c == EOF && !any)
		return ferror(f) ? -EIO : 0;
	return nul ? -EILSEQ : 1;
}

int erp_line_refused(struct erp *e, const char *where, int lno, int err)
{
	if (err == -EILSEQ)
		erp_error(e, "%s:%d: the line has a NUL byte; it is not run", where, lno);
	else if (err == -E2BIG)
		erp_error(e, "%s:%d: the line is longer than %u bytes; it is not run, nor what follows it",
			  where, lno, (unsigned)ERP_LINE_MAX);
	else
		erp_error(e, "%s:%d: cannot read the line: %s", where, lno, strerror(-err));
	return err == -EILSEQ ? 0 : -1;
}

/*
 * Run the command lines of f (where: its name for messages) until its end
 * or `quit`.  0, or -1 when a line failed or was refused.
 */
int erp_run_lines(struct erp *e, FILE *f, const char *where)
{
	struct strbuf line;
	strbuf_init(&line, 0);
	int r = 0, got;
	for (int lno = 1; !e->quit && (got = erp_read_line(f, &line)) != 0; lno++) {
		if (got < 0) {
			r = -1;
			if (erp_line_refused(e, where, lno, got) < 0)
				break;
		} else if (erp_run_line(e, line.s) < 0) {
			r = -1;
		}
	}
	strbuf_release(&line);
	return r;
}

static int script_depth;

static int cmd_script(struct erp *e, const char *arg)
{
	FILE *f = fopen(arg, "r");
	if (!f) {
		erp_error(e, "cannot open script '%s': %s", arg, strerror(errno));
		return -1;
	}
	if (script_depth >= 16) {
		fclose(f);
		erp_error(e, "script '%s': scripts nested too deeply", arg);
		return -1;
	}
	script_depth++;
	int r = erp_run_lines(e, f, arg);
	script_depth--;
	fclose(f);
	return r;
}

int cmd_help(struct erp *e, const char *arg)
{
	(void)arg;
	textout_printf(
		e->out,
		"Commands (any unambiguous prefix works; on the command line prefix them with '-'):\n");
	for (size_t i = 0; i < NCOMMANDS; i++) {
		char left[128];
		snprintf(left, sizeof left, "%s%s%s%s%s", commands[i].name, commands[i].alias ? " (" : "",
			 commands[i].alias ? commands[i].alias : "", commands[i].alias ? ")" : "",
			 commands[i].args_help[0] ? " " : "");
		size_t l = strlen(left);
		snprintf(left + l, sizeof left - l, "%s", commands[i].args_help);
		textout_printf(e->out, "  %-44s %s\n", left, commands[i].help);
	}
	return 0;
}

int cmd_version(struct erp *e, const char *arg)
{
	(void)arg;
	textout_printf(e->out, "%s (Performance Analyzer for Linux) %s\n", PROG, PA_VERSION);
	return 0;
}

static int cmd_quit(struct erp *e, const char *arg)
{
	(void)arg;
	e->quit = 1;
	return 0;
}
