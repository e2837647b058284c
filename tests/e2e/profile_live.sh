#!/usr/bin/env bash
# An experiment can be read while it is being written: er_print on a running
# collection reports what has been recorded so far, says the collection has
# not finished, and does not fail; after the end the same experiment is whole.
# The same holds for a descendant's subexperiment, read alone or with its
# founder, while that descendant runs.
set -u
: "${PA_TOP:?run through tests/run.sh}" "${PA_BIN:?}"
W=$(mktemp -d /tmp/pa-e2e-live.XXXXXX)
trap 'kill %1 2>/dev/null; rm -rf "$W"' EXIT
cd "$W" || exit 1
cc -O0 -g -fno-omit-frame-pointer "$PA_TOP/tests/fixtures/e2e_split.c" -o split || exit 1
"$PA_BIN/collect" -o live.er ./split 3 >/dev/null 2>collect.err &
sleep 1.5
"$PA_BIN/er_print" -header -functions live.er >during.txt 2>&1
rc=$?
wait %1 || { echo "collect failed"; cat collect.err; exit 1; }
"$PA_BIN/er_print" -header -functions live.er >after.txt 2>&1 || { cat after.txt; exit 1; }
fails=0
t_during=$(awk '$NF == "<Total>" { print $1; exit }' during.txt)
t_after=$(awk '$NF == "<Total>" { print $1; exit }' after.txt)
[[ $rc == 0 ]] || { echo "FAIL: er_print exit $rc while collecting"; fails=1; }
grep -q "did not finish" during.txt || { echo "FAIL: no 'did not finish' while collecting"; fails=1; }
grep -q "did not finish" after.txt && { echo "FAIL: 'did not finish' after the end"; fails=1; }
python3 -c "import sys; sys.exit(0 if 0.3 < float('${t_during:-0}'.rstrip('.') or 0) < 2.9 else 1)" ||
	{ echo "FAIL: total while collecting is ${t_during:-none}"; fails=1; }
python3 -c "import sys; sys.exit(0 if 2.9 < float('${t_after:-0}'.rstrip('.') or 0) < 3.2 else 1)" ||
	{ echo "FAIL: total after the end is ${t_after:-none}"; fails=1; }
((fails == 0)) || { cat during.txt after.txt; exit 1; }
echo "ok: during the run <Total> = $t_during s (partial, flagged), after = $t_after s"

# a descendant: sh forks a child (_f1) that execs split (_f1_x1)
"$PA_BIN/collect" -o tree.er sh -c './split 3; true' >/dev/null 2>collect2.err &
tree_pid=$!
sleep 1.5
"$PA_BIN/er_print" -header -functions tree.er/_f1_x1.er >sub_during.txt 2>&1
rc1=$?
"$PA_BIN/er_print" -functions tree.er >tree_during.txt 2>&1
rc2=$?
wait $tree_pid || { echo "collect of the tree failed"; cat collect2.err; exit 1; }
"$PA_BIN/er_print" -header -functions tree.er/_f1_x1.er >sub_after.txt 2>&1 || { cat sub_after.txt; exit 1; }
s_during=$(awk '$NF == "<Total>" { print $1; exit }' sub_during.txt)
f_during=$(awk '$NF == "<Total>" { print $1; exit }' tree_during.txt)
s_after=$(awk '$NF == "<Total>" { print $1; exit }' sub_after.txt)
[[ $rc1 == 0 && $rc2 == 0 ]] || { echo "FAIL: er_print exit $rc1/$rc2 on a running descendant"; fails=1; }
grep -q "did not finish" sub_during.txt || { echo "FAIL: no 'did not finish' for the running descendant"; fails=1; }
grep -q "did not finish" sub_after.txt && { echo "FAIL: 'did not finish' after the descendant ended"; fails=1; }
python3 -c "import sys; sys.exit(0 if 0.3 < float('${s_during:-0}'.rstrip('.') or 0) < 2.9 else 1)" ||
	{ echo "FAIL: the running descendant's total is ${s_during:-none}"; fails=1; }
python3 -c "import sys; sys.exit(0 if 0.3 < float('${f_during:-0}'.rstrip('.') or 0) < 2.9 else 1)" ||
	{ echo "FAIL: the running tree's total is ${f_during:-none}"; fails=1; }
python3 -c "import sys; sys.exit(0 if 2.9 < float('${s_after:-0}'.rstrip('.') or 0) < 3.2 else 1)" ||
	{ echo "FAIL: the descendant's total after the end is ${s_after:-none}"; fails=1; }
((fails == 0)) || { cat sub_during.txt tree_during.txt sub_after.txt; exit 1; }
echo "ok: a running descendant: <Total> = $s_during s alone, $f_during s with its founder (partial, flagged), after = $s_after s"
