#!/usr/bin/env bash
# er_print's commands beyond the main reports, on synthetic experiments with
# known numbers: two threads (main 2.0 s in work via slow, thread 2 1.0 s in
# work via fast), a C++ function, a truncated stack and an unresolved PC.
. "$(dirname "$0")/common.bash"
prog=$(fixture_prog)
cxx=$WORK/cxx
cat >"$WORK/k.cc" <<'EOS'
namespace geo { struct Shape { double area(int scale); }; double Shape::area(int s) { return s * 2.0; } }
int main() { geo::Shape s; return (int)s.area(1); }
EOS
c++ -O0 -g "$WORK/k.cc" -o "$cxx" || exit 1
cat >"$WORK/s.txt" <<EOS
object $cxx
object $prog
thread 100
thread 101
sample 100 200 10000000 work+10 slow+9 main+42
sample 101 100 10000000 work+20 fast+9
tsample 101 10 10000000 _ZN3geo5Shape4areaEi+4
sample 100 5 10000000 0x7777
end 100 2050000000
end 101 1100000000
comment first run
EOS
"$MKEXP" "$WORK/x.er" <"$WORK/s.txt" || exit 1
cd "$WORK" || exit 1
has() { # name file pattern: fixed-string search
	if grep -qF -- "$3" "$2"; then pass "$1"; else fail "$1: no '$3' in:"; cat "$2"; fi
}
hasnt() { if grep -qF -- "$3" "$2"; then fail "$1: unexpected '$3'"; cat "$2"; else pass "$1"; fi; }
E=("$ER_PRINT")

"${E[@]}" -functions x.er >f 2>&1
has "C++ names are demangled" f "geo::Shape::area(int)"
has "truncated stacks end in <Truncated-stack>" f "<Truncated-stack>"
has "a PC outside every object is <Unknown>" f "<Unknown>"
has "<Total> = 3.15 s" f "3.150 100.00  3.150 100.00   <Total>"

"${E[@]}" -thread_select 2 -functions x.er >t2 2>&1
has "thread_select 2: total is thread 2's 1.1 s" t2 "1.100 100.00  1.100 100.00   <Total>"
hasnt "thread_select 2: slow (thread 1 only) is gone" t2 "   slow"
"${E[@]}" -filters 'THRID==1' -functions x.er >f1 2>&1
has "filters THRID==1: total is thread 1's 2.05 s" f1 "2.050 100.00  2.050 100.00   <Total>"
has "filters echoes the setting" f1 'current filter setting: "THRID==1"'
"${E[@]}" -thread_select 1-2 -functions x.er >t12 2>&1
cmp -s t12 f && pass "thread_select 1-2 = all" || fail "thread_select 1-2 differs from all"

"${E[@]}" -name short -functions x.er >ns 2>&1
has "name short drops the parameter list" ns "   geo::Shape::area"
hasnt "name short: no (int)" ns "area(int)"
"${E[@]}" -name mangled -functions x.er >"nm" 2>&1
has "name mangled" nm "_ZN3geo5Shape4areaEi"
"${E[@]}" -name long:soname -functions x.er >nso 2>&1
has "name :soname appends the object" nso "work [<prog>]"

"${E[@]}" -metrics e.%totalcpu:size:address:name -functions x.er >ma 2>&1
has "size and address columns" ma "Size  PC Addr."
has "<Total> address is 1:0x00000000" ma "1:0x00000000"
"${E[@]}" -metrics 'e.!totalcpu:i.%totalcpu:name' -functions x.er >mh 2>&1
hasnt "hidden metric (!) is not shown" mh "Excl."
"${E[@]}" -metrics ie.%totalcpu -functions x.er >mie 2>&1
has "flavors ie expand to i. and e. columns" mie "Incl. Total   Excl. Total"
"${E[@]}" -sort name -functions x.er >sn 2>&1
has "sort by name" sn "Functions sorted by metric: Name"

"${E[@]}" -fsummary x.er >fs 2>&1
has "fsummary shows exclusive time per function" fs "Exclusive Total CPU Time: 3.000 ( 95.2%)"
hasnt "fsummary: no mangled name for C functions" fs "Mangled Name: work"
has "fsummary shows the mangled name" fs "Mangled Name: _ZN3geo5Shape4areaEi"
"${E[@]}" -fsingle work x.er >fw 2>&1
has "fsingle work" fw "Inclusive Total CPU Time: 3.000 ( 95.2%)"
has "fsingle: load object" fw "Load Object: $prog"
has "fsingle: the source file from DWARF" fw "Source File: $PA_TOP/tests/fixtures/cc_prog.c"
has "fsummary: the C++ function's source file" fs "Source File: $WORK/k.cc"
"${E[@]}" -objects x.er >ob 2>&1
has "objects lists the executable" ob "<prog>"
has "objects lists the C++ object" ob "<cxx>"

"${E[@]}" -outfile out.txt -functions -outfile - -header x.er >so 2>&1
has "outfile receives the report" out.txt "   work"
hasnt "stdout does not get the redirected report" so "   work"
has "outfile - restores stdout" so "Experiment: "
"${E[@]}" -appendfile out.txt -calltree x.er >/dev/null 2>&1
has "appendfile appends" out.txt "Functions Call Tree"
has "appendfile keeps what was there" out.txt "Functions sorted by metric"

printf '# a comment\nlimit 2\n\nfunctions\n' >cmds
"${E[@]}" -script cmds x.er >sc 2>&1
has "script runs its commands" sc "Print limit set to 2"
[[ $(grep -c '^[0-9]' sc) == 3 ]] && pass "script: limit 2 gives <Total> + 2 rows" || { fail "limit rows"; cat sc; }

"${E[@]}" -help x.er >h 2>&1
for c in functions metrics sort limit fsummary fsingle callers-callees csingle calltree objects header \
	statistics experiment_list thread_list thread_select filters name outfile script help version quit \
	lines pcs lsummary psummary source disasm sthresh dthresh setpath addpath pathmap inline \
	object_list object_show object_hide object_select objects_default leaks allocs heap heapstat \
	synclocks ioactivity iodetail iocallstack iostat mapfile viewmode procstats compare \
	cpu_list cpu_select describe; do
	grep -q "^  $c" h || fail "help does not list $c"
	grep -q "^\.B.* $c\|^\\\\fB$c\\\\fR\|^\.B $c\|^\.BR $c" "$PA_TOP/docs/man/er_print.1" ||
		grep -q "$c" "$PA_TOP/docs/man/er_print.1" || fail "er_print.1 does not document $c"
done
pass "help and er_print.1 list every command"
"${E[@]}" --help >u 2>&1
syn=$(sed -n 's/^Usage: //p' u)
man_syn="er_print [-script FILE | -COMMAND [ARG] | - | -V]... EXPERIMENT..."
[[ $syn == "$man_syn" ]] && grep -q 'SYNOPSIS' "$PA_TOP/docs/man/er_print.1" &&
	pass "--help synopsis matches the man page" || fail "--help synopsis: '$syn'"
"${E[@]}" -V >v 2>&1 && has "-V prints the version" v "er_print (Performance Analyzer for Linux)"
"${E[@]}" -version x.er >v2 2>&1 && has "version command" v2 "Performance Analyzer for Linux"

# load objects shown and hidden
"${E[@]}" -object_hide cxx -functions x.er >oh 2>&1
has "object_hide: the object's code is one function" oh "   <cxx>"
hasnt "object_hide: its functions are gone" oh "geo::Shape::area"
"${E[@]}" -object_select prog -functions x.er >os 2>&1
has "object_select prog: other objects collapse" os "   <cxx>"
has "object_select prog: prog's functions stay" os "   work"
"${E[@]}" -object_hide all -objects_default -functions x.er >"od" 2>&1
has "objects_default shows every function again" od "geo::Shape::area(int)"
"${E[@]}" -object_hide cxx -object_list x.er >ol 2>&1
has "object_list shows the state" ol "hide  $cxx"
"${E[@]}" -object_show nosuch x.er >on 2>&1
has "object_show: unknown object is a clear error" on "no load object named 'nosuch'"

# interactive: prompt-less on a pipe, quit stops, unknown command reported but not fatal
printf 'bogus\nlimit 1\nfunctions\nquit\nfunctions\n' | "${E[@]}" x.er >in 2>&1
has "interactive: unknown command is reported" in "unknown command 'bogus'"
[[ $(grep -c "Functions sorted" in) == 1 ]] && pass "interactive: quit stops reading" || { fail "quit"; cat in; }
# mapfile: the object's functions with data, hottest first, as linker symbol names
"${E[@]}" -mapfile prog - x.er >mf 2>&1
[[ $(head -n1 mf) == work ]] && grep -qx main mf && ! grep -q geo mf && pass "mapfile prog -: work first, main, no other object's" ||
	{ fail "mapfile prog -"; cat mf; }
"${E[@]}" -mapfile cxx cxx.order x.er >mf2 2>&1 && grep -qx _ZN3geo5Shape4areaEi cxx.order &&
	has "mapfile to a file: mangled names, and says so" mf2 "Wrote 1 functions of cxx to cxx.order" ||
	{ fail "mapfile cxx cxx.order"; cat mf2 cxx.order; }
"${E[@]}" -mapfile nosuch - x.er >mf3 2>&1
[[ $? != 0 ]] && has "mapfile: an unknown object is an error" mf3 "mapfile: no load object named 'nosuch'" || fail "mapfile nosuch"
printf 'viewmode machine\nviewmode\n' >vm.cmds
"${E[@]}" -script vm.cmds x.er >vm 2>&1 && [[ $(grep -c "Viewmode set to machine" vm) == 2 ]] && pass "viewmode" || { fail "viewmode"; cat vm; }
"${E[@]}" -procstats x.er >"ps" 2>&1 && has "procstats: er_print's own time and memory" ps "Processing statistics: " || fail "procstats"
# -help needs no experiment
"${E[@]}" -help >h0 2>&1 && has "-help without an experiment lists the commands" h0 "  functions" ||
	{ fail "-help without an experiment"; cat h0; }
# an exp_id after -header/-statistics is its argument, not an experiment
"${E[@]}" -header 1 x.er >h1 2>&1 && has "-header 1 x.er" h1 "Experiment: x.er" ||
	{ fail "-header 1 x.er"; cat h1; }
"${E[@]}" -statistics all x.er >s1 2>&1 && has "-statistics all x.er" s1 "Aggregated statistics" ||
	{ fail "-statistics all x.er"; cat s1; }
"${E[@]}" -header 2 x.er >h2 2>&1
[[ $? != 0 ]] && has "-header 2 with one experiment is an error" h2 "header" || { fail "-header 2"; cat h2; }
# -pathmap takes two arguments on the command line
"${E[@]}" -pathmap /a /b -functions x.er >pm 2>&1 && has "-pathmap /a /b -functions x.er" pm "Functions sorted" ||
	{ fail "-pathmap /a /b"; cat pm; }
# header shows the comment
"${E[@]}" -header x.er >hd 2>&1
has "header shows -C comments" hd "first run"
finish
