#!/usr/bin/env bash
# collect -t (issue #16): only what happens inside the window is recorded.
# (The header also names the clock source: perf_event task-clock, or timers.)
# col_spin burns 2 s of CPU; under -t 1 the recorded CPU is at most the
# window's one second of wall time (one CPU, plus a sample interval for the
# first sample's delta), not the whole run's 2 s: a thread's CPU after the
# window is not credited to its last sample.  Under -t 1-0 (from 1 s to the
# end) it is at most the run's CPU minus nothing, and the window shows in the
# header.  On a busy machine the process may get less than a CPU, so only the
# bounds are asserted.
set -u
: "${PA_TOP:?run through tests/run.sh}" "${PA_BIN:?}"
W=$(mktemp -d /tmp/pa-e2e-window.XXXXXX)
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1
export PA_ARCHIVE=off
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
cc -O1 -g "$PA_TOP/tests/fixtures/col_spin.c" -o spin || exit 1

total() { "$PA_BIN/er_print" -functions "$1" 2>&1 | awk '$NF == "<Total>" { print $1; exit }'; }
"$PA_BIN/collect" -t 1 -o t1.er ./spin 2 >/dev/null 2>t1.err || { bad "collect -t 1"; cat t1.err; }
got=$(total t1.er)
python3 -c "import sys; sys.exit(0 if 0 < ${got:-0} <= 1.05 else 1)" &&
	ok "-t 1: ${got}s of CPU recorded (at most the 1 s window)" || bad "-t 1: '${got}' s recorded"
"$PA_BIN/er_print" -header t1.er >h1 2>&1
grep -q "^  Data-collection window, the first 1 secs\.$" h1 && ok "-t 1: the header states the window" ||
	{ bad "-t 1 header"; cat h1; }
mech=$(grep -o 'mechanism="[^"]*"' t1.er/log.xml)
want=$([[ $mech == *perf_task_clock* ]] && echo "each thread's perf_event task-clock" ||
	echo "each thread's POSIX CPU-time timer\|CPU-time timers are limited by the kernel tick")
grep -q "^  (.*\($want\)" h1 && ok "the header names the clock source ($mech)" || { bad "clock source ($mech)"; cat h1; }

"$PA_BIN/collect" -o all.er ./spin 2 >/dev/null 2>all.err || bad "collect without -t"
all=$(total all.er)
"$PA_BIN/collect" -t 1-0 -o t10.er ./spin 2 >/dev/null 2>t10.err || bad "collect -t 1-0"
late=$(total t10.er)
python3 -c "import sys; sys.exit(0 if 0 < ${late:-0} < ${all:-0} - 0.01 else 1)" &&
	ok "-t 1-0: ${late}s recorded, less than the whole run's ${all}s" || bad "-t 1-0: '${late}' vs '${all}'"
"$PA_BIN/er_print" -header t10.er | grep -q "^  Data-collection window, from 1 secs\. to the end$" &&
	ok "-t 1-0: the header states the window" || bad "-t 1-0 header"
"$PA_BIN/er_print" -header all.er | grep -q "Data-collection window" && bad "no -t: a window in the header" ||
	ok "no -t: no window in the header"
echo "$fails failed"
((fails == 0))
