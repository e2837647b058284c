#!/usr/bin/env bash
# User CPU and System CPU per function (format 1.10) on a real run of
# tests/fixtures/cpu_split.c: spin_user only computes, spin_system has the
# kernel clear 1 MiB per read of /dev/zero.  The kernel splits a thread's CPU
# time by the mode each tick (4 ms at HZ=250) interrupted, so the bounds are
# generous: User CPU at least 80% of spin_user's time, System CPU at least
# 60% of spin_system's.  What is exact: user + system = totalcpu for every
# function, exclusive and inclusive, to the nanosecond.  With both sampling
# mechanisms (perf task-clock and POSIX timers).  PA_CPU_SPLIT=off: no split,
# the header says so and `system` is refused, not 0.
. "$(dirname "$0")/e2e_lib.sh" cpusplit
cc -O1 -g "$PA_TOP/tests/fixtures/cpu_split.c" -o cs || exit 1
M=e.totalcpu:e.user:e.system:i.totalcpu:i.user:i.system:name
check_run() { # NAME EXPERIMENT
	"$PA_BIN/er_print" -printmode json -metrics "$M" -functions "$2" >"$1.json" 2>"$1.err" ||
		{ bad "$1: er_print"; cat "$1.err"; return; }
	python3 - "$1.json" <<'EOP' && ok "$1: $(cat "$1.json.msg")" || { bad "$1: $(cat "$1.json.msg")"; cat "$1.json"; }
import json, sys
rows = None
for line in open(sys.argv[1]):
    d = json.loads(line)
    if d["report"] == "functions":
        rows = {r["name"]: r for r in d["tables"][0]["rows"]}
msg, good = [], True
for name, r in rows.items():
    for f in ("e", "i"):
        if r[f + ".user"] + r[f + ".system"] != r[f + ".totalcpu"]:
            good = False
            msg.append("%s %s: user + system != total" % (name, f))
u, s = rows["spin_user"], rows["spin_system"]
uf = u["i.user"] / u["i.totalcpu"]
sf = s["i.system"] / s["i.totalcpu"]
good = good and u["i.totalcpu"] > 0.3e9 and s["i.totalcpu"] > 0.3e9 and uf >= 0.8 and sf >= 0.6
msg.append("spin_user %.3fs user %.1f%%, spin_system %.3fs system %.1f%%, user+system=total for %d functions"
           % (u["i.totalcpu"] / 1e9, 100 * uf, s["i.totalcpu"] / 1e9, 100 * sf, len(rows)))
open(sys.argv[1] + ".msg", "w").write("; ".join(msg))
sys.exit(0 if good else 1)
EOP
}
"$PA_BIN/collect" -o perf.er ./cs 0.5 >/dev/null 2>&1 || bad "collect"
grep -q 'mechanism="perf_task_clock"' perf.er/log.xml || echo "note: perf events unavailable, timers used"
check_run perf perf.er
# every sample carries its user part, at most its weight
"$PA_BUILD/tests/tools/expdump" perf.er >perf.dump 2>&1
awk '/^clock / { n++; split($6, w, "="); if ($7 !~ /^user=/) bad++; else { split($7, u, "="); if (u[2] + 0 > w[2] + 0) bad++ } }
	END { exit !(n > 0 && bad == 0) }' perf.dump && ok "every CLOCK record has user <= weight" ||
	{ bad "CLOCK records without a user part"; grep '^clock ' perf.dump | head -3; }
PA_SAMPLER=timer "$PA_BIN/collect" -o timer.er ./cs 0.5 >/dev/null 2>&1 || bad "collect (timer)"
check_run timer timer.er
"$PA_BIN/er_print" -header perf.er | grep -q 'User CPU, System CPU: measured per sample' &&
	ok "header: split measured" || bad "header: $("$PA_BIN/er_print" -header perf.er)"

PA_CPU_SPLIT=off "$PA_BIN/collect" -o off.er ./cs 0.1 >/dev/null 2>&1 || bad "collect (split off)"
grep -q 'cpu_split="none"' off.er/log.xml && ok "log.xml: cpu_split none" || bad "log.xml: no cpu_split=none"
"$PA_BIN/er_print" -header off.er | grep -q 'User CPU, System CPU: not measured' &&
	ok "header: split not measured" || bad "header (off)"
if "$PA_BIN/er_print" -metrics e.system:name -functions off.er >off.out 2>&1; then
	bad "split off: e.system accepted"
else
	grep -q "metric 'system' needs" off.out && ok "split off: system refused" || { bad "split off"; cat off.out; }
fi
e2e_end
