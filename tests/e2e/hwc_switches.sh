#!/usr/bin/env bash
# collect -h context-switches,1 on tests/fixtures/hwc_counts.c sleeps 200:
# sleeper blocks 200 times in nanosleep (1 ms), and each block is a
# voluntary context switch of its thread, counted by the kernel's
# context-switches event (which counts in the kernel: the switch happens
# there).  What is guaranteed: sleeper's inclusive count is at least 200
# (involuntary switches can only add), and they are charged to the libc
# function that blocked, under sleeper.  With a second counter
# (page-faults,10) in the same run both are recorded.
set -u
. "$(dirname "$0")/hwc_lib.sh" hwc_switches

"$collect" -h context-switches,1,page-faults,10 -o s.er ./hwc_counts sleeps 200 >out.txt 2>err.txt && rc=0 || rc=$?
check "sleeps: exits 0 ($rc; $(head -c 300 err.txt))" test "$rc" = 0
figures s.er "i.context-switches:e.context-switches:i.page-faults:name" >f.txt
n=$(fig f.txt sleeper)
note "sleeper: $n context switches for 200 sleeps"
check "sleeps: sleeper has at least 200 context switches ($n)" test "${n:-0}" -ge 200
check "sleeps: sleeper's own code switches nothing (exclusive 0)" test "$(fig f.txt sleeper 3)" = 0
inlibc=$(awk '$1 ~ /^(__GI___)?(clock_)?nanosleep/ { s += $3 } END { print s + 0 }' f.txt)
check "sleeps: at least 200 are libc's sleep's own (exclusive: $inlibc)" test "$inlibc" -ge 200
check "sleeps: the second counter is recorded too" test "$(fig f.txt '<Total>' 4)" -gt 0
check "sleeps: with its own interval" grep -q '<hwcounter id="1" name="page-faults" [^>]*interval="10"' s.er/log.xml
echo "# $checks checks, $failures failed"
exit $((failures ? 1 : 0))
