#!/usr/bin/env bash
# collect -h page-faults,1 on tests/fixtures/hwc_counts.c: each of two
# functions writes one byte to each of a known number of fresh pages (3000
# and 5000), so each page is one minor fault of that function; er_print's
# inclusive page-faults of each is within 3% of it (the rest of the
# difference is the page tables and the collector's own first touches).
# The counter is shown by default next to CPU time, -header names it with
# its interval, log.xml lists it and counts what was recorded, and without
# -h there is no hwctrace file.
set -u
. "$(dirname "$0")/hwc_lib.sh" hwc_pages

"$collect" -h page-faults,1 -o p.er ./hwc_counts pages 3000 5000 >out.txt 2>err.txt && rc=0 || rc=$?
check "pages: exits 0 ($rc; $(head -c 300 err.txt))" test "$rc" = 0
check "pages: the fixture did its work" grep -q '^touch_b 5000$' out.txt
check "pages: a hwctrace file" test -e p.er/hwctrace -o -e p.er/hwctrace.zst
figures p.er "i.page-faults:e.page-faults:name" >f.txt
a=$(fig f.txt touch_a) b=$(fig f.txt touch_b)
note "touch_a $a page faults (3000 pages), touch_b $b (5000 pages)"
check "pages: touch_a within 3% of 3000 ($a)" within 3 "$a" 3000
check "pages: touch_b within 3% of 5000 ($b)" within 3 "$b" 5000
check "pages: the faults are touch's own (exclusive)" within 3 "$(fig f.txt touch 3)" 8000
total=$(fig f.txt '<Total>')
over=$(grep -o 'hwc_overflows="[0-9]*"' p.er/log.xml | grep -o '[0-9]*')
check "pages: <Total> is every overflow recorded ($total, $over)" test "$total" = "$over"
check "pages: log.xml lists the counter" \
	grep -q '<hwcounter id="0" name="page-faults" type="1" config="2" [^>]*interval="1" ' p.er/log.xml
check "pages: no counter failed to open" grep -q 'hwc_open_failures="0"' p.er/log.xml
"$erprint" -functions p.er >fn.txt 2>&1
check "pages: without clock data, sorted by the counter" grep -q '^Functions sorted by metric: Exclusive page-faults$' fn.txt
check "pages: e. and i. page-faults shown by default after the CPU columns" \
	grep -Eq '^CPU +CPU +page-faults +page-faults$' fn.txt
"$erprint" -header p.er >hdr.txt 2>&1
check "pages: -header names the counter and its interval" \
	grep -q 'Counter overflow profiling (perf_event_open): page-faults, interval = 1 events' hdr.txt
check "pages: -header says clock profiling was off (-h without -p)" grep -q 'Clock-profiling disabled' hdr.txt
"$erprint" -disasm touch_a p.er >dis.txt 2>&1
check "pages: -disasm states the skid of counter overflows" grep -q '(skid); precise events' dis.txt

"$collect" -o n.er ./hwc_counts pages 10 10 >/dev/null 2>&1
check "no -h: no hwctrace file" test ! -e n.er/hwctrace -a ! -e n.er/hwctrace.zst
check "no -h: hwc off in log.xml" grep -q '<collector_start [^>]*hwc="off"' n.er/log.xml
echo "# $checks checks, $failures failed"
exit $((failures ? 1 : 0))
