#!/usr/bin/env bash
# plumbing_format: every C source of the tree is clean under .clang-format, and the check
# does flag a misformatted file (so it cannot pass vacuously).
set -euo pipefail
top=${PA_TOP:?run through tests/run.sh}
build=${PA_BUILD:?run through tests/run.sh}
check=$top/scripts/format-check.sh

# 1. The whole tree is clean.
out=$(bash "$check") || { echo "$out"; exit 1; }
n=$(sed -n 's/^format-check: \([0-9]*\) file(s) checked.*/\1/p' <<<"$out")
((n > 20)) || { echo "format-check checked only '$n' files: $out"; exit 1; }

# 2. A misformatted copy of the first listed file is reported (inside the tree so that the
#    project's .clang-format applies, in the build dir so git ignores it).
tmp=$build/plumbing-format.tmp
rm -rf "$tmp" && mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
first=experiment/record.c
ext=${first##*.}
good=$tmp/good.$ext bad=$tmp/bad.$ext
cp "$top/$first" "$good"
# Indent with 4 spaces instead of a tab and glue an if body onto its line.
sed -e 's/^\t/    /' "$top/$first" >"$bad"
printf '\nstatic int plumbing_probe(int x) { if (x) return 1; return 0; }\n' >>"$bad"
bash "$check" "$good"
if out=$(bash "$check" "$bad" 2>&1); then
	echo "format-check passed a misformatted file:"; echo "$out"; exit 1
fi
grep -q "format: $bad: differs" <<<"$out" || { echo "unexpected output:"; echo "$out"; exit 1; }
echo "ok: $n file(s) clean; a misformatted file is reported"
