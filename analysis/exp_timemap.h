/*
 * exp_timemap.h - time-aware load maps (internal to libanalysis).
 *
 * map.xml records when each object was loaded and unloaded.  When a library
 * is unloaded and another is later loaded over the same addresses, a PC alone
 * does not say which of them ran: the event's time does.  exp_timemap_apply
 * finds the address ranges that more than one object covered during the run
 * and, for every event (clock sample or heap call) whose stack has a frame
 * there, pins each such frame to the object in force at the event's time,
 * through exp_callstack.objs; a stack used at times when different objects
 * were mapped is copied (same id, other objs), so every later consumer that
 * resolves a stack by index gets the right object without knowing times.
 *
 * Costs nothing when no two objects ever overlapped (the usual case).
 */
#ifndef ANALYSIS_EXP_TIMEMAP_H
#define ANALYSIS_EXP_TIMEMAP_H

#include "analysis/experiment.h"

/* Pin the frames of exp's stacks to objects by event time.  0, or -ENOMEM (then free exp: it may be half done). */
int exp_timemap_apply(struct experiment *exp);

#endif
