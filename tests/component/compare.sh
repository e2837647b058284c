#!/usr/bin/env bash
# compare on|delta|ratio (issue #16 item 4): three synthetic experiments of
# known per-function CPU, the second of a rebuild of the program at other
# addresses (functions are matched by name and object basename, not address):
#   a.er (prog):    work 1.0 s (slow <- main), fast 0.2 s (<- main)       total 1.2
#   b.er (v2/prog): work 2.0 s (slow <- main), fast 0.1 s, both 0.5 s     total 2.6
#   c.er (prog):    work 0.5 s (slow <- main)                             total 0.5
# `both` has CPU only in b.er.
. "$(dirname "$0")/common.bash"
prog=$(fixture_prog)
mkdir -p "$WORK/v2"
cc -O0 -g -falign-functions=256 "$PA_TOP/tests/fixtures/cc_prog.c" -o "$WORK/v2/prog" || exit 1
[[ $(nm "$prog" | awk '$3 == "work" {print $1}') != $(nm "$WORK/v2/prog" | awk '$3 == "work" {print $1}') ]] ||
	fail "the rebuild did not move work"
mk() { # NAME OBJECT CPU_NS, script on stdin (the samples add up to the thread's CPU)
	{ echo "object $2"; echo "thread 100"; cat; echo "end 100 $3"; } >"$WORK/$1.txt"
	"$MKEXP" "$WORK/$1.er" <"$WORK/$1.txt" || exit 1
}
mk a "$prog" 1200000000 <<EOS
sample 100 100 10000000 work+10 slow+9 main+42
sample 100 20 10000000 fast+9 main+16
EOS
mk b "$WORK/v2/prog" 2600000000 <<EOS
sample 100 200 10000000 work+10 slow+9 main+42
sample 100 10 10000000 fast+9 main+16
sample 100 50 10000000 both+8 main+16
EOS
mk c "$prog" 500000000 <<EOS
sample 100 50 10000000 work+10 slow+9 main+42
EOS
cd "$WORK" || exit 1
# row NAME FILE: the line of the functions table for NAME (the name last)
row() { awk -v n="$1" '$1 ~ /^[0-9+-]/ && ($NF == n || $NF == "*" n) { $NF = ""; print; exit }' "$2" | sed 's/ *$//'; }
check_row() { # LABEL FILE NAME EXPECTED
	local got
	got=$(row "$3" "$2")
	[[ $got == "$4" ]] && pass "$1: $3" || fail "$1: $3 is '$got', not '$4'"
}

"$ER_PRINT" -compare on -functions a.er b.er >on.txt 2>&1 || fail "compare on exited $?"
check_row on on.txt '<Total>' '1.200 100.00 2.600 100.00 1.200 100.00 2.600 100.00'
check_row on on.txt work '1.000 83.33 2.000 76.92 1.000 83.33 2.000 76.92'
check_row on on.txt fast '0.200 16.67 0.100 3.85 0.200 16.67 0.100 3.85'
check_row on on.txt both '0. 0. 0.500 19.23 0. 0. 0.500 19.23'
check_row on on.txt slow '0. 0. 0. 0. 1.000 83.33 2.000 76.92'
head -5 on.txt | tail -2 | tr -s ' ' >hdr.txt
grep -qx 'a.er b.er a.er b.er' <(sed -n 1p hdr.txt) && grep -q '^Excl. Total Excl. Total Incl. Total Incl. Total Name' <(sed -n 2p hdr.txt) &&
	pass "on: experiment names above the columns" || { fail "on header"; cat on.txt; }
# order: the baseline's exclusive CPU, then names: <Total>, work, fast, both, main, slow
order=$(awk 'NR > 7 && NF {print $NF}' on.txt | tr '\n' ' ')
[[ $order == "<Total> work fast both main slow " ]] && pass "on: rows in the baseline's order" ||
	fail "on: order '$order'"

"$ER_PRINT" -compare delta -functions a.er b.er >delta.txt 2>&1 || fail "compare delta exited $?"
check_row delta delta.txt '<Total>' '1.200 100.00 +1.400 100.00 1.200 100.00 +1.400 100.00'
check_row delta delta.txt work '1.000 83.33 +1.000 76.92 1.000 83.33 +1.000 76.92'
check_row delta delta.txt fast '0.200 16.67 -0.100 3.85 0.200 16.67 -0.100 3.85'
check_row delta delta.txt both '0. 0. +0.500 19.23 0. 0. +0.500 19.23'
check_row delta delta.txt main '0. 0. +0. 0. 1.200 100.00 +1.400 100.00'
grep -q ' sec\. *% *delta *%' delta.txt && pass "delta: units line" || fail "delta units"

"$ER_PRINT" -compare ratio -functions a.er b.er >ratio.txt 2>&1 || fail "compare ratio exited $?"
check_row ratio ratio.txt '<Total>' '1.200 100.00 x 2.167 100.00 1.200 100.00 x 2.167 100.00'
check_row ratio ratio.txt work '1.000 83.33 x 2.000 76.92 1.000 83.33 x 2.000 76.92'
check_row ratio ratio.txt fast '0.200 16.67 x 0.500 3.85 0.200 16.67 x 0.500 3.85'
check_row ratio ratio.txt both '0. 0. x >99.999 19.23 0. 0. x >99.999 19.23'
check_row ratio ratio.txt main '0. 0. x 1.000 0. 1.200 100.00 x 2.167 100.00'

# a function present only in the baseline: both with b.er first
"$ER_PRINT" -compare ratio -functions b.er a.er >ratio_ba.txt 2>&1
check_row "ratio b a" ratio_ba.txt both '0.500 19.23 x 0. 0. 0.500 19.23 x 0. 0.'
check_row "ratio b a" ratio_ba.txt fast '0.100 3.85 x 2.000 16.67 0.100 3.85 x 2.000 16.67'

# three experiments: c.er against a.er too
"$ER_PRINT" -compare ratio -metrics e.totalcpu:name -functions a.er b.er c.er >three.txt 2>&1 ||
	fail "three exited $?"
check_row three three.txt '<Total>' '1.200 x 2.167 x 0.417'
check_row three three.txt work '1.000 x 2.000 x 0.500'
check_row three three.txt fast '0.200 x 0.500 x 0.'
check_row three three.txt both '0. x >99.999 x 1.000'
grep -q '^a.er  *b.er  *c.er *$' three.txt && pass "three: three experiment names" || { fail "three header"; cat three.txt; }

# lines and PCs are matched by file + line and by function + offset
"$ER_PRINT" -compare delta -metrics e.totalcpu:name -lines -pcs a.er b.er >lp.txt 2>&1 || fail "lines/pcs exited $?"
grep -qE '^1\.000 +\+1\.000 +work, line [0-9]+ in "cc_prog\.c"$' lp.txt && pass "lines: work's line matched" ||
	{ fail "lines"; cat lp.txt; }
grep -qE '^1\.000 +\+1\.000 +work \+ 0x0000000a, line [0-9]+ in "cc_prog\.c"$' lp.txt &&
	pass "pcs: work + 0xa matched" || { fail "pcs"; cat lp.txt; }
grep -qE '^0\. +\+0\.500 +both \+ 0x00000008' lp.txt && pass "pcs: a PC of b.er only" || fail "pcs both"

# callers-callees: per block the callers, the function, the callees per experiment
"$ER_PRINT" -compare on -callers-callees a.er b.er >cc.txt 2>&1 || fail "callers-callees exited $?"
block() { awk -v RS= -v f="*$1" '{ n = split($0, l, "\n"); for (i = 1; i <= n; i++) if (substr(l[i], length(l[i]) - length(f) - 1) == "  " f) { print; exit } }' cc.txt; }
block work >cc_work.txt
check_row "callers-callees work" cc_work.txt slow '1.000 100.00 2.000 100.00'
check_row "callers-callees work" cc_work.txt work '1.000 100.00 2.000 100.00'
block main >cc_main.txt
check_row "callers-callees main" cc_main.txt '<Total>' '1.200 100.00 2.600 100.00'
check_row "callers-callees main" cc_main.txt main '0. 0. 0. 0.'
check_row "callers-callees main" cc_main.txt slow '1.000 83.33 2.000 76.92'
check_row "callers-callees main" cc_main.txt fast '0.200 16.67 0.100 3.85'
check_row "callers-callees main" cc_main.txt both '0. 0. 0.500 19.23'
order=$(awk '$1 ~ /^[0-9]/ {print $NF}' cc_main.txt | tr '\n' ' ')
[[ $order == "<Total> *main slow fast both " ]] && pass "callers-callees: callees in the baseline's order" ||
	fail "callers-callees order '$order'"

# the same figures as JSON: a key per metric and experiment
"$ER_PRINT" -compare delta -printmode json -functions a.er b.er 2>&1 | grep -v '^Compare mode' >cmp.json
python3 - cmp.json <<'EOF' && pass "json: values per experiment" || fail "json: $(head -c 600 cmp.json)"
import json, sys
d = json.load(open(sys.argv[1]))
t = d["tables"][0]
cols = {c["key"]: c for c in t["columns"]}
assert cols["e.totalcpu#2"]["compare"] == "delta" and cols["e.totalcpu#2"]["experiment"] == "b.er", cols
rows = {r["name"]: r for r in t["rows"]}
assert rows["work"]["e.totalcpu#1"] == 1000000000 and rows["work"]["e.totalcpu#2"] == 2000000000
assert rows["both"]["e.totalcpu#1"] == 0 and rows["both"]["i.totalcpu#2"] == 500000000
EOF

# a group is one side; compare off restores the aggregate list
printf '#analyzer experiment group\nb.er\nc.er\n' >bc.erg
"$ER_PRINT" -compare ratio -metrics e.totalcpu:name -functions a.er bc.erg >grp.txt 2>&1
check_row group grp.txt work '1.000 x 2.500'
[[ $(grep -c ' work$' grp.txt) == 1 ]] && pass "group: work of two builds of prog is one row" || fail "group: work twice"
grep -q '^a.er  *bc.erg *$' grp.txt && pass "group: named by its file" || fail "group header"
"$ER_PRINT" -compare on -compare off -metrics e.totalcpu:name -functions a.er c.er >off.txt 2>&1
check_row off off.txt work '1.500'

# one experiment: a clear message, and the mode stays off
if "$ER_PRINT" -compare on -functions a.er >one.txt 2>&1; then fail "compare on with one experiment accepted"; fi
grep -q "compare needs two or more" one.txt && check_row one one.txt work '1.000 83.33 1.000 83.33' ||
	{ fail "one experiment"; cat one.txt; }
# .er.rc: compare is a defaults-file command
echo "compare delta" >.er.rc
HOME=$WORK PA_SYSTEM_RC=/dev/null "$ER_PRINT" -metrics e.totalcpu:name -functions a.er b.er >rc.txt 2>&1
check_row rc rc.txt fast '0.200 -0.100'
rm .er.rc
finish
