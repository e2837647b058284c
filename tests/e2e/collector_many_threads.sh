#!/usr/bin/env bash
# 64 concurrent threads (col_threads 64 1.5) at p=997, three runs in a row:
# every thread gets exactly one THREAD_START and one THREAD_END, no sample is
# dropped for lack of room, the data is clean, and the summed THREAD_END CPU
# matches the fixtures' own CPU times within 2%.  Also: expdump refuses a
# file that is not a data file with a message naming it (exit 1).
source "$(dirname "$0")/collector_lib.sh"
col_setup
col_cc threads
for run in 1 2 3; do
	exp=$COL_TMP/many$run.er
	col_run "$exp" "p=997" "$COL_TMP/threads" 64 1.5 2>"$exp.err"
	((COL_RC == 0)) || col_fail "col_threads exited $COL_RC"
	col_check_clean "$exp"
	s=$(grep -c '^thread_start' "$exp.dump")
	e=$(grep -c '^thread_end' "$exp.dump")
	((s == 65 && e == 65)) || col_fail "run $run: $s starts, $e ends, want 65"
	grep -q 'block_failures="0"' "$exp/log.xml" || col_fail "block failures"
	read -r ends fx n <<<"$(awk '/^thread_end/ { split($4, a, "="); s += a[2] } END { printf "%d ", s }' "$exp.dump"
		awk '/^cpu tid=/ { split($3, a, "="); s += a[2] } END { printf "%d ", s }' "$exp.err"
		grep -c '^clock' "$exp.dump")"
	d=$((ends - fx)); d=${d#-}
	col_note "run $run: 65 threads, $n samples, THREAD_END sum $((ends / 1000000)) ms, fixtures $((fx / 1000000)) ms, $(sed -n 's/.*dropped="\([0-9]*\)".*/\1/p' "$exp/log.xml") dropped"
	((d * 50 <= fx)) || col_fail "THREAD_END sum $ends vs fixtures $fx"
done
printf 'not an experiment file, just text that is long enough\n' >"$COL_TMP/junk"
if "$EXPDUMP" "$COL_TMP/junk" 2>"$COL_TMP/junk.err"; then col_fail "expdump accepted junk"; fi
grep -q "$COL_TMP/junk" "$COL_TMP/junk.err" || col_fail "expdump message does not name the file"
col_note "expdump on junk: $(cat "$COL_TMP/junk.err")"
echo "PASS collector_many_threads"
