# export_lib.sh - shared by the export e2e tests (sourced; the runner skips *lib.sh):
# heap_lib.sh's scratch directory and check, then tests/fixtures/export_prog built and
# recorded twice, c.er (clock profiling) and h.er (also collect -H on), and helpers:
#   secs NS                  NS nanoseconds as er_print prints seconds (%.3f, rounded)
#   total_row SPEC EXP...    the values of <Total> for metric list SPEC
#   top_er EXP METRIC        er_print's top function by exclusive METRIC
#   fails_with DESC TEXT ARG...  check that er_print ARG... fails and says TEXT
# Usage: . export_lib.sh NAME
. "$(dirname "${BASH_SOURCE[0]}")/heap_lib.sh" "$1"
er_print=$PA_BIN/er_print

gcc -O0 -g -fno-builtin -fno-omit-frame-pointer -o export_prog "$PA_TOP/tests/fixtures/export_prog.c" ||
	{ echo "cannot build export_prog"; exit 1; }
for x in c h; do
	opt=()
	[[ $x == h ]] && opt=(-H on)
	out=$("$collect" "${opt[@]}" -o $x.er ./export_prog 2>err) && rc=0 || rc=$?
	[[ $out:$rc == "export_prog done:0" ]] || { echo "collect $x: '$out' rc=$rc: $(head -c 300 err)"; exit 1; }
done

secs() { awk -v n="$1" 'BEGIN { printf "%.3f", n / 1e9 }'; }
total_row() {
	local m=$1; shift
	"$er_print" -metrics "$m:name" -functions "$@" | awk '$NF == "<Total>" { NF--; print; exit }'
}
top_er() {
	"$er_print" -metrics "e.$2:name" -sort "e.$2" -functions "$1" | awk 'f { print $NF; exit } $NF == "<Total>" { f = 1 }'
}
fails_with() {
	local d=$1 want=$2; shift 2
	"$er_print" "$@" >/dev/null 2>err && rc=0 || rc=$?
	check "$d: exit $rc, says '$want' ($(head -c 200 err))" eval '((rc != 0)) && grep -qF -- "$want" err'
}
