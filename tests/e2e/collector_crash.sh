#!/usr/bin/env bash
# Abnormal ends keep the data written so far readable (MAP_SHARED blocks,
# nothing to flush): col_die with _exit (the interposed _exit writes the
# thread ends and <collector_end>), abort (SIGABRT), segv (SIGSEGV), and a
# SIGKILL from outside while two threads are being sampled.  In every case
# expdump finds no bad block, no bad record and no torn bytes, and the
# samples taken before the end are there; the exit status is the target's.
source "$(dirname "$0")/collector_lib.sh"
col_setup
col_cc die
col_cc threads
ulimit -c 0

for mode in _exit abort segv; do
	exp=$COL_TMP/$mode.er
	col_run "$exp" "p=997" "$COL_TMP/die" "$mode" 2>/dev/null
	case $mode in
	_exit) want=7 ;; abort) want=134 ;; segv) want=139 ;;
	esac
	((COL_RC == want)) || col_fail "$mode: exit status $COL_RC, want $want"
	col_check_clean "$exp"
	n=$(grep -c '^clock' "$exp.dump")
	threads=$(grep '^clock' "$exp.dump" | sed 's/.*tid=\([0-9]*\).*/\1/' | sort -u | wc -l)
	col_note "$mode: status $COL_RC, $n samples from $threads threads, $(grep -c '^stack' "$exp.dump") stacks"
	((n >= 150 && threads == 2)) || col_fail "$mode: $n samples from $threads threads"
	if [[ $mode == _exit ]]; then
		grep -q '<collector_end' "$exp/log.xml" || col_fail "_exit: no collector_end"
		[[ $(grep -c '^thread_end' "$exp.dump") == 2 ]] || col_fail "_exit: want 2 thread ends"
	fi
done

# SIGKILL while sampling: no exit path runs at all
exp=$COL_TMP/kill.er
col_exp_new "$exp" "p=997"
PA_EXPERIMENT=$exp PA_PARAMS="p=997" LD_PRELOAD=$COL_SO \
	bash -c 'export PA_TARGET_PID=$$; exec "$@"' x "$COL_TMP/threads" 2 10 2>/dev/null &
pid=$!
sleep 1
kill -KILL "$pid"
wait "$pid" 2>/dev/null || true
col_exp_close "$exp" 137
col_check_clean "$exp"
n=$(grep -c '^clock' "$exp.dump")
col_note "SIGKILL after 1 s: $n samples"
((n >= 150)) || col_fail "SIGKILL: $n samples"
echo "PASS collector_crash"
