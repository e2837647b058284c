#!/usr/bin/env bash
# The CPU time of short blocking waits goes to the waits (issue 24).  The
# kernel's switching of a thread off its CPU and back is CPU time the
# thread's clock counts (20-25 us a wait in a VM) but a task-clock event does
# not see: a sample due then came in the code after the wait.  A loop of
# 10 us of work and a 50 us wait (nanosleep, poll, ppoll and pselect with a
# mask of their own, select, epoll_wait in turn) times both by its own CPU
# clock; at -p hi the work must be recorded within 35% and the waits within
# 15% (before: work +55 to +72%, waits -15 to -20%), each wait call is its
# own leaf under the function that called it (no libc frame of the
# collector's between them), and log.xml's counts add up: signals = samples
# - wait_samples - samples_at_end (a thread's end takes one with no signal) +
# coalesced + dropped.
. "$(dirname "$0")/e2e_lib.sh" clkwait
cc -O1 -g "$PA_TOP/tests/fixtures/waitwork.c" -o waitwork || exit 1

within() { # GOT WANT TOL: |GOT - WANT| <= TOL * WANT
	awk -v g="${1:-0}" -v w="$2" -v t="$3" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(g != "" && d <= t * w) }'
}
attr() { sed -n "s/.*<collector_end [^>]*[ ]$1=\"\([0-9]*\)\".*/\1/p" w.er/log.xml | head -1; }

"$PA_BIN/collect" -p hi -o w.er ./waitwork 6000 10 50 >w.out 2>w.err || { bad "collect: exit status $?"; cat w.err; }
grep -q '^0 waits failed$' w.out && ok "no wait failed" || bad "waits failed: $(cat w.out)"
"$PA_BIN/er_print" -metrics i.totalcpu:name -functions w.er >fn.txt 2>&1 || bad "er_print -functions"
for f in work wait; do
	want=$(awk -v f="$f" '$1 == "cpu" && $2 == f { print $3 }' w.err)
	name=$f
	tol=0.35
	[[ $f == wait ]] && name=waiter tol=0.15
	got=$(awk -v n="$name" '$NF == n { print $1; exit }' fn.txt)
	within "$got" "$want" $tol && ok "$name: $got s of the $want s it measured" ||
		bad "$name: '${got:-nothing}' s recorded of the $want s it measured (tolerance $tol)"
done
for c in nanosleep poll ppoll pselect select epoll_wait; do
	grep -qE " $c\$" fn.txt && ok "$c has CPU time" || bad "$c has no line in -functions"
done
! grep -qE ' syscall$' fn.txt && ok "no libc syscall frame in the profile" || bad "syscall in the profile: $(grep -E ' syscall$' fn.txt)"
for c in nanosleep poll ppoll; do
	"$PA_BIN/er_print" -csingle "$c" w.er >cs.$c.txt 2>&1
	callers=$(awk '/^=+ / { part = $2; next } part == "Callers" && NF >= 3 { print $NF }' cs.$c.txt | tr '\n' ' ')
	[[ $callers == "waiter " ]] && ok "$c: called by waiter only" || { bad "$c: callers '$callers'"; cat cs.$c.txt; }
done
sig=$(attr signals) smp=$(attr samples) waits=$(attr wait_samples) coal=$(attr coalesced) drop=$(attr dropped)
atend=$(attr samples_at_end) # taken by a thread's end, with no signal (collector/threads.c take_end)
((waits > 0 && sig == smp - waits - atend + coal + drop)) &&
	ok "$sig signals = $smp samples - $waits at the waits' returns - $atend at threads' ends + $coal coalesced + $drop dropped" ||
	bad "collector_end: signals $sig, samples $smp, wait_samples ${waits:-?}, samples_at_end ${atend:-?}, coalesced $coal, dropped $drop"
e2e_end
