#!/usr/bin/env bash
# Hostile targets (issue #10): 1000 threads alive at once, as in
# hostile_threads.sh, under the default soft descriptor limit of 1024.
# Plain and under collect -p hi: the same output and exit status; er_print
# reads the experiment; before_work and the pool threads' CPU (pool_thread)
# recorded within 15% of what the program measured.
#
# Each thread's perf events are made with descriptors moved above half the
# limit (512 here) and closed at once (collector/sampler.h), so 1000 threads
# waiting at a barrier for their first sample hold none: every thread gets
# perf events, none falls back to a POSIX timer.
set -u
. "$(dirname "$0")/hostile_lib.sh"
if ! ulimit -S -n 1024 2>/dev/null; then
	echo "skipped: cannot set the soft descriptor limit to 1024 (hard limit $(ulimit -H -n))"
	exit 77
fi

plain threads threads 1000 1
collected threads -p hi -- threads 1000 1
same threads
opens threads.er "Target exited with status 0"
near threads.er before_work "$(measured threads.err before_work)" "before the threads"
want=$(measured threads.err pool_thread) got=$(recorded threads.er pool_thread)
if within "$got" "$want"; then
	ok "threads.er: pool_thread recorded $got s of $want s (1000 threads' lives)"
else
	bad "threads.er: pool_thread recorded '${got:-nothing}' s of $want s"
fi
hostile_end
