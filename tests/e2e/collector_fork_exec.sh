#!/usr/bin/env bash
# fork and exec, at the collector's level (the harness stands in for collect):
#  - col_fork: the child writes nothing into its parent's experiment: every
#    record there belongs to the parent, log.xml has one <collector_start> and
#    one <collector_end>, the data is clean, and the parent's samples still
#    account for its CPU time; the child records into _f1.er, all of it its
#    own (its pid, its 0.3 s of CPU), closed by itself with its exit status;
#  - col_exec: samples written before exec stay readable, log.xml is ended
#    with an <exec path=...>, and the new image (same pid) records into _x1.er.
source "$(dirname "$0")/collector_lib.sh"
col_setup
col_cc fork
col_cc exec
col_cc spin

exp=$COL_TMP/fork.er
col_run "$exp" "p=997" "$COL_TMP/fork" >"$COL_TMP/fork.out"
((COL_RC == 0)) || col_fail "col_fork exited $COL_RC"
child=$(sed -n 's/^child pid=//p' "$COL_TMP/fork.out")
col_check_clean "$exp"
col_xml_ok "$exp/log.xml"
parent=$(sed -n 's/.*<collector_start pid="\([0-9]*\)".*/\1/p' "$exp/log.xml")
[[ -n $parent && -n $child ]] || col_fail "no pids"
[[ $(grep -c '<collector_start' "$exp/log.xml") == 1 && $(grep -c '<collector_end' "$exp/log.xml") == 1 ]] ||
	col_fail "collector_start/end not exactly once: the child wrote to log.xml"
grep -q "pid=\"$child\"" "$exp/log.xml" && col_fail "the child appears in log.xml"
tids=$(grep -E '^(clock|thread_start|thread_end)' "$exp.dump" | sed 's/.*tid=\([0-9]*\).*/\1/' | sort -u)
[[ $tids == "$parent" ]] || col_fail "records of tids '$tids', want only the parent $parent"
grep -q "pid=$parent " "$exp.dump" || col_fail "file header pid is not the parent"
grep "^# file" "$exp.dump" | grep -qv "pid=$parent " && col_fail "a data file header is not the parent's"
read -r _ n w e <<<"$(col_thread_table "$exp.dump")"
col_note "fork: parent=$parent child=$child samples=$n weights_ms=$((w / 1000000)) end_cpu_ms=$((e / 1000000))"
((e >= 650000000 && e - w <= 10000000)) || col_fail "parent CPU $e / weights $w"
sub=$exp/_f1.er
[[ -d $sub ]] || col_fail "no subexperiment _f1.er for the fork child"
col_check_clean "$sub"
col_xml_ok "$sub/log.xml"
col_xml_ok "$sub/map.xml"
grep -q "<collector_start pid=\"$child\"" "$sub/log.xml" || col_fail "_f1.er is not the child's"
grep -q '<process cwd="[^"]*" wordsize="64" lineage="_f1" origin="fork"/>' "$sub/log.xml" ||
	col_fail "_f1.er's head has no lineage"
grep -q '<exit tstamp_ns="[0-9]*" status="0"/>' "$sub/log.xml" || col_fail "_f1.er has no exit status"
[[ $(tail -n1 "$sub/log.xml") == "</experiment>" ]] || col_fail "_f1.er not closed by the child"
grep -q '<load id="[0-9]*" tstamp_ns="[0-9]*" kind="exe"' "$sub/map.xml" || col_fail "_f1.er/map.xml has no exe"
tids=$(grep -E '^(clock|thread_start|thread_end)' "$sub.dump" | sed 's/.*tid=\([0-9]*\).*/\1/' | sort -u)
[[ $tids == "$child" ]] || col_fail "_f1.er records of tids '$tids', want only the child $child"
read -r _ n w e <<<"$(col_thread_table "$sub.dump")"
col_note "fork child: samples=$n weights_ms=$((w / 1000000)) end_cpu_ms=$((e / 1000000))"
# the child's clock starts at the fork; the collector starts in it a few ms later
((e >= 280000000 && e <= 400000000 && e - w <= 10000000)) || col_fail "child CPU $e / weights $w"

exp=$COL_TMP/exec.er
col_run "$exp" "p=10007" "$COL_TMP/exec" "$COL_TMP/spin" 0.5 2>/dev/null
((COL_RC == 0)) || col_fail "col_exec exited $COL_RC"
col_check_clean "$exp"
col_xml_ok "$exp/log.xml"
grep -q "<exec tstamp_ns=\"[0-9]*\" path=\"$COL_TMP/spin\"/>" "$exp/log.xml" || col_fail "no <exec> in log.xml"
n=$(grep -c '^clock' "$exp.dump")
col_note "exec: $n samples before exec"
((n >= 20)) || col_fail "$n samples before exec, want >= 20 (0.3 s at 10 ms)"
[[ $(grep -c '<collector_start' "$exp/log.xml") == 1 ]] || col_fail "the exec'd image started collecting again"
grep -q '<collector_end ' "$exp/log.xml" || col_fail "the image before exec did not end its collection"
sub=$exp/_x1.er
col_check_clean "$sub"
grep -q "<target path=\"$COL_TMP/spin\">" "$sub/log.xml" || col_fail "_x1.er is not the exec'd program's"
read -r _ n w e <<<"$(col_thread_table "$sub.dump")"
col_note "exec'd image: samples=$n weights_ms=$((w / 1000000)) end_cpu_ms=$((e / 1000000))"
((n >= 12)) || col_fail "_x1.er has $n samples of the 0.2 s spin runs after the exec"
echo "PASS collector_fork_exec"
