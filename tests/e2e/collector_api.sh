#!/usr/bin/env bash
# The collector API (libcollectorAPI), pause/resume and sample points (issue #16
# items 1, 2 and 8).  tests/fixtures/api_phases.c burns 0.4 s of CPU in each of
# phase_a, phase_paused (between collector_pause and collector_resume) and
# phase_c (after collector_sample("after_b")):
#  - linked with the shared library (pkg-config collectorAPI) and with the static
#    one, it runs unchanged without collect;
#  - under collect, phase_paused is absent from -functions, phase_a and phase_c are
#    there, and sample_list shows the label after_b;
#  - sample_select of the sample that after_b opens counts phase_c alone, and
#    statistics over it names after_b and shows about phase_c's CPU;
#  - after collector_terminate_expt nothing more is recorded and the program goes on;
#  - with -H on, a block freed while paused is no leak, nor one allocated then;
#  - a thread running through a pause has no paused CPU in its first sample after it;
#  - collect -l USR1 -y USR2 on tests/fixtures/api_signals.c (the program sends
#    itself the signals with kill): two "signal" sample points, the phases sent
#    while paused absent, the program's own USR1 handler still called;
#  - collect -S 1 on a run of 3.5 s of CPU records a periodic sample point a second
#    (3 on an idle machine), -S off none.
# The phases run with -S off, so that their sample points are exactly the API's.
# CPU figures are checked within 0.15 s (a loaded machine); counts exactly.
. "$(dirname "$0")/e2e_lib.sh" api
LIB=$(cd "$PA_BIN/../lib" && pwd)
export PKG_CONFIG_PATH=$LIB/pkgconfig
# shellcheck disable=SC2046
cc -O1 -g -fno-inline -pthread $(pkg-config --cflags collectorAPI) "$PA_TOP/tests/fixtures/api_phases.c" \
	-o phases $(pkg-config --libs collectorAPI) -Wl,-rpath,"$LIB" || exit 1
cc -O1 -g -fno-inline -pthread -I"$LIB/../include" "$PA_TOP/tests/fixtures/api_phases.c" -o phases_static \
	"$LIB/libcollectorAPI.a" -ldl || exit 1
cc -O1 -g "$PA_TOP/tests/fixtures/api_signals.c" -o signals || exit 1

# ---- without collect: unchanged
for p in phases phases_static; do
	out=$(./$p 0.05) && rc=0 || rc=$?
	check "$p without collect: prints done, exit 0 (got '$out', $rc)" test "$out" = "done" -a $rc = 0
done
check "phases is linked against libcollectorAPI.so" eval 'ldd ./phases | grep -q libcollectorAPI.so'

# f FUNCTION: its inclusive CPU in -functions of EXP (0 when absent) [extra er_print commands first]
incl() {
	local exp=$1 fn=$2
	shift 2
	"$PA_BIN/er_print" "$@" -functions "$exp" 2>/dev/null | awk -v f="$fn" '$NF == f { print $3; found = 1; exit }
		END { if (!found) print 0 }'
}
near() { python3 -c "import sys; sys.exit(0 if abs(float('$1') - float('$2')) <= 0.15 else 1)"; }

for p in phases phases_static; do
	"$PA_BIN/collect" -S off -o $p.er ./$p 0.4 >$p.out 2>$p.err || { bad "collect $p"; cat $p.err; }
	check "$p under collect prints done" grep -qx "done" $p.out
	a=$(incl $p.er phase_a) paused=$(incl $p.er phase_paused) c=$(incl $p.er phase_c)
	check "$p: phase_paused absent from -functions (got $paused s)" test "$paused" = 0
	check "$p: phase_a ${a}s, phase_c ${c}s, each about 0.4 s" eval 'near "$a" 0.4 && near "$c" 0.4'
done

# ---- sample_list: labels, JSON; sample_select of after_b's sample
"$PA_BIN/er_print" -sample_list phases.er >list.txt 2>&1
check "sample_list shows the label after_b" grep -q 'collector_resume(API) -> after_b' list.txt
check "sample_list: gprofng's Exp/Sel/Total table (4 samples)" grep -Eq '^  1 all +4 $' list.txt
"$PA_BIN/er_print" -printmode json -sample_list phases.er >list.json 2>&1
k=$(python3 -c '
import json, sys
r = json.load(open("list.json"))
s = r["experiments"][0]["samples"]
paused = [x["number"] for x in s if x["paused"]]
after = [x["number"] for x in s if x["start_label"] == "after_b"]
assert paused == [2], paused
assert len(after) == 1 and s[after[0] - 1]["end_label"] == "collector_close_experiment"
print(after[0])') || bad "sample_list JSON: one paused sample, one opened by after_b"
check "the sample opened by after_b is sample 4 (got '$k')" test "${k:-}" = 4
sa=$(incl phases.er phase_a -sample_select "${k:-4}") sc=$(incl phases.er phase_c -sample_select "${k:-4}")
check "sample_select $k: phase_c alone (phase_a ${sa}s, phase_c ${sc}s)" eval 'test "$sa" = 0 && near "$sc" 0.4'
s1=$(incl phases.er phase_a -sample_select 1) s1c=$(incl phases.er phase_c -sample_select 1)
check "sample_select 1: phase_a alone (phase_a ${s1}s, phase_c ${s1c}s)" eval 'near "$s1" 0.4 && test "$s1c" = 0'
"$PA_BIN/er_print" -sample_select 4 -statistics phases.er >stats.txt 2>&1
check "statistics over sample 4: Start Label after_b" grep -Eq '^ +Start Label: after_b$' stats.txt
user=$(awk -F': *' '$1 ~ /User CPU$/ { split($2, v, " "); print v[1]; exit }' stats.txt)
check "statistics over sample 4: User CPU ${user}s, about phase_c's 0.4 s" near "${user:-0}" 0.4
check "sample_select 9: refused past nothing, selects none" eval \
	'[[ $(incl phases.er phase_c -sample_select 9) == 0 ]]'
"$PA_BIN/er_print" -sample_select 1-x -functions phases.er >bad.out 2>&1 && bad "sample_select 1-x accepted" ||
	check "sample_select 1-x: one message" grep -q "sample_select: invalid selection '1-x'" bad.out

# ---- collector_terminate_expt: the experiment ends, the program goes on
"$PA_BIN/collect" -S off -o term.er ./phases 0.2 terminate >term.out 2>term.err || { bad "collect terminate"; cat term.err; }
check "terminate: the program goes on and prints done" grep -qx "done" term.out
after=$(incl term.er phase_after) c=$(incl term.er phase_c)
check "terminate: phase_after absent (${after}s), phase_c there (${c}s)" eval 'test "$after" = 0 && near "$c" 0.2'
"$PA_BIN/er_print" -sample_list term.er >term.list 2>&1
check "terminate: the last sample ends at collector_close_experiment" grep -q -- '-> collector_close_experiment$' term.list

# ---- heap tracing and a pause: frees while paused are recorded, allocations not
"$PA_BIN/collect" -S off -H on -o heap.er ./phases 0.1 heap >heap.out 2>heap.err || { bad "collect -H on"; cat heap.err; }
"$PA_BIN/er_print" -leaks heap.er >heap.leaks 2>&1
check "-H on with a pause: 999 bytes leaked after the resume" grep -q 'Bytes Leaked = 999$' heap.leaks
for b in 12345 4444 64 7777 100000; do
	check "-H on with a pause: no $b-byte leak (freed, or allocated while paused)" \
		eval "! grep -q 'Bytes Leaked = $b\$' heap.leaks"
done

# ---- a thread running through a pause: its first sample after the resume carries no
# paused CPU, so its weight is at most the time since the resume (-p lo: 100 ms samples)
"$PA_BIN/collect" -S off -p lo -o wk.er ./phases 0.6 worker >wk.out 2>wk.err || { bad "collect worker"; cat wk.err; }
"$PA_BUILD/tests/tools/expdump" wk.er >wk.dump 2>&1
check "worker: the first sample after the resume weighs at most the time since it" python3 - wk.dump <<'EOP'
import re, sys
clocks, resume, worker = [], None, None
for l in open(sys.argv[1]):
    f = dict(re.findall(r"(\w+)=(\S+)", l))
    if l.startswith("thread_start") and f["creator"] != "0":
        worker = f["tid"]
    elif l.startswith("clock"):
        clocks.append((int(f["ts"]), f["tid"], int(f["weight"])))
    elif l.startswith("sample") and f.get("reason") == "5":
        resume = int(f["ts"])
assert worker and resume, (worker, resume)
mine = sorted(c for c in clocks if c[1] == worker)
before = [c for c in mine if c[0] < resume]
after = [c for c in mine if c[0] > resume]
assert before and after, ("worker samples before/after the resume", len(before), len(after))
ts, _, weight = after[0]
print("first after the resume: weight %.1f ms, %.1f ms after it" % (weight / 1e6, (ts - resume) / 1e6))
assert weight <= ts - resume, "paused CPU recorded"
EOP

# ---- collect -l USR1 -y USR2 (starts paused)
"$PA_BIN/collect" -o sig.er -l USR1 -y USR2 ./signals 0.3 >sig.out 2>sig.err || { bad "collect -l -y"; cat sig.err; }
check "the program's USR1 handler got both signals" grep -qx 'usr1 2' sig.out
hid=$(incl sig.er hidden_phase) shown=$(incl sig.er shown_phase)
check "-y: paused phases absent (hidden_phase ${hid}s), resumed phase there (shown_phase ${shown}s)" \
	eval 'test "$hid" = 0 && near "$shown" 0.3'
"$PA_BIN/er_print" -printmode json -sample_list sig.er >sig.json 2>&1
check "-l: two 'signal' sample points, -y: a resume and a pause" python3 -c '
import json
s = json.load(open("sig.json"))["experiments"][0]["samples"]
ends = [x.get("end_label") for x in s]
assert ends.count("signal") == 2, ends
assert ends.count("collector_resume(signal)") == 1 and ends.count("collector_pause(signal)") == 2, ends'
grep -q 'id="app_sample_signal"' sig.er/log.xml && ok "log.xml notes the program's own -l handler" ||
	bad "no app_sample_signal note in log.xml"

# ---- collect -S: points are taken by the threads' clock samples, so the run burns CPU
cc -O1 -g "$PA_TOP/tests/fixtures/col_spin.c" -o spin || exit 1
"$PA_BIN/collect" -o s1.er -S 1 ./spin 3.5 >/dev/null 2>s1.err || bad "collect -S 1"
"$PA_BIN/collect" -o soff.er -S off ./spin 1.2 >/dev/null 2>soff.err || bad "collect -S off"
periodic() { "$PA_BIN/er_print" -sample_list "$1" | grep -c -- '-> periodic'; }
n=$(periodic s1.er)
"$PA_BIN/er_print" -printmode json -sample_list s1.er >s1.json
dur=$(python3 -c 'import json; print(json.load(open("s1.json"))["experiments"][0]["samples"][-1]["end_ns"] / 1e9)')
# one point per whole second of the run: 3 for 3.5 s of CPU, more only if the CPU was shared
check "-S 1 on a ${dur}s run of 3.5 s of CPU: $n periodic sample points, one a second" python3 -c "
import math, sys; n, d = $n, $dur
sys.exit(0 if 3 <= n and math.floor(d) - 1 <= n <= math.floor(d) else 1)"
n=$(periodic soff.er)
check "-S off: no periodic sample point (got $n)" test "$n" = 0
e2e_end
