#!/usr/bin/env bash
# The reports of a synthetic experiment reproduce gprofng's text layouts
# (shared/reference §4.1-4.3: functions, callers-callees, calltree, csingle)
# with the reference example's numbers: work 2.0 s, called 1.8 s from slow and
# 0.2 s from fast; both -> {slow 0.9, fast 0.2}; main -> {both 1.1, slow 0.9}.
. "$(dirname "$0")/common.bash"
prog=$(fixture_prog)
cat >"$WORK/s.txt" <<EOS
object $prog
thread 100
sample 100 90 10000000 work+10 slow+9 main+42
sample 100 90 10000000 work+10 slow+9 both+18 main+16
sample 100 20 10000000 work+20 fast+9 both+8 main+16
end 100 2000000000
EOS
"$MKEXP" "$WORK/x.er" <"$WORK/s.txt" || exit 1
cd "$WORK" || exit 1
"$ER_PRINT" -functions x.er >out.functions 2>&1 && expect_same functions.txt out.functions
"$ER_PRINT" -callers-callees x.er >out.cc 2>&1 && expect_same callers-callees.txt out.cc
"$ER_PRINT" -calltree x.er >out.ct 2>&1 && expect_same calltree.txt out.ct
"$ER_PRINT" -csingle slow x.er >out.cs 2>&1 && expect_same csingle.txt out.cs
# metric list, sort and limit
"$ER_PRINT" -metrics i.%totalcpu:e.totalcpu:name -sort i.totalcpu -limit 3 -functions x.er >out.ms 2>&1 &&
	expect_same functions-metrics-sort-limit.txt out.ms
# abbreviations: -func, -callers, -calltr ; ambiguous -c fails with a list
"$ER_PRINT" -func x.er >out.abbrev 2>&1 && cmp -s out.abbrev out.functions && pass "abbreviated -func" || fail "-func"
if "$ER_PRINT" -c x.er >out.amb 2>&1; then fail "ambiguous -c accepted"; else
	grep -q "ambiguous command 'c'" out.amb && pass "ambiguous -c" || fail "ambiguous message: $(cat out.amb)"; fi
# interactive mode reads commands from stdin
printf 'fsingle work\nquit\n' | "$ER_PRINT" x.er >out.int 2>&1 && grep -q "Exclusive Total CPU Time: 2.000 (100.0%)" out.int &&
	pass "interactive fsingle" || { fail "interactive"; cat out.int; }
# two experiments aggregate
"$MKEXP" "$WORK/y.er" <"$WORK/s.txt" || exit 1
"$ER_PRINT" -functions x.er y.er >out.two 2>&1 && grep -q "^4.000 100.00  4.000 100.00   work$" out.two &&
	pass "aggregation of two experiments" || { fail "aggregation"; cat out.two; }
finish
