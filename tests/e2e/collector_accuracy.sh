#!/usr/bin/env bash
# Clock-profiling accuracy: for a 2 s CPU-bound run, single-threaded and with
# 4 threads of known shares, at p=10007 (on), 997 (hi) and 100003 (lo) us:
#  - every thread has THREAD_START/THREAD_END; its first sample weighs the
#    interval I, the later ones the CPU time since the one before
#    (collector/sampler.h), so the sum of a thread's weights is its THREAD_END
#    cpu_ns less a remainder in (-I, I],
#    or more when its last expiries were still pending as it exited: within
#    2% of cpu_ns, or within two intervals + one kernel tick when that is
#    longer (lo, and short threads at on); the reader charges the remainder,
#    either sign, to the thread's last sample.  A thread shorter than I has
#    weights 0 or I (sampled with probability cpu / I);
#  - for the 2 s single-threaded runs at on and hi, the sum of the weights
#    alone is within 2% of the fixture's own CPU time;
#  - THREAD_END cpu_ns matches the CPU time the fixture measured itself
#    (CLOCK_THREAD_CPUTIME_ID) within 2%;
#  - the number of samples fits the effective interval (>= 70% of expected, -1);
#  - the data files have no damage and log.xml/map.xml are well-formed.
source "$(dirname "$0")/collector_lib.sh"
col_setup
col_cc spin
col_cc threads
fail=0
printf '# %-8s %-7s %8s %7s %12s %12s %12s %7s %7s\n' mode p tid samples weights_ms end_cpu_ms fixture_ms rem% dev%
for p in 10007 997 100003; do
	for mode in single threads4; do
		exp=$COL_TMP/$mode.$p.er
		if [[ $mode == single ]]; then
			col_run "$exp" "p=$p" "$COL_TMP/spin" 2 2>"$exp.err"
		else
			col_run "$exp" "p=$p" "$COL_TMP/threads" 4 2 2>"$exp.err"
		fi
		((COL_RC == 0)) || col_fail "$mode p=$p exited $COL_RC"
		col_check_clean "$exp"
		col_xml_ok "$exp/log.xml"
		col_xml_ok "$exp/map.xml"
		grep -q '<collector_end ' "$exp/log.xml" || col_fail "no collector_end in $exp/log.xml"
		col_thread_table "$exp.dump" >"$exp.table"
		nstart=$(grep -c '^thread_start' "$exp.dump")
		want=$([[ $mode == single ]] && echo 1 || echo 5)
		((nstart == want)) || col_fail "$mode p=$p: $nstart thread starts, want $want"
		# join: fixture "cpu tid=N ns=N" lines with the dump's per-thread table
		if ! awk -v p="$p" -v mode="$mode" '
			FNR == NR { t[$1] = $0; next }
			/^cpu tid=/ { split($2, a, "="); split($3, b, "="); tid = a[2]; fx = b[2]
				if (!(tid in t)) { printf "FAIL %s p=%s: thread %s not in the experiment\n", mode, p, tid; bad = 1; next }
				split(t[tid], f, " "); n = f[2]; w = f[3]; e = f[4]
				if (e == "-") { printf "FAIL %s p=%s: thread %s has no THREAD_END\n", mode, p, tid; bad = 1; next }
				rem = e - w; dev = e - fx; if (dev < 0) dev = -dev
				eff = p < 4000 ? 4000 : p
				printf "# %-8s %-7s %8s %7d %12.1f %12.1f %12.1f %7.2f %7.2f\n", mode, p, tid, n, w / 1e6, e / 1e6, fx / 1e6, e ? 100 * rem / e : 0, fx ? 100 * dev / fx : 0
				if (e < p * 1000 && w != 0 && w != p * 1000) { printf "FAIL %s p=%s tid %s: weights %.3f ms for a thread shorter than the interval\n", mode, p, tid, w / 1e6; bad = 1 }
				if (e >= p * 1000 && rem <= -p * 1000) { printf "FAIL %s p=%s tid %s: weights exceed the thread CPU time by an interval or more\n", mode, p, tid; bad = 1 }
				if (fx < 100e6) next   # an idle main thread: nothing to compare
				# the remainder is the CPU after the last sample: at most one
				# interval + one tick, plus one more interval when the last
				# expiry was still pending as the thread exited, +1 ms for the
				# exit path; and 2% of the thread when the interval is that short
				slack = (2 * eff + 4000 + 1000) * 1000; if (slack < 0.02 * e) slack = 0.02 * e
				if (rem > slack) { printf "FAIL %s p=%s tid %s: remainder %.1f ms > %.1f ms\n", mode, p, tid, rem / 1e6, slack / 1e6; bad = 1 }
				if (dev > 0.02 * fx) { printf "FAIL %s p=%s tid %s: THREAD_END %.1f ms vs fixture %.1f ms\n", mode, p, tid, e / 1e6, fx / 1e6; bad = 1 }
				dw = fx - w; if (dw < 0) dw = -dw
				if (mode == "single" && p < 50000 && dw > 0.02 * fx) { printf "FAIL %s p=%s: weights %.1f ms vs fixture %.1f ms\n", mode, p, w / 1e6, fx / 1e6; bad = 1 }
				if (n < int(0.7 * fx / (eff * 1000)) - 1) { printf "FAIL %s p=%s tid %s: %d samples for %.0f ms at %d us\n", mode, p, tid, n, fx / 1e6, eff; bad = 1 }
			}
			END { exit bad }' "$exp.table" "$exp.err"; then
			fail=1
		fi
	done
done
((fail == 0)) || col_fail "accuracy checks failed"
echo "PASS collector_accuracy"
