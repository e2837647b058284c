#!/usr/bin/env bash
# How the reader charges a thread's CPU time beyond its samples, on a
# synthetic experiment with known numbers (interval I = 10.007 ms):
#  - first_expiry="grid" (format 1.11: the first sample weighs I):
#      thread 1, CPU 105 ms, 10 samples (work 9, fast 1): fast's, the last, gets
#        the 4.930 ms more the thread ran: work 90.063, fast 14.937;
#      thread 2, CPU 95 ms, 10 samples (slow 9, both 1): the samples stand for
#        5.070 ms more than it ran, so its last one (both) weighs that much less:
#        slow 90.063, both 4.937;
#      thread 3, CPU 3 ms < I, one sample in main: it keeps its I, 10.007;
#      thread 4, CPU 3 ms, no sample: nothing (exact in expectation);
#    <Total> 105 + 95 + 10.007 = 210.007 ms;
#  - the same samples with first_expiry="uniform" (1.3 to 1.10): only more CPU
#    than sampled is charged (fast 14.937, both 10.007), and a sampled short
#    thread is charged I (main 10.007): <Total> 215.077;
#  - with the target's CPU time from collect's wait4 (rusage) 0.4 ms more than
#    the threads' ends, grid: <Process-exit> 0.4 ms (what ran after the
#    collector's end), <Total> as wait4 says; 60 ms more: not charged (no exit
#    takes that long); uniform: not charged.
. "$(dirname "$0")/common.bash"
prog=$(fixture_prog)
script() {
	cat <<EOS
object $prog
expiry $1
thread 100
thread 200 100
thread 300 100
thread 400 100
sample 100 9 10007000 work+1 main+1
sample 100 1 10007000 fast+1 main+1
sample 200 9 10007000 slow+1 main+1
sample 200 1 10007000 both+1 main+1
sample 300 1 10007000 main+1
end 100 105000000
end 200 95000000
end 300 3000000
end 400 3000000
rusage 206000000 0
EOS
}
script grid | "$MKEXP" "$WORK/g.er" || exit 1
script uniform | "$MKEXP" "$WORK/u.er" || exit 1
ex() { # EXP FUNC: FUNC's exclusive CPU (ms, 3 decimals)
	"$ER_PRINT" -metrics e.totalcpu:name -functions "$1" 2>&1 |
		awk -v f="$2" '$NF == f { printf "%.3f", $1 * 1000; found = 1 } END { if (!found) printf "none" }'
}
want() { # WHAT GOT WANT
	[[ $2 == "$3" ]] && pass "$1: $2 ms" || fail "$1: $2 ms, want $3"
}
# er_print shows seconds to the ms: compare what it prints
want "grid: work" "$(ex "$WORK/g.er" work)" 90.000
want "grid: fast (its thread's 4.930 ms more)" "$(ex "$WORK/g.er" fast)" 15.000
want "grid: slow" "$(ex "$WORK/g.er" slow)" 90.000
want "grid: both (5.070 ms less)" "$(ex "$WORK/g.er" both)" 5.000
want "grid: main (a short thread keeps its interval)" "$(ex "$WORK/g.er" main)" 10.000
want "grid: <Total>" "$(ex "$WORK/g.er" '<Total>')" 210.000
want "uniform: fast" "$(ex "$WORK/u.er" fast)" 15.000
want "uniform: both (never less)" "$(ex "$WORK/u.er" both)" 10.000
want "uniform: <Total>" "$(ex "$WORK/u.er" '<Total>')" 215.000
# what a process ran after its collector's end (<Process-exit>): its CPU time from
# collect's wait4 less its threads' ends, when that is no more than an exit can be
exitrun() { # NAME EXPIRY UTIME_NS: the threads end at 105, 95, 3 and 3 ms: 206 ms
	{ script "$2"; echo "rusage $3 0"; } | "$MKEXP" "$WORK/$1.er" || exit 1
}
exitrun x1 grid 206400000
exitrun x2 grid 266000000
exitrun x3 uniform 206400000
ns() { # EXP FUNC: FUNC's exclusive CPU in ns (JSON), "none" if absent
	"$ER_PRINT" -printmode json -metrics e.totalcpu:name -functions "$1" 2>&1 | python3 -c "
import json, sys
for line in sys.stdin:
    if line.startswith('{') and json.loads(line).get('report') == 'functions':
        rows = {r['name']: r['e.totalcpu'] for r in json.loads(line)['tables'][0]['rows']}
        print(rows.get(sys.argv[1], 'none'))" "$2"
}
want "grid, 0.4 ms after the threads' ends: <Process-exit>" "$(ns "$WORK/x1.er" '<Process-exit>')" 400000
want "grid: <Total> is wait4's" "$(ns "$WORK/x1.er" '<Total>')" 210407000
want "grid, 60 ms after: more than an exit, not charged" "$(ns "$WORK/x2.er" '<Process-exit>')" none
want "uniform (before 1.11): not charged" "$(ns "$WORK/x3.er" '<Process-exit>')" none
# exact figures through JSON
"$ER_PRINT" -printmode json -metrics e.totalcpu:name -functions "$WORK/g.er" >"$WORK/g.json" 2>&1
python3 - "$WORK/g.json" <<'PY' && pass "grid: exact ns through JSON" || fail "grid: JSON figures"
import json, sys
for line in open(sys.argv[1]):
    line = line.strip()
    if not line.startswith("{"):
        continue
    r = json.loads(line)
    if r.get("report") != "functions":
        continue
    vals = {row["name"]: row["e.totalcpu"] for row in r["tables"][0]["rows"]}
    want = {"work": 90063000, "fast": 14937000, "slow": 90063000, "both": 4937000, "main": 10007000,
            "<Total>": 210007000}
    bad = {k: (vals.get(k), v) for k, v in want.items() if vals.get(k) != v}
    print("# JSON:", {k: vals.get(k) for k in want}, "mismatch:" if bad else "", bad if bad else "")
    sys.exit(1 if bad else 0)
sys.exit(1)
PY
finish
