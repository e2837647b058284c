#!/usr/bin/env bash
# Hostile targets (issue #10): 1000 threads alive at once (they wait on one
# barrier, then each runs thread_work for about 2 ms of CPU, allocating and
# freeing a block), after before_work in main.  Plain and under collect -p hi
# -H on: the same output and exit status; er_print reads the experiment and
# lists 1000 pool threads and the main thread; before_work, and the CPU of
# the pool threads' whole lives (pool_thread, their start routine) recorded
# within 15% of what the program measured; no thread slot, block or heap
# record lost.  Run with a soft descriptor limit of 4096, which leaves the
# collector room for a perf descriptor per thread above 2048 (see
# hostile_threads_1024.sh for the default limit of 1024).
set -u
. "$(dirname "$0")/hostile_lib.sh"
if ! ulimit -S -n 4096 2>/dev/null; then
	echo "skipped: cannot set the soft descriptor limit to 4096 (hard limit $(ulimit -H -n))"
	exit 77
fi

plain threads threads 1000 1
collected threads -p hi -H on -- threads 1000 1
same threads
grep -q '^threads: 1000 at once$' threads.out && ok "threads: 1000 threads at once" || bad "threads: $(head -1 threads.out)"
opens threads.er "Target exited with status 0"
near threads.er before_work "$(measured threads.err before_work)" "before the threads"
near threads.er pool_thread "$(measured threads.err pool_thread)" "1000 threads' lives"
"$PA_BIN/er_print" -thread_list threads.er >tl 2>&1
n=$(awk '$NF == "pool_thread"' tl | wc -l) m=$(grep -c ' main thread$' tl)
((n == 1000 && m == 1)) && ok "threads.er: thread_list has 1000 pool threads and the main thread" ||
	bad "threads.er: thread_list has $n pool threads, $m main threads"
grep -Eq '<collector_end [^>]*thread_slot_failures="0" block_failures="0" heap_records="[0-9]+" heap_dropped="0"' threads.er/log.xml &&
	ok "threads.er: no thread slot, block or heap record lost" || bad "threads.er: $(grep '<collector_end' threads.er/log.xml)"
hostile_end
