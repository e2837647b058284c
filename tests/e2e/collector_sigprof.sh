#!/usr/bin/env bash
# The collector's first sampling signal is SIGURG (collector/sampler.h): a
# target that uses SIGPROF gets exactly what it gets without the collector,
# and so does a target that takes SIGURG for itself, which cannot switch
# collection off either.  col_sigprof SIG own installs a handler, blocks the
# signal with sigprocmask and has it sent every 10 ms of CPU for 1 s:
#  - SIGPROF (setitimer ITIMER_PROF): its handler runs as often as without
#    the collector (once, at the unblock), sigaction() gives its handler
#    back, and log.xml has no warning;
#  - SIGURG (a POSIX timer): the collector moves its sampling to a
#    real-time signal the target does not use as soon as the target handles
#    or blocks SIGURG (collector/signals.h), so its handler runs as often as
#    without the collector (once, at the unblock), sigaction() gives its
#    handler back, and log.xml says once that the sampling signal moved;
#  - both: collection goes on at our interval (samples ~ 100, weights = CPU
#    time: the target's own signals are not taken as samples).
# SIG ign: a signal sent with kill() is ignored (the target survives); SIG
# dfl: SIGPROF terminates the target by SIGPROF, SIGURG is ignored, as
# without the collector.
source "$(dirname "$0")/collector_lib.sh"
col_setup
col_cc sigprof

for sig in prof urg; do
	set +e
	"$COL_TMP/sigprof" $sig own >"$COL_TMP/$sig.plain.out"
	plain_rc=$?
	set -e
	plain=$(sed -n 's/^handler_calls=//p' "$COL_TMP/$sig.plain.out")
	((plain_rc == 0)) || col_fail "col_sigprof $sig own exited $plain_rc without the collector"
	exp=$COL_TMP/own_$sig.er
	col_run "$exp" "p=10007" "$COL_TMP/sigprof" $sig own >"$COL_TMP/$sig.out"
	((COL_RC == 0)) || col_fail "col_sigprof $sig own exited $COL_RC (1: handler never ran, 2: sigaction lied)"
	calls=$(sed -n 's/^handler_calls=//p' "$COL_TMP/$sig.out")
	col_check_clean "$exp"
	col_xml_ok "$exp/log.xml"
	read -r _ n w e <<<"$(col_thread_table "$exp.dump" | head -n1)"
	col_note "$sig: handler_calls=$calls (without the collector $plain) samples=$n weights_ms=$((w / 1000000)) end_cpu_ms=$((e / 1000000))"
	((n >= 70 && n <= 130)) || col_fail "$sig: $n samples for 1 s at 10 ms"
	((e - w <= 15000000)) || col_fail "$sig: weights $w vs cpu $e"
	nh=$(grep -c '<warning id="app_sampling_signal"' "$exp/log.xml" || true)
	nb=$(grep -c '<warning id="sampling_signal_block"' "$exp/log.xml" || true)
	nm=$(grep -c '<warning id="sampling_signal_moved"' "$exp/log.xml" || true)
	((calls == plain)) || col_fail "$sig: the target's handler ran $calls times, without the collector $plain"
	if [[ $sig == prof ]]; then
		((nh == 0 && nb == 0 && nm == 0)) || col_fail "SIGPROF: log.xml warns about the sampling signal"
	else
		((nm == 1)) || col_fail "SIGURG: $nm sampling_signal_moved warnings, want 1"
		((nh == 0 && nb == 0)) || col_fail "SIGURG: log.xml warns that the target's SIGURG was kept or blocked"
	fi

	exp=$COL_TMP/ign_$sig.er
	col_run "$exp" "p=10007" "$COL_TMP/sigprof" $sig ign >"$COL_TMP/ign.out"
	((COL_RC == 0)) && grep -q survived "$COL_TMP/ign.out" || col_fail "$sig SIG_IGN: exit $COL_RC"
	col_check_clean "$exp"

	set +e
	{ "$COL_TMP/sigprof" $sig dfl >/dev/null; } 2>/dev/null # no "Profiling timer expired"
	plain_rc=$?
	set -e
	exp=$COL_TMP/dfl_$sig.er
	col_run "$exp" "p=10007" "$COL_TMP/sigprof" $sig dfl >"$COL_TMP/dfl.out" 2>/dev/null
	want=4
	[[ $sig == prof ]] && want=$((128 + 27))
	((plain_rc == want)) || col_fail "$sig SIG_DFL without the collector: exit $plain_rc, want $want"
	((COL_RC == want)) || col_fail "$sig SIG_DFL: exit $COL_RC, want $want as without the collector"
	col_check_clean "$exp"
	col_note "$sig: SIG_IGN survived, SIG_DFL exit status $COL_RC"
done
echo "PASS collector_sigprof"
