#!/usr/bin/env bash
# User CPU / System CPU (format 1.10) and per-thread Wait CPU / Sleep on a
# synthetic experiment with known numbers.  Hand-computed:
#   work  4 samples x (7 ms user, 3 ms system)              user 28, system 12
#   fast  2 samples x (1 ms user, 9 ms system)              user  2, system 18
#   slow  3 samples x (4 ms user, 6 ms system), thread 200; its 10 ms after the
#         last sample (CPU 40 ms, 30 sampled) split as its samples: 4 user, 6 system
#                                                           user 16, system 24
#   <Total> user 46, system 54, totalcpu 100; slow inclusive (work under it) 44 + 36.
#   Threads live 90.001 ms: thread 1 CPU 60, wait 5, sleep 25.001; thread 2 CPU 40,
#   wait 2, sleep 48.001.
# The same script without the split (format 1.9 and before) has no user nor
# system metric: asking for one is an error naming what it needs, not zeros.
. "$(dirname "$0")/common.bash"
prog=$(fixture_prog)
cat >"$WORK/s.txt" <<EOS
object $prog
thread 100
thread 200 100
usample 100 4 10000000 7000000 work+10 slow+9 main+42
usample 100 2 10000000 1000000 fast+9 both+8 main+16
usample 200 3 10000000 4000000 slow+9 main+42
end 100 60000000 5000000
end 200 40000000 2000000
EOS
sed 's/^usample \([0-9]* [0-9]* [0-9]*\) [0-9]*/sample \1/; s/^\(end [0-9]* [0-9]*\) [0-9]*/\1/' "$WORK/s.txt" >"$WORK/o.txt"
"$MKEXP" "$WORK/n.er" <"$WORK/s.txt" || exit 1
"$MKEXP" "$WORK/o.er" <"$WORK/o.txt" || exit 1
cd "$WORK" || exit 1
hasx() { grep -qx -- "$3" "$2" && pass "$1" || { fail "$1: no line '$3' in:"; cat "$2"; }; }
has() { grep -qF -- "$3" "$2" && pass "$1" || { fail "$1: no '$3' in:"; cat "$2"; }; }

"$ER_PRINT" -metrics e.totalcpu:e.user:e.system:i.totalcpu:i.user:i.system:name -functions n.er >f.out 2>&1
hasx "Total" f.out '0.100  0.046  0.054  0.100  0.046  0.054   <Total>'
hasx "slow: its tail split as its samples" f.out '0.040  0.016  0.024  0.080  0.044  0.036   slow'
hasx "work" f.out '0.040  0.028  0.012  0.040  0.028  0.012   work'
hasx "fast" f.out '0.020  0.002  0.018  0.020  0.002  0.018   fast'
hasx "main inclusive" f.out '0.     0.     0.     0.100  0.046  0.054   main'
"$ER_PRINT" -metric_list n.er >ml.out 2>&1
hasx "metric_list: user" ml.out '  user: User CPU Time (flavors e, i, a; visibility . + % !)'
hasx "metric_list: system" ml.out '  system: System CPU Time (flavors e, i, a; visibility . + % !)'
# callers-callees and lines carry the same split
"$ER_PRINT" -metrics a.user:a.system:name -callers-callees n.er >cc.out 2>&1
has "callers-callees: work under slow" cc.out '0.028 100.00  0.012 100.00  *work'
# a thread selection: thread 2 only
"$ER_PRINT" -thread_select 2 -metrics e.user:e.system:name -functions n.er >t2.out 2>&1
hasx "thread 2: slow" t2.out '0.016  0.024   slow'
hasx "thread 2: total" t2.out '0.016  0.024   <Total>'

"$ER_PRINT" -header n.er >h.out 2>&1
has "header: split measured" h.out 'User CPU, System CPU: measured per sample'
has "header: wait measured" h.out 'Wait CPU, Sleep: measured per thread (2 of 2 threads'
"$ER_PRINT" -thread_list n.er >tl.out 2>&1
hasx "thread 1: wait, sleep" tl.out '     1  100             0.000       0.090       0.060         0.005         0.025        6  main thread'
hasx "thread 2: wait, sleep" tl.out '     2  200             0.000       0.090       0.040         0.002         0.048        3  0x401000'
"$ER_PRINT" -printmode json -thread_list n.er >tl.json 2>&1
python3 -c '
import json, sys
d = [json.loads(l) for l in open(sys.argv[1])][-1]
t = {x["tid"]: x for x in d["threads"]}
assert (t[100]["wait_cpu_ns"], t[100]["sleep_ns"]) == (5000000, 25001000), t[100]
assert (t[200]["wait_cpu_ns"], t[200]["sleep_ns"]) == (2000000, 48001000), t[200]
' tl.json && pass "json thread_list: wait_cpu_ns, sleep_ns exact" || { fail "json thread_list"; cat tl.json; }

# no split: unavailable, said so
"$ER_PRINT" -metrics e.system:name -functions o.er >o.out 2>&1 && fail "old: -metrics e.system succeeded" ||
	has "old: system unavailable" o.out "metric 'system' needs the user/system CPU split"
"$ER_PRINT" -metric_list o.er >oml.out 2>&1
grep -q '^  system:' oml.out && fail "old: system listed" || pass "old: system not listed"
"$ER_PRINT" -header o.er >oh.out 2>&1
has "old header: split not measured" oh.out 'User CPU, System CPU: not measured'
has "old header: wait not measured" oh.out 'Wait CPU, Sleep: not measured'
"$ER_PRINT" -thread_list o.er >otl.out 2>&1
hasx "old thread list: no wait" otl.out '     1  100             0.000       0.090       0.060             -             -        6  main thread'
finish
