#!/usr/bin/env bash
# The analyzer's page in a real browser: Debian's chromium, headless, driven by
# playwright-core (tests/tools/js/analyzer_page.mjs) on an experiment of
# tests/fixtures/export_prog.c with heap data.  Asserted: the function list shows
# er_print's functions in er_print's order and its <Total> CPU time; search narrows
# it; a click on Name sorts by name; a click on spin_until selects it and the
# Callers-Callees view shows er_print's callers (hot, warm); a click on hot in the
# flame graph zooms into it (it then fills the width) and selects it; a drag over the
# timeline selects a time range and the function list's <Total> becomes the CPU of the
# samples in it, then the whole run's again; no page error.
# Screenshots of each step: $PA_BUILD/test-logs/analyzer_browser/*.png.
. "$(dirname "$0")/analyzer_lib.sh" analyzer_browser
js=$PA_TOP/tests/tools/js
[[ -d $js/node_modules/playwright-core ]] ||
	{ echo "playwright-core missing in $js: run make deps (scripts/setup-deps.sh)"; exit 1; }
command -v chromium >/dev/null || { echo "chromium missing: run make deps (scripts/setup-deps.sh)"; exit 1; }
shots=$PA_BUILD/test-logs/analyzer_browser
rm -rf "$shots" && mkdir -p "$shots"
echo "# screenshots in $shots"

# What the page must show, from er_print: its default function list and the callers of spin_until
"$er_print" -printmode json -functions h.er >erp.json
"$er_print" -metrics a.totalcpu:name -csingle spin_until h.er |
	awk '/== Callers/ { f = 1; next } /^$/ { f = 0 } f { print $NF }' >callers.er
python3 - erp.json callers.er >expect.json <<'PY'
import json, sys
rep = next(json.loads(l) for l in open(sys.argv[1]) if json.loads(l)["report"] == "functions")
rows = rep["tables"][0]["rows"]
print(json.dumps({"names": [r["name"] for r in rows], "total_cpu": "%.3f" % (rows[0]["e.totalcpu"] / 1e9),
                  "func": "spin_until", "callers": open(sys.argv[2]).read().split(), "zoom": "hot"}))
PY
check "er_print's expectations ($(head -c 200 expect.json))" grep -q '"callers": \["hot", "warm"\]' expect.json
check "starts and prints its URL" start_analyzer h.er
(cd "$js" && node analyzer_page.mjs "$url" "$tmp/expect.json" "$shots") >page.log 2>&1
rc=$?
cat page.log
check "the page passes its checks in chromium (exit $rc)" test "$rc" = 0
for s in functions callers flame flame-zoomed timeline functions-range; do
	check "screenshot $s.png" test -s "$shots/$s.png"
done
stop_analyzer TERM
check "SIGTERM: exit 0 ($an_rc; $(head -c 300 an.err))" test "$an_rc" = 0

echo "$checks checks, $failures failures"
((failures == 0))
