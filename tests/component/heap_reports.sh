#!/usr/bin/env bash
# Heap tracing reports on a synthetic experiment with known numbers: per-stack
# allocations and bytes, a realloc chain, an mmap cut by a partial munmap, an
# unknown free, an allocation without a stack, two threads.  Hand-computed:
#   S1 work<-slow<-main  2 allocs  400 B (100 t100 realloc'd away, 300 t200 freed)
#   S2 fast<-both<-main  2 allocs 1200 B (200 temporary, 1000 leaked)
#   S3 both<-main        2 allocs  900 B (realloc 400 temporary -> realloc 500 leaked)
#   S4 slow<-main        1 mmap   8192 B (4096 unmapped, 4096 leaked)
#   <Unknown>            1 alloc  2048 B leaked
# totals 8 / 12740 B, leaks 4 / 7644 B, peak 9992 B at 0.009 s, 2 temporaries (600 B).
. "$(dirname "$0")/common.bash"
prog=$(fixture_prog)
cat >"$WORK/s.txt" <<EOS
object $prog
thread 100
thread 200
sample 100 10 10000000 work+10 slow+9 main+42
end 100 100000000
heap 100 malloc 100 0x1000 work+10 slow+9 main+42
heap 100 malloc 200 0x2000 fast+9 both+8 main+16
heap 100 free 0 0x2000
heap 200 malloc 300 0x3000 work+10 slow+9 main+42
heap 100 realloc 400 0x4000/0x1000 both+8 main+16
heap 100 realloc 500 0x5000/0x4000 both+8 main+16
heap 200 malloc 1000 0x6000 fast+9 both+8 main+16
heap 100 free 0 0x9999
heap 200 mmap 8192 0x100000 slow+9 main+42
heap 200 munmap 4096 0x100000
heap 200 free 0 0x3000
heap 100 malloc 2048 0x7000 -
EOS
"$MKEXP" "$WORK/h.er" <"$WORK/s.txt" || exit 1
cd "$WORK" || exit 1
has() { grep -qF -- "$3" "$2" && pass "$1" || { fail "$1: no '$3' in:"; cat "$2"; }; }
hasx() { grep -qx -- "$3" "$2" && pass "$1" || { fail "$1: no line '$3' in:"; cat "$2"; }; }

"$ER_PRINT" -functions h.er >fn 2>&1
hasx "functions: heap columns first (gprofng default)" fn "Incl.   Incl.  Incl.      Incl.        Excl. Total   Incl. Total    Name"
hasx "functions: <Total>" fn "  7644      4      12740            8  0.100 100.00  0.100 100.00   <Total>"
hasx "functions: main inclusive" fn "  5596      3      10692            7  0.      0.    0.100 100.00   main"
hasx "functions: both" fn "  1500      2       2100            4  0.      0.    0.      0.     both"
hasx "functions: slow" fn "  4096      1       8592            3  0.      0.    0.100 100.00   slow"
hasx "functions: unknown stack" fn "  2048      1       2048            1  0.      0.    0.      0.     <Unknown>"
"$ER_PRINT" -metrics e.heapalloccnt:e.heapallocbytes:e.heapleakcnt:e.heapleakbytes:name -sort e.heapallocbytes -functions h.er >"ex" 2>&1
hasx "exclusive: slow (the mmap)" ex "          1       8192      1    4096   slow"
hasx "exclusive: both (realloc chain)" ex "          2        900      1     500   both"
hasx "exclusive: work" ex "          2        400      0       0   work"
"$ER_PRINT" -thread_select 2 -functions h.er >t2 2>&1
hasx "thread selection applies to heap metrics" t2 "  5096      2       9492            3  0.      0.    0.      0.     <Total>"

"$ER_PRINT" -leaks h.er >lk 2>&1
hasx "leaks summary" lk "Summary Results: Distinct Leaks = 4, Total Instances = 4, Total Bytes Leaked = 7644"
hasx "leak #1 is the cut mapping" lk "Leak #1, Instances = 1, Bytes Leaked = 4096"
grep -A2 "^Leak #1" lk | grep -q '^  slow + 0x00000009, line [0-9]* in "cc_prog.c"$' && pass "leak frames: name + offset, line" || { fail "leak frames"; cat lk; }
hasx "leak #4 is the realloc'd block" lk "Leak #4, Instances = 1, Bytes Leaked = 500"
"$ER_PRINT" -allocs h.er >al 2>&1
hasx "allocs summary" al "Summary Results: Distinct Allocations = 5, Total Instances = 8, Total Bytes Allocated = 12740"
hasx "allocs: fast stack" al "Allocation #3, Instances = 2, Bytes Allocated = 1200"
hasx "allocs: realloc chain at its stack" al "Allocation #4, Instances = 2, Bytes Allocated = 900"
"$ER_PRINT" -limit 1 -allocs h.er >al1 2>&1
[[ $(grep -c "^Allocation #" al1) == 1 ]] && pass "limit applies to allocs" || fail "limit: $(cat al1)"
"$ER_PRINT" -heap h.er >hp 2>&1
[[ $(sed -n 1,3p hp) == $'<Total>\nInstances = 8  Bytes Allocated = 12740\nInstances = 4  Bytes Leaked = 7644' ]] &&
	pass "heap: <Total> block" || { fail "heap total"; cat hp; }
[[ $(grep -c "^Stack 0x" hp) == 5 ]] && pass "heap: 5 stacks" || fail "heap stacks: $(cat hp)"
"$ER_PRINT" -heapstat h.er >hs 2>&1
hasx "heapstat: peak" hs "Heap size bytes                   9992"
hasx "heapstat: time of peak" hs "Time of peak                      0.009 (secs.)"
hasx "heapstat: pid" hs "Process Id                        4242"
hasx "heapstat: small allocations" hs "  0KB - 1KB                       6"
hasx "heapstat: total allocations" hs "Total allocations                 8"
hasx "heapstat: largest leak" hs "Largest leaked bytes              4096"
hasx "heapstat: total leaked" hs "Total leaked                      4 "
hasx "heapstat: temporaries" hs "Temporary allocations             2"
hasx "heapstat: temporary bytes" hs "Temporary bytes                   600"
hasx "heapstat: unknown free" hs "Frees of unknown addresses        1"
hasx "heapstat: frees" hs "Frees of live blocks              5"
hasx "heapstat: biggest holder at the peak" hs "Peak #1, Blocks = 1, Bytes = 8192"
hasx "heapstat: last holder at the peak" hs "Peak #4, Blocks = 1, Bytes = 300"
"$ER_PRINT" -metric_list h.er >ml 2>&1
has "metric_list lists heap metrics" ml "heapleakbytes: Bytes Leaked"

# without heap data: the reports say so, the default metrics stay as they were
cat >"$WORK/n.txt" <<EOS
object $prog
thread 100
sample 100 10 10000000 work+10 slow+9 main+42
EOS
"$MKEXP" "$WORK/n.er" <"$WORK/n.txt" || exit 1
if "$ER_PRINT" -leaks n.er >"nl" 2>&1; then fail "leaks without heap data succeeded"; else
	has "leaks without heap data" nl "no heap tracing data"; fi
"$ER_PRINT" -functions n.er >nf 2>&1
grep -q "Bytes" nf && fail "heap columns without heap data" || pass "no heap columns without heap data"
"$ER_PRINT" -metric_list n.er >nml 2>&1
grep -q heapleak nml && fail "metric_list shows heap metrics without heap data" || pass "metric_list unchanged"

# a damaged heaptrace: a warning, the rest still read
"$MKEXP" --damage garbage-heap "$WORK/d.er" <"$WORK/s.txt" || exit 1
"$ER_PRINT" -header -heapstat d.er >dh 2>&1 && has "damaged heaptrace is reported" dh "heaptrace:" ||
	{ fail "damaged heaptrace"; cat dh; }

# cost: 1M allocations, every heap report
"$MKEXP" --heap-bulk 1000000 "$WORK/big.er" <"$WORK/s.txt" || exit 1
for r in functions leaks allocs heap heapstat; do
	s=$(date +%s.%N)
	"$ER_PRINT" -limit 5 -$r big.er >big.$r 2>&1 || fail "$r on 1M allocations"
	echo "time: $r on 1M allocations: $(echo "$(date +%s.%N) - $s" | bc) s"
done
hasx "1M: total allocations" big.heapstat "Total allocations                 1000000"
hasx "1M: leaks (every tenth, and the last three)" big.heapstat "Total leaked                      100002 "
finish
