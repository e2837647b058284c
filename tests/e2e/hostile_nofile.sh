#!/usr/bin/env bash
# Hostile targets (issue #10): a program that leaves no descriptor free -
# setrlimit(RLIMIT_NOFILE) to 3, soft and hard, with 0, 1 and 2 open - and
# goes on working, in its main thread and in a thread started before the
# event that works only after it (early_work, late_work; each thread's first
# sample after 2 ms of its CPU, so after the event).  Plain and under collect
# (-H on): the same output and exit status; er_print reads the experiment;
# the work before the event (before_work) and after it, in the main thread
# (after_work) and in the other thread (late_work: its blocks are claimed
# after the event, through the descriptors collector/fdkeep.c kept), is
# recorded within 15% of the CPU time the program measured, with the leaked
# heap blocks.
#
# Then the same after close_range(3, ~0U, 0), which takes the kept
# descriptors too: the program is unharmed, the work before the event is
# recorded, and what could not be (late_work's blocks, the collector's end
# record) is said in the header, never lost silently.
set -u
. "$(dirname "$0")/hostile_lib.sh"
export PA_SAMPLER_FIRST_NS=2000000

plain nofile nofile 3 150
collected nofile -H on -- nofile 3 150
same nofile
grep -q '^nofile 3: 0 more opened, then EMFILE$' nofile.out &&
	ok "nofile: no descriptor free for the program either" || bad "nofile: $(head -1 nofile.out)"
opens nofile.er "Target exited with status 0"
near nofile.er before_work "$(measured nofile.err before_work)" "before setrlimit"
near nofile.er after_work "$(measured nofile.err after_work)" "after setrlimit, in the main thread"
near nofile.er late_work "$(measured nofile.err late_work)" "a thread started before setrlimit"
leaks nofile.er before_work 33936
leaks nofile.er after_work 34744

n=nofile_closeall
plain $n nofile 3 150 closeall
collected $n -H on -- nofile 3 150 closeall
same $n
opens $n.er "Target exited with status 0"
near $n.er before_work "$(measured $n.err before_work)" "before close_range and setrlimit"
late=$(measured $n.err late_work)
got=$(recorded $n.er late_work)
if within "$got" "$late"; then
	ok "$n.er: late_work recorded $got s of $late s"
elif grep -Eq '^\*\*\* .*(data lost|could not record the end)' $n.er.header; then
	ok "$n.er: late_work '${got:-nothing}' of $late s, and the header says so: $(grep -E '^\*\*\* .*(data lost|could not record)' $n.er.header | head -1)"
else
	bad "$n.er: late_work recorded '${got:-nothing}' s of $late s, and the header says nothing"
	sed 's/^/    | /' $n.er.header | head -30
fi
hostile_end
