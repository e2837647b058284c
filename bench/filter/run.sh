#!/usr/bin/env bash
# bench/filter/run.sh BUILD [N]: the cost of the selection and the filter
# expression on N clock samples (default 1M) of a synthetic experiment
# (mkexp --bulk; 4 threads on CPUs 0-3, 10 sample points): er_print
# -functions without a filter, then with each kind of selection.  Prints
# seconds per run and the extra cost per million events; asserts nothing.
set -eu
build=${1:-build}
n=${2:-1000000}
work=$(mktemp -d /tmp/pa-bench-filter.XXXXXX)
trap 'rm -rf "$work"' EXIT
{
	for t in 101 102 103 104; do echo "thread $t"; done
	for c in 0 1 2 3; do
		# runs of 5000 samples: mkexp starts a 64 KiB block at each change of thread
		echo "csample 10$((c + 1)) $c 5000 1000000 0xa00$c 0xb000 0x1"
		echo "csample 10$((4 - c)) $c 5000 1000000 0xa10$c 0xb000 0x1"
	done
	for k in $(seq 1 10); do echo "point $((k * n * 100))"; done
} >"$work/s.txt"
"$build/tests/tools/mkexp" --bulk "$n" "$work/x.er" <"$work/s.txt"
echo "# experiment: $(du -sh "$work/x.er" | cut -f1)"
erp=$build/bin/er_print
run() { # label, er_print options...
	local label=$1 t0 t1
	shift
	"$erp" "$@" -functions "$work/x.er" >/dev/null # warm the page cache
	t0=$(date +%s.%N)
	"$erp" "$@" -functions "$work/x.er" >/dev/null
	t1=$(date +%s.%N)
	echo "$label $(echo "$t1 - $t0" | bc)"
}
echo "# $n events; seconds of er_print -functions"
{
	run none
	run thread_select -thread_select 1,3
	run cpu_select -cpu_select 0-1
	run filters_thrid -filters 'THRID IN (1,3)'
	run filters_mixed -filters 'THRID IN (1,3:4) && CPU != 2 && TSTAMP >= 100ms || EXPID == 9'
	run filters_sample -filters 'SAMPLE IN (2:5)'
} | awk -v n="$n" 'NR == 1 { base = $2 } { printf "%-16s %7.3f s  %+7.3f s per 1M events\n", $1, $2, ($2 - base) * 1e6 / n }'
