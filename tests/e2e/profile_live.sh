#!/usr/bin/env bash
# An experiment can be read while it is being written: er_print on a running
# collection reports what has been recorded so far, says the collection has
# not finished, and does not fail; after the end the same experiment is whole.
set -u
: "${PA_TOP:?run through tests/run.sh}" "${PA_BIN:?}"
W=$(mktemp -d /tmp/pa-e2e-live.XXXXXX)
trap 'kill %1 2>/dev/null; rm -rf "$W"' EXIT
cd "$W"
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
