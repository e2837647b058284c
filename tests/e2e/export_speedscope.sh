#!/usr/bin/env bash
# er_print -export speedscope on real experiments (export_lib.sh: export_prog with and
# without collect -H on, four threads), read back by speedscope itself: the file is
# validated against the JSON schema the speedscope npm package ships (ajv), and imported
# by speedscope's own importer (tests/tools/js/speedscope_import.mjs: the app of the npm
# package in jsdom).  Asserted:
#  - the format's rules (tests/tools/export_json_check.py): one sampled profile per metric
#    and thread, units nanoseconds / bytes / none, weights = samples, endValue = their sum;
#  - CPU time = er_print's <Total> as er_print prints it, allocations, bytes, leaks and
#    leaked bytes = <Total> exactly; the top function is er_print's; each worker thread's
#    stacks are on a profile of their own; :METRIC carries one metric;
#  - what speedscope imports: the same profiles, each with the total weight of the file's
#    profile, and the heaviest self frame of the CPU profiles is er_print's top function;
#  - the script command and FILE - write the same; errors name what is wrong.
. "$(dirname "$0")/export_lib.sh" export_speedscope json

common_checks speedscope
schema=$js/node_modules/speedscope/dist/release/file-format-schema.json
for x in c h t; do
	out=$(node "$js/schema_check.mjs" "$schema" "$x.json" 2>&1)
	check "$x: valid against speedscope's schema ($out)" test "$out" = valid
	node "$js/speedscope_import.mjs" "$x.json" >"$x.imported" 2>err
	check "$x: speedscope imports it ($(head -c 300 err))" test $? = 0
	check "$x: speedscope imported every profile, with the file's totals" python3 - "$x.json" "$x.imported" <<'PY'
import json, sys
f, imp = (json.load(open(p)) for p in sys.argv[1:3])
ok = imp["importer"] == "Importing as speedscope json file"
ok &= [p["name"] for p in imp["profiles"]] == [p["name"] for p in f["profiles"]]
ok &= all(i["total"] == sum(p["weights"]) and i["unit"] == p["unit"] for i, p in zip(imp["profiles"], f["profiles"]))
sys.exit(0 if ok else 1)
PY
	top=$(python3 -c '
import json, sys, collections
c = collections.Counter()
for p in json.load(open(sys.argv[1]))["profiles"]:
    if p["name"].startswith("Total CPU Time"):
        for fr in p["frames"]:
            c[fr["name"]] += fr["self"]
print(max(c.items(), key=lambda kv: kv[1])[0])' "$x.imported")
	check "$x: speedscope's heaviest self frame $top = er_print's top function" test "$top" = "$(top_function "$x.er")"
done

echo "$checks checks, $failures failures"
((failures == 0))
