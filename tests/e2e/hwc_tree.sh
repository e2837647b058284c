#!/usr/bin/env bash
# collect -h page-faults,1 on tests/fixtures/hwc_counts.c tree 2000 3000
# 4000 5000: every thread and every followed process counts on its own:
# main's touch_a (2000 pages), a thread created later (thread_pages, 3000),
# a forked child (child_pages, 4000, its subexperiment _f1.er) and an exec'd
# child (touch_a of the new image, 5000, _f2_x1.er); each within 3%, read
# from the founder (which aggregates the process tree) and from each
# subexperiment alone.
set -u
. "$(dirname "$0")/hwc_lib.sh" hwc_tree

"$collect" -h page-faults,1 -o r.er ./hwc_counts tree 2000 3000 4000 5000 >out.txt 2>err.txt && rc=0 || rc=$?
check "tree: exits 0 ($rc; $(head -c 300 err.txt))" test "$rc" = 0
check "tree: the fork child's subexperiment" test -d r.er/_f1.er
check "tree: the exec'd child's subexperiment" test -d r.er/_f2_x1.er
figures r.er "i.page-faults:name" >all.txt
figures r.er/_f1.er "i.page-faults:name" >fork.txt
figures r.er/_f2_x1.er "i.page-faults:name" >exec.txt
note "founder view: touch_a $(fig all.txt touch_a), thread_pages $(fig all.txt thread_pages)," \
	"child_pages $(fig all.txt child_pages); fork child $(fig fork.txt child_pages); exec'd $(fig exec.txt touch_a)"
check "tree: thread created later within 3% of 3000" within 3 "$(fig all.txt thread_pages)" 3000
check "tree: forked child within 3% of 4000 (founder)" within 3 "$(fig all.txt child_pages)" 4000
check "tree: forked child within 3% of 4000 (_f1.er)" within 3 "$(fig fork.txt child_pages)" 4000
check "tree: exec'd child within 3% of 5000 (_f2_x1.er)" within 3 "$(fig exec.txt touch_a)" 5000
check "tree: main and the exec'd child's touch_a: 7000 within 3% (founder)" within 3 "$(fig all.txt touch_a)" 7000
for x in r.er r.er/_f1.er r.er/_f2_x1.er; do
	check "tree: $x lists the counter" grep -q '<hwcounter id="0" name="page-faults"' $x/log.xml
	check "tree: $x opened every counter" grep -q 'hwc_open_failures="0"' $x/log.xml
done
echo "# $checks checks, $failures failed"
exit $((failures ? 1 : 0))
