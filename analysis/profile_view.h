/*
 * profile_view.h - how call stacks are shown (er_print's `viewmode`): a
 * transform of every resolved stack, applied before metrics are charged,
 * so that every report, export, filter and analyzer view follows it.
 *
 *   machine  the recorded frames, as resolved (profile_resolve.c);
 *   user     what each registered runtime (OpenMP, MPI, Java support, or a
 *            test's) makes of them "as if the program had been compiled
 *            without" it: its frames dropped or replaced (an outlined body
 *            by its user function), a sample taken in one of its states
 *            under a pseudo-function leaf (<OMP-idle>), a worker's frames
 *            hung under the stack that opened its region;
 *   expert   the same with the runtime's expert choices (outlined bodies
 *            kept as functions of their own, say).
 * With no runtime registered, or on stacks no runtime claims, all three are
 * the machine view.  The default is user (er_print's default).
 *
 * A runtime is plugged in, like a metric source, before the experiments are
 * added: clock samples that carry one of its contexts (EXP_REC_CLOCK_CTX)
 * are moved, when the experiment is added, onto view copies of their
 * recorded stacks (experiment.h: exp_callstack.ctx), one per recorded stack
 * and context key, so the transform may tell them apart.  Not thread-safe.
 */
#ifndef ANALYSIS_PROFILE_VIEW_H
#define ANALYSIS_PROFILE_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/profile.h"
#include "experiment/record.h"

enum profile_viewmode { PROFILE_VIEW_USER, PROFILE_VIEW_EXPERT, PROFILE_VIEW_MACHINE };

/* Show stacks in mode m from the next profile_compute on (every resolved stack is redone). */
void profile_set_viewmode(struct profile *p, enum profile_viewmode m);
enum profile_viewmode profile_viewmode(const struct profile *p);

/*
 * The pseudo-function named `name` ("<OMP-idle>"; no object, no code, like
 * <Unknown> and <Collector-overhead>): its id, made on first use.  0 or
 * -ENOMEM.
 */
int profile_pseudo_func(struct profile *p, const char *name, uint32_t *ret);

/* What a mode shows of one frame. */
enum profile_frame_view {
	PROFILE_FRAME_KEEP,    /* the frame as resolved */
	PROFILE_FRAME_DROP,    /* not shown (a runtime's own frame) */
	PROFILE_FRAME_REPLACE, /* shown as another function (*ret) */
};

struct profile_runtime {
	const char *name;
	uint32_t runtime; /* enum exp_runtime of the contexts it reads; EXP_RUNTIME_NONE: frames only */
	/*
	 * What mode m (user or expert) shows of a frame of function f (never a
	 * pseudo-function): keep, drop or replace by *ret.  NULL: keep all.
	 */
	enum profile_frame_view (*frame)(void *arg, struct profile *p, enum profile_viewmode m, uint32_t f,
					 uint32_t *ret);
	/*
	 * The key of context c of experiment x: samples whose contexts have the
	 * same key on the same recorded stack are shown alike in every mode
	 * (they share a view copy).  1 with *ret, or 0: shown as the recorded
	 * stack (no copy).  NULL: every context is its own key.
	 */
	int (*key)(void *arg, const struct experiment *x, const struct exp_sample_ctx *c, uint64_t *ret);
	/*
	 * How mode m shows a sample of context c of experiment x: the
	 * pseudo-function (profile_pseudo_func) that becomes its leaf
	 * (*ret_leaf, UINT32_MAX: none), and the stack of x its frames hang
	 * under (*ret_parent: a recorded stack, UINT32_MAX: none), which
	 * replaces the frames from the outermost one the mode drops outward.
	 * 0 or a negative errno.  NULL: none of either.
	 */
	int (*context)(void *arg, struct profile *p, size_t x, enum profile_viewmode m,
		       const struct exp_sample_ctx *c, uint32_t *ret_leaf, uint32_t *ret_parent);
	void *arg;
};

/*
 * Plug in runtime rt (copied; its name and arg must stay valid as long as
 * the profile), for the experiments added after.  0; -EEXIST if one reads
 * the same runtime's contexts already; -EINVAL without a name; -ENOMEM.
 */
int profile_runtime_register(struct profile *p, const struct profile_runtime *rt);

#endif
