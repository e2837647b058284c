#!/usr/bin/env bash
# Counter overflow metrics (collect -h) on a synthetic experiment with known
# numbers: clock samples beside two counters, page-faults every 100 events and
# context-switches every event, each overflow worth its interval:
#   page-faults:      work<-slow<-main 30 overflows, fast<-both<-main 12 -> 3000 + 1200 events
#   context-switches: slow<-main 5, work<-both<-main 2                    -> 5 + 2 events
. "$(dirname "$0")/common.bash"
prog=$(fixture_prog)
cat >"$WORK/s.txt" <<EOS
object $prog
thread 100
sample 100 10 10000000 work+10 slow+9 main+42
hwcounter page-faults 100 events
hwcounter context-switches 1 events
hwc 100 0 30 work+10 slow+9 main+42
hwc 100 0 12 fast+9 both+8 main+16
hwc 100 1 5 slow+9 main+42
hwc 100 1 2 work+10 both+8 main+16
end 100 100000000
EOS
"$MKEXP" "$WORK/h.er" <"$WORK/s.txt" || exit 1
cd "$WORK" || exit 1
has() { grep -qF -- "$3" "$2" && pass "$1" || { fail "$1: no '$3' in:"; cat "$2"; }; }
row() { # the figures of the row named $2, single-spaced
	awk -v n="$2" '$NF == n { $NF = ""; sub(/ +$/, ""); print; exit }' "$1"
}

"$ER_PRINT" -functions h.er >fn 2>&1
has "the counters by default, after the CPU columns" fn "page-faults  page-faults  context-switches  context-switches"
[[ $(row fn "<Total>") == "0.100 100.00 0.100 100.00 4200 4200 7 7" ]] &&
	pass "<Total>: every overflow times its interval" || { fail "<Total> row: '$(row fn "<Total>")'"; cat fn; }
printf 'metrics e.page-faults:i.page-faults:e.context-switches:i.context-switches:name\nfunctions\n' >m.cmds
"$ER_PRINT" -script m.cmds h.er >fm 2>&1
[[ $(row fm work) == "3000 3000 2 2" ]] && pass "work: exclusive and inclusive" ||
	{ fail "work: '$(row fm work)'"; cat fm; }
[[ $(row fm slow) == "0 3000 5 5" ]] && pass "slow: its own switches, work's faults inclusive" ||
	{ fail "slow: '$(row fm slow)'"; cat fm; }
[[ $(row fm main) == "0 4200 0 7" ]] && pass "main: everything inclusive" ||
	{ fail "main: '$(row fm main)'"; cat fm; }
"$ER_PRINT" -header h.er >hd 2>&1
has "header: the counters and their intervals" hd "page-faults, interval = 100 events"
printf 'sort e.context-switches\nmetrics e.context-switches:name\nfunctions\n' >s.cmds
"$ER_PRINT" -script s.cmds h.er >fs 2>&1
[[ $(awk 'NR > 1 && /^ *[0-9]/ { print $NF }' fs | sed -n 2p) == slow ]] && pass "sort by a counter: slow first" ||
	{ fail "sort by a counter"; cat fs; }
"$ER_PRINT" -printmode json -functions h.er >js 2>&1
python3 - js <<'EOP' && pass "json: the counter columns typed" || fail "json: $(head -c 400 js)"
import json, sys
d = json.load(open(sys.argv[1]))
cols = d["tables"][0]["columns"]
keys = [c["key"] for c in cols]
assert "e.page-faults" in keys and "i.context-switches" in keys, keys
tot = d["tables"][0]["rows"][0]
assert tot["e.page-faults"] == 4200 and tot["i.context-switches"] == 7, tot
EOP
finish
