#!/usr/bin/env bash
# Hostile targets (issue #10): a program that unsets LD_PRELOAD and execs
# itself, through execv (-H on) or execveat (AT_EMPTY_PATH on an O_PATH
# descriptor of itself); the new image runs after_work and exits 3.  Plain
# and under collect: the same output and exit status.  The collector's exec
# interposers put LD_PRELOAD and its PA_* variables back into the environment
# (collect(1)): the new image sees LD_PRELOAD naming the collector and is
# recorded in _x1.er (after_work within 15% of what it measured, exit status
# 3, listed in processes.xml); the founder has before_work within 15%, and
# its log ends with <collector_end> and <exec>.  (execveat was not
# interposed before: the new image ran unprofiled, and was at times killed by
# a SIGPROF queued during the exec; see hostile_exec_raw.sh.)
set -u
. "$(dirname "$0")/hostile_lib.sh"

for how in libc at; do
	n=exec_$how
	heap=off
	[[ $how == libc ]] && heap=on
	plain $n reexec $how 100
	collected $n -p hi -H $heap -- reexec $how 100
	same $n
	opens $n.er "Target exited with status 3"
	near $n.er before_work "$(measured $n.err before_work)" "before the exec"
	subs=$(cd $n.er && ls -d _*.er 2>/dev/null | tr '\n' ' ')
	[[ $subs == "_x1.er " ]] && ok "$n.er: the new image is _x1.er" || bad "$n.er: subexperiments '$subs', want _x1.er"
	opens $n.er/_x1.er "Target exited with status 3"
	near $n.er/_x1.er after_work "$(measured $n.err after_work)" "the new image"
	grep -q "^child LD_PRELOAD=.*/libcollector.so" $n.err && grep -q "^child LD_PRELOAD=(unset)" $n.plain.err &&
		ok "$n: the collector put LD_PRELOAD back for the new image" ||
		bad "$n: LD_PRELOAD in the new image: '$(grep '^child' $n.err)'"
	grep -q 'lineage="_x1" origin="exec" followed="1"' $n.er/processes.xml &&
		ok "$n.er: processes.xml lists _x1 (exec, followed)" || bad "$n.er: processes.xml: $(cat $n.er/processes.xml)"
	grep -q '<collector_end ' $n.er/log.xml && grep -q '<exec ' $n.er/log.xml &&
		ok "$n.er: the replaced image closed its log (<collector_end>, <exec>)" || bad "$n.er: no <collector_end>/<exec> in log.xml"
	if [[ $heap == on ]]; then
		leaks $n.er before_work 33936
		leaks $n.er/_x1.er after_work 34744
	fi
done

hostile_end
