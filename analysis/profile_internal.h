/*
 * profile_internal.h - the state behind struct profile, shared by profile.c
 * (experiments, selection, metrics) and profile_resolve.c (stacks ->
 * functions, PCs and source lines).  Internal to libanalysis.
 */
#ifndef ANALYSIS_PROFILE_INTERNAL_H
#define ANALYSIS_PROFILE_INTERNAL_H

#include <regex.h>

#include "analysis/experiment_internal.h"
#include "analysis/lines.h"
#include "analysis/profile.h"
#include "analysis/symtab.h"
#include "common/u64map.h"
#include "common/vec.h"

struct object_slot {
	struct pobject pub;
	char *name, *path, *build_id, *error;
	char *read_path;  /* the file to read: path, or its copy in the experiment's archives/ */
	char *debug_root; /* the archive as a debug root (separate debug file copied), or NULL */
	struct symtab *st;
	int tried;
	struct lines *ln;
	int ln_tried;
	int hidden; /* object_hide: its code is one function named after the object */
	int vdso;   /* the vDSO image of some experiment */
};

/* What one (adjusted) PC resolves to. */
struct pc_res {
	uint32_t chain;  /* index into exp_slot.chains: function ids, innermost inline first */
	uint32_t nchain; /* 0: a frame to drop (the collector's own) */
	uint32_t line;   /* line id */
};

/* A stack resolved three ways, leaf first. */
struct stack_res {
	uint32_t *funcs, nfuncs; /* with inlined functions and pseudo frames */
	uint32_t *pcs, npcs;     /* one per kept frame */
	uint32_t *lines, nlines;
	int done;
};

struct exp_slot {
	struct experiment *exp;
	uint32_t *objmap;     /* experiment object index -> global object id */
	struct u64map pcmemo; /* adjusted pc -> index into res */
	VEC(struct pc_res) res;
	VEC(uint32_t) chains;
	struct stack_res *stacks; /* per stack */
	uint8_t *selected;        /* per thread */
	int exp_selected;         /* experiment_select */
	uint8_t *sample_sel;      /* per sample (sample_select), NULL: every sample */
	uint8_t *cpu_sel;         /* per CPU number below ncpu_sel (cpu_select), NULL: every CPU */
	uint32_t ncpu_sel;
	size_t founder;        /* index of its founder (itself for a founder) */
	long parent;           /* index of its parent process's experiment, or -1 */
	int64_t wall_start_ns; /* its start on the wall clock (profile_experiment_offset_ns) */
	uint64_t *sums;        /* per stack, nmetrics values of the last profile_compute, or NULL */
};

/* A registered metric source; active once an experiment has its data. */
struct source_slot {
	struct profile_metric_source src;
	int active;
	size_t *cols; /* registry index of each of its metrics (valid when active) */
};

struct profile {
	VEC(struct exp_slot) exps;
	VEC(struct object_slot) objs;
	VEC(struct pfunc) funcs;
	VEC(struct ppc) pcs;
	VEC(struct pline) lines;
	VEC(char *) strings; /* owned names */
	struct u64map func_index, pc_index, line_index, inline_index;
	char *selection_text;
	char *exp_selection_text;
	char *sample_selection_text; /* NULL: "all" (no sample filter) */
	char *cpu_selection_text;    /* NULL: "all" (no CPU selection) */
	struct filter *filter;       /* profile_set_filter, NULL: none */
	uint64_t time_t0, time_t1;   /* the time selection, relative ns: [t0, t1) */
	int time_shared;             /* 1: time_t0/t1 are on the shared time base */
	int64_t wall_min_ns;         /* the earliest exp_slot.wall_start_ns */
	int dirty;
	int inline_mode;         /* 1: inlined functions are functions of their own */
	int lines_cache_set;     /* lines_cache decided */
	const char *lines_cache; /* lines_options.cache_dir (profile_own), or NULL */
	VEC(struct source_slot) sources;
	VEC(struct metric_def) mdefs; /* the registry */
	size_t nsums;                 /* metrics per vector of the exp_slot.sums of the last compute */
	struct metrics *fm, *om, *pm, *lm;
	struct metrics *cm; /* fm with edges and tree: profile_call_metrics, NULL until asked */
	uint64_t selected_events;
	void **module_states; /* per row of profile.c's module table: its state block, or NULL */
	int desc_mode;        /* profile_set_descendants: 0 every one, 1 none, 2 those matching desc_re */
	regex_t desc_re;
};

char *profile_own(struct profile *p, char *s);
/* "all" or N, N-M, ... (1-based) into set[0..n); -EINVAL with *ret_err (malloc'd) on bad syntax. */
int profile_parse_ranges(const char *s, const char *end, uint8_t *set, size_t n, char **ret_err);
/*
 * A selection "EXPS:LIST" or "LIST" (spaces around it ignored): the
 * experiments EXPS names into *ret_expsel (malloc'd, every experiment
 * without a prefix), LIST as [*ret_list, *ret_end) and the whole selection
 * without the spaces into *ret_text (malloc'd).  0; -EINVAL with *ret_err
 * (malloc'd: "empty WHAT selection", or EXPS's error); -ENOMEM.
 */
int profile_split_exp_spec(const struct profile *p, const char *spec, const char *what, uint8_t **ret_expsel,
			   const char **ret_list, const char **ret_end, char **ret_text, char **ret_err);
/* The same with numbers counted from first (0 or 1): number k sets set[k - first]. */
int profile_parse_ranges_from(const char *s, const char *end, uint8_t *set, size_t n, unsigned long first,
			      char **ret_err);
/* profile_samples.c: 1 if ts_ns of experiment x is in a selected sample. */
int profile_sample_time_selected(const struct profile *p, size_t x, uint64_t ts_ns);
/* profile_samples.c: the number of the sample of experiment x holding ts_ns, 0 when it has none. */
size_t profile_sample_at(const struct profile *p, size_t x, uint64_t ts_ns);
/* profile_filter.c: forget the CPU selection and the filter (profile_free). */
void profile_filter_release(struct profile *p);
/* profile_samples.c: forget the sample selection (profile_free). */
void profile_samples_release(struct profile *p);
int profile_add_func(struct profile *p, enum pfunc_kind kind, const char *name, const char *mangled,
		     uint32_t obj, uint64_t addr, uint64_t size, uint32_t *ret_id);
void profile_refresh_object_views(struct profile *p);

/*
 * profile_desc.c (en_desc): 1 if the descendant whose subexperiment is at
 * path is to be read, 0 if not; its program from founder's processes.xml,
 * else from its own log.xml.
 */
int profile_descendant_wanted(const struct profile *p, const struct experiment *founder, const char *path);

/*
 * How the processes of the tree whose founder's slot is `founder` ended
 * (profile_ends.c), once all its experiments are in: a descendant whose own
 * log has no end takes its parent's wait status; and a process whose CPU
 * time is known from outside (collect's wait4 for the founder, its parent's
 * wait for a descendant; less what the children it reaped used) gets what it
 * ran after its threads' ends as an event of the "process exit" stack of its
 * last image (<Process-exit>).  0 or -ENOMEM.
 */
int profile_process_ends(struct profile *p, size_t founder);
/* Forget the regular expression (profile_free); the mode becomes "on". */
void profile_descendants_release(struct profile *p);

/*
 * A metric module: one kind of data's metric sources and the state they
 * keep in a profile (the heap's replayed figures, the counters' default
 * metric lists), so that struct profile holds nothing of any kind of data.
 * profile_new registers every module of profile.c's table in order: it
 * gives each a zeroed state block of state_bytes (0: none) that the
 * profile owns, registers its `source` (NULL: none), then calls reset.
 *   added    (NULL: nothing) experiment x was added; may register more
 *            sources (a counter's).  0 or a negative errno;
 *   reset    (NULL: nothing) forget what the last profile_compute figured
 *            (called before each);
 *   release  (NULL: nothing) free what the state holds (profile_free).
 * Built in: the clock, its user/system split, heap, synchronization, I/O
 * and counter modules; a new kind of data is one more row in that table.
 */
struct profile_module {
	const struct profile_metric_source *source;
	size_t state_bytes;
	int (*added)(struct profile *p, size_t x, void *state);
	void (*reset)(struct profile *p, void *state);
	void (*release)(void *state);
};

/* Module m's state block in p (NULL when m has none or is not in the table). */
void *profile_module_state(const struct profile *p, const struct profile_module *m);

/* The user/system CPU split of clock profiling (profile_cpusplit.c). */
extern const struct profile_module profile_cpusplit_module;
/* Heap tracing (profile_heap.c): the replay's figures per stack and its summary. */
extern const struct profile_module profile_heap_module;
/* Synchronization wait tracing (profile_sync.c). */
extern const struct profile_module profile_sync_module;
/* I/O tracing (profile_io.c). */
extern const struct profile_module profile_io_module;
/* Counter overflow profiling (profile_hwc.c): a source per counter, as experiments are added. */
extern const struct profile_module profile_hwc_module;
/* viewmode (profile_view.c): the runtimes plugged in, the mode, the named pseudo-functions. */
extern const struct profile_module profile_view_module;

/*
 * profile_view.c: move experiment exp's clock samples whose context a
 * plugged-in runtime shows apart onto view copies of their stacks, appended
 * to its stacks (before a slot sizes its per-stack arrays).  0 or -ENOMEM.
 */
int profile_view_copies(struct profile *p, struct experiment *exp);
/* profile_view.c: transform resolved stack s of experiment x for the viewmode (profile_resolve_stack). */
int profile_view_apply(struct profile *p, size_t x, uint32_t s);

/*
 * What a heap replay counts, one charge at a time: an allocation (at its
 * call's time) or a block still live at the end (a leak, ts_ns 0), of a
 * selected thread, at its allocating stack.  A non-zero return stops it.
 */
enum heap_charge_kind { HEAP_CHARGE_ALLOC, HEAP_CHARGE_LEAK };
typedef int (*heap_charge_fn)(void *arg, enum heap_charge_kind kind, uint32_t stack, uint32_t thread,
			      uint64_t bytes, uint64_t ts_ns);
/*
 * Replay experiment x's heap calls as the heap source's sum does (same
 * semantics, same selection), telling fn of every allocation in call order,
 * then of every leak.  0, -ENOMEM, or fn's non-zero return.
 */
int profile_heap_charges(struct profile *p, size_t x, heap_charge_fn fn, void *arg);

/* profile_resolve.c */
struct symtab *profile_resolve_symtab(struct profile *p, uint32_t obj);
struct lines *profile_resolve_lines(struct profile *p, uint32_t obj);
/* Resolve stack s of experiment e (cached in e->stacks[s]). 0 or -ENOMEM. */
int profile_resolve_stack(struct profile *p, struct exp_slot *e, uint32_t s);
/* Forget every resolved PC and stack (after the inline mode changed). */
void profile_resolve_reset(struct exp_slot *e, size_t nstacks);
/* The function at run-time pc at time ts_ns, as a leaf (no inline expansion), or UINT32_MAX. */
int profile_resolve_func(struct profile *p, struct exp_slot *e, uint64_t pc, uint64_t ts_ns, uint32_t *ret);

#endif
