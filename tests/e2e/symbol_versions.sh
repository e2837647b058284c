#!/usr/bin/env bash
# Symbol versions (issue 10): glibc's symbol table names functions with their
# version (__libc_start_main@@GLIBC_2.34), and so does any library built with a
# version script.  A real profile of a fixture whose library exports two
# versions of vfunc (tests/fixtures/symver_lib.c: vfunc@VERS_1 0.3 s,
# vfunc@@VERS_2 0.6 s) must
#  - show __libc_start_main without @GLIBC in -functions, -callers-callees,
#    -calltree and -name mangled, and find it by that name in -fsingle,
#    -csingle and -disasm;
#  - show the two vfuncs with their versions (the version tells them apart),
#    with the time each one ran; -fsingle vfunc says the name is ambiguous and
#    lists both; each is found by name + version (-fsingle, -source, -disasm).
set -u
: "${PA_TOP:?run through tests/run.sh}" "${PA_BIN:?}"
W=$(mktemp -d /tmp/pa-e2e-symver.XXXXXX)
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
within() { # got want tolerance
	python3 -c "import sys; sys.exit(0 if abs(float('${1:-0}' or 0) - $2) <= $3 else 1)"
}
F=$PA_TOP/tests/fixtures
CFLAGS="-O1 -g -fno-inline -fno-optimize-sibling-calls"
cc $CFLAGS -fPIC -shared -Wl,--version-script="$F/symver_lib.map" "$F/symver_lib.c" -o libsymver.so &&
	cc $CFLAGS "$F/symver_main.c" -L. -lsymver -Wl,-rpath,"$W" -o symver_prog || exit 1
readelf -Ws libsymver.so | grep -q ' vfunc@VERS_1$' || { echo "skip: the toolchain wrote no symbol versions"; exit 77; }
"$PA_BIN/collect" -o v.er ./symver_prog >/dev/null 2>collect.err || { bad "collect"; cat collect.err; exit 1; }
erp() { "$PA_BIN/er_print" "$@" v.er; }
# name -> inclusive seconds, from a -functions listing
incl() { awk -v f="$2" '{ n = $0; sub(/^ *[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +/, "", n) } n == f { print $3; exit }' "$1"; }

erp -functions >fn.txt 2>&1 || bad "-functions exited $?"
grep -qE ' __libc_start_main$' fn.txt && ok "-functions lists __libc_start_main" ||
	{ bad "-functions has no line for __libc_start_main"; cat fn.txt; }
! grep -q '@GLIBC' fn.txt && ok "-functions shows no @GLIBC version" || bad "-functions shows a GLIBC version: $(grep '@GLIBC' fn.txt)"
# all the time but what the process ran before its collector started and
# after it ended (<Process-start>, <Process-exit>: outside main's stack)
total=$(awk '$NF == "<Total>" { t = $3 } $NF == "<Process-start>" || $NF == "<Process-exit>" { o += $3 }
	END { printf "%.3f", t - o }' fn.txt)
t=$(incl fn.txt __libc_start_main)
within "$t" "${total:-0}" 0.011 && ok "__libc_start_main has all the time ($t of $total s)" ||
	{ bad "__libc_start_main inclusive '$t', total '$total'"; cat fn.txt; }
t1=$(incl fn.txt vfunc@VERS_1)
t2=$(incl fn.txt vfunc@@VERS_2)
within "$t1" 0.3 0.05 && ok "vfunc@VERS_1 shown with its version, $t1 s" || { bad "vfunc@VERS_1: '$t1'"; cat fn.txt; }
within "$t2" 0.6 0.06 && ok "vfunc@@VERS_2 shown with its version, $t2 s" || bad "vfunc@@VERS_2: '$t2'"

erp -fsingle __libc_start_main >fs.txt 2>&1
rc=$?
[[ $rc == 0 && $(head -n1 fs.txt) == __libc_start_main ]] && ok "-fsingle __libc_start_main" ||
	{ bad "-fsingle __libc_start_main (exit $rc)"; head -3 fs.txt; }
grep -qE 'Mangled Name: *$' fs.txt && ok "-fsingle: no version as a mangled name" || bad "-fsingle: $(grep Mangled fs.txt)"
erp -fsingle __libc_start_main@@GLIBC_2.34 >/dev/null 2>&1 || erp -fsingle __libc_start_main@GLIBC_2.2.5 >/dev/null 2>&1 &&
	ok "-fsingle finds it by name and version too" || bad "-fsingle by name and version"
erp -csingle __libc_start_main >cs.txt 2>&1 && grep -qE ' __libc_start_call_main$' cs.txt &&
	ok "-csingle __libc_start_main shows its callee" || { bad "-csingle __libc_start_main"; head cs.txt; }
erp -disasm __libc_start_main >dis.txt 2>&1 && grep -qE '\[ *[0-9?]+\] +[0-9a-f]+:  ' dis.txt &&
	grep -q '<Function: __libc_start_main>' dis.txt && ok "-disasm __libc_start_main" || { bad "-disasm __libc_start_main"; head dis.txt; }
erp -callers-callees >cc.txt 2>&1
grep -qE ' \*__libc_start_main$' cc.txt && ! grep -q '@GLIBC' cc.txt && ok "-callers-callees: __libc_start_main, no version" ||
	bad "-callers-callees: $(grep -m2 'libc_start_main' cc.txt)"
erp -calltree >ct.txt 2>&1
grep -qE '[ -]__libc_start_main$' ct.txt && ! grep -q '@GLIBC' ct.txt && ok "-calltree: __libc_start_main, no version" ||
	bad "-calltree: $(grep -m2 'libc_start_main' ct.txt)"
erp -name mangled -functions >mg.txt 2>&1
grep -qE ' __libc_start_main$' mg.txt && ok "-name mangled: __libc_start_main, no version" || bad "-name mangled: $(grep -m1 libc_start_main mg.txt)"

# two versions of one name: ambiguous by name, found by name + version
erp -fsingle vfunc >amb.txt 2>&1
rc=$?
[[ $rc != 0 ]] && grep -q "'vfunc' names 2 functions" amb.txt && grep -q 'vfunc@VERS_1 in libsymver.so' amb.txt &&
	grep -q 'vfunc@@VERS_2 in libsymver.so' amb.txt && ok "-fsingle vfunc: ambiguous, both versions listed" ||
	{ bad "-fsingle vfunc (exit $rc)"; cat amb.txt; }
erp -fsingle vfunc@@VERS_2 >f2.txt 2>&1 && [[ $(head -n1 f2.txt) == vfunc@@VERS_2 ]] &&
	within "$(awk '/Inclusive Total CPU Time/ { print $5; exit }' f2.txt)" 0.6 0.06 &&
	ok "-fsingle vfunc@@VERS_2: that version, 0.6 s" || { bad "-fsingle vfunc@@VERS_2"; cat f2.txt; }
erp -source vfunc@VERS_1 >src.txt 2>&1 && grep -q 'spin(seconds, 0.5)' src.txt &&
	ok "-source vfunc@VERS_1: its source" || { bad "-source vfunc@VERS_1"; head src.txt; }
erp -disasm vfunc@@VERS_2 >d2.txt 2>&1 && grep -q '<Function: vfunc@@VERS_2>' d2.txt &&
	ok "-disasm vfunc@@VERS_2" || { bad "-disasm vfunc@@VERS_2"; head d2.txt; }
exit $((fails ? 1 : 0))
