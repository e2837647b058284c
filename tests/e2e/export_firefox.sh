#!/usr/bin/env bash
# er_print -export firefox (the Firefox Profiler's Gecko profile format) on real
# experiments (export_lib.sh: export_prog with and without collect -H on, four threads).
# tests/tools/export_json_check.py checks the rules the profiler's importer relies on
# (schema+data tables, string/frame/stack indexes, prefixes before their stacks, samples
# in time order with threadCPUDelta, Native allocation markers with a stack), and the
# Firefox Profiler's own code reads the files back: its command-line client
# (@firefox-devtools/profiler-cli, npm) loads them and lists threads and functions.
# Asserted:
#  - CPU time (sum of threadCPUDelta, ns) = er_print's <Total> as er_print prints it; the
#    function with the most exclusive CPU time is er_print's top function;
#  - heap allocations and bytes (Native allocation markers) = <Total> exactly; leaks are
#    not carried, and firefox:heapleakbytes fails saying so;
#  - each worker thread's stacks are on a thread of its own; :METRIC carries one metric;
#  - the script command and FILE - write the same; errors name what is wrong;
#  - in the Firefox Profiler: as many threads as er_print's thread_list has with samples,
#    the function with
#    the most self samples is er_print's top function, and each thread's CPU is er_print's
#    within one sampling interval (the profiler does not count a thread's first CPU delta).
. "$(dirname "$0")/export_lib.sh" export_firefox json

common_checks firefox noleaks
check "h: no leaks carried" test -z "$(value "$sum_h" leak_count)"
check "meta.version is 24 and times are ms" python3 -c '
import json, sys
d = json.load(open("h.json"))
sys.exit(0 if d["meta"]["version"] == 24 and d["meta"]["sampleUnits"]["time"] == "ms" else 1)'
fails_with "leaks" "firefox carries CPU time and heap allocations, not leaks" -export firefox:heapleakbytes x.json h.er

# The Firefox Profiler's own importer and call tree, through its command-line client.
[[ -x $js/node_modules/.bin/profiler-cli ]] ||
	{ echo "@firefox-devtools/profiler-cli missing in $js: run make deps (scripts/setup-deps.sh)"; exit 1; }
mkdir -p pqhome
pq() { HOME=$PWD/pqhome timeout 60 "$js/node_modules/.bin/profiler-cli" "$@"; }
trap 'pq stop --all >/dev/null 2>&1; rm -rf "$tmp"' EXIT
for x in c t; do
	pq load $x.json >pq.$x.load 2>&1
	check "$x: the Firefox Profiler loads the export ($(tail -1 pq.$x.load))" test $? = 0
	pq thread list --json >pq.$x.threads 2>&1
	pq thread functions --json --limit 0 >pq.$x.funcs 2>&1
	pq stop --all >/dev/null 2>&1
	# threads with samples (a thread that only waited has none to export), and the main
	# thread when <Process-exit> (what the process ran after its collector's end) is charged to it
	exit_cpu=$("$er_print" -printmode json -metrics e.totalcpu:name -functions $x.er | python3 -c '
import json, sys
for line in sys.stdin:
    r = json.loads(line)
    if r.get("report") == "functions":
        print(sum(row["e.totalcpu"] for row in r["tables"][0]["rows"] if row["name"] == "<Process-exit>"))')
	nthreads=$("$er_print" -printmode json -thread_list $x.er | python3 -c '
import json, sys
t = json.load(sys.stdin)["threads"]
print(sum(x["samples"] > 0 or (x["creator_tid"] == 0 and float(sys.argv[1]) > 0) for x in t))' "${exit_cpu:-0}")
	read -r pq_threads pq_cpu < <(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d["totalThreadCount"], sum(t["cpuMs"] for t in d["threads"]))' pq.$x.threads)
	check "$x: the profiler shows $pq_threads threads, er_print $nthreads" test "$pq_threads" = "$nthreads"
	total=$(total_row $x.er e.totalcpu)
	check "$x: the profiler's CPU $pq_cpu ms = <Total> $total s within a 10 ms interval per thread" \
		python3 -c 'import sys; c, t, n = float(sys.argv[1]), float(sys.argv[2]) * 1e3, int(sys.argv[3]); sys.exit(0 if t - 10.5 * n <= c <= t + 0.5 else 1)' "$pq_cpu" "$total" "$nthreads"
done
pq_top=$(python3 -c '
import json, sys
f = json.load(open(sys.argv[1]))["functions"]
print(max(f, key=lambda x: x["selfSamples"])["name"])' pq.c.funcs)
check "c: the profiler's top function $pq_top = er_print's $(top_function c.er)" test "$pq_top" = "$(top_function c.er)"

echo "$checks checks, $failures failures"
((failures == 0))
