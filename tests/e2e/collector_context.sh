#!/usr/bin/env bash
# A runtime library's sample context reaches the experiment (collector/context.h):
# tests/fixtures/ctx_phases.c sets one through pa_trace_api's context_set around
# its middle phase.  The samples of that phase are CLOCK_CTX records with its
# five fields; the others stay CLOCK records, with nothing of a context.  No
# runtime of the reader knows runtime 128, so every viewmode shows the recorded
# stacks: each phase function has the same CPU time in user, expert and
# machine mode, and the three function lists are the same.
. "$(dirname "$0")/e2e_lib.sh" collector_context
gcc -O1 -g -fno-omit-frame-pointer -I"$PA_TOP" -o ctx "$PA_TOP/tests/fixtures/ctx_phases.c" -ldl ||
	{ bad "cannot build ctx_phases.c"; e2e_end; }
"$PA_BIN/collect" -o c.er ./ctx >out.txt 2>err.txt && rc=0 || rc=$?
check "collect exits 0 ($rc; $(head -c 300 err.txt))" test "$rc" = 0
check "the program found the API table ($(cat out.txt))" grep -qx 'api [1-9][0-9]*' out.txt
"$PA_BUILD/tests/tools/expdump" c.er >dump.txt 2>&1
nctx=$(grep -c '^clock .* runtime=128 state=3 flags=0x1 region=0xabc aux=0x2a$' dump.txt)
nall=$(grep -c '^clock ' dump.txt)
nother=$(grep '^clock ' dump.txt | grep -c 'runtime=')
echo "# $nall clock records, $nctx with the context, $nother with another"
check "the middle phase's samples carry the context (~20 of ~60: $nctx)" test "$nctx" -ge 10
check "no other context" test "$nother" = "$nctx"
check "the other samples are plain CLOCK records ($((nall - nctx)))" test $((nall - nctx)) -ge 20
for m in user expert machine; do
	"$PA_BIN/er_print" -viewmode $m -metrics i.totalcpu:name -sort name -functions c.er | grep -v '^Viewmode' >"f.$m"
done
check "user = machine (no runtime knows 128)" cmp -s f.user f.machine
check "expert = machine" cmp -s f.expert f.machine
ctx_s=$(awk '$2 == "ctx_phase" { print $1 }' f.machine)
check "ctx_phase has its inclusive CPU time ($ctx_s s)" awk -v s="${ctx_s:-0}" 'BEGIN { exit !(s >= 0.1) }'
e2e_end
