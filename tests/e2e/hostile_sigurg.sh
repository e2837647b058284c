#!/usr/bin/env bash
# A target that uses SIGURG, the collector's first sampling signal, in every
# way (issue 24): it blocks it and takes it with sigwait or sigtimedwait, it
# reads it through a signalfd, it keeps one pending while it is blocked, it
# handles it.  Under collect (-p off, on and hi) each mode prints what it
# prints without the collector and exits the same (before, sigwait never
# returned and the signalfd read 3 of 5 with their values); log.xml says once
# that the sampling signal moved (collector/signals.h), and the work done
# around the signals is still recorded, within 15% of the CPU time the
# program measured.
. "$(dirname "$0")/e2e_lib.sh" sigurg
cc -O1 -g -pthread "$PA_TOP/tests/fixtures/sigurg.c" -o sigurg || exit 1

within() { # GOT WANT TOL: |GOT - WANT| <= TOL * WANT
	awk -v g="${1:-0}" -v w="$2" -v t="$3" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(g != "" && d <= t * w) }'
}

for args in "sigwait 5 10" "sigwaitinfo 5 10" "pending 10" "signalfd 5 10" "handler 5 10"; do
	mode=${args%% *}
	timeout 60 ./sigurg $args >"$mode.plain" 2>/dev/null
	plain_rc=$?
	[[ $plain_rc == 0 ]] || bad "$mode: exit status $plain_rc without the collector"
	for p in off on hi; do
		n=$mode.$p
		timeout 60 "$PA_BIN/collect" -p $p -o "$n.er" ./sigurg $args >"$n.out" 2>"$n.err"
		rc=$?
		if [[ $rc != "$plain_rc" ]] || ! diff -q "$mode.plain" "$n.out" >/dev/null; then
			bad "$n: exit status $rc and output '$(head -1 "$n.out")', without the collector $plain_rc and '$(head -1 "$mode.plain")'"
			continue
		fi
		ok "$n: $(cat "$n.out")"
		moved=$(grep -c '<warning id="sampling_signal_moved"' "$n.er/log.xml")
		[[ $moved == 1 ]] && ok "$n: log.xml says the sampling signal moved" ||
			bad "$n: $moved sampling_signal_moved warnings in log.xml"
		[[ $p == off ]] && continue # no clock data: the signal alone (before, sigwait hung with -p off too)
		want=$(awk '$1 == "cpu" && $2 == "work" { print $3 }' "$n.err")
		got=$("$PA_BIN/er_print" -metrics i.totalcpu:name -functions "$n.er" 2>&1 | awk '$NF == "work" { print $1; exit }')
		within "$got" "$want" 0.15 && ok "$n: work recorded $got s of $want s" ||
			bad "$n: work recorded '${got:-nothing}' s, the program measured $want s"
	done
done
e2e_end
