# shellcheck shell=bash
# Shared by the counter overflow profiling tests (sourced; the runner skips
# *lib.sh): builds tests/fixtures/hwc_counts.c, and defines
#   figures EXP METRICS  er_print's function list in printmode json as
#                        "name value..." lines (integers: counts, ns);
#   fig FILE NAME [COL]  a column of name's line (default the first figure);
#   within PCT GOT WANT  |GOT - WANT| <= PCT% of WANT.
# Usage: . hwc_lib.sh NAME
. "$(dirname "${BASH_SOURCE[0]}")/heap_lib.sh" "$1"
erprint=$PA_BIN/er_print
gcc -O1 -g -fno-inline -fno-omit-frame-pointer -pthread -o hwc_counts "$PA_TOP/tests/fixtures/hwc_counts.c" ||
	{ echo "cannot build hwc_counts"; exit 1; }

figures() { # experiment metric-list
	"$erprint" -printmode json -metrics "$2" -functions "$1" 2>/dev/null |
		python3 -c '
import json, sys
keys = [k for k in sys.argv[1].split(":") if k != "name"]
for line in sys.stdin:
    o = json.loads(line)
    if o.get("report") != "functions":
        continue
    for row in o["tables"][0]["rows"]:
        print(row["name"], *[row[k.replace("%", "")] for k in keys])' "$2"
}
fig() { awk -v f="$2" -v c="${3:-2}" '$1 == f { print $c; exit }' "$1"; }
within() { python3 -c "import sys; g, w = float('${2:-0}' or 0), float('$3'); sys.exit(0 if abs(g - w) <= $1 / 100 * w else 1)"; }
