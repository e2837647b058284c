#!/usr/bin/env bash
# er_print -export firefox (the Firefox Profiler's Gecko profile format) on real
# experiments (export_lib.sh: export_prog with and without collect -H on, four threads).
# No reader of the format installs from Debian or npm (the profiler is a web app), so
# tests/tools/export_json_check.py checks the rules the profiler's importer relies on
# (schema+data tables, string/frame/stack indexes, prefixes before their stacks, samples
# in time order with threadCPUDelta, Native allocation markers with a stack).  Asserted:
#  - CPU time (sum of threadCPUDelta, ns) = er_print's <Total> as er_print prints it; the
#    function with the most exclusive CPU time is er_print's top function;
#  - heap allocations and bytes (Native allocation markers) = <Total> exactly; leaks are
#    not carried, and firefox:heapleakbytes fails saying so;
#  - each worker thread's stacks are on a thread of its own; :METRIC carries one metric;
#  - the script command and FILE - write the same; errors name what is wrong.
. "$(dirname "$0")/export_lib.sh" export_firefox json

common_checks firefox noleaks
check "h: no leaks carried" test -z "$(value "$sum_h" leak_count)"
check "meta.version is 24 and times are ms" python3 -c '
import json, sys
d = json.load(open("h.json"))
sys.exit(0 if d["meta"]["version"] == 24 and d["meta"]["sampleUnits"]["time"] == "ms" else 1)'
fails_with "leaks" "firefox carries CPU time and heap allocations, not leaks" -export firefox:heapleakbytes x.json h.er

echo "$checks checks, $failures failures"
((failures == 0))
