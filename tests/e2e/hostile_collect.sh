#!/usr/bin/env bash
# Hostile targets (issue #10): collect itself is killed, or raced.  The
# target runs before_work, creates a marker file, then four after_works
# (0.5 s); each signal is sent once the marker exists.  What happens is what
# collect(1) says under SIGNALS:
#  - SIGKILL to collect: the target is not touched; it runs on (its parent is
#    no longer collect) to its normal end with its normal output, and its
#    collector records to the end: er_print reads the experiment, says it did
#    not finish (no exit status: collect wrote no tail) and has before_work
#    and after_work within 15%; the data files stay uncompressed and
#    er_archive can still archive it.
#  - SIGINT to collect alone: ignored; the target runs to its end, exit 0,
#    and the experiment is complete.
#  - SIGINT to the process group, as the terminal's ^C sends it: the target
#    dies of it as it does without collect (exit 130); collect records the
#    signal and exits 130; before_work is there.
#  - SIGTERM to collect: forwarded; the target dies of it (143), recorded.
#  - Two collects started at the same moment with the same -o NAME.er: one
#    runs, the other exits 2 ("already exists") before starting its target;
#    the experiment is whole and the winner's alone (one <collector_start>,
#    its pid).  With -o NAME.1.er, or no -o, both run, into distinct
#    experiments (NAME.1.er and NAME.2.er), each whole and its own.
set -u
. "$(dirname "$0")/hostile_lib.sh"

wait_for() { # FILE: until it exists (30 s at most)
	local i
	for ((i = 0; i < 600; i++)); do
		[[ -e $1 ]] && return 0
		sleep 0.05
	done
	return 1
}

wait_gone() { # PID: until the process is gone (30 s at most)
	local i
	for ((i = 0; i < 600; i++)); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.05
	done
	return 1
}

target_pid() { # ERRFILE: the pid collect printed
	sed -n 's/^Creating experiment directory .* (Process ID: \([0-9]*\)) \.\.\.$/\1/p' "$1"
}

# collect and the target start with SIGINT at its default, as from a terminal
# (a script's background job would ignore it, and collect passes that on)
start() { # NAME SETSID: collect -o NAME.er ./hostile phases NAME.mark 80 4 in the background
	local n=$1 pre=()
	[[ $2 == setsid ]] && pre=(setsid)
	"${pre[@]}" env --default-signal=INT "$PA_BIN/collect" -o $n.er ./hostile phases $n.mark 80 4 >$n.out 2>$n.err &
	cpid=$!
	wait_for $n.mark || bad "$n: the target never reached its marker"
	tpid=$(target_pid $n.err)
}

plain phases phases plain.mark 80 4
grep -q '^phases: 4 done$' phases.plain.out || bad "plain run: $(cat phases.plain.out)"

# ---- SIGKILL
start kill no
kill -KILL $cpid
{ wait $cpid; } 2>/dev/null
rc=$?
((rc == 137)) && ok "kill: collect died of SIGKILL" || bad "kill: collect's status $rc"
if kill -0 "$tpid" 2>/dev/null && [[ $(ps -o ppid= -p "$tpid" | tr -d ' ') != "$cpid" ]]; then
	ok "kill: the target ($tpid) runs on, no longer collect's child"
else
	bad "kill: the target $tpid is gone or still collect's child"
fi
wait_gone "$tpid" || bad "kill: the target did not end"
# its exit status went to init; its output says it ended normally
diff phases.plain.out kill.out >/dev/null && ok "kill: the target's output is the same as without collect" ||
	bad "kill: the target's output: $(cat kill.out)"
"$PA_BIN/er_print" -header kill.er >kill.er.header 2>&1 &&
	grep -q '^Experiment did not finish (no exit recorded)' kill.er.header &&
	grep -q 'log.xml is not closed' kill.er.header && ok "kill.er: er_print reads it and says it did not finish" ||
	{ bad "kill.er: header"; sed 's/^/    | /' kill.er.header | head -20; }
grep -q '<collector_end ' kill.er/log.xml && ok "kill.er: the target's collector recorded to the end" ||
	bad "kill.er: no <collector_end>"
near kill.er before_work "$(measured kill.err before_work)" "before collect was killed"
near kill.er after_work "$(measured kill.err after_work)" "after collect was killed"
[[ -f kill.er/profile && ! -e kill.er/profile.zst ]] && ok "kill.er: data files left uncompressed" ||
	bad "kill.er: $(ls kill.er | tr '\n' ' ')"
"$PA_BIN/er_archive" -q kill.er >arch.out 2>&1 && [[ -n $(ls kill.er/archives) ]] &&
	ok "kill.er: er_archive archives it afterwards" || { bad "kill.er: er_archive"; cat arch.out; }

# ---- SIGINT to collect alone
start int no
kill -INT $cpid
wait $cpid
echo $? >int.rc
cp phases.plain.rc int.plain.rc && cp phases.plain.out int.plain.out
same int
opens int.er "Target exited with status 0"
near int.er after_work "$(measured int.err after_work)" "after collect got SIGINT"

# ---- SIGINT to the process group (^C)
setsid env --default-signal=INT ./hostile phases pint.mark 80 4 >pgint.plain.out 2>pgint.plain.err &
p=$!
wait_for pint.mark
kill -INT -- -$p
wait $p
echo $? >pgint.plain.rc
start pgint setsid
kill -INT -- -$cpid
wait $cpid
echo $? >pgint.rc
same pgint
[[ $(cat pgint.rc) == 130 ]] && ok "pgint: the target died of SIGINT; collect exits 130" || bad "pgint: collect's status $(cat pgint.rc)"
grep -q '^collect: target terminated by signal 2 ' pgint.err && ok "pgint: collect says so" || bad "pgint: $(tail -1 pgint.err)"
opens pgint.er "Target terminated by signal 2 (SIGINT)"
near pgint.er before_work "$(measured pgint.err before_work)" "before ^C"

# ---- SIGTERM to collect
start term no
kill -TERM $cpid
wait $cpid
rc=$?
((rc == 143)) && ok "term: forwarded, the target died of it; collect exits 143" || bad "term: collect's status $rc"
opens term.er "Target terminated by signal 15 (SIGTERM)"
near term.er before_work "$(measured term.err before_work)" "before SIGTERM"

# ---- two collects, one name
xml_files=() # checked well-formed at the end, by one python3 (slow to start)

race() { # NAME-ARG DIR: two collects [-o NAME-ARG] in DIR released at once; sets rc_a rc_b
	local o=() d=$2
	[[ -n $1 ]] && o=(-o "$1")
	mkdir -p "$d"
	exec 9>"$d/lock"
	flock -x 9
	local pids=()
	for x in a b; do
		(cd "$d" && exec flock -s lock "$PA_BIN/collect" "${o[@]}" ../hostile phases $x.mark 20 1 >$x.out 2>$x.err) &
		pids+=($!)
	done
	sleep 0.3 # both wait on the lock
	flock -u 9
	wait "${pids[0]}"
	rc_a=$?
	wait "${pids[1]}"
	rc_b=$?
	exec 9>&-
}

whole_own() { # EXP ERRFILE: one collector_start and one exit, of the pid ERRFILE names
	local e=$1 pid
	pid=$(target_pid "$2")
	xml_files+=("$e/log.xml" "$e/map.xml")
	[[ $(grep -c '<collector_start ' $e/log.xml) == 1 && $(grep -c '<exit ' $e/log.xml) == 1 ]] &&
		grep -q "<collector_start pid=\"$pid\"" $e/log.xml &&
		"$PA_BIN/er_print" -header $e 2>&1 | grep -q '^Target exited with status 0'
}

for i in 1 2 3; do
	d=same$i
	race race.er $d
	if ((rc_a + rc_b == 2 && rc_a * rc_b == 0)); then
		w=a l=b
		((rc_a == 2)) && w=b l=a
		grep -q '^collect: experiment race.er already exists$' $d/$l.err && [[ ! -e $d/$l.mark && ! -s $d/$l.out ]] &&
			ok "$d: one collect refused the name before starting its target" ||
			bad "$d: the loser: $(cat $d/$l.err) mark: $(ls $d)"
		whole_own $d/race.er $d/$w.err && ok "$d: race.er is whole and the winner's alone" ||
			bad "$d: race.er: $(grep -c '<collector_start' $d/race.er/log.xml) collector_starts"
	else
		bad "$d: exit statuses $rc_a and $rc_b, want 0 and 2"
	fi
done
for name in race.1.er ""; do
	d=num${name:-default}
	race "$name" $d
	stem=${name%.1.er}
	stem=${stem:-test}
	if ((rc_a == 0 && rc_b == 0)) && [[ $(cd $d && ls -d *.er | tr '\n' ' ') == "$stem.1.er $stem.2.er " ]]; then
		ea=$(sed -n 's/^Creating experiment directory \(.*\) (Process.*/\1/p' $d/a.err)
		eb=$(sed -n 's/^Creating experiment directory \(.*\) (Process.*/\1/p' $d/b.err)
		[[ $ea != "$eb" ]] && whole_own $d/$ea $d/a.err && whole_own $d/$eb $d/b.err &&
			ok "$d: both ran, into $ea and $eb, each whole and its own" || bad "$d: $ea, $eb"
	else
		bad "$d: exit statuses $rc_a, $rc_b; experiments: $(cd $d && ls -d *.er)"
	fi
done
python3 -c 'import sys, xml.dom.minidom as m; [m.parse(f) for f in sys.argv[1:]]' "${xml_files[@]}" &&
	ok "the ${#xml_files[@]} log.xml and map.xml of the raced experiments are well-formed" ||
	bad "a raced experiment's XML is not well-formed"
hostile_end
