/*
 * select.c - er_print's filter and CPU commands over the library's
 * selection (profile.h, filter.h): `filters` (the Oracle expression
 * language), `describe` (the properties it knows), `cpu_select` and
 * `cpu_list` (gprofng's Exp/Sel/Total table, then each experiment's CPUs).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/experiment.h"
#include "analysis/filter.h"
#include "analysis/profile.h"
#include "common/strbuf.h"
#include "er_print/erp.h"
#include "er_print/textout.h"

int cmd_filters(struct erp *e, const char *arg)
{
	if (arg) {
		char *err = NULL;
		int r = profile_set_filter(e->prof, arg, &err);
		if (r < 0) {
			erp_error(e, "filters: %s in '%s'", err ? err : "out of memory", arg);
			free(err);
			return -1;
		}
	}
	const char *f = profile_filter(e->prof);
	textout_printf(e->out, "current filter setting: \"%s\"\n", f ? f : "1");
	return 0;
}

int cmd_describe(struct erp *e, const char *arg)
{
	(void)arg;
	textout_printf(e->out, "Properties usable in filters (filters EXPR):\n");
	for (int i = 0; i < FILTER_NPROPS; i++)
		textout_printf(e->out, "  %-7s %s\n", filter_property_name((enum filter_prop)i),
			       filter_property_help((enum filter_prop)i));
	textout_printf(
		e->out,
		"  (CPUID is another name of CPU)\n"
		"Operators: == != < <= > >=, x IN (a,b,lo:hi), && || ! and parentheses.\n"
		"Numbers: decimal or 0x hex; ns, us, ms or s after a number scales it to ns (0.25s).\n");
	return 0;
}

int cmd_cpu_select(struct erp *e, const char *arg)
{
	char *err = NULL;
	if (profile_select_cpus(e->prof, arg, &err) < 0) {
		erp_error(e, "cpu_select: %s", err ? err : "out of memory");
		free(err);
		return -1;
	}
	return 0;
}

/* Experiment xi's selected CPUs among cpus[0..n) as "all", "none" or "0,2-3" (malloc'd; NULL: no memory). */
static char *cpu_selection_of(const struct profile *p, size_t xi, const uint32_t *cpus, size_t n)
{
	size_t nsel = 0;
	for (size_t i = 0; i < n; i++)
		nsel += profile_cpu_selected(p, xi, cpus[i]) != 0;
	if (nsel == n)
		return strdup((n || strcmp(profile_cpu_selection(p), "all") == 0) ? "all" : "none");
	if (nsel == 0)
		return strdup("none");
	struct strbuf b;
	strbuf_init(&b, 0);
	for (size_t i = 0; i < n;) {
		if (!profile_cpu_selected(p, xi, cpus[i])) {
			i++;
			continue;
		}
		size_t j = i; /* a run of consecutive selected CPU numbers */
		while (j + 1 < n && cpus[j + 1] == cpus[j] + 1 && profile_cpu_selected(p, xi, cpus[j + 1]))
			j++;
		strbuf_addf(&b, "%s%" PRIu32, b.len ? "," : "", cpus[i]);
		if (j > i)
			strbuf_addf(&b, "-%" PRIu32, cpus[j]);
		i = j + 1;
	}
	return strbuf_detach(&b);
}

struct cpu_rows {
	uint32_t *cpus;
	uint64_t *counts;
	ssize_t n;
};

static void cpu_table(struct erp *e, size_t xi, const struct cpu_rows *c)
{
	FILE *o = e->out;
	textout_printf(o, "\nExperiment %zu: %s\n", xi + 1, experiment_path(profile_experiment(e->prof, xi)));
	if (c->n <= 0) {
		textout_printf(o, "(no CPU recorded: CPUs come with clock profiling)\n");
		return;
	}
	textout_printf(o, "%6s %3s %8s\n", "CPU", "Sel", "Samples");
	for (ssize_t i = 0; i < c->n; i++)
		textout_printf(o, "%6" PRIu32 " %3s %8" PRIu64 "\n", c->cpus[i],
			       profile_cpu_selected(e->prof, xi, c->cpus[i]) ? "*" : "", c->counts[i]);
}

int show_cpu_list(struct erp *e, const char *arg)
{
	(void)arg;
	size_t n = profile_experiment_count(e->prof);
	struct cpu_rows *rows = calloc(n ? n : 1, sizeof *rows);
	char **sel = calloc(n ? n : 1, sizeof *sel);
	size_t *totals = calloc(n ? n : 1, sizeof *totals);
	int r = rows && sel && totals ? 0 : -1;
	for (size_t i = 0; r == 0 && i < n; i++) {
		rows[i].n = profile_cpus_seen(e->prof, i, &rows[i].cpus, &rows[i].counts);
		sel[i] = rows[i].n < 0 ? NULL : cpu_selection_of(e->prof, i, rows[i].cpus, (size_t)rows[i].n);
		if (!sel[i])
			r = -1;
		totals[i] = rows[i].n > 0 ? (size_t)rows[i].n : 0;
	}
	if (r == 0) {
		show_selection_table(e->out, n, (const char *const *)sel, totals);
		for (size_t i = 0; i < n; i++)
			cpu_table(e, i, &rows[i]);
	} else {
		erp_error(e, "cpu_list: out of memory");
	}
	for (size_t i = 0; rows && sel && i < n; i++) {
		free(rows[i].cpus);
		free(rows[i].counts);
		free(sel[i]);
	}
	free(rows);
	free(sel);
	free(totals);
	return r;
}
