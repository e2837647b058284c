/*
 * test_viewmode - viewmode as a stack transform inside libanalysis, with a
 * synthetic runtime plugged in from this file (profile_view.h): its frames
 * are this program's synthrt_* functions, its contexts EXP_RUNTIME_PRIVATE
 * clock samples (mkexp's xsample: CLOCK_CTX records), state 1 a wait shown
 * as the pseudo-function <SYNTH-wait>, a region's id the stack id of the
 * stack that opened it.  The experiment (mkexp over this program's symbols):
 *
 *   thread 1   4 ms  synthrt_fork < user_work < user_main < main       (the opener, line 0)
 *   thread 2  20 ms  synthrt_outlined_user_work < synthrt_thread_start < thread_base
 *                    (state 0, region: line 0's stack)
 *   thread 2   5 ms  synthrt_barrier < synthrt_thread_start < thread_base  (state 1, same region)
 *
 * user:    the runtime's frames go, the outlined body is user_work, the
 *          worker's frames hang under the opener's stack, the wait is
 *          <SYNTH-wait>: user_main has all 29 ms, user_work 24 ms of its own;
 * expert:  the same with the outlined body kept as a function of its own;
 * machine: the recorded frames, as with no runtime plugged in.
 * Every model follows: the function list, the call stacks the exporters
 * walk, a thread selection, and er_print's session (viewmode, functions).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/metrics.h"
#include "analysis/profile.h"
#include "analysis/profile_view.h"
#include "experiment/format.h"
#include "tests/unit/check.h"
#include "tests/unit/erp_output.h"
#include "tests/unit/fixture.h"

#define MS 1000000ull
#define NOINLINE __attribute__((noinline, used))

/* The frames of the experiment: functions of this program (mkexp finds them in its symbols). */
NOINLINE void user_main(void);
NOINLINE void user_work(void);
NOINLINE void synthrt_fork(void);
NOINLINE void synthrt_outlined_user_work(void);
NOINLINE void synthrt_barrier(void);
NOINLINE void synthrt_thread_start(void);
NOINLINE void thread_base(void);
static volatile int sink;
NOINLINE void user_main(void)
{
	sink += 1;
}
NOINLINE void user_work(void)
{
	sink += 2;
}
NOINLINE void synthrt_fork(void)
{
	sink += 3;
}
NOINLINE void synthrt_outlined_user_work(void)
{
	sink += 4;
}
NOINLINE void synthrt_barrier(void)
{
	sink += 5;
}
NOINLINE void synthrt_thread_start(void)
{
	sink += 6;
}
NOINLINE void thread_base(void)
{
	sink += 7;
}

static const char script[] =
	"object %s\n"
	"thread 1\n"
	"thread 2 1\n"
	"sample 1 4 1000000 synthrt_fork+4 user_work+4 user_main+4 main+4\n"
	"xsample 2 20 1000000 128 0 0 @0 0 synthrt_outlined_user_work+4 synthrt_thread_start+4 thread_base+4\n"
	"xsample 2 5 1000000 128 1 0 @0 0 synthrt_barrier+4 synthrt_thread_start+4 thread_base+4\n";

/* ---------------------------------------------------------------- the synthetic runtime */

static uint32_t func_named(const struct profile *p, const char *name)
{
	for (size_t f = 0; f < profile_func_count(p); f++)
		if (strcmp(profile_func(p, (uint32_t)f)->name, name) == 0)
			return (uint32_t)f;
	return UINT32_MAX;
}

static enum profile_frame_view synth_frame(void *arg, struct profile *p, enum profile_viewmode m, uint32_t f,
					   uint32_t *ret)
{
	(void)arg;
	const char *name = profile_func(p, f)->name;
	if (strncmp(name, "synthrt_", 8) != 0)
		return PROFILE_FRAME_KEEP;
	if (strncmp(name, "synthrt_outlined_", 17) != 0)
		return PROFILE_FRAME_DROP;
	if (m == PROFILE_VIEW_EXPERT)
		return PROFILE_FRAME_KEEP; /* expert: the outlined body as itself */
	*ret = func_named(p, name + 17);
	return *ret == UINT32_MAX ? PROFILE_FRAME_KEEP : PROFILE_FRAME_REPLACE;
}

static int synth_key(void *arg, const struct experiment *x, const struct exp_sample_ctx *c, uint64_t *ret)
{
	(void)arg, (void)x;
	*ret = c->region * 16 + c->state; /* the region instance does not change the frames */
	return 1;
}

static int synth_context(void *arg, struct profile *p, size_t x, enum profile_viewmode m,
			 const struct exp_sample_ctx *c, uint32_t *ret_leaf, uint32_t *ret_parent)
{
	(void)arg, (void)m;
	if (c->state == 1 && profile_pseudo_func(p, "<SYNTH-wait>", ret_leaf) < 0)
		return -ENOMEM;
	size_t ns;
	const struct exp_callstack *s = experiment_stacks(profile_experiment(p, x), &ns);
	for (size_t i = 0; i < ns; i++)
		if (s[i].id == c->region && !s[i].ctx)
			*ret_parent = (uint32_t)i;
	return 0;
}

static const struct profile_runtime synth = {
	.name = "synthetic",
	.runtime = EXP_RUNTIME_PRIVATE,
	.frame = synth_frame,
	.key = synth_key,
	.context = synth_context,
};

/* ---------------------------------------------------------------- checks */

/* Function name's exclusive (incl 0) or inclusive CPU in ms; 0 when it has no data or is unknown. */
static uint64_t cpu_ms(struct profile *p, const char *name, int incl)
{
	uint32_t f = func_named(p, name);
	if (f == UINT32_MAX)
		return 0;
	const struct metrics *m = profile_metrics(p);
	const uint64_t *v = incl ? metrics_inclusive(m, f) : metrics_exclusive(m, f);
	return v ? v[PROFILE_METRIC_TOTALCPU] / MS : 0;
}

struct walk {
	struct profile *p;
	int runtime_frames; /* frames of synthrt_* functions seen */
	uint64_t total_ns;
};

static int walk_stack(const struct profile_stack *s, void *arg)
{
	struct walk *w = arg;
	for (size_t i = 0; i < s->nframes; i++)
		w->runtime_frames += strncmp(profile_func(w->p, s->frames[i])->name, "synthrt_", 8) == 0;
	w->total_ns += s->metrics[PROFILE_METRIC_TOTALCPU];
	return 0;
}

static void check_user(struct profile *p)
{
	CHECK(profile_compute(p) == 0);
	CHECK_EQ_U64(cpu_ms(p, "user_main", 1), 29);
	CHECK_EQ_U64(cpu_ms(p, "main", 1), 29);
	CHECK_EQ_U64(cpu_ms(p, "user_work", 0), 24);
	CHECK_EQ_U64(cpu_ms(p, "user_work", 1), 29);
	CHECK_EQ_U64(cpu_ms(p, "<SYNTH-wait>", 0), 5);
	CHECK_EQ_U64(cpu_ms(p, "synthrt_outlined_user_work", 1), 0);
	CHECK_EQ_U64(cpu_ms(p, "synthrt_fork", 1), 0);
	CHECK_EQ_U64(cpu_ms(p, "synthrt_thread_start", 1), 0);
	CHECK_EQ_U64(cpu_ms(p, "thread_base", 1), 0);
	struct walk w = {.p = p};
	CHECK(profile_foreach_stack(p, NULL, walk_stack, &w) == 0);
	CHECK_EQ_U64(w.runtime_frames, 0);
	CHECK_EQ_U64(w.total_ns / MS, 29);
}

static void check_expert(struct profile *p)
{
	CHECK(profile_compute(p) == 0);
	CHECK_EQ_U64(cpu_ms(p, "user_main", 1), 29);
	CHECK_EQ_U64(cpu_ms(p, "synthrt_outlined_user_work", 0), 20);
	CHECK_EQ_U64(cpu_ms(p, "user_work", 0), 4);
	CHECK_EQ_U64(cpu_ms(p, "<SYNTH-wait>", 0), 5);
	CHECK_EQ_U64(cpu_ms(p, "synthrt_fork", 1), 0);
	CHECK_EQ_U64(cpu_ms(p, "thread_base", 1), 0);
}

static void check_machine(struct profile *p)
{
	CHECK(profile_compute(p) == 0);
	CHECK_EQ_U64(cpu_ms(p, "user_main", 1), 4);
	CHECK_EQ_U64(cpu_ms(p, "synthrt_fork", 0), 4);
	CHECK_EQ_U64(cpu_ms(p, "synthrt_outlined_user_work", 0), 20);
	CHECK_EQ_U64(cpu_ms(p, "synthrt_barrier", 0), 5);
	CHECK_EQ_U64(cpu_ms(p, "thread_base", 1), 25);
	CHECK_EQ_U64(cpu_ms(p, "<SYNTH-wait>", 0), 0);
}

/* er_print's viewmode sets the library's: machine lists the runtime's frames, user its state instead. */
static void check_er_print(struct profile *p)
{
	static const char *const machine[] = {"viewmode machine", "functions"};
	char *t = erp_output(p, machine, 2);
	CHECK(t && strstr(t, "synthrt_outlined_user_work") && !strstr(t, "<SYNTH-wait>"));
	static const char *const user[] = {"viewmode user", "functions"};
	char *u = erp_output(p, user, 2);
	CHECK(u && strstr(u, "Viewmode set to user") && strstr(u, "<SYNTH-wait>") && !strstr(u, "synthrt_"));
	if (!(u && !strstr(u, "synthrt_")))
		fprintf(stderr, "er_print printed: %s\n", u ? u : "(nothing)");
	free(t);
	free(u);
}

int main(void)
{
	char dir[] = "/tmp/pa-unit-viewmode.XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char self[4096], text[4400 + sizeof script], epath[4200];
	ssize_t sn = readlink("/proc/self/exe", self, sizeof self - 1);
	CHECK(sn > 0);
	self[sn > 0 ? sn : 0] = '\0';
	snprintf(text, sizeof text, script, self);
	if (make_exp(dir, "v", text) < 0)
		return check_done();
	snprintf(epath, sizeof epath, "%s/v.er", dir);

	/* no runtime plugged in: every mode is the machine's */
	struct profile *p;
	char *err = NULL;
	CHECK(profile_new(&p) == 0);
	CHECK(profile_add_experiment(p, epath, &err) == 0);
	free(err);
	CHECK(profile_viewmode(p) == PROFILE_VIEW_USER);
	check_machine(p);
	profile_free(p);

	/* the synthetic runtime */
	CHECK(profile_new(&p) == 0);
	CHECK(profile_runtime_register(p, &synth) == 0);
	CHECK(profile_runtime_register(p, &synth) == -EEXIST);
	err = NULL;
	CHECK(profile_add_experiment(p, epath, &err) == 0);
	free(err);
	check_user(p);
	profile_set_viewmode(p, PROFILE_VIEW_EXPERT);
	check_expert(p);
	profile_set_viewmode(p, PROFILE_VIEW_MACHINE);
	check_machine(p);
	profile_set_viewmode(p, PROFILE_VIEW_USER);
	check_user(p);

	/* a thread selection follows the view: the worker's 25 ms hang under user_main */
	CHECK(profile_select_threads(p, "2", &err) == 0);
	free(err);
	CHECK(profile_compute(p) == 0);
	CHECK_EQ_U64(cpu_ms(p, "user_main", 1), 25);
	CHECK_EQ_U64(cpu_ms(p, "user_work", 0), 20);
	CHECK(profile_select_threads(p, "all", &err) == 0);
	free(err);

	check_er_print(p);
	profile_free(p);
	CHECK(sh("rm -rf '%s'", dir) == 0);
	return check_done();
}
