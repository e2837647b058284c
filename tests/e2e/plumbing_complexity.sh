#!/usr/bin/env bash
# plumbing_complexity: no function of the product above scripts/complexity-check.sh's
# cut-off except those listed in scripts/complexity-allow.txt, none of which grew; and the
# check does flag a new complex function, a listed one that grew and a listed one that
# was split (so it cannot pass vacuously, and the list only shrinks).
set -euo pipefail
top=${PA_TOP:?run through tests/run.sh}
build=${PA_BUILD:?run through tests/run.sh}
check=$top/scripts/complexity-check.sh

# 1. The tree passes.
out=$(bash "$check") || { echo "$out"; exit 1; }
n=$(sed -n 's/^complexity-check: \([0-9]*\) functions.*/\1/p' <<<"$out")
((n > 500)) || { echo "complexity-check measured only '$n' functions: $out"; exit 1; }

# 2. A tree of its own: one function of 30 decisions (modified McCabe 31).
tmp=$build/plumbing-complexity.tmp
rm -rf "$tmp" && mkdir -p "$tmp/common" "$tmp/scripts"
trap 'rm -rf "$tmp"' EXIT
gen() { # N: a function with N ifs
	echo "int probe(int x);"
	echo "int probe(int x) {"
	echo "	int r = 0;"
	for ((i = 0; i < $1; i++)); do echo "	if (x == $i) r += $i;"; done
	echo "	return r;"
	echo "}"
}
gen 30 >"$tmp/common/probe.c"
: >"$tmp/scripts/complexity-allow.txt"
expect_fail() { # WHAT PATTERN
	local o
	if o=$(bash "$check" -C "$tmp" 2>&1); then
		echo "complexity-check passed $1:"; echo "$o"; exit 1
	fi
	grep -q "$2" <<<"$o" || { echo "$1: unexpected output:"; echo "$o"; exit 1; }
}
expect_fail "a new function of 31" "common/probe.c: probe: 31, above the cut-off 25"
echo "common/probe.c probe 28" >"$tmp/scripts/complexity-allow.txt"
expect_fail "a listed function that grew" "probe: 31, grew from 28"
echo "common/probe.c probe 31" >"$tmp/scripts/complexity-allow.txt"
bash "$check" -C "$tmp" >/dev/null || { echo "a listed function at its score failed"; exit 1; }
gen 10 >"$tmp/common/probe.c"
expect_fail "a listed function now within the cut-off" "probe is 11 now, within the cut-off"
echo "ok: $n functions checked; a new, a grown and a split function are reported"
