#!/usr/bin/env bash
# Hostile targets (issue #10): a fork storm.  After before_work the program
# forks 200 children that are all alive at once (they wait on a futex the
# parent wakes after the last fork), each runs child_work for about 10 ms of
# CPU and exits with its number % 100; the parent checks every status.
# Plain and under collect -p hi: the same output and exit status; exactly
# the subexperiments _f1.er to _f200.er, each in processes.xml and each with
# its own exit status in its log; collect's summary counts 200 recorded; er_print
# reads the founder with all 200 (experiment_list), and before_work and the
# children's child_work are recorded within 15% of what they measured.
set -u
. "$(dirname "$0")/hostile_lib.sh"

plain storm forkstorm 200 5
collected storm -p hi -- forkstorm 200 5
same storm
grep -q '^forkstorm: 200 children, 200 exited with their number$' storm.out &&
	ok "storm: 200 children, each exited with its own status" || bad "storm: $(head -1 storm.out)"
# one er_print for all the reports (each reads 201 experiments)
"$PA_BIN/er_print" -header -experiment_list -metrics i.totalcpu:name -functions storm.er >storm.er.functions 2>&1
rc=$?
((rc == 0)) && grep -q '^No errors' storm.er.functions && grep -q '^Target exited with status 0' storm.er.functions &&
	ok "storm.er: er_print reads it: Target exited with status 0" || bad "storm.er: er_print exit $rc: $(head -5 storm.er.functions)"
want=$(seq 1 200 | sed 's/^/_f/; s/$/.er/' | sort | tr '\n' ' ')
got=$(cd storm.er && ls -d _*.er | sort | tr '\n' ' ')
[[ $got == "$want" ]] && ok "storm.er: subexperiments _f1.er to _f200.er" || bad "storm.er: subexperiments: $got"
n=$(grep -c 'lineage="_f[0-9]*" origin="fork" followed="1"' storm.er/processes.xml)
((n == 200)) && ok "storm.er: 200 forks in processes.xml" || bad "storm.er: $n forks in processes.xml"
grep -q "^collect: 200 descendant processes: 200 recorded in storm.er/_\*.er$" storm.err &&
	ok "collect: 200 descendants recorded" || bad "collect: $(grep '^collect:' storm.err)"
wrong=0
for k in $(seq 1 200); do
	grep -q "<exit [^>]*status=\"$(((k - 1) % 100))\"" storm.er/_f$k.er/log.xml || wrong=$((wrong + 1))
done
((wrong == 0)) && ok "storm.er: each subexperiment has its child's exit status" || bad "storm.er: $wrong subexperiments without their exit status"
n=$(grep -c ' yes .* _f[0-9]* *storm.er/_f[0-9]*.er ' storm.er.functions)
((n == 200)) && ok "storm.er: experiment_list has the founder and 200 children" || bad "storm.er: experiment_list has $n children"
near storm.er before_work "$(measured storm.err before_work)" "before the storm"
near storm.er child_work "$(measured storm.err child_work)" "200 children"
hostile_end
