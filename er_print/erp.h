/*
 * erp.h - er_print's session state shared by its command modules: the
 * profile being reported on, the output stream, and the display settings
 * the commands change (metrics, sort, limit, name form).
 *
 * Report functions print to e->out and return 0, or -1 after printing one
 * error message to stderr through erp_error().  Nothing here exits.
 */
#ifndef ER_PRINT_ERP_H
#define ER_PRINT_ERP_H

#include <stdio.h>
#include <time.h>
#include <sys/types.h>

#include "analysis/profile.h"
#include "analysis/mspec.h"
#include "analysis/report_compare.h"
#include "common/strbuf.h"

enum erp_name_form { ERP_NAME_LONG, ERP_NAME_SHORT, ERP_NAME_MANGLED };
enum erp_printmode { ERP_PRINT_TEXT, ERP_PRINT_HTML, ERP_PRINT_JSON, ERP_PRINT_DELIM };

struct table;
struct report_stats;

struct erp {
	struct profile *prof;
	FILE *out;            /* stdout, or the file of `outfile`/`appendfile` */
	int out_owned;        /* out must be fclose'd when replaced */
	char *out_name;       /* its name for messages (NULL: standard output or error) */
	struct mspec metrics; /* `metrics`: the columns of function-level reports */
	struct mspec sort;    /* `sort`: one entry */
	long limit;           /* `limit`: rows per report, 0 = all */
	enum erp_name_form name_form;
	int name_soname;      /* name ...:soname appends " [<lib>]" */
	int sthresh, dthresh; /* hot-line thresholds, % of the hottest line/instruction */
	char *search_path;    /* `setpath`/`addpath`: ':'-separated, "$expts" = experiment dirs */
	char *pathmap_from[16], *pathmap_to[16]; /* `pathmap` prefixes */
	int npathmaps;
	enum erp_printmode printmode; /* `printmode` */
	char delim;                   /* ... its delimiter character */
	int interactive;
	int quit;              /* set by quit/exit */
	struct timespec start; /* when er_print started (procstats) */
	const char *prog;      /* "er_print" */
	/*
	 * `compare`: 0 off, 'o' on, 'd' delta, 'r' ratio; the sides compared
	 * are the experiments as given: each argument (an experiment with its
	 * descendants, or an .erg group) one side, names owned.
	 */
	char compare;
	struct report_compare_side *sides;
	size_t nsides;
};

/* Run one command line "name [arg...]"; blank lines and # comments do nothing. 0 or -1. */
int erp_run_line(struct erp *e, char *line);

/* The longest command line read from a script, standard input or a defaults file. */
#define ERP_LINE_MAX (1u << 20)

/*
 * Read the next line of f, of any length up to ERP_LINE_MAX bytes, into b
 * (without its newline; b->s is then a string).  1 when a line was read, 0
 * at the end of f; -EILSEQ when the line has a NUL byte (it was read to its
 * end: refuse it whole, as the part before the NUL is not what was
 * written), -E2BIG when it is longer (its rest is not read), -ENOMEM, -EIO.
 */
int erp_read_line(FILE *f, struct strbuf *b);
/*
 * The message for line lno of `where` that erp_read_line refused with err;
 * 0 when reading may go on with the next line (a NUL byte), -1 when not.
 */
int erp_line_refused(struct erp *e, const char *where, int lno, int err);

/*
 * Read the defaults files (er_print/rc.c): $PA_SYSTEM_RC or /etc/er.rc,
 * ~/.er.rc, ./.er.rc; their dmetrics/dsort set the default metrics and sort,
 * their setpath, pathmap, name, ... run silently.  Warnings to stderr.
 */
void erp_rc_load(struct erp *e);
/* The defaults files' en_desc lines, before the experiments load (warnings to stderr). */
void erp_rc_preload(struct erp *e);

/* Print "er_print: <message>" to stderr (and to e->out if it is a file). */
void erp_error(struct erp *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * The display name of a function under the current name form; with its
 * symbol version only when another function with data has the same name
 * (pfunc.show_version).
 */
const char *erp_func_name(struct erp *e, const struct pfunc *f, char *buf, size_t room);

/* `printmode` (er_print/printmode.c): set it, or print it when arg is NULL. */
int cmd_printmode(struct erp *e, const char *arg);
/* Write table t to e->out in the current printmode (reports call this, not table_print). */
void erp_table_print(struct erp *e, const struct table *t);
/*
 * Run report fn(e, arg) named `name` in the current printmode: html and json
 * capture its output and write it as HTML, or as one JSON object.
 */
int printmode_run(struct erp *e, int (*fn)(struct erp *, const char *), const char *name, const char *arg);

/* The typed json renderer of information report `name` (show_json.c), or NULL. */
int (*show_json_of(const char *name))(struct erp *, const char *);

/*
 * The experiments an `exp_id` argument of command cmd names :
 * none/"all" = every one, else a number 1..N.  0 with [*lo, *hi), or -1
 * after an error message.
 */
int show_exp_range(struct erp *e, const char *cmd, const char *arg, size_t *lo, size_t *hi);
/*
 * The statistics of the experiments arg names (show_exp_range): *n of them
 * from *lo in *ret (malloc'd), and in *sum those of the selected ones (the
 * recorded CPU being the profile's total when all are named).  0, or -1
 * after an error message.
 */
int show_stats_range(struct erp *e, const char *arg, struct report_stats **ret, size_t *lo, size_t *n,
		     struct report_stats *sum);

/* Information reports (er_print/show_info.c). `arg` may be NULL. */
int show_header(struct erp *e, const char *arg);
int show_statistics(struct erp *e, const char *arg);
int show_experiment_list(struct erp *e, const char *arg);
int show_thread_list(struct erp *e, const char *arg);
/*
 * gprofng's Exp/Sel/Total table of thread_list and sample_list: per
 * experiment its selection (NULL: "?") and total.
 */
void show_selection_table(FILE *o, size_t n, const char *const *sel, const size_t *totals);

/* Filters and CPUs (er_print/select.c). */
int cmd_filters(struct erp *e, const char *arg);
int cmd_describe(struct erp *e, const char *arg);
int cmd_cpu_select(struct erp *e, const char *arg);
int show_cpu_list(struct erp *e, const char *arg);

/* Sample reports (er_print/show_samples.c). */
int show_sample_list(struct erp *e, const char *arg);
int show_sample_list_json(struct erp *e, const char *arg);
int show_overview(struct erp *e, const char *arg);

/* Metric reports (er_print/show_func.c, show_calls.c). */
int show_functions(struct erp *e, const char *arg);
int show_fsummary(struct erp *e, const char *arg);
int show_fsingle(struct erp *e, const char *arg);
int show_objects(struct erp *e, const char *arg);
int show_callers_callees(struct erp *e, const char *arg);
int show_csingle(struct erp *e, const char *arg);
int show_calltree(struct erp *e, const char *arg);

/* Heap tracing reports (er_print/show_heap.c). */
int show_leaks(struct erp *e, const char *arg);
int show_allocs(struct erp *e, const char *arg);
int show_heap(struct erp *e, const char *arg);
int show_heapstat(struct erp *e, const char *arg);
/* Stack s of experiment x, leaf first, one "  name + 0xOFFSET[, line N in "file"]" line a frame. */
void erp_print_frames(struct erp *e, size_t x, uint32_t s);

/* Synchronization objects ranked by wait, with the stacks that waited (er_print/show_sync.c). */
int show_synclocks(struct erp *e, const char *arg);
struct report_sync_object;
/* synclocks' model after the checks (sync data present): the count, or -1 after a message. */
ssize_t show_sync_list(struct erp *e, struct report_sync_object **ret);

/* I/O tracing reports (er_print/show_io.c). */
int show_ioactivity(struct erp *e, const char *arg);
int show_iodetail(struct erp *e, const char *arg);
int show_iocallstack(struct erp *e, const char *arg);
int show_iostat(struct erp *e, const char *arg);
/* show_prepare, then an error (-1) unless the experiments traced I/O. */
int show_io_prepare(struct erp *e);
struct report_io_row;
/* iocallstack's model after the checks: the rows (<Total> first), or -1 after a message. */
ssize_t show_io_stacks(struct erp *e, struct report_io_row **ret);

/* `mapfile LOAD_OBJECT FILE`: a link-order file of the object's hot functions (show_mapfile.c). */
int show_mapfile(struct erp *e, const char *arg);

/* Annotated source and disassembly (er_print/show_source.c). */
int show_source(struct erp *e, const char *arg);
int show_disasm(struct erp *e, const char *arg);

/*
 * Compare mode (er_print/show_compare.c): `compare on|off|delta|ratio`,
 * and the compared forms of functions, lines and PCs (what), and of
 * callers-callees, printed by those reports when compare is on.
 */
int cmd_compare(struct erp *e, const char *arg);
int show_compare_active(const struct erp *e);
int show_compare_print_list(struct erp *e, enum report_what what);
int show_compare_print_calls(struct erp *e);

/* Line and PC reports (er_print/show_lines.c). */
int show_lines(struct erp *e, const char *arg);
int show_pcs(struct erp *e, const char *arg);
int show_lsummary(struct erp *e, const char *arg);
int show_psummary(struct erp *e, const char *arg);

#endif
