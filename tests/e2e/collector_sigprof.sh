#!/usr/bin/env bash
# A target that owns SIGPROF cannot switch collection off, and still gets
# what it asked for:
#  - col_sigprof installs a SIGPROF handler, blocks SIGPROF with sigprocmask
#    and runs setitimer(ITIMER_PROF, 10 ms) for 1 s of CPU: its handler runs
#    (about 100 calls), sigaction() gives it back its own handler, collection
#    continues (samples at our interval, weights = CPU time: the target's
#    own SIGPROFs are not taken as samples), and log.xml warns about both;
#  - SIG_IGN: a SIGPROF sent with kill() is ignored (the target survives);
#  - SIG_DFL: a SIGPROF sent with kill() terminates the target by SIGPROF,
#    as without the collector.
source "$(dirname "$0")/collector_lib.sh"
col_setup
col_cc sigprof

exp=$COL_TMP/own.er
col_run "$exp" "p=10007" "$COL_TMP/sigprof" >"$COL_TMP/own.out"
((COL_RC == 0)) || col_fail "col_sigprof exited $COL_RC (1: handler never ran, 2: sigaction lied)"
calls=$(sed -n 's/^handler_calls=//p' "$COL_TMP/own.out")
col_check_clean "$exp"
col_xml_ok "$exp/log.xml"
read -r tid n w e <<<"$(col_thread_table "$exp.dump" | head -n1)"
col_note "handler_calls=$calls samples=$n weights_ms=$((w / 1000000)) end_cpu_ms=$((e / 1000000))"
((calls >= 50)) || col_fail "the target's handler ran $calls times, want >= 50 (10 ms over 1 s)"
((n >= 70 && n <= 130)) || col_fail "$n samples for 1 s at 10 ms"
((e - w <= 15000000)) || col_fail "weights $w vs cpu $e"
grep -q '<warning id="app_sigprof"' "$exp/log.xml" || col_fail "no app_sigprof warning"
grep -q '<warning id="sigprof_block"' "$exp/log.xml" || col_fail "no sigprof_block warning"
[[ $(grep -c '<warning id="app_sigprof"' "$exp/log.xml") == 1 ]] || col_fail "warning repeated"

exp=$COL_TMP/ign.er
col_run "$exp" "p=10007" "$COL_TMP/sigprof" ign >"$COL_TMP/ign.out"
((COL_RC == 0)) && grep -q survived "$COL_TMP/ign.out" || col_fail "SIG_IGN: exit $COL_RC"
col_check_clean "$exp"

exp=$COL_TMP/dfl.er
col_run "$exp" "p=10007" "$COL_TMP/sigprof" dfl >"$COL_TMP/dfl.out" 2>/dev/null
((COL_RC == 128 + 27)) || col_fail "SIG_DFL: exit $COL_RC, want death by SIGPROF (155)"
col_check_clean "$exp"
col_note "SIG_IGN survived, SIG_DFL exit status $COL_RC"
echo "PASS collector_sigprof"
