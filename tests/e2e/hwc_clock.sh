#!/usr/bin/env bash
# collect -p on -h task-clock on tests/fixtures/hwc_counts.c spin 1.5 (a
# CPU-bound function): clock profiling and the task-clock counter run
# together, both exact in the one run: each total is within 2% of the
# process's CPU time (log.xml's rusage) and of the other, and each puts
# at least 98% of it in spin_cpu.  The task-clock metric is time
# (nanoseconds) and the default list shows it after the CPU columns.
set -u
. "$(dirname "$0")/hwc_lib.sh" hwc_clock

"$collect" -p on -h task-clock -o t.er ./hwc_counts spin 1.5 >out.txt 2>err.txt && rc=0 || rc=$?
check "spin: exits 0 ($rc; $(head -c 300 err.txt))" test "$rc" = 0
figures t.er "i.totalcpu:i.task-clock:name" >f.txt
clock=$(fig f.txt '<Total>' 2) counter=$(fig f.txt '<Total>' 3)
cpu=$(python3 -c '
import re, sys
t = open("t.er/log.xml").read()
m = re.search(r"<rusage utime_ns=\"(\d+)\" stime_ns=\"(\d+)\"", t)
print(int(m.group(1)) + int(m.group(2)))')
note "process CPU $cpu ns; clock profiling $clock ns; task-clock $counter ns"
check "spin: clock total within 2% of the CPU time" within 2 "$clock" "$cpu"
check "spin: task-clock total within 2% of the CPU time" within 2 "$counter" "$cpu"
check "spin: task-clock total within 2% of the clock total" within 2 "$counter" "$clock"
check "spin: spin_cpu has 98% of the clock" within 2 "$(fig f.txt spin_cpu 2)" "$clock"
check "spin: spin_cpu has 98% of task-clock" within 2 "$(fig f.txt spin_cpu 3)" "$counter"
check "spin: log.xml says clock profiling by perf and the counter" \
	grep -q '<collector_start [^>]*clock_interval_us="10007" [^>]*hwc="on" hwc_counters="1"' t.er/log.xml
check "spin: task-clock is in nanoseconds" grep -q '<hwcounter [^>]*name="task-clock" [^>]*unit="nanoseconds"' t.er/log.xml
"$erprint" -functions t.er >fn.txt 2>&1
check "spin: with clock data, sorted by CPU time" grep -q '^Functions sorted by metric: Exclusive Total CPU Time$' fn.txt
check "spin: task-clock named after the CPU columns" grep -Eq '^CPU +CPU +task-clock +task-clock$' fn.txt
check "spin: task-clock shown as time" grep -Eq '^ sec\. +% +sec\. +% +sec\. +sec\.$' fn.txt
echo "# $checks checks, $failures failed"
exit $((failures ? 1 : 0))
