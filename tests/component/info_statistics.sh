#!/usr/bin/env bash
# info_statistics.sh - `er_print -statistics` on synthetic experiments written
# by tests/tools/info_mkexp (values documented there): gprofng's layout, the
# rusage numbers collect recorded, thread time and sleep, the clock-profiling
# total and sample counts, the overview-sample fallback, and the sum block.
. "$(dirname "$0")/info_common.bash"
stat_line() { # FILE LABEL VALUE: "<label right-aligned to 50>: <value>"
	has_line "$1" "$(printf '%50s: %s' "$2" "$3")"
}

for v in finished unfinished; do
	"$tools/info_mkexp" "$v.er" "$v" || exit 1
done

report statistics finished.er >fin.out 2>fin.err || { echo "FAIL: statistics exited $?"; cat fin.err; fail=1; }
has_line fin.out 'Experiment: finished.er'
has_line fin.out '        Aggregated statistics for selected samples'
stat_line fin.out 'Start Label' 'Total'
stat_line fin.out 'Start Time (sec.)' '0.000'
stat_line fin.out 'End Time (sec.)' '2.100'
stat_line fin.out 'Duration (sec.)' '2.100'
# threads: 0.001..2.000 and 0.010..1.000
stat_line fin.out 'Total Thread Time (sec.)' '2.989'
stat_line fin.out 'Average number of Threads' '1.423'
has_line fin.out "$(printf '%50s:' 'Process Times (sec.)')"
# rusage: utime 0.055, stime 0.005; sleep = 2.989 - 0.060
stat_line fin.out 'User CPU' '0.055 (  1.8%)'
stat_line fin.out 'System CPU' '0.005 (  0.2%)'
stat_line fin.out 'Trap CPU' '0.    (  0. %)'
stat_line fin.out 'Wait CPU' '0.    (  0. %)'
stat_line fin.out 'Sleep' '2.929 ( 98.0%)'
stat_line fin.out 'Minor Page Faults' '  123'
stat_line fin.out 'Major Page Faults' '    4'
stat_line fin.out 'Input blocks' '    8'
stat_line fin.out 'Output blocks' '   16'
stat_line fin.out 'Voluntary context switches' '    7'
stat_line fin.out 'Involuntary context switches' '    3'
# not in rusage: from the last overview sample
stat_line fin.out 'Process swaps' '    1'
stat_line fin.out 'Signals handled' '    2'
stat_line fin.out 'System calls' '    0'
stat_line fin.out 'Characters of I/O' '    0'
# 5 samples of 0.010007 s plus the main thread's CPU after its last sample
stat_line fin.out 'Total CPU time recorded by clock profiling (sec.)' '0.060'
stat_line fin.out 'Samples recorded' '    5'
stat_line fin.out 'Samples dropped' '    1'
stat_line fin.out 'Process times and counters from' 'resource usage at exit'
# gprofng's groups: blank line after the title and between the groups
grep -A1 -Fx '        Aggregated statistics for selected samples' fin.out | tail -n1 | grep -qx '' ||
	{ echo "FAIL: no blank line after the title"; fail=1; }

# No rusage: the last overview sample's numbers, and it says so.
report statistics unfinished.er >unf.out 2>&1 || { echo "FAIL: statistics (unfinished) exited $?"; fail=1; }
stat_line unf.out 'Duration (sec.)' '0.300'
stat_line unf.out 'User CPU' '0.030 (  5.1%)'
stat_line unf.out 'Minor Page Faults' '  100'
stat_line unf.out 'Total CPU time recorded by clock profiling (sec.)' '0.050'
stat_line unf.out 'Samples recorded' '    5 (counted in the data: the collector did not report)'
stat_line unf.out 'Process times and counters from' 'the last overview sample (no resource usage at exit)'

# Several experiments: the sum first (gprofng), then each experiment.
"$tools/info_driver" statistics -- finished.er unfinished.er >two.out 2>&1 || { echo "FAIL: two"; fail=1; }
[[ $(head -n1 two.out) == '<Sum across selected experiments>' ]] || { echo "FAIL: no sum block first"; fail=1; }
[[ $(grep -c '^Experiment: ' two.out) == 2 ]] || { echo "FAIL: two.out should have 2 experiment blocks"; fail=1; }
stat_line two.out 'Minor Page Faults' '  223'
stat_line two.out 'Total CPU time recorded by clock profiling (sec.)' '0.110'
# exp_id selects one
"$tools/info_driver" statistics 1 -- finished.er unfinished.er >one.out 2>&1 || { echo "FAIL: one"; fail=1; }
lacks one.out '^<Sum|unfinished'
stat_line one.out 'Total CPU time recorded by clock profiling (sec.)' '0.060'

# Signals handled: the collector's <collector_end signals> count (the overview's
# nsignals is getrusage's ru_nsignals, which Linux leaves 0); without the attribute,
# the overview's value as before; over a founder and its subexperiment, the sum.
"$tools/info_mkexp" sig.er signals || exit 1
"$tools/info_mkexp" sig.er/_f1.er finished || exit 1
report statistics sig.er >sig.out 2>&1 || { echo "FAIL: statistics (signals) exited $?"; fail=1; }
[[ $(head -n1 sig.out) == '<Sum across selected experiments>' ]] || { echo "FAIL: sig.er: no sum block"; fail=1; }
sigs=$(awk -F': *' '/^ *Signals handled:/ { printf "%s ", $2 }' sig.out)
[[ $sigs == '353 351 2 ' ]] ||
	{ echo "FAIL: Signals handled (sum, founder, subexperiment) '$sigs', want '353 351 2 '"; fail=1; }
"$tools/info_mkexp" sigalone.er signals || exit 1
report statistics sigalone.er >sigalone.out 2>&1 || { echo "FAIL: statistics (sigalone) exited $?"; fail=1; }
stat_line sigalone.out 'Signals handled' '  351'

# A thread selection narrows the clock-profiling total (thread 2: 2 samples).
"$tools/info_driver" -select 2 statistics -- finished.er >sel.out 2>&1 || { echo "FAIL: sel"; fail=1; }
stat_line sel.out 'Total CPU time recorded by clock profiling (sec.)' '0.020'

((fail == 0)) || { echo "--- finished.er:"; cat fin.out; }
exit $fail
