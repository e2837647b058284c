#!/usr/bin/env bash
# run.sh [BUILD] - the CFI unwinder benchmark (make bench-unwind).
# Builds the harness (tests/unwind/build.sh) into BUILD/bench/unwind, then:
#  - unwbench at depths 8, 32 and 128 (2 threads, UNWBENCH_SECONDS each, default 3):
#    each SIGPROF (1 ms CPU timer + tgkill kicks every 250 us) is unwound by
#    unwind_from_context, timed with rdtsc inside the handler, libunwind off;
#    prints ns per sample and per frame (median, p99) against the target;
#  - unwbench tables: per load object, cfi_build_eh_frame_hdr time (median of 5)
#    and table memory.
# Prints only; never fails on the figures (the machine is shared and noisy).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build}
[[ $build == /* ]] || build=$top/$build
out=$build/bench/unwind
secs=${UNWBENCH_SECONDS:-3}
target_ns=30

mkdir -p "$out"
bash "$top/tests/unwind/build.sh" "$out" >"$out/build.log" 2>&1
rc=$?
if ((rc == 77)); then
	echo "bench-unwind: skipped: $(tail -n1 "$out/build.log")"
	exit 0
elif ((rc != 0)); then
	cat "$out/build.log" >&2
	echo "bench-unwind: build failed" >&2
	exit 1
fi

res=$out/results.txt
rm -f "$res"
for d in 8 32 128; do
	UNWCHECK_REF=0 UNWCHECK_KICK_US=250 UNWCHECK_OUT=$res UNWCHECK_TAG=depth$d \
		"$out/unwbench" "$d" "$secs" 2 2>"$out/depth$d.log" || { cat "$out/depth$d.log" >&2; exit 1; }
done

echo "== CFI unwinder cost in the SIGPROF handler (-O2, no frame pointers; $secs s x 2 threads per depth)"
printf '%-8s %8s %9s %12s %12s %12s %12s  %s\n' depth frames samples "ns/sample50" "ns/sample99" \
	"ns/frame50" "ns/frame99" "target ns/frame50 <= $target_ns"
awk -v target=$target_ns '
/^run / {
	for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	f50 = v["ps_frame_p50"] / 1000; f99 = v["ps_frame_p99"] / 1000
	d = $2; sub(/^depth/, "", d)
	printf "%-8s %8.1f %9d %12d %12d %12.1f %12.1f  %s\n", d, v["frames_avg"], v["samples"], \
		v["ns_p50"], v["ns_p99"], f50, f99, (f50 <= target ? "ok" : "OVER")
}' "$res"
echo "(frames = the whole stack: DEPTH recursion frames + leaf + thread start + clone3;"
echo " ns/frame = per-sample time / frames, median and p99 over samples)"
echo
"$out/unwbench" tables 5 2>/dev/null
echo "(KiB = the table's own bytes; unwtab maps each object's arena in chunks of >= 256 KiB,"
echo " so its total counts untouched address space, not resident memory)"
