#!/usr/bin/env bash
# Every process a target makes is recorded, or named in the header with its
# pid and CPU time (issue 24), and its end is reported as what it was:
#  - rawclone, clone3: a child of the raw system call that never calls into
#    the collector: named as having run unprofiled, with the CPU time and
#    exit status its parent's wait gave (before: in no experiment, "No
#    warnings");
#  - rawclone_exit: such a child that leaves through _exit: found out there,
#    recorded as _c1.er (raw clone) with its exit status;
#  - glibcclone: glibc's clone(fn): recorded as _C1.er, "exit 5" (before:
#    "ended unseen (killed or crashed)");
#  - vfork + exec: the fork child's subexperiment says it exec'd /bin/true
#    (before: "Experiment did not finish (no exit recorded)"), the image exit 0;
#  - spawn: posix_spawn's child recorded, exit 3;
#  - daemon: a grandchild that outlives the target is named as still running
#    when the target ended, with its CPU time so far.
. "$(dirname "$0")/e2e_lib.sh" children
cc -O1 -g "$PA_TOP/tests/fixtures/children.c" -o children || exit 1

run() { # MODE ARGS...: collect it into MODE.er, the header into MODE.h; same output as without
	local m=$1
	./children "$@" >"$m.plain" 2>/dev/null
	"$PA_BIN/collect" -o "$m.er" ./children "$@" >"$m.out" 2>"$m.err"
	diff -q "$m.plain" "$m.out" >/dev/null && ok "$m: $(cat "$m.out")" || bad "$m: '$(cat "$m.out")', without the collector '$(cat "$m.plain")'"
	"$PA_BIN/er_print" -header "$m.er" >"$m.h" 2>&1 || bad "$m: er_print -header failed"
}

has() { # MODE WHAT REGEX: the header of MODE has a line matching REGEX
	grep -Eq "$3" "$1.h" && ok "$1: $2" || { bad "$1: $2: no line matches '$3'"; sed 's/^/    | /' "$1.h" | grep -E 'Warning|pid ' | head; }
}

for m in rawclone clone3; do
	run $m 40
	read -r _ pid cpu <<<"$(grep '^child ' $m.err)"
	has $m "process $pid named with its exit" \
		"^\*\*\* Warning: process $pid \(.*\) ran unprofiled \([0-9.]+ s of CPU; exit 0, as its parent's wait saw it\): made without the collector's interposers"
	got=$(sed -n "s/^\*\*\* Warning: process $pid .* ran unprofiled (\([0-9.]*\) s of CPU.*/\1/p" $m.h)
	awk -v g="${got:-x}" -v w="$cpu" 'BEGIN { d = g - w; exit !(g != "x" && d < 0.0011 && d > -0.0011) }' &&
		ok "$m: its CPU time, $got s, as its parent's wait said ($cpu s)" || bad "$m: CPU time '${got:-none}' s, its parent's wait said $cpu s"
	grep -q '^No warnings' $m.h && bad "$m: the header says No warnings"
done

run rawclone_exit 40
has rawclone_exit "recorded as _c1.er with its exit" '^    _c1\.er +pid [0-9]+ +0\.[0-9]+ s  exit 4  raw clone'
run glibcclone 40
has glibcclone "recorded as _C1.er, exit 5" '^    _C1\.er +pid [0-9]+ +0\.[0-9]+ s  exit 5  clone'
run vfork 1
has vfork "the fork child exec'd /bin/true" "^    _f1\.er +pid [0-9]+ +0\.[0-9]+ s  exec /bin/true"
"$PA_BIN/er_print" -header vfork.er/_f1.er >f1.h 2>&1
grep -q "^Process exec'd /bin/true$" f1.h && ok "vfork: _f1.er's own header: Process exec'd /bin/true" ||
	bad "vfork: _f1.er's header: $(grep -E 'exec|finish|exit' f1.h | head -3)"
has vfork "the image it exec'd exit 0" '^      _f1_x1\.er +pid [0-9]+ +0\.[0-9]+ s  exit 0'
run spawn 1
has spawn "posix_spawn's child recorded, exit 3" '^    _c1\.er +pid [0-9]+ +0\.[0-9]+ s  exit 3  spawn'

run daemon 10 3
d=$(awk '$1 == "daemon" { print $2 }' daemon.err)
has daemon "the daemon named as still running" "^\*\*\* Warning: process $d \(.*\) was still running when the target ended, [0-9.]+ s of CPU by then"
kill "$d" 2>/dev/null
e2e_end
