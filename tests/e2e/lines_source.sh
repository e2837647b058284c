#!/usr/bin/env bash
# Where in the code (issue #4): a fixture whose hot loop calls an
# always-inline helper, built -O2 -g with DWARF 5 (gcc 12's default) and
# DWARF 4.  Expectations:
#  - lines: the hot loop's lines (the helper's body, the for line and the
#    loop body) carry >= 90% of the exclusive time, the hottest line is one
#    of them, and the helper's line is charged to square (how the time splits
#    between the loop's lines depends on the compiler's code layout, so no
#    line is required to be the hottest); PCs carry line numbers;
#  - inline on (default): square is a function of its own, called from hot;
#    inline off: square disappears and hot has the time;
#  - source hot: the hot line is marked ## and the loop's line shows metrics;
#  - disasm hot: instructions with metrics, source lines interleaved, ## marks.
set -u
: "${PA_TOP:?run through tests/run.sh}" "${PA_BIN:?}"
W=$(mktemp -d /tmp/pa-e2e-lines.XXXXXX)
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1
cp "$PA_TOP/tests/fixtures/e2e_lines.c" .
L_SQUARE=$(grep -n 'LINE:square' e2e_lines.c | cut -d: -f1)
L_HOT=$(grep -n 'LINE:hot' e2e_lines.c | cut -d: -f1)
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
for dw in 5 4; do
	cc -O2 -g -gdwarf-$dw e2e_lines.c -o prog$dw || exit 1
	"$PA_BIN/collect" -o d$dw.er ./prog$dw 1.5 >/dev/null 2>&1 || { bad "collect (DWARF $dw)"; continue; }
	"$PA_BIN/er_print" -lines d$dw.er >lines$dw 2>&1 || { bad "lines (DWARF $dw)"; cat lines$dw; continue; }
	# the loop: the helper's body, the for line and the loop body
	share=$(awk -v a="line $L_SQUARE in" -v b="line $L_HOT in" -v c="line $((L_HOT - 1)) in" \
		'index($0, a) || index($0, b) || index($0, c) { s += $2 } END { print s + 0 }' lines$dw)
	sq_line=$(awk -v a="square, line $L_SQUARE in" 'index($0, a) { print $2; exit }' lines$dw)
	# the first row after <Total> is the hottest line
	top=$(awk '/<Total>/ { getline; print; exit }' lines$dw)
	python3 -c "import sys; sys.exit(0 if $share >= 90 else 1)" &&
		ok "DWARF $dw: the loop's lines $L_SQUARE, $((L_HOT - 1)), $L_HOT carry $share% of the exclusive time" ||
		{ bad "DWARF $dw: the loop's lines carry only $share%"; cat lines$dw; }
	case $top in
	*"line $L_SQUARE in"* | *"line $L_HOT in"* | *"line $((L_HOT - 1)) in"*)
		ok "DWARF $dw: the hottest line is one of the loop's: ${top##*  }" ;;
	*) bad "DWARF $dw: the hottest line is not one of the loop's: $top" ;;
	esac
	python3 -c "import sys; sys.exit(0 if float('${sq_line:-0}') >= 5 else 1)" &&
		ok "DWARF $dw: the inlined helper's line $L_SQUARE is charged to square: ${sq_line}%" ||
		{ bad "DWARF $dw: square's line $L_SQUARE has '${sq_line:-none}'"; cat lines$dw; }
	"$PA_BIN/er_print" -pcs d$dw.er >pcs$dw 2>&1
	grep -q "hot + 0x.*, line [0-9]* in \"e2e_lines.c\"" pcs$dw && ok "DWARF $dw: PCs carry lines" ||
		{ bad "DWARF $dw: no line in PCs"; head -20 pcs$dw; }
	"$PA_BIN/er_print" -functions d$dw.er >f$dw 2>&1
	sq=$(awk '$NF == "square" { print $2; exit }' f$dw)
	python3 -c "import sys; sys.exit(0 if float('${sq:-0}') >= 5 else 1)" &&
		ok "DWARF $dw: inline on: square has ${sq}% exclusive" || { bad "DWARF $dw: square has '${sq:-none}'"; cat f$dw; }
	"$PA_BIN/er_print" -csingle square d$dw.er >cs$dw 2>&1
	awk '/Callers/,/Stack Fragment/' cs$dw | grep -q "   hot$" && ok "DWARF $dw: square's caller is hot" ||
		{ bad "DWARF $dw: square's caller is not hot"; cat cs$dw; }
	"$PA_BIN/er_print" -inline off -functions d$dw.er >fo$dw 2>&1
	ho=$(awk '$NF == "hot" { print $2; exit }' fo$dw)
	! grep -q "   square$" fo$dw && python3 -c "import sys; sys.exit(0 if float('${ho:-0}') >= 90 else 1)" &&
		ok "DWARF $dw: inline off: square folded, hot has ${ho}%" || { bad "DWARF $dw: inline off"; cat fo$dw; }
done
"$PA_BIN/er_print" -source hot d5.er >src 2>&1
grep -q "^## .* $L_SQUARE\. \|^## .* $L_HOT\. \|^## .* $((L_HOT - 1))\. " src && ok "source: a hot line is marked ##" || { bad "source: no ## on the hot lines"; cat src; }
grep -q "<Function: hot>" src && ok "source: function start marked" || bad "source: no <Function: hot>"
# the loop's line shows metrics, marked ## or not (whether it is among the hottest depends on layout)
grep -Eq "^(## )? *[0-9]+\.[0-9]* +[0-9.]+ .* $L_HOT\. .*LINE:hot" src && ok "source: the loop line has metrics" ||
	{ bad "source: loop line has no metrics"; cat src; }
"$PA_BIN/er_print" -disasm hot d5.er >dis 2>&1
grep -q "mulsd\|vmulsd" dis && ok "disasm: capstone disassembly" || { bad "disasm: no multiply shown"; cat dis; }
grep -q "^## " dis && ok "disasm: hot instruction marked ##" || bad "disasm: no ## mark"
grep -q " $L_HOT\. .*LINE:hot" dis && ok "disasm: source lines interleaved" || bad "disasm: no source line"
"$PA_BIN/er_print" -disasm e2e_lines.c d5.er >disf 2>&1
grep -q "<Function: hot>" disf && grep -q "<Function: main>" disf && ok "disasm FILE: every function of the file" ||
	{ bad "disasm e2e_lines.c"; head -20 disf; }
"$PA_BIN/er_print" -source nosuch d5.er >/dev/null 2>nosuch.err
grep -q "no function or source file named 'nosuch'" nosuch.err && ok "source: unknown name is a clear error" || bad "source nosuch: $(cat nosuch.err)"
((fails == 0))
