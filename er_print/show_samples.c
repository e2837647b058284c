/*
 * show_samples.c - er_print's sample reports: sample_list (gprofng's
 * Exp/Sel/Total table, then each experiment's samples with the labels of the
 * points that open and close them), overview (per-sample data, the Oracle
 * 12.4-and-earlier layout, which gprofng calls sample_detail), and the JSON
 * of sample_list.  The samples are the library's (profile.h).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/experiment.h"
#include "analysis/profile.h"
#include "common/jsonw.h"
#include "common/strbuf.h"
#include "er_print/erp.h"
#include "er_print/textout.h"

static double sec(uint64_t ns)
{
	return (double)ns / 1e9;
}

static const char *label_of(const struct exp_sample_point *pt)
{
	return !pt ? "(end of data)" : pt->label[0] ? pt->label : "-";
}

/* Experiment xi's selected samples as "all" or "1,3-5" (malloc'd; NULL: no memory). */
static char *selection_of(const struct profile *p, size_t xi)
{
	size_t n = profile_sample_count(p, xi), k = 1, all = 1;
	struct strbuf b;
	strbuf_init(&b, 0);
	while (k <= n) {
		if (!profile_sample_selected(p, xi, k)) {
			all = 0;
			k++;
			continue;
		}
		size_t j = k;
		while (j + 1 <= n && profile_sample_selected(p, xi, j + 1))
			j++;
		if (b.len)
			strbuf_adds(&b, ",");
		if (j == k)
			strbuf_addf(&b, "%zu", k);
		else
			strbuf_addf(&b, "%zu-%zu", k, j);
		k = j + 1;
	}
	if (all) {
		strbuf_release(&b);
		return strdup("all");
	}
	if (!b.len)
		strbuf_adds(&b, "none");
	return strbuf_detach(&b);
}

static void sample_table(struct erp *e, size_t xi)
{
	FILE *o = e->out;
	const struct experiment *x = profile_experiment(e->prof, xi);
	size_t n = profile_sample_count(e->prof, xi);
	textout_printf(o, "\nExperiment %zu: %s\n", xi + 1, experiment_path(x));
	if (n == 0) {
		textout_printf(o, "(no sample points recorded)\n");
		return;
	}
	textout_printf(o, "%6s %3s %12s %10s %13s %13s  %s\n", "Sample", "Sel", "Start (sec.)", "End (sec.)",
		       "User CPU (s)", "Sys. CPU (s)", "From -> To");
	for (size_t k = 1; k <= n; k++) {
		struct profile_sample s;
		if (profile_sample_get(e->prof, xi, k, &s) < 0)
			continue;
		int known = s.end != NULL;
		textout_printf(o, "%6zu %3s %12.3f %10.3f %13.3f %13.3f  %s -> %s%s\n", k,
			       profile_sample_selected(e->prof, xi, k) ? "*" : "", sec(s.t0_ns), sec(s.t1_ns),
			       known ? sec(s.end->utime_ns - s.start->utime_ns) : 0.0,
			       known ? sec(s.end->stime_ns - s.start->stime_ns) : 0.0, label_of(s.start),
			       label_of(s.end), s.paused ? " (paused)" : "");
	}
}

int show_sample_list(struct erp *e, const char *arg)
{
	FILE *o = e->out;
	(void)arg;
	size_t n = profile_experiment_count(e->prof);
	char **sel = calloc(n ? n : 1, sizeof *sel);
	if (!sel) {
		erp_error(e, "sample_list: out of memory");
		return -1;
	}
	size_t *totals = calloc(n ? n : 1, sizeof *totals);
	int r = totals ? 0 : -1;
	for (size_t i = 0; i < n && r == 0; i++) {
		sel[i] = selection_of(e->prof, i);
		totals[i] = profile_sample_count(e->prof, i);
		if (!sel[i])
			r = -1;
	}
	if (r == 0) {
		show_selection_table(o, n, (const char *const *)sel, totals);
		for (size_t i = 0; i < n; i++)
			sample_table(e, i);
	} else {
		erp_error(e, "sample_list: out of memory");
	}
	free(totals);
	for (size_t i = 0; i < n; i++)
		free(sel[i]);
	free(sel);
	return r;
}

/* One sample's row of overview: its share of the process's resource usage. */
static void overview_row(FILE *o, const struct profile_sample *s, int selected)
{
	const struct exp_sample_point *a = s->start, *b = s->end;
	uint64_t dur = s->t1_ns - s->t0_ns;
	if (!b) {
		textout_printf(o, "%6zu%c %8.3f %8.3f %s\n", s->number, selected ? '*' : ' ', sec(s->t0_ns),
			       sec(dur), "(no point closes it: no resource usage)");
		return;
	}
	uint64_t user = b->utime_ns - a->utime_ns, sys = b->stime_ns - a->stime_ns;
	textout_printf(o,
		       "%6zu%c %8.3f %8.3f %8.3f %8.3f %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64
		       " %8" PRIu64 " %8" PRIu64 "  %s%s\n",
		       s->number, selected ? '*' : ' ', sec(s->t0_ns), sec(dur), sec(user), sec(sys),
		       b->minflt - a->minflt, b->majflt - a->majflt, b->inblock - a->inblock,
		       b->oublock - a->oublock, b->nvcsw - a->nvcsw, b->nivcsw - a->nivcsw, label_of(b),
		       s->paused ? " (paused)" : "");
}

int show_overview(struct erp *e, const char *arg)
{
	size_t lo, hi;
	if (show_exp_range(e, "overview", arg, &lo, &hi) < 0)
		return -1;
	FILE *o = e->out;
	for (size_t xi = lo; xi < hi; xi++) {
		const struct experiment *x = profile_experiment(e->prof, xi);
		size_t n = profile_sample_count(e->prof, xi);
		textout_printf(o, "Experiment %zu: %s\n", xi + 1, experiment_path(x));
		textout_printf(o, "  Per-sample data (%zu sample%s; * = selected by sample_select)\n\n", n,
			       n == 1 ? "" : "s");
		if (n == 0) {
			textout_printf(o, "  (no sample points recorded)\n\n");
			continue;
		}
		textout_printf(o, "%7s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s  %s\n", "Sample", "Start",
			       "Duration", "User", "System", "Minor", "Major", "Input", "Output", "Vol.",
			       "Invol.", "End label");
		textout_printf(o, "%7s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s\n", "", "(sec.)", "(sec.)",
			       "CPU (s)", "CPU (s)", "faults", "faults", "blocks", "blocks", "ctx sw.",
			       "ctx sw.");
		for (size_t k = 1; k <= n; k++) {
			struct profile_sample s;
			if (profile_sample_get(e->prof, xi, k, &s) == 0)
				overview_row(o, &s, profile_sample_selected(e->prof, xi, k));
		}
		fputc('\n', o);
	}
	return 0;
}

static void json_sample(struct jsonw *w, struct erp *e, size_t xi, const struct profile_sample *s)
{
	jsonw_object_begin(w);
	jsonw_key_uint(w, "number", s->number);
	jsonw_key(w, "selected");
	jsonw_bool(w, profile_sample_selected(e->prof, xi, s->number));
	jsonw_key(w, "paused");
	jsonw_bool(w, s->paused);
	jsonw_key_uint(w, "start_ns", s->t0_ns);
	jsonw_key_uint(w, "end_ns", s->t1_ns);
	jsonw_key_string(w, "start_label", s->start->label);
	if (s->end) {
		jsonw_key_string(w, "end_label", s->end->label);
		jsonw_key_uint(w, "user_cpu_ns", s->end->utime_ns - s->start->utime_ns);
		jsonw_key_uint(w, "system_cpu_ns", s->end->stime_ns - s->start->stime_ns);
	}
	jsonw_object_end(w);
}

int show_sample_list_json(struct erp *e, const char *arg)
{
	struct jsonw w;
	jsonw_init(&w, e->out, NULL, 0);
	jsonw_object_begin(&w);
	jsonw_key_string(&w, "report", "sample_list");
	jsonw_key(&w, "arg");
	jsonw_string(&w, arg);
	jsonw_key(&w, "experiments");
	jsonw_array_begin(&w);
	int r = 0;
	for (size_t xi = 0; xi < profile_experiment_count(e->prof); xi++) {
		char *sel = selection_of(e->prof, xi);
		if (!sel) {
			r = -1;
			break;
		}
		size_t n = profile_sample_count(e->prof, xi);
		jsonw_object_begin(&w);
		jsonw_key_uint(&w, "exp", xi + 1);
		jsonw_key_string(&w, "selection", sel);
		jsonw_key_uint(&w, "total", n);
		jsonw_key(&w, "samples");
		jsonw_array_begin(&w);
		for (size_t k = 1; k <= n; k++) {
			struct profile_sample s;
			if (profile_sample_get(e->prof, xi, k, &s) == 0)
				json_sample(&w, e, xi, &s);
		}
		jsonw_array_end(&w);
		jsonw_object_end(&w);
		free(sel);
	}
	jsonw_array_end(&w);
	jsonw_object_end(&w);
	jsonw_finish(&w);
	if (r < 0)
		erp_error(e, "sample_list: out of memory");
	return r;
}
