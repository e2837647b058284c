#!/usr/bin/env bash
# Hostile targets (issue #10): a program that unsets LD_PRELOAD and execs
# itself through the raw execve system call, which no interposer sees; the
# new image runs after_work and exits 3.  It runs without the collector
# (docs/architecture.md, Known limits): no subexperiment, the founder's log
# has no <collector_end>, and collect records the new image's exit status 3;
# the data up to the exec is readable (before_work within 15% of what the
# program measured), and the program's output and exit status are the same
# as without collect.
#
# KNOWN BUG exec-sigprof (collector/sampler.c, not fixed here): the perf
# task-clock event of each thread counts kernel time (exclude_kernel = 0) and
# goes on counting through an execve the collector did not see; an overflow
# during the system call queues SIGPROF, which survives the exec, and the new
# image - whose SIGPROF action is the default again - is killed by it (exit
# 155, "terminated by signal 27").  With -p hi (1 ms) it happens every time
# here, with the default 10 ms in about 1 run of 5.  (With exclude_kernel = 1,
# or with POSIX timers, which exec deletes, it does not happen; setting the
# event's remove_on_exec did not help.)
set -u
. "$(dirname "$0")/hostile_lib.sh"
bug exec-sigprof "collector/sampler.c's perf events queue a SIGPROF during an exec the collector does not see, which kills the new image"

n=exec_raw
plain $n reexec raw 100
collected $n -p hi -- reexec raw 100
if [[ $(cat $n.rc) == 155 && $(cat $n.plain.rc) == 3 ]] && grep -q 'terminated by signal 27' $n.err; then
	known_bug exec-sigprof "$n: the new image was killed by SIGPROF (exit 155), plain it exits 3"
	opens $n.er "Target terminated by signal 27"
else
	same $n
	opens $n.er "Target exited with status 3"
fi
near $n.er before_work "$(measured $n.err before_work)" "before the exec"
[[ -z $(cd $n.er && ls -d _*.er 2>/dev/null) ]] && ok "$n.er: no subexperiment: the new image ran without the collector" ||
	bad "$n.er: subexperiments: $(cd $n.er && ls -d _*.er)"
[[ -z $(recorded $n.er after_work) ]] && ok "$n.er: nothing of the new image in the founder" || bad "$n.er: after_work recorded"
! grep -q '<collector_end ' $n.er/log.xml && ok "$n.er: no <collector_end> (the collector did not see the exec)" ||
	bad "$n.er: <collector_end> in log.xml: update the test and docs/architecture.md's Known limits"
hostile_end
