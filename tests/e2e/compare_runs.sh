#!/usr/bin/env bash
# compare (issue #16 item 4) on two real runs of one program: fixed() does
# the same work in both, scaled() twice as much in the second.  With about
# 50 and 100 clock samples their inclusive CPU ratios are ~1 and ~2; the
# bounds (0.6-1.6 and 1.4-2.8) are many standard deviations wide.  The delta
# of scaled is positive, its lines and PCs are matched across the runs, and
# callers-callees shows main calling scaled in both.
. "$(dirname "$0")/e2e_lib.sh" compare
cc -O0 -g -fno-omit-frame-pointer "$PA_TOP/tests/fixtures/compare_work.c" -o prog || exit 1
"$PA_BIN/collect" -o one.er ./prog 1 >/dev/null 2>&1 || { bad "collect one"; e2e_end; }
"$PA_BIN/collect" -o two.er ./prog 2 >/dev/null 2>&1 || { bad "collect two"; e2e_end; }
within() { python3 -c "import sys; sys.exit(0 if $2 <= $1 <= $3 else 1)"; }
"$PA_BIN/er_print" -compare ratio -metrics i.totalcpu:name -functions one.er two.er >ratio.txt 2>&1 ||
	bad "er_print ratio exited $?"
# "1.100  x 2.013   scaled": the ratio is field 3
r_scaled=$(awk '$NF == "scaled" && $2 == "x" { print $3; exit }' ratio.txt)
r_fixed=$(awk '$NF == "fixed" && $2 == "x" { print $3; exit }' ratio.txt)
within "${r_scaled:-0}" 1.4 2.8 && ok "scaled: ratio $r_scaled is ~2" || { bad "scaled: ratio '${r_scaled:-}'"; cat ratio.txt; }
within "${r_fixed:-0}" 0.6 1.6 && ok "fixed: ratio $r_fixed is ~1" || { bad "fixed: ratio '${r_fixed:-}'"; cat ratio.txt; }
grep -q '^one.er  *two.er *$' ratio.txt && ok "experiment names head the columns" || bad "header"
"$PA_BIN/er_print" -compare delta -metrics i.totalcpu:name -functions -lines -pcs one.er two.er >delta.txt 2>&1 ||
	bad "er_print delta exited $?"
d_scaled=$(awk '$NF == "scaled" { print $2; exit }' delta.txt)
[[ $d_scaled == +* ]] && within "${d_scaled#+}" 0.1 100 && ok "scaled: delta $d_scaled s" ||
	{ bad "scaled: delta '${d_scaled:-}'"; cat delta.txt; }
grep -qE '^ *[0-9.]+ +\+[0-9.]+ +scaled, line [0-9]+ in "compare_work.c"$' delta.txt &&
	ok "lines: a line of scaled in both runs" || { bad "lines"; cat delta.txt; }
grep -qE '^ *[0-9.]+ +\+[0-9.]+ +scaled \+ 0x[0-9a-f]+, line [0-9]+ in "compare_work.c"$' delta.txt &&
	ok "PCs: a PC of scaled in both runs" || { bad "pcs"; cat delta.txt; }
"$PA_BIN/er_print" -compare on -metrics i.totalcpu:name -callers-callees one.er two.er >cc.txt 2>&1 ||
	bad "er_print callers-callees exited $?"
grep -qE '^ *[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+   scaled$' cc.txt && ok "callers-callees: scaled with values of both runs" ||
	{ bad "callers-callees"; cat cc.txt; }
e2e_end
