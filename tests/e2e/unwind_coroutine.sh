#!/usr/bin/env bash
# CPU time on a coroutine's stack (makecontext: a malloc'd stack that is neither
# the thread's nor a signal stack).  The walk reads it in pages it checked can
# be read (unwind.c: STACK_PROBED), so its frames are recorded, and it stops
# where the coroutine's stack ends (glibc's __start_context) instead of taking
# a frame off the main stack: on today's main co_body was recorded under
# __libc_start_call_main, which never called it.
. "$(dirname "$0")/e2e_lib.sh" unwind-coroutine
py() { python3 -c "import sys; sys.exit(0 if ($1) else 1)"; }
cc -O2 -g -fomit-frame-pointer "$PA_TOP/tests/fixtures/unwind_coroutine.c" -o co || { bad "cc"; e2e_end; }
"$PA_BIN/collect" -p hi -o co.er ./co 0.4 >/dev/null 2>&1 || bad "collect exited $?"
"$PA_BIN/er_print" -functions co.er >f.txt 2>&1 || bad "er_print -functions"
"$PA_BIN/er_print" -export folded folded.txt co.er >/dev/null 2>&1 || bad "er_print -export folded"
incl() { awk -v f="$1" '$NF == f && NF >= 5 { print $4; exit }' f.txt; }
b=$(incl co_body) l=$(incl co_leaf) m=$(incl main)
# co_leaf's share of what the program ran: without the process's loading and exit
rest=$(awk -v s="$(incl "<Process-start>")" -v e="$(incl "<Process-exit>")" 'BEGIN { print 100 - s - e }')
l=$(awk -v m="$l" -v r="$rest" 'BEGIN { if (m != "") printf "%.2f", 100 * m / r }')
check "co_body ${b:-no} % inclusive (about 67: its frames are recorded)" py "'$b' != '' and 57 <= float('$b') <= 77"
check "co_leaf ${l:-no} %, main ${m:-no} % inclusive (about 100 and 33)" \
	py "'$l' != '' and '$m' != '' and float('$l') >= 99 and 23 <= float('$m') <= 43"
n=$(grep 'co_body' folded.txt | grep -c -E '(^|;)(main|__libc_start_call_main|_start);')
check "no stack puts co_body under main or the code that started it ($n do)" py "$n == 0"
e2e_end
