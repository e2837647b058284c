#!/usr/bin/env bash
# er_print -export chrome (Chrome trace-event JSON) on real experiments (export_lib.sh:
# export_prog with and without collect -H on, four threads).  Perfetto and chrome://tracing
# are not installable here; speedscope's importer of the trace-event format
# (tests/tools/js/speedscope_import.mjs) reads it back, and
# tests/tools/export_json_check.py checks the rules Perfetto relies on (X events nested
# on each thread, every pid and tid named by M events, counters counting up).  Asserted:
#  - CPU time (root slices' durations) = er_print's <Total> as er_print prints it, within
#    the format's rounding (whole microseconds: 1 us per root slice); the function with
#    the most exclusive time is er_print's top function;
#  - allocation instants and the Heap allocated counter = <Total> allocations and bytes,
#    leak instants = <Total> leaks and leaked bytes, exactly;
#  - each worker thread's slices are on a thread of their own; :METRIC carries one metric;
#  - speedscope imports one profile per thread with CPU time, whose weights (us) sum to
#    the file's CPU time exactly;
#  - the script command and FILE - write the same; errors name what is wrong.
. "$(dirname "$0")/export_lib.sh" export_chrome json

common_checks chrome
for x in c h t; do
	cp "$x.json" "$x.trace.json"
	node "$js/speedscope_import.mjs" "$x.trace.json" >"$x.imported" 2>err
	check "$x: speedscope imports it ($(head -c 300 err))" test $? = 0
	read -r importer profiles total_us < <(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d["importer"].replace(" ", "_"), len(d["profiles"]), sum(p["total"] for p in d["profiles"]))' "$x.imported")
	check "$x: read as trace events ($importer)" test "$importer" = Importing_as_Trace_Event_Format_profile
	check "$x: one profile per thread with CPU time ($profiles)" \
		test "$profiles" = "$(value "$(eval echo "\"\$sum_$x\"")" threads)"
	check "$x: speedscope's total $total_us us = the file's CPU time" \
		test "$total_us" = "$(($(value "$(eval echo "\"\$sum_$x\"")" cpu_ns) / 1000))"
done

echo "$checks checks, $failures failures"
((failures == 0))
