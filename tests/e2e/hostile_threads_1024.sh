#!/usr/bin/env bash
# Hostile targets (issue #10): 1000 threads alive at once, as in
# hostile_threads.sh, under the default soft descriptor limit of 1024.
# Plain and under collect -p hi: the same output and exit status; er_print
# reads the experiment; before_work and the pool threads' CPU (pool_thread)
# recorded within 15% of what the program measured.
#
# KNOWN BUG thread-fd-fallback (collector/sampler.c, not fixed here): each
# thread's perf descriptor is moved to a number >= RLIMIT_NOFILE/2 (512 here)
# and kept until the thread's first sample; with more threads waiting for
# their first sample than numbers free there (1000 threads at a barrier, or
# any threads shorter than an interval), F_DUPFD_CLOEXEC fails with EMFILE
# and sampler_start silently falls back to a POSIX CPU timer, which
# the kernel checks only at its tick: about 400 of the 1000 threads get one,
# and the pool's CPU is under-recorded by about a third, while log.xml says
# mechanism="perf_task_clock" and warns of nothing.
set -u
. "$(dirname "$0")/hostile_lib.sh"
if ! ulimit -S -n 1024 2>/dev/null; then
	echo "skipped: cannot set the soft descriptor limit to 1024 (hard limit $(ulimit -H -n))"
	exit 77
fi
bug thread-fd-fallback "collector/sampler.c falls back to POSIX timers when it runs out of high descriptors, silently"

plain threads threads 1000 1
collected threads -p hi -- threads 1000 1
same threads
opens threads.er "Target exited with status 0"
near threads.er before_work "$(measured threads.err before_work)" "before the threads"
want=$(measured threads.err pool_thread) got=$(recorded threads.er pool_thread)
if within "$got" "$want"; then
	ok "threads.er: pool_thread recorded $got s of $want s (1000 threads' lives)"
elif awk -v g="${got:-0}" -v w="$want" 'BEGIN { exit !(g < w) }' && ! grep -q '<warning' threads.er/log.xml; then
	known_bug thread-fd-fallback "pool_thread recorded ${got:-nothing} s of $want s, and log.xml has no warning"
else
	bad "threads.er: pool_thread recorded '${got:-nothing}' s of $want s"
fi
hostile_end
