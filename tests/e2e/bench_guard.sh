#!/usr/bin/env bash
# The benchmark regression guard (issue #26, item 8): bench/quick.py measures the
# quick benchmarks' ratios against their anchors in one run (er_print -functions
# against gprofng display text, wall and peak RSS, on the demo and on
# bench/erprint/mathstr.c; the collector's share of page faults on python3 and a C++
# program, with perf) and fails when one is over twice the value recorded in
# bench/quick-baseline.json.  Ratios of two tools run side by side, not times: a
# loaded machine slows both.  Measured on the release build (PA_TOP/build, which
# `make check` builds first): a sanitized build's ratios say nothing.  Skipped when
# that build or gprofng is missing.
set -u
: "${PA_TOP:?run through tests/run.sh}"
rel=$PA_TOP/build
if [[ ! -x $rel/bin/er_print || ! -x $rel/bin/collect ]]; then
	echo "skip: no release build in $rel (make all)"
	exit 77
fi
if ! command -v gprofng >/dev/null; then
	echo "skip: gprofng (binutils) not installed: no anchor"
	exit 77
fi
out=$(python3 "$PA_TOP/bench/quick.py" --build "$rel" --check "$PA_TOP/bench/quick-baseline.json" 2>&1)
rc=$?
printf '%s\n' "$out"
if ((rc != 0)); then
	echo "FAIL: a ratio regressed past twice its recorded value (bench/quick-baseline.json)"
	exit 1
fi
n=$(grep -c ' ok$' <<<"$out")
if ((n == 0)); then
	echo "skip: no ratio could be measured here (gprofng recorded nothing?)"
	exit 77
fi
echo "ok: $n ratio(s) within twice their recorded values"
