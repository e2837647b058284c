#!/usr/bin/env bash
# report_snapshot.sh - the same reports from the same experiments, to compare two builds
# byte for byte (issue 25: a refactoring of the library changes no report).
#
#   tests/tools/report_snapshot.sh record EXPDIR [BINDIR]   record the experiments once
#   tests/tools/report_snapshot.sh run EXPDIR OUTDIR [BINDIR] every report of every one
#   diff -r OUTDIR1 OUTDIR2                                  the two builds' reports
#
# BINDIR defaults to build/bin of this checkout.  record compiles the fixtures and
# records clock, heap, sync, I/O, counter (software events), descendants and a
# two-experiment compare; run writes one file per experiment and report (text, CSV and
# JSON, exports, -header, -statistics, filters, selections) with its exit status, each
# run in EXPDIR so paths are the same for both builds.  Reports that name er_print's
# own time and memory (procstats) are left out.
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
usage() { echo "usage: $0 record EXPDIR [BINDIR] | run EXPDIR OUTDIR [BINDIR]" >&2; exit 2; }
[[ $# -ge 2 ]] || usage

record() {
	local d=$1 bin=$2
	mkdir -p "$d"
	cd "$d"
	export PA_ARCHIVE=on
	cc -O1 -g "$top/tests/fixtures/export_prog.c" -o export_prog
	cc -O1 -g -fno-inline -pthread "$top/tests/fixtures/sync_waits.c" -o sync_waits
	cc -O0 -g -fno-builtin -pthread "$top/tests/fixtures/heap_threads.c" -o heap_threads
	cc -O1 -g -fno-inline "$top/tests/fixtures/io_ops.c" -o io_ops
	cc -O1 -g "$top/tests/fixtures/desc_tree.c" -o desc_tree
	cc -O0 -g -pthread "$top/tests/fixtures/e2e_threads.c" -o e2e_threads
	local c=$bin/collect
	"$c" -o clock.er ./export_prog >/dev/null 2>&1 || true
	"$c" -o clock2.er ./export_prog >/dev/null 2>&1 || true
	"$c" -o hi.er -p hi ./export_prog >/dev/null 2>&1 || true
	"$c" -o threads.er ./e2e_threads >/dev/null 2>&1 || true
	"$c" -o heap.er -H on -p hi ./heap_threads >/dev/null 2>&1 || true
	"$c" -o heapclock.er -H on ./export_prog >/dev/null 2>&1 || true
	"$c" -o sync.er -s all ./sync_waits waits >/dev/null 2>&1 || true
	mkdir -p run && (cd run && "$c" -o ../io.er -i on ../io_ops >/dev/null 2>&1) || true
	"$c" -o hwc.er -h task-clock,on,page-faults,on ./export_prog >/dev/null 2>&1 || true
	"$c" -o desc.er -p hi ./desc_tree tree3 >/dev/null 2>&1 || true
	ls -d ./*.er
}

# one report: NAME COMMAND-LINE-WORDS... -> OUT/EXP.NAME (stdout and stderr) and its status
report() {
	local exp=$1 name=$2
	shift 2
	local f="$out/${exp%.er}.$name"
	"$bin/er_print" "$@" >"$f" 2>&1 && echo "exit 0" >>"$f" || echo "exit $?" >>"$f"
}

run() {
	local d=$1
	mkdir -p "$out"
	out=$(cd "$out" && pwd -P)
	cd "$d"
	local e m fn
	for e in *.er; do
		[[ -d $e ]] || continue
		fn=$("$bin/er_print" -limit 3 -functions "$e" 2>/dev/null | awk 'NR > 1 && $NF != "<Total>" && $NF ~ /^[a-z_]+$/ { print $NF; exit }')
		report "$e" header -header "$e"
		report "$e" statistics -statistics "$e"
		report "$e" overview -overview "$e"
		report "$e" lists -experiment_list -thread_list -cpu_list -sample_list -object_list "$e"
		report "$e" metric_list -metric_list "$e"
		report "$e" objects -objects "$e"
		for m in text json c html; do
			report "$e" functions.$m -printmode $m -functions "$e"
			report "$e" callers.$m -printmode $m -callers-callees "$e"
			report "$e" calltree.$m -printmode $m -calltree "$e"
			report "$e" lines.$m -printmode $m -lines "$e"
			report "$e" pcs.$m -printmode $m -pcs "$e"
			report "$e" header.$m -printmode $m -header -statistics "$e"
		done
		report "$e" fsummary -fsummary "$e"
		report "$e" lsummary -limit 20 -lsummary "$e"
		report "$e" psummary -limit 20 -psummary "$e"
		report "$e" metrics_all -metrics e.%totalcpu:i.%totalcpu:e.user:name -sort e.user -functions "$e"
		report "$e" names -name mangled -functions -name short:soname -functions "$e"
		report "$e" inline_off -inline off -functions -lines "$e"
		report "$e" objhide -object_hide all -functions -object_show all -object_select "${e%.er}" -functions "$e"
		report "$e" thread1 -thread_select 1 -functions -thread_select all "$e"
		report "$e" filter -filters 'THRID IN (1,2) && TSTAMP<2s' -functions -filters 1 -describe "$e"
		report "$e" sample1 -sample_select 1 -functions "$e"
		if [[ -n $fn ]]; then
			report "$e" fsingle -fsingle "$fn" -csingle "$fn" "$e"
			report "$e" source -source "$fn" "$e"
			report "$e" disasm -disasm "$fn" "$e"
		fi
		for m in heap leaks allocs heapstat synclocks ioactivity iodetail iocallstack iostat; do
			report "$e" $m.text -$m "$e"
			report "$e" $m.json -printmode json -$m "$e"
			report "$e" $m.c -printmode c -$m "$e"
		done
		for m in folded pprof speedscope firefox chrome; do
			report "$e" export.$m -export $m "$out/${e%.er}.export.$m.out" "$e"
		done
		report "$e" export.folded.stdout -export folded - "$e"
	done
	[[ -d clock.er && -d clock2.er ]] && for m in on delta ratio; do
		report clock2.er compare.$m -compare $m -functions -lines -callers-callees clock.er clock2.er
	done
	[[ -d clock.er && -d hi.er ]] && report hi.er aggregate -functions -header clock.er hi.er
	ls "$out" | wc -l
}

case $1 in
record)
	bin=$(cd "${3:-$top/build/bin}" && pwd -P)
	record "$2" "$bin"
	;;
run)
	[[ $# -ge 3 ]] || usage
	bin=$(cd "${4:-$top/build/bin}" && pwd -P)
	out=$3
	run "$2"
	;;
*) usage ;;
esac
