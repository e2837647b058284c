#!/usr/bin/env bash
# en_desc (issue #16 item 6) and ifreq.  A founder (sh) runs ./a, ./b and ./a:
# collect follows them (-F on by default) into 6 subexperiments (3 forked shells,
# 3 execs).  A ./.er.rc line decides which load, before the experiments do:
#  - none: the founder and 6 descendants; `en_desc off`: the founder alone;
#  - `en_desc =^b$`: the founder and the one whose program is b (the shells are sh);
#  - `en_desc =^a$`: the founder and the two a's;
#  - a bad regular expression: one warning naming .er.rc:1, and everything loads;
#  - `-en_desc` on the command line: an error saying it belongs in .er.rc;
#  - ifreq: gprofng's "not requested" sentence and why, exit status 0.
. "$(dirname "$0")/e2e_lib.sh" endesc
export PA_SYSTEM_RC=/dev/null HOME=$W/home
mkdir home
cc -O1 -g "$PA_TOP/tests/fixtures/col_spin.c" -o a || exit 1
cp a b
"$PA_BIN/collect" -o d.er sh -c './a 0.02; ./b 0.02; ./a 0.02' >d.out 2>d.err || { bad "collect"; cat d.err; }

# the experiments er_print loads: "lineage command" per line
loaded() { "$PA_BIN/er_print" -experiment_list d.er 2>"$1.err" | awk 'NR > 2 { print $5, $7 }' >"$1.txt"; }
count() { wc -l <"$1.txt"; }

loaded all
check "no .er.rc: the founder and 6 descendants ($(count all))" test "$(count all)" = 7
echo 'en_desc off' >.er.rc
loaded off
check "en_desc off: the founder alone ($(count off))" test "$(count off)" = 1
printf '# programs named b\nen_desc =^b$\n' >.er.rc
loaded b
check "en_desc =^b\$: the founder and b ($(tr '\n' ' ' <b.txt))" \
	eval 'test "$(count b)" = 2 && grep -q "^founder sh$" b.txt && grep -q "^_f[0-9]_x1 ./b$" b.txt'
echo 'en_desc =^a$' >.er.rc
loaded a
check "en_desc =^a\$: the founder and both a's ($(tr '\n' ' ' <a.txt))" \
	eval 'test "$(count a)" = 3 && test "$(grep -c "./a$" a.txt)" = 2'
echo 'en_desc =(' >.er.rc
loaded bad
check "a bad regular expression: one warning naming .er.rc:1" \
	eval 'test "$(wc -l <bad.err)" = 1 && grep -q "^er_print: .er.rc:1: en_desc: bad regular expression" bad.err'
check "a bad regular expression: everything loads ($(count bad))" test "$(count bad)" = 7
rm .er.rc

"$PA_BIN/er_print" -en_desc off d.er >cli.out 2>&1
rc=$?
check "-en_desc on the command line: an error (exit $rc) saying it belongs in .er.rc" \
	eval 'test $rc != 0 && grep -q "en_desc: read only from a defaults file (.er.rc)" cli.out'
"$PA_BIN/er_print" -ifreq d.er >ifreq.out 2>&1
rc=$?
check "ifreq: gprofng's sentence and why, exit 0" eval 'test $rc = 0 &&
	grep -qx "Instruction frequency data was not requested when recording experiments" ifreq.out &&
	grep -q "not available on Linux" ifreq.out'

e2e_end
