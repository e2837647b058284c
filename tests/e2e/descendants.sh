#!/usr/bin/env bash
# Descendant processes (collect -F, issue #9).  tests/fixtures/desc_tree.c
# makes descendants in each way a program can, and every process burns a
# known CPU time in a function named after its role; the test checks, with
# numbers, that each process is in the subexperiment its lineage names, that
# er_print aggregates the founder with every descendant (and reads one
# subexperiment alone), and that -F off, -F =REGEX, a crashing child, and
# programs the collector cannot enter (static, set-user-ID) are handled and
# said so.  Times are checked within 10% (-p hi: about 1000 samples/s).
set -u
: "${PA_TOP:?run through tests/run.sh}" "${PA_BIN:?}"
W=$(mktemp -d /tmp/pa-e2e-desc.XXXXXX)
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1
export PA_ARCHIVE=off
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
cc -O1 -g "$PA_TOP/tests/fixtures/desc_tree.c" -o desc_tree || exit 1
cp desc_tree desc_leaf
static_ok=1
cc -O1 -g -static "$PA_TOP/tests/fixtures/desc_tree.c" -o desc_static 2>/dev/null || static_ok=0

run() { # name args...: collect -p hi into name.er; the fixture must print ok
	local name=$1
	shift
	"$PA_BIN/collect" -p hi -o "$name.er" "$@" >"$name.out" 2>"$name.err" && grep -q '^ok$' "$name.out" ||
		{ bad "$name: collect or the fixture failed"; cat "$name.out" "$name.err"; }
}

# inclusive seconds of function fn in er_print -functions of exp
incl() { "$PA_BIN/er_print" -functions "$1" 2>/dev/null | awk -v f="$2" '$NF == f { print $3; exit }'; }

near() { # exp fn want: inclusive time within 10%
	local got
	got=$(incl "$1" "$2")
	python3 -c "import sys; sys.exit(0 if abs(${got:-0} - $3) <= 0.1 * $3 else 1)" &&
		ok "$1: $2 ${got} s (want $3)" || bad "$1: $2 '${got:-none}' s, want $3"
}

has_subs() { # exp names...: exactly these subexperiments
	local exp=$1 got want
	shift
	got=$(cd "$exp" && ls -d _*.er 2>/dev/null | sort | tr '\n' ' ')
	want=$( (($#)) && printf '%s.er\n' "$@" | sort | tr '\n' ' ')
	[[ $got == "$want" ]] && ok "$exp: subexperiments ${got% }" || bad "$exp: subexperiments '$got', want '$want'"
}

# ---- fork: parent 0.2, child 0.4 exit 5
run fork ./desc_tree fork
has_subs fork.er _f1
near fork.er parent_work 0.2
near fork.er child_work 0.4
near fork.er/_f1.er child_work 0.4
[[ -z $(incl fork.er/_f1.er parent_work) ]] && ok "fork.er/_f1.er alone has no parent_work" ||
	bad "fork.er/_f1.er alone shows parent_work"
"$PA_BIN/er_print" -header fork.er/_f1.er >h 2>&1
grep -q "^Target exited with status 5" h && ok "_f1.er: the child's exit status 5" || { bad "_f1.er exit"; cat h; }
"$PA_BIN/er_print" -experiment_list fork.er >el 2>&1
parent_pid=$(awk '$5 == "founder" { print $3 }' el)
grep -Eq "^ 2 yes +[0-9]+ +$parent_pid _f1 +fork.er/_f1.er +./desc_tree fork$" el &&
	ok "experiment_list: the child with its parent pid, lineage and command" || { bad "experiment_list"; cat el; }
near fork.er child_work 0.4
"$PA_BIN/er_print" -experiment_select 1 -functions fork.er >sel 2>&1
! grep -q child_work sel && grep -q parent_work sel && ok "experiment_select 1: the founder only" ||
	{ bad "experiment_select 1"; cat sel; }
"$PA_BIN/er_print" -statistics fork.er >st 2>&1
python3 - st <<'EOF' && ok "statistics: the sum counts each process once" || { bad "statistics sum"; cat st; }
import re, sys
t = open(sys.argv[1]).read()
s = t.split("Experiment:")[0]
user = float(re.search(r"User CPU: *([0-9.]+)", s).group(1))
rec = float(re.search(r"recorded by clock profiling \(sec\.\): *([0-9.]+)", s).group(1))
print(f"sum: user {user} recorded {rec}")
sys.exit(0 if 0.55 <= rec <= 0.7 and user < 0.8 else 1)
EOF

# ---- fork + exec
run forkexec ./desc_tree forkexec
has_subs forkexec.er _f1 _f1_x1
near forkexec.er child_work 0.1
near forkexec.er leaf_work 0.3
near forkexec.er/_f1_x1.er leaf_work 0.3
grep -q '<exec tstamp_ns="[0-9]*" path="./desc_leaf"/>' forkexec.er/_f1.er/log.xml &&
	ok "_f1.er ends with the exec" || bad "_f1.er has no <exec>"

# ---- vfork + exec, posix_spawn, system, popen
run vforkexec ./desc_tree vforkexec
has_subs vforkexec.er _f1 _f1_x1
near vforkexec.er leaf_work 0.3
run spawn ./desc_tree spawn
has_subs spawn.er _c1
near spawn.er leaf_work 0.3
near spawn.er parent_work 0.1
for m in system popen; do
	run $m ./desc_tree $m
	[[ -d $m.er/_c1.er ]] && ok "$m: the shell is $m.er/_c1.er" || bad "$m: no _c1.er"
	near $m.er leaf_work 0.3
	n=$(grep -c 'followed="1"' $m.er/processes.xml)
	((n >= 2)) && ok "$m: $n processes recorded (the shell and the leaf)" || bad "$m: $n processes recorded"
done

# ---- a three-level tree
run tree3 ./desc_tree tree3
has_subs tree3.er _f1 _f1_f1
near tree3.er parent_work 0.1
near tree3.er child_work 0.2
near tree3.er grand_work 0.3
near tree3.er/_f1_f1.er grand_work 0.3
"$PA_BIN/er_print" -header tree3.er >h 2>&1
grep -q "^      _f1_f1.er  *pid [0-9]*  *0\.[0-9]* s  exit 0  fork" h && ok "header: the grandchild two levels deep" ||
	{ bad "header's process tree"; sed -n '/Process tree/,$p' h; }

# ---- a child that crashes: its data is there; collect closed its experiment
run crash ./desc_tree crash
has_subs crash.er _f1
near crash.er child_work 0.3
python3 -c "import xml.dom.minidom as m; m.parse('crash.er/_f1.er/log.xml'); m.parse('crash.er/_f1.er/map.xml')" &&
	ok "crash: _f1.er's log.xml and map.xml are well-formed" || bad "crash: _f1.er's XML"
"$PA_BIN/er_print" -header crash.er/_f1.er >h 2>&1
grep -q "ended without its collector seeing the end" h && ok "crash: the header says how it ended" ||
	{ bad "crash header"; cat h; }

# ---- clone without CLONE_VM
run clone ./desc_tree clone
has_subs clone.er _C1
near clone.er clone_work 0.3

# ---- -F off and -F =REGEX
run off -F off ./desc_tree tree3
has_subs off.er
near off.er parent_work 0.1
[[ -z $(incl off.er child_work) ]] && ok "-F off: no child_work" || bad "-F off: child_work recorded"
n=$(grep -c 'followed="0" .*reason="not followed (-F off)"' off.er/processes.xml)
((n == 2)) && ok "-F off: both descendants listed as not followed" || bad "-F off: $n not-followed lines"
grep -q "2 not followed (-F)" off.err && ok "-F off: collect says so" || { bad "-F off: collect"; cat off.err; }
run regex -F '=desc_leaf' ./desc_tree forkexec
has_subs regex.er _f1_x1
near regex.er leaf_work 0.3
[[ -z $(incl regex.er child_work) ]] && ok "-F =desc_leaf: the fork child (desc_tree) not followed" ||
	bad "-F =desc_leaf: child_work recorded"

# ---- programs the collector cannot enter
if ((static_ok)); then
	run static ./desc_tree forkexec ./desc_static
	has_subs static.er _f1
	grep -q "collect: warning: not profiled: ./desc_static (statically linked)" static.err &&
		ok "exec of a static program: collect warns" || { bad "static: collect"; cat static.err; }
	"$PA_BIN/er_print" -header static.er >h 2>&1
	grep -Eq "\*\*\* Warning: process [0-9]+ \(./desc_static\) ran unprofiled \([0-9.]+ s of CPU; exit 0, as its parent's wait saw it\): statically linked" h &&
		ok "exec of a static program: the founder's header warns" || { bad "static: header"; cat h; }
	"$PA_BIN/collect" -o sfounder.er ./desc_static fork >/dev/null 2>sf.err
	grep -q "collect: warning: .*desc_static is statically linked: the collector cannot enter it" sf.err &&
		ok "static founder: collect warns at start" || { bad "static founder: collect"; cat sf.err; }
	"$PA_BIN/er_print" -header -statistics sfounder.er >h 2>&1
	grep -q "^\*\*\* Collector Warning: .*desc_static is statically linked" h && grep -q "Note: the collector never ran" h &&
		ok "static founder: header and statistics say so" || { bad "static founder: header/statistics"; cat h; }
else
	echo "static checks skipped: no static libc to link with"
fi
if [[ $(id -u) == 0 ]] && id nobody >/dev/null 2>&1; then
	cp desc_tree suid && chown nobody suid && chmod u+s suid
	"$PA_BIN/collect" -o suid.er ./suid fork >/dev/null 2>su.err
	grep -q "set-user-ID program of another user" su.err && ok "setuid founder: collect warns" ||
		{ bad "setuid founder"; cat su.err; }
fi
exit $((fails ? 1 : 0))
