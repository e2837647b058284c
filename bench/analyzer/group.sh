#!/usr/bin/env bash
# bench/analyzer/group.sh BUILD [N]: open a group of N (default 64) one-second experiments
# of bench/erprint/mathstr.c (recorded two at a time, each its own collect, into one .erg)
# in the analyzer and show the functions: the time from the start to the printed URL, then
# /api/overview + /api/functions (issue #26 item 7: at most 2 s in all); er_print -functions
# on the group beside it.  Prints only.
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
n=${2:-64}
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
w=$(mktemp -d /tmp/pa-bench-group.XXXXXX)
trap 'kill "${pid:-}" 2>/dev/null || true; rm -rf "$w"' EXIT
cd "$w"
export PA_CACHE_DIR=$w/cache
cc -O2 -g -o mathstr "$top/bench/erprint/mathstr.c" -lm
t=$SECONDS
for ((i = 1; i <= n; i += 2)); do
	"$build/bin/collect" -o "a$i.er" -g g.erg ./mathstr 1 >/dev/null 2>&1 &
	if ((i < n)); then "$build/bin/collect" -o "b$i.er" -g g.erg ./mathstr 1 >/dev/null 2>&1; fi
	wait
done
echo "recorded $(($(wc -l <g.erg) - 1)) experiments in $((SECONDS - t)) s"
now() { date +%s.%N; }
t0=$(now)
"$build/bin/analyzer" --no-browser --port 0 g.erg >an.out 2>an.err &
pid=$!
until grep -q 'http://' an.out 2>/dev/null; do sleep 0.005; done
t1=$(now)
url=$(grep -o 'http://[^ ]*' an.out)
base=${url%%/\?*} tok=${url##*token=} port=${base##*:}
curl -sf -b "pa_token_$port=$tok" "$base/api/overview" -o ov.json
curl -sf -b "pa_token_$port=$tok" "$base/api/functions" -o fn.json
t2=$(now)
kill "$pid"
wait "$pid" 2>/dev/null || true
pid=
python3 - "$t0" "$t1" "$t2" <<'PY'
import sys
t0, t1, t2 = map(float, sys.argv[1:])
print("analyzer start %.3f s, overview + functions %.3f s, open + functions view %.3f s (target 2 s: %s)"
      % (t1 - t0, t2 - t1, t2 - t0, "met" if t2 - t0 <= 2 else "missed"))
PY
/usr/bin/time -f "er_print -functions on the group: %e s, %M KB" "$build/bin/er_print" -functions g.erg >/dev/null
