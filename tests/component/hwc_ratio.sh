#!/usr/bin/env bash
# Derived counter metrics IPC (insts / cycles) and CPI (cycles / insts) on a
# synthetic experiment, each overflow worth 1000000 events:
#   work<-slow<-main  cycles 30  insts 60   -> work IPC 2.000, CPI 0.500
#   fast<-both<-main  cycles 20  insts 10   -> fast IPC 0.500, CPI 2.000
#   slow<-main        cycles 10  insts 0    -> slow exclusive 0 and 0 (no instructions)
# Inclusive: slow 40 / 60 (IPC 1.500, CPI 0.666), main and <Total>
# 60 / 70 (IPC 1.166, CPI 0.857): ratios of the sums, truncated to 3 decimals.
# A source line of two line ids (tests/fixtures/inl_line.c: one line inlined into fa
# and fb, inline off) shows in -source the ratio of its summed parts.
. "$(dirname "$0")/common.bash"
prog=$(fixture_prog)
cat >"$WORK/s.txt" <<EOS
object $prog
thread 100
hwcounter cycles 1000000 events
hwcounter insts 1000000 events
hwc 100 0 30 work+10 slow+9 main+42
hwc 100 1 60 work+10 slow+9 main+42
hwc 100 0 20 fast+9 both+8 main+16
hwc 100 1 10 fast+9 both+8 main+16
hwc 100 0 10 slow+9 main+42
end 100 100000000
EOS
"$MKEXP" "$WORK/r.er" <"$WORK/s.txt" || exit 1
cd "$WORK" || exit 1
row() { # the figures of the row named $2, single-spaced
	awk -v n="$2" '$NF == n { $NF = ""; sub(/ +$/, ""); print; exit }' "$1"
}
check_row() { # FILE NAME EXPECTED WHAT
	[[ $(row "$1" "$2") == "$3" ]] && pass "$4" || { fail "$4: '$(row "$1" "$2")'"; cat "$1"; }
}

printf 'metrics e.cycles:e.insts:e.IPC:i.IPC:e.CPI:i.CPI:name\nfunctions\n' >m.cmds
"$ER_PRINT" -script m.cmds r.er >fm 2>&1
check_row fm "<Total>" "60000000 70000000 1.166 1.166 0.857 0.857" "<Total>: the ratios of the sums"
check_row fm work "30000000 60000000 2.000 2.000 0.500 0.500" "work: IPC and CPI"
check_row fm fast "20000000 10000000 0.500 0.500 2.000 2.000" "fast: IPC and CPI"
check_row fm slow "10000000 0 0.000 1.500 0.000 0.666" "slow: 0 without instructions, inclusive of work"
check_row fm main "0 0 0.000 1.166 0.000 0.857" "main: inclusive ratios"
grep -q "%" <(sed -n '/Name/,$p' fm | grep -v "^ *Excl\|^ *Incl") &&
	{ fail "a ratio shown as a percentage"; cat fm; } || pass "no percentage for a ratio"

printf 'metrics a.cycles:a.insts:a.IPC:a.CPI:name\ncsingle main\n' >c.cmds
"$ER_PRINT" -script c.cmds r.er >"fc" 2>&1
# main's callees: slow (40M, 60M) and both (20M, 10M); its caller <Total>
check_row fc slow "40000000 66.67 60000000 85.71 1.500 0.666" "callers-callees: main->slow attributed"
check_row fc both "20000000 33.33 10000000 14.29 0.500 2.000" "callers-callees: main->both attributed"
check_row fc "<Total>" "60000000 100.00 70000000 100.00 1.166 0.857" "callers-callees: <Total>->main attributed"

printf 'metrics e.IPC:i.CPI:name\nfunctions\n' >j.cmds
"$ER_PRINT" -printmode json -script j.cmds r.er 2>&1 | grep '"report":"functions"' >js
python3 - js <<'EOP' && pass "json: ratio columns with their unit, values x 1000" || fail "json: $(head -c 600 js)"
import json, sys
d = json.load(open(sys.argv[1]))
t = d["tables"][0]
cols = {c["key"]: c for c in t["columns"]}
assert cols["e.IPC"]["unit"] == "ratio_x1000" and cols["i.CPI"]["unit"] == "ratio_x1000", cols
assert "total" not in cols["e.IPC"], cols
rows = {r["name"]: r for r in t["rows"]}
assert rows["<Total>"]["e.IPC"] == 1166 and rows["<Total>"]["i.CPI"] == 857, rows["<Total>"]
assert rows["work"]["e.IPC"] == 2000 and rows["fast"]["i.CPI"] == 2000, rows
EOP

# summaries: a ratio has no share of a total
printf 'fsummary\n' >s.cmds
"$ER_PRINT" -script s.cmds r.er >fs 2>&1
sed -n '/^work$/,/^$/p' fs >fs.work
grep -qx $'\tExclusive Instructions Per Cycle: 2.000' fs.work &&
	grep -qx $'\tInclusive Cycles Per Instruction: 0.500' fs.work &&
	pass "fsummary: work's IPC and CPI, no percentage" || { fail "fsummary ratios"; cat fs.work; }
grep -q 'Per Cycle.*%\|Per Instruction.*%' fs && { fail "fsummary: a ratio with a percentage"; cat fs; } ||
	pass "fsummary: no ratio with a percentage"
printf 'lsummary\n' >l.cmds
"$ER_PRINT" -script l.cmds r.er >"ls" 2>&1
grep -q 'Per Cycle: [0-9.]*$' ls && ! grep -q 'Per Cycle.*%' ls && pass "lsummary: ratios without percentage" ||
	{ fail "lsummary ratios"; cat ls; }

# -source: a source line of two line ids (sq's body inlined into fa and fb, inline off)
# shows the ratio of its summed parts: fa 10M cycles 30M insts (IPC 3.000), fb 30M and
# 10M (0.333): line 7 has 40M and 40M, IPC 1.000 (a sum of ratios would be 3.333).
cc -O2 -g "$PA_TOP/tests/fixtures/inl_line.c" -o inl || exit 1
iline=$(grep -n INLINED "$PA_TOP/tests/fixtures/inl_line.c" | cut -d: -f1)
inl_off() { # the first offset in function $1 that the line table puts on line $iline
	local a s
	read -r a s < <(nm -S inl | awk -v f="$1" '$4 == f { print $1, $2 }')
	for ((o = 0; o < 0x$s; o++)); do printf '%x\n' $((0x$a + o)); done | addr2line -e inl |
		grep -n ":$iline\b" | head -1 | awk -F: '{ print $1 - 1 }'
}
oa=$(inl_off fa) ob=$(inl_off fb)
if [[ -n $oa && -n $ob ]]; then
	cat >il.txt <<EOS
object $WORK/inl
thread 100
hwcounter cycles 1000000 events
hwcounter insts 1000000 events
hwc 100 0 10 fa+$oa main+20
hwc 100 1 30 fa+$oa main+20
hwc 100 0 30 fb+$ob main+25
hwc 100 1 10 fb+$ob main+25
end 100 100000000
EOS
	"$MKEXP" il.er <il.txt || exit 1
	printf 'inline off\nmetrics e.cycles:e.insts:e.IPC:e.CPI\nlines\nsource fa\n' >il.cmds
	"$ER_PRINT" -script il.cmds il.er >fil 2>&1
	grep -Eq '^ *10000000 +30000000 +3\.000 +0\.333 +fa, line '"$iline"' ' fil &&
		grep -Eq '^ *30000000 +10000000 +0\.333 +3\.000 +fb, line '"$iline"' ' fil &&
		pass "lines: line $iline has a line id in fa (IPC 3.000) and one in fb (0.333)" ||
		{ fail "lines of the inlined line"; cat fil; }
	grep -Eq '^ *40000000 +40000000 +1\.000 +1\.000 +'"$iline"'\. ' fil &&
		pass "source: line $iline shows IPC 1.000 of its summed parts, not 3.333" ||
		{ fail "source: the inlined line's ratio"; cat fil; }
else
	fail "inl_line: no instruction of fa ($oa) or fb ($ob) on line $iline"
fi

for fmt in folded pprof speedscope; do
	"$ER_PRINT" -export "$fmt:IPC" out.$fmt r.er >"ex" 2>&1
	if grep -q "IPC is a ratio (insts / cycles), not a quantity to add up along stacks" ex && [[ ! -e out.$fmt ]]; then
		pass "export $fmt:IPC refused, no file"
	else
		fail "export $fmt:IPC"; cat ex
	fi
done
"$ER_PRINT" -export folded:insts out.folded r.er >"ex" 2>&1
grep -q "work;slow;main\|main;slow;work" out.folded && pass "export of a counter still works" ||
	{ fail "export folded:insts"; cat ex out.folded; }

# cycles as time at the clock rate of log.xml (mkexp: 2000 MHz): 1000000 cycles = 0.5 ms
printf 'metrics e.cycles_time:i.cycles_time:name\nfunctions\n' >t.cmds
"$ER_PRINT" -script t.cmds r.er >ft 2>&1
grep -qE "^ *time +time *$" ft && pass "cycles time: its columns" || { fail "cycles time column"; cat ft; }
check_row ft "<Total>" "0.030 0.030" "cycles time: <Total> 60M cycles at 2 GHz = 30 ms"
check_row ft work "0.015 0.015" "cycles time: work 30M cycles = 15 ms"
check_row ft slow "0.005 0.020" "cycles time: slow exclusive and inclusive"
"$ER_PRINT" -export folded:cycles_time out.t r.er >"ex" 2>&1
grep -qx "main;slow;work 15000000" out.t && pass "cycles time exported in ns" || { fail "export cycles_time"; cat ex out.t; }
sed 's/clock_mhz="2000"/clock_mhz="0"/' r.er/log.xml >log0 && cp -r r.er u.er && cp log0 u.er/log.xml
"$ER_PRINT" -script t.cmds u.er >fu 2>&1
grep -q "cycles_time' needs .*clock rate" fu && pass "cycles time: unknown clock rate said" || { fail "no clock rate"; cat fu; }

# the analyzer: the flame graph and the timeline refuse a ratio, the function list shows it
if command -v curl >/dev/null; then
	"$PA_BIN/analyzer" --no-browser --port 0 r.er >an.out 2>an.err &
	an=$!
	trap 'kill -KILL $an 2>/dev/null; rm -rf "$WORK"' EXIT
	for ((i = 0; i < 100; i++)); do
		grep -q '^Analyzer: ' an.out && break
		sleep 0.1
	done
	url=$(sed -n 's/^Analyzer: //p' an.out)
	[[ $url =~ ^(http://127\.0\.0\.1:([0-9]+))/\?token=([0-9a-f]{32})$ ]] || { fail "analyzer: no URL"; cat an.err; }
	base=${BASH_REMATCH[1]} cookie="pa_token_${BASH_REMATCH[2]}=${BASH_REMATCH[3]}"
	for v in flame timeline; do
		c=$(curl -s -o "$v.json" -w '%{http_code}' -b "$cookie" "$base/api/$v?metric=IPC")
		[[ $c == 400 ]] && grep -qF "metric 'IPC' is a ratio (insts / cycles)" "$v.json" &&
			pass "analyzer: $v refuses IPC" || fail "analyzer $v: $c $(head -c 300 "$v.json")"
	done
	curl -s -b "$cookie" "$base/api/functions?metrics=e.IPC:name" >af.json
	python3 - af.json <<'EOP' && pass "analyzer: functions with IPC" || fail "analyzer functions: $(head -c 400 af.json)"
import json, sys
d = json.load(open(sys.argv[1]))
s = json.dumps(d)
assert "ratio_x1000" in s and "1166" in s, s[:400]
EOP
	kill -TERM $an
	wait $an
fi

# no IPC without both counters
sed '/insts/d' s.txt >s1.txt
"$MKEXP" c.er <s1.txt || exit 1
printf 'metrics e.IPC:name\nfunctions\n' >n.cmds
"$ER_PRINT" -script n.cmds c.er >fn 2>&1
grep -q "IPC" fn && grep -qi "unknown\|needs\|no metric" fn && pass "IPC absent with cycles alone" ||
	{ fail "IPC with cycles alone"; cat fn; }
finish
