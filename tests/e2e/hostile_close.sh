#!/usr/bin/env bash
# Hostile targets (issue #10): a program that closes every descriptor from 3
# up - close_range(3, ~0U, 0), or close() of 3 to 1024 - then opens
# descriptors up to number 599 (as a daemon that then serves connections
# would) and goes on working.  Plain and under collect (the loop with -H on):
# the same output and exit status; the experiment has the work before the
# close (before_work) and after it in the same thread (after_work) within 15%
# of the CPU time the program measured, and the heap blocks both leaked.  A
# thread started before the close that works only after it (early_work,
# late_work) is profiled too, and none of the program's descriptors is
# touched.  Run with a soft descriptor limit of 1024 (Debian's default), which
# puts the collector's per-thread perf descriptor at 512; each thread's first
# sample comes after 2 ms of its CPU (PA_SAMPLER_FIRST_NS), after the close.
#
# A thread's perf events hold no descriptor once it runs (collector/sampler.h:
# both are made and their descriptors closed when the thread starts), so the
# program's closes and reuses of numbers can neither stop its sampling nor
# make the collector touch a descriptor of the program's.
set -u
. "$(dirname "$0")/hostile_lib.sh"
if ! ulimit -S -n 1024 2>/dev/null; then
	echo "skipped: cannot set the soft descriptor limit to 1024 (hard limit $(ulimit -H -n))"
	exit 77
fi
export PA_SAMPLER_FIRST_NS=2000000

for how in range loop; do
	n=close_$how
	heap=off
	[[ $how == loop ]] && heap=on
	plain $n closefds $how 150
	collected $n -H $heap -- closefds $how 150
	same $n 'still open at the end'
	want=$(grep 'still open at the end' $n.plain.out)
	got=$(grep 'still open at the end' $n.out)
	[[ $want == *"597 of them still open at the end" ]] || bad "$n: plain run: '$want'"
	if [[ $got == "$want" ]]; then
		ok "$n: the program's descriptors 3 to 599 all still open at the end"
	else
		bad "$n: descriptors: '$got' under collect, '$want' plain"
	fi
	opens $n.er "Target exited with status 0"
	near $n.er before_work "$(measured $n.err before_work)" "before the close"
	near $n.er after_work "$(measured $n.err after_work)" "after the close, in the thread that closed"
	late=$(measured $n.err late_work) early=$(measured $n.err early_work)
	got_late=$(recorded $n.er late_work) got_early=$(recorded $n.er early_work)
	if within "$got_late" "$late"; then
		ok "$n.er: late_work recorded $got_late s of $late s (a thread started before the close)"
	else
		bad "$n.er: late_work recorded '${got_late:-nothing}' s of $late s, early_work '${got_early:-nothing}' s of $early s"
	fi
	if [[ $heap == on ]]; then
		leaks $n.er before_work 33936
		leaks $n.er after_work 34744
	fi
done
hostile_end
