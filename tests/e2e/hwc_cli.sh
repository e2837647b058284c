#!/usr/bin/env bash
# collect's counter options with the real collector on this machine:
#  - collect -h lists the software events in the manual's aliased format
#    and, where perf_event_open of cycles fails (a VM without a PMU, as
#    here), says plainly that there are no hardware counters;
#  - collect -h cycles (and insts, and two counters one of which is
#    hardware) on such a machine: one message naming the counter and the
#    reason, exit status 2, and no experiment directory left behind;
#  - where the machine has hardware counters, collect -h cycles records
#    them instead (checked then).
set -u
. "$(dirname "$0")/hwc_lib.sh" hwc_cli

"$collect" -h >list.txt 2>&1 && rc=0 || rc=$?
check "-h: exits 0 ($rc)" test "$rc" = 0
check "-h: the aliased list" grep -q '^Aliased HW counters available for profiling:$' list.txt
check "-h: the raw list" grep -q '^Raw HW counters available for profiling:$' list.txt
for ev in task-clock cpu-clock page-faults minor-faults major-faults context-switches cpu-migrations; do
	check "-h: lists $ev" grep -Eq "^$ev,[0-9]+ \\('[^']+', alias for perf::[A-Z-]+; (events|nanoseconds)\\)\$" list.txt
done
"$collect" -h list >list2.txt 2>&1
check "-h list: the same lists" cmp -s list.txt list2.txt
"$collect" >summary.txt 2>&1
check "collect alone: usage then the counter lists" grep -q '^page-faults,1009 ' summary.txt

if python3 -c '
import ctypes, ctypes.util, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
attr = bytearray(128)
struct.pack_into("<IIQ", attr, 0, 0, 128, 0)   # PERF_TYPE_HARDWARE, size, PERF_COUNT_HW_CPU_CYCLES
struct.pack_into("<Q", attr, 40, 1 | (1 << 5) | (1 << 6))  # disabled, exclude_kernel, exclude_hv
fd = libc.syscall(298, ctypes.c_char_p(bytes(attr)), 0, -1, -1, 0)
sys.exit(0 if fd >= 0 else 1)'; then
	note "this machine has hardware counters: cycles is recorded"
	check "-h: no 'no hardware counters' sentence" bash -c "! grep -q 'has no hardware performance counters' list.txt"
	"$collect" -h cycles -o c.er ./hwc_counts spin 0.3 >/dev/null 2>err.txt && rc=0 || rc=$?
	check "-h cycles: exits 0 ($rc; $(head -c 300 err.txt))" test "$rc" = 0
	check "-h cycles: recorded" grep -q '<hwcounter id="0" name="cycles"' c.er/log.xml
else
	note "no hardware counters here: -h cycles must refuse"
	check "-h: says there are no hardware counters" \
		grep -q '^This system has no hardware performance counters (perf_event_open of cycles: ' list.txt
	check "-h: no hardware alias listed" bash -c "! grep -Eq '^(cycles|insts|instructions|dcrm|br_msp),' list.txt"
	# SPEC:NAME, NAME the counter the message must name
	for pair in cycles:cycles insts:insts page-faults,1,cycles:cycles cycles:pp,hi:cycles; do
		spec=${pair%:*} name=${pair##*:}
		"$collect" -h "$spec" -o hw.er ./hwc_counts spin 0.1 >out.txt 2>err.txt && rc=0 || rc=$?
		check "-h $spec: exit status 2 ($rc)" test "$rc" = 2
		check "-h $spec: one line on stderr ($(wc -l <err.txt))" test "$(wc -l <err.txt)" = 1
		check "-h $spec: names the counter and the reason ($(cat err.txt))" \
			grep -q "^collect: -h $name: hardware counter perf::[A-Z_]* is not supported: this system has no hardware performance counters (perf_event_open: " err.txt
		check "-h $spec: no experiment directory" test ! -e hw.er
		check "-h $spec: the target did not run" test ! -s out.txt
	done
fi
no_er=$(find . -maxdepth 1 -name 'test.*.er' | head -n 1)
check "no default experiment left ($no_er)" test -z "$no_er"
echo "# $checks checks, $failures failed"
exit $((failures ? 1 : 0))
