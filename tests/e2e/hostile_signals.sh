#!/usr/bin/env bash
# Hostile targets (issue #10): signals and the end of the process.
#  - Every thread blocks every signal: main after before_work, then three
#    threads (which inherit the mask and block all again) run thread_work
#    while main runs after_work.  Through sigprocmask/pthread_sigmask the
#    collector keeps its sampling signal, SIGURG, unblocked and says so in
#    log.xml (warning sampling_signal_block): everything is recorded within 15%, and every other signal
#    stays blocked (SIGUSR1 sent to each thread and SIGTERM to the process
#    are held pending).  Through the raw rt_sigprocmask system call, which no
#    interposer sees, the collector cannot sample (docs/collector.md,
#    Known limits): the work before is recorded; the main thread's CPU after
#    its last sample is charged at its end to that sample's stack (so main's
#    whole CPU is recorded and before_work holds at least its own); threads
#    that start with SIGURG blocked are not sampled: their CPU time is
#    charged at their end as <Unknown>, and the header says so.
#  - A thread calls exit(7) while three threads (allocating and freeing, with
#    -H on) and main are computing: exit status 7 either way, and every
#    thread's work up to the exit recorded within 15% of the CPU time the
#    threads had used by then (measured by the exiting thread).
set -u
. "$(dirname "$0")/hostile_lib.sh"

plain blk_libc sigblock libc 100
collected blk_libc -p hi -- sigblock libc 100
same blk_libc
grep -q '^sigblock libc: SIGUSR1 held in main yes, in 3 of 3 threads; SIGTERM held yes$' blk_libc.out &&
	ok "blk_libc: every other signal stays blocked in every thread" || bad "blk_libc: $(head -1 blk_libc.out)"
opens blk_libc.er "Target exited with status 0"
for f in before_work after_work thread_work; do
	near blk_libc.er $f "$(measured blk_libc.err $f)"
done
grep -q '<warning id="sampling_signal_block"' blk_libc.er/log.xml && ok "blk_libc.er: log.xml warns that SIGURG was kept unblocked" ||
	bad "blk_libc.er: no sampling_signal_block warning in log.xml"

plain blk_raw sigblock raw 100
collected blk_raw -p hi -- sigblock raw 100
same blk_raw
grep -q '^sigblock raw: SIGUSR1 held in main yes, in 3 of 3 threads; SIGTERM held yes$' blk_raw.out &&
	ok "blk_raw: every signal blocked in every thread" || bad "blk_raw: $(head -1 blk_raw.out)"
opens blk_raw.er "Target exited with status 0"
before=$(measured blk_raw.err before_work) after=$(measured blk_raw.err after_work)
got=$(recorded blk_raw.er before_work)
awk -v g="${got:-0}" -v w="$before" -v t=$TOL 'BEGIN { exit !(g >= (1 - t) * w) }' &&
	ok "blk_raw.er: before_work recorded $got s, at least its own $before s" ||
	bad "blk_raw.er: before_work recorded '${got:-nothing}' s of $before s"
threads=$(measured blk_raw.err thread_work)
main=$(awk -v a="$before" -v b="$after" -v t="$threads" 'BEGIN { print a + b + t }')
near blk_raw.er '<Total>' "$main" "main's CPU: before_work, then after_work charged at its end; the threads' as <Unknown>"
[[ -z $(recorded blk_raw.er thread_work) ]] && ok "blk_raw.er: threads born with SIGURG blocked are not sampled (documented)" ||
	bad "blk_raw.er: thread_work recorded: update the test and docs/collector.md's Known limits"
near blk_raw.er '<Unknown>' "$threads" "the threads born blocked: their CPU time, where it went not known"
grep -q 'thread(s) ran [0-9.]* s of CPU time without a sample' blk_raw.er.header &&
	ok "blk_raw.er: the header says threads ran without a sample" || bad "blk_raw.er: no header line on the unsampled threads"

for heap in off on; do
	n=exit_$heap
	plain $n threadexit 100
	collected $n -p hi -H $heap -- threadexit 100
	same $n
	[[ $(cat $n.rc) == 7 ]] && ok "$n: exit status 7" || bad "$n: exit status $(cat $n.rc)"
	opens $n.er "Target exited with status 7"
	near $n.er before_work "$(measured $n.err before_work)"
	near $n.er exit_work "$(measured $n.err exit_work)" "the thread that calls exit"
	near $n.er spin_work "$(measured $n.err spin_threads)" "three threads computing when exit is called"
	main=$(awk -v m="$(measured $n.err main_thread)" -v b="$(measured $n.err before_work)" 'BEGIN { print m - b }')
	near $n.er main_work "$main" "main, computing when exit is called"
	[[ $heap == on ]] && leaks $n.er before_work 33936
done
hostile_end
