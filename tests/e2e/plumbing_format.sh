#!/usr/bin/env bash
# plumbing_format: the files in scripts/format-clean.txt are clean under .clang-format, and
# the check does flag a misformatted file (so it cannot pass vacuously).
set -euo pipefail
top=${PA_TOP:?run through tests/run.sh}
build=${PA_BUILD:?run through tests/run.sh}
check=$top/scripts/format-check.sh

# 1. The allowlist is non-empty and clean.
n=$(sed -e 's/#.*//' "$top/scripts/format-clean.txt" | grep -c '[^[:space:]]' || true)
((n > 0)) || { echo "scripts/format-clean.txt lists no files"; exit 1; }
bash "$check" --allowlist

# 2. A misformatted copy of the first listed file is reported (inside the tree so that the
#    project's .clang-format applies, in the build dir so git ignores it).
tmp=$build/plumbing-format.tmp
rm -rf "$tmp" && mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
first=$(sed -e 's/#.*//' "$top/scripts/format-clean.txt" | grep -m1 '[^[:space:]]' | tr -d '[:space:]')
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
echo "ok: $n allowlisted file(s) clean; a misformatted file is reported"
