#!/usr/bin/env bash
# er_print's filters, describe, cpu_list and cpu_select, composing with
# thread_select, sample_select and experiment_select, on a synthetic
# experiment with known figures (10 ms per clock sample):
#   thread 1 (TID 101): 2 samples on CPU 0 in work<-slow<-main (sample 1), 1 on CPU 3 in slow (sample 3)
#   thread 2 (TID 102): 3 samples on CPU 1 in work<-fast (2 in sample 2, 1 in sample 3)
#   a 100-byte allocation of thread 1 at 1 ms (no CPU recorded)
. "$(dirname "$0")/common.bash"
prog=$(fixture_prog)
cat >"$WORK/s.txt" <<EOF
object $prog
thread 101
thread 102 101
csample 101 0 2 10000000 work+10 slow+9 main+42
csample 102 1 3 10000000 work+20 fast+9
csample 101 3 1 10000000 slow+9 main+42
heap 101 malloc 100 0x1000 slow+9 main+42
point 25000000
point 45000000
EOF
"$MKEXP" "$WORK/x.er" <"$WORK/s.txt" || exit 1
cp -r "$WORK/x.er" "$WORK/y.er"
cd "$WORK" || exit 1
has() { if grep -qF -- "$3" "$2"; then pass "$1"; else fail "$1: no '$3' in:"; cat "$2"; fi; }
hasnt() { if grep -qF -- "$3" "$2"; then fail "$1: unexpected '$3'"; cat "$2"; else pass "$1"; fi; }
E=("$ER_PRINT")
# total NAME EXPECTED_SECONDS ER_PRINT_ARGS...: the <Total> CPU of -functions
total() {
	local name=$1 want=$2
	shift 2
	"${E[@]}" "$@" -functions x.er >out 2>&1
	local got
	got=$(awk '/<Total>/ { print $5; exit }' out)
	[[ $got == "$want" ]] && pass "$name: $want s" || { fail "$name: <Total> '$got', want $want"; cat out; }
}

total "no filter" 0.060
total "THRID==1" 0.030 -filters 'THRID==1'
total "LWPID==102" 0.030 -filters 'LWPID==102'
total "CPU IN (0,3)" 0.030 -filters 'CPU IN (0,3)'
total "CPUID>0 (Oracle's name)" 0.040 -filters 'CPUID>0'
total "SAMPLE==2" 0.020 -filters 'SAMPLE==2'
total "TSTAMP in a range, ms" 0.030 -filters 'TSTAMP IN (15ms:45ms)'
total "&& over ||" 0.030 -filters 'THRID==1 && CPU==0 || THRID==2 && SAMPLE==3'
total "! and parentheses" 0.020 -filters '!(THRID==2 || CPU==3)'
total "EXPID==1" 0.060 -filters 'EXPID==1'
total "filters 1 clears" 0.060 -filters 'THRID==1' -filters 1
total "filters all clears" 0.060 -filters 'THRID==1' -filters all
total "filter and thread_select compose" 0.010 -thread_select 2 -filters 'SAMPLE==3'
total "filter and sample_select compose" 0.010 -sample_select 3 -filters 'CPU==3'
total "cpu_select 0,3" 0.030 -cpu_select 0,3
total "cpu_select and filter compose" 0.010 -cpu_select 0,3 -filters 'SAMPLE==3'
total "cpu_select, lwp_select and sample_select compose" 0.010 -cpu_select 1 -lwp_select 2 -sample_select 3
total "cpu_select all clears" 0.060 -cpu_select 1 -cpu_select all

"${E[@]}" -filters 'THRID==1' -filters -functions x.er >f 2>&1
has "filters without an argument prints the setting" f 'current filter setting: "THRID==1"'
"${E[@]}" -filters x.er >f0 2>&1
has "filters before the experiment: the setting, no filter" f0 'current filter setting: "1"'
"${E[@]}" -filters 'THRID==1' -allocs x.er >a1 2>&1
has "heap data passes a filter not naming CPU" a1 "100"
"${E[@]}" -filters 'CPU==0' -allocs x.er >a2 2>&1
has "heap data (no CPU) fails a filter naming CPU" a2 "No allocation information"
"${E[@]}" -filters 'THRID=1' -functions x.er >e 2>&1
has "a parse error names the column and the problem" e \
	"filters: column 6: '=' is not an operator (use == to compare) in 'THRID=1'"
"${E[@]}" -filters 'THRID==1' -filters 'CPU IN (1,' -filters x.er >e2 2>&1
has "a parse error names what was expected" e2 "column 11: expected a number in the IN list, found the end of the expression"
[[ $(grep -c 'current filter setting: "THRID==1"' e2) == 2 ]] &&
	pass "a bad filter leaves the previous one" || { fail "bad filter replaced the setting"; cat e2; }

"${E[@]}" -describe x.er >d 2>&1
for p in THRID LWPID CPU SAMPLE TSTAMP EXPID CPUID; do
	grep -q "$p" d || fail "describe does not list $p"
done
pass "describe lists every property"

"${E[@]}" -cpu_select 0,3 -cpu_list x.er y.er >c 2>&1
cat >want <<'EOF'
Exp Sel Total 
=== === ===== 
  1 0,3     3 
  2 0,3     3 
EOF
head -4 c | diff -u want - >/dev/null && pass "cpu_list: Exp/Sel/Total" || { fail "cpu_list table"; cat c; }
has "cpu_list: CPU 1 not selected, 3 samples" c "     1            3"
has "cpu_list: CPU 3 selected, 1 sample" c "     3   *        1"
"${E[@]}" -cpu_select 2:1 -cpu_list -functions x.er y.er >c2 2>&1
has "cpu_select exp:spec: experiment 1 keeps all" c2 "  1 all     3 "
has "cpu_select exp:spec: experiment 2 CPU 1" c2 "  2 1       3 "
has "cpu_select exp:spec: 0.06 + 0.03 s" c2 "0.090 100.00  0.090 100.00   <Total>"
"${E[@]}" -experiment_select 2 -filters 'EXPID==1' -functions x.er y.er >x2 2>&1
has "experiment_select and EXPID compose to nothing" x2 "0.      0.    0.      0.     <Total>"
"${E[@]}" -filters 'EXPID==2 && THRID==1' -functions x.er y.er >x3 2>&1
has "EXPID picks the second experiment" x3 "0.030 100.00  0.030 100.00   <Total>"
"${E[@]}" -cpu_select 'x' x.er >ce 2>&1
has "cpu_select: bad list is a clear error" ce "cpu_select: invalid selection 'x'"
"${E[@]}" -lwp_list x.er >l 2>&1
has "lwp_list is thread_list" l "Start routine"
finish
