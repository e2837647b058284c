/*
 * show_heap.c - the heap tracing reports: leaks and allocs (one block per
 * call stack, gprofng's layout), heap (allocations and leaks per stack) and
 * heapstat (peak, size histograms, temporary allocations, who holds memory
 * at the peak).  The numbers come from analysis/profile_heap (semantics
 * there); stacks are listed leaf first as "name + 0xOFFSET[, line N in "f"]".
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/experiment.h"
#include "analysis/profile_heap.h"
#include "analysis/report_heap.h"
#include "er_print/erp.h"
#include "er_print/show.h"
#include "er_print/textout.h"

void erp_print_frames(struct erp *e, size_t x, uint32_t s)
{
	const uint32_t *pcs;
	int n = profile_stack_pcs(e->prof, x, s, &pcs);
	if (n <= 0) {
		textout_printf(e->out, "  <Unknown>\n");
		return;
	}
	for (int i = 0; i < n; i++) {
		const struct ppc *pc = profile_pc(e->prof, pcs[i]);
		const struct pfunc *f = profile_func(e->prof, pc->func);
		char name[4096];
		erp_func_name(e, f, name, sizeof name);
		uint64_t off = f->obj == pc->obj && pc->vaddr >= f->addr ? pc->vaddr - f->addr : pc->vaddr;
		textout_printf(e->out, "  %s + 0x%08" PRIX64, name, off);
		const struct pline *l = profile_line(e->prof, pc->line);
		if (l && l->file && l->line) {
			const char *base = strrchr(l->file, '/');
			textout_printf(e->out, ", line %u in \"%s\"", l->line, base ? base + 1 : l->file);
		}
		fputc('\n', e->out);
	}
}

int show_heap_prepare(struct erp *e)
{
	if (show_prepare(e) < 0)
		return -1;
	if (!profile_has_heap(e->prof)) {
		erp_error(e, "no heap tracing data in the experiments (record with collect -H on)");
		return -1;
	}
	return 0;
}

static size_t shown(const struct erp *e, size_t n)
{
	return e->limit > 0 && (size_t)e->limit < n ? (size_t)e->limit : n;
}

/* leaks / allocs: Summary Results, then one block per stack by bytes. */
ssize_t show_heap_stacks(struct erp *e, enum report_heap_key key, struct report_heap_item **ret)
{
	if (show_heap_prepare(e) < 0)
		return -1;
	ssize_t got = report_heap_items(e->prof, key, 0, ret);
	if (got < 0)
		erp_error(e, "out of memory");
	return got < 0 ? -1 : got;
}

static int show_stack_blocks(struct erp *e, enum report_heap_key key)
{
	struct report_heap_item *v;
	ssize_t got = show_heap_stacks(e, key, &v);
	if (got < 0)
		return -1;
	size_t n = (size_t)got;
	const struct heap_summary *h = profile_heap_summary(e->prof);
	int leaks = key == REPORT_HEAP_LEAK;
	if (n == 0) {
		textout_printf(e->out, leaks ? "No leak information\n\n" : "No allocation information\n\n");
		free(v);
		return 0;
	}
	textout_printf(e->out,
		       "Summary Results: Distinct %s = %zu, Total Instances = %" PRIu64
		       ", Total Bytes %s = %" PRIu64 "\n\n",
		       leaks ? "Leaks" : "Allocations", n, leaks ? h->leak_count : h->alloc_count,
		       leaks ? "Leaked" : "Allocated", leaks ? h->leak_bytes : h->alloc_bytes);
	for (size_t i = 0; i < shown(e, n); i++) {
		textout_printf(e->out, "%s #%zu, Instances = %" PRIu64 ", Bytes %s = %" PRIu64 "\n",
			       leaks ? "Leak" : "Allocation", i + 1, v[i].count,
			       leaks ? "Leaked" : "Allocated", v[i].bytes);
		erp_print_frames(e, v[i].exp, v[i].stack);
		fputc('\n', e->out);
	}
	free(v);
	return 0;
}

int show_leaks(struct erp *e, const char *arg)
{
	(void)arg;
	return show_stack_blocks(e, REPORT_HEAP_LEAK);
}

int show_allocs(struct erp *e, const char *arg)
{
	(void)arg;
	return show_stack_blocks(e, REPORT_HEAP_ALLOC);
}

static void print_counts(struct erp *e, uint64_t ac, uint64_t ab, uint64_t lc, uint64_t lb)
{
	if (ac)
		textout_printf(e->out, "Instances = %" PRIu64 "  Bytes Allocated = %" PRIu64 "\n", ac, ab);
	if (lc)
		textout_printf(e->out, "Instances = %" PRIu64 "  Bytes Leaked = %" PRIu64 "\n", lc, lb);
}

/* heap: <Total>, then every stack that allocated (by bytes allocated), gprofng's layout. */
int show_heap(struct erp *e, const char *arg)
{
	(void)arg;
	if (show_heap_prepare(e) < 0)
		return -1;
	struct report_heap_item *v;
	ssize_t got = report_heap_items(e->prof, REPORT_HEAP_ALLOC, 1, &v);
	if (got < 0) {
		erp_error(e, "out of memory");
		return -1;
	}
	size_t n = (size_t)got;
	const struct heap_summary *h = profile_heap_summary(e->prof);
	textout_printf(e->out, "<Total>\n");
	print_counts(e, h->alloc_count, h->alloc_bytes, h->leak_count, h->leak_bytes);
	for (size_t i = 0; i < shown(e, n); i++) {
		const struct experiment *exp = profile_experiment(e->prof, v[i].exp);
		textout_printf(e->out, "\nStack 0x%016" PRIx64 "\n", experiment_stack(exp, v[i].stack)->id);
		print_counts(e, v[i].st->alloc_count, v[i].st->alloc_bytes, v[i].st->leak_count,
			     v[i].st->leak_bytes);
		erp_print_frames(e, v[i].exp, v[i].stack);
	}
	fputc('\n', e->out);
	free(v);
	return 0;
}

static void print_classes(struct erp *e, const uint64_t *classes)
{
	for (size_t c = 0; c < HEAP_SIZE_CLASSES; c++)
		if (classes[c]) {
			char label[64];
			snprintf(label, sizeof label, "  %s", heap_size_class_label(c));
			textout_printf(e->out, "%-34s%" PRIu64 "\n", label, classes[c]);
		}
}

/* The top stacks under key (at most `limit`, default 10). */
static int print_top(struct erp *e, enum report_heap_key key, const char *what, const char *count_word)
{
	struct report_heap_item *v;
	ssize_t got = report_heap_items(e->prof, key, 0, &v);
	if (got < 0)
		return -1;
	size_t n = (size_t)got;
	size_t top = e->limit > 0 ? shown(e, n) : (n < 10 ? n : 10);
	for (size_t i = 0; i < top; i++) {
		textout_printf(e->out, "\n%s #%zu, %s = %" PRIu64 ", Bytes = %" PRIu64 "\n", what, i + 1,
			       count_word, v[i].count, v[i].bytes);
		erp_print_frames(e, v[i].exp, v[i].stack);
	}
	free(v);
	return 0;
}

int show_heapstat(struct erp *e, const char *arg)
{
	(void)arg;
	if (show_heap_prepare(e) < 0)
		return -1;
	const struct heap_summary *h = profile_heap_summary(e->prof);
	FILE *o = e->out;
	if (h->peak_bytes > 0) {
		textout_printf(o, "\nProcess With Highest Peak Memory Usage\n");
		textout_printf(o, "-------------------------------------------------------\n");
		textout_printf(o, "Heap size bytes                   %" PRIu64 "\n", h->peak_bytes);
		textout_printf(o, "Experiment Id                     %zu\n", h->peak_exp + 1);
		textout_printf(o, "Process Id                        %u\n", h->peak_pid);
		textout_printf(o, "Time of peak                      %.3f (secs.)\n",
			       (double)h->peak_ns / 1e9);
	}
	if (h->alloc_count > 0) {
		textout_printf(o, "\nMemory Allocations Statistics\n");
		textout_printf(o, "Allocation Size Range             Allocations          \n");
		textout_printf(o, "-------------------------------------------------------\n");
		print_classes(e, h->alloc_classes);
		textout_printf(o, "\nSmallest allocation bytes         %" PRIu64 "\n", h->alloc_min_bytes);
		textout_printf(o, "Largest allocation bytes          %" PRIu64 "\n", h->alloc_max_bytes);
		textout_printf(o, "Total allocations                 %" PRIu64 "\n", h->alloc_count);
		textout_printf(o, "Total bytes                       %" PRIu64 "\n", h->alloc_bytes);
	}
	if (h->leak_count > 0) {
		textout_printf(o, "\nMemory Leaks Statistics\n");
		textout_printf(o, "Leak Size Range                   Leaks              \n");
		textout_printf(o, "-------------------------------------------------------\n");
		print_classes(e, h->leak_classes);
		textout_printf(o, "\nSmallest leaked bytes             %" PRIu64 "\n", h->leak_min_bytes);
		textout_printf(o, "Largest leaked bytes              %" PRIu64 "\n", h->leak_max_bytes);
		textout_printf(o, "Total leaked                      %" PRIu64 " \n", h->leak_count);
		textout_printf(o, "Total bytes                       %" PRIu64 "\n", h->leak_bytes);
	}
	/* beyond gprofng: heaptrack's temporary allocations, frees, the peak's holders */
	if (h->alloc_count > 0) {
		textout_printf(o, "\nTemporary Allocations (freed before the thread's next allocation)\n");
		textout_printf(o, "-------------------------------------------------------\n");
		textout_printf(o, "Temporary allocations             %" PRIu64 "\n", h->temp_count);
		textout_printf(o, "Temporary bytes                   %" PRIu64 "\n", h->temp_bytes);
		textout_printf(o, "Share of allocations              %.2f%%\n",
			       100.0 * (double)h->temp_count / (double)h->alloc_count);
		if (print_top(e, REPORT_HEAP_TEMP, "Temporary", "Instances") < 0)
			goto nomem;
	}
	textout_printf(o, "\nOther Heap Calls\n");
	textout_printf(o, "-------------------------------------------------------\n");
	textout_printf(o, "Frees of live blocks              %" PRIu64 "\n", h->free_count);
	textout_printf(o, "Frees of unknown addresses        %" PRIu64 "\n", h->unknown_free_count);
	textout_printf(o, "Allocations over a live block     %" PRIu64 "\n", h->reused_count);
	textout_printf(o, "Failed allocations                %" PRIu64 "\n", h->failed_count);
	if (h->peak_bytes > 0) {
		textout_printf(o, "\nMemory Held At The Peak (by stack)\n");
		textout_printf(o, "-------------------------------------------------------");
		if (print_top(e, REPORT_HEAP_PEAK, "Peak", "Blocks") < 0)
			goto nomem;
		fputc('\n', o);
	}
	fputc('\n', o);
	return 0;
nomem:
	erp_error(e, "out of memory");
	return -1;
}
