#!/usr/bin/env bash
# A signal handler on an alternate signal stack (sigaltstack, SA_ONSTACK):
# the walk from the handler's code crosses the signal frame onto the thread's
# own stack (unwind.c finds the stack that holds each frame's sp), so the
# handler's CPU time is under the code it interrupted and main, never in a
# <Truncated-stack> (on today's main it stopped at the signal frame).
. "$(dirname "$0")/e2e_lib.sh" unwind-altstack
py() { python3 -c "import sys; sys.exit(0 if ($1) else 1)"; }
for opt in "-O2 -fomit-frame-pointer" "-O0 -fno-omit-frame-pointer"; do
	cc $opt -g "$PA_TOP/tests/fixtures/unwind_altstack.c" -o alt || { bad "cc $opt"; continue; }
	rm -rf alt.er
	"$PA_BIN/collect" -p hi -o alt.er ./alt 0.4 >/dev/null 2>&1 || bad "$opt: collect exited $?"
	"$PA_BIN/er_print" -functions alt.er >f.txt 2>&1 || bad "$opt: er_print -functions"
	incl() { awk -v f="$1" '$NF == f && NF >= 5 { print $4; exit }' f.txt; }
	m=$(incl main) h=$(incl in_handler) o=$(incl outer_work) t=$(incl "<Truncated-stack>")
	# shares of what the program ran: without the process's loading and exit
	rest=$(awk -v s="$(incl "<Process-start>")" -v e="$(incl "<Process-exit>")" 'BEGIN { print 100 - s - e }')
	m=$(awk -v m="$m" -v r="$rest" 'BEGIN { if (m != "") printf "%.2f", 100 * m / r }')
	o=$(awk -v m="$o" -v r="$rest" 'BEGIN { if (m != "") printf "%.2f", 100 * m / r }')
	check "$opt: in_handler ${h:-no} % inclusive (about 50)" py "'$h' != '' and 40 <= float('$h') <= 60"
	check "$opt: main ${m:-no} %, outer_work ${o:-no} % inclusive (every stack through the signal frame)" \
		py "'$m' != '' and '$o' != '' and float('$m') >= 99.5 and float('$o') >= 99.5"
	check "$opt: no <Truncated-stack> (${t:-none} %)" py "'$t' == ''"
done
e2e_end
