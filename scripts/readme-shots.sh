#!/usr/bin/env bash
# readme-shots.sh - remake the README's screenshots of the analyzer (docs/images/analyzer-*.png):
# profiles the demo (scripts/demo.sh's build of demo/demo.c) with BUILD_DIR's collect, serves
# the experiment with BUILD_DIR's analyzer and photographs the Functions, Flame Graph and
# Timeline views in Debian's chromium (tests/tools/js/readme_shots.mjs; `npm ci` there first).
#
#   scripts/readme-shots.sh [BUILD_DIR]      (default: build)
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-build}
[[ $build == /* ]] || build=$top/$build
die() { printf 'readme-shots: error: %s\n' "$*" >&2; exit 1; }
for tool in collect analyzer; do
	[[ -x $build/bin/$tool ]] || die "$build/bin/$tool is not built; run 'make' first"
done
[[ -d $top/tests/tools/js/node_modules/playwright-core ]] || die "no playwright-core: run 'npm ci' in tests/tools/js"

tmp=$(mktemp -d)
pid=
trap '[[ -n $pid ]] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
cc -O2 -g -pthread -o "$tmp/demo" "$top/demo/demo.c"
(cd "$tmp" && "$build/bin/collect" -o demo.1.er ./demo >/dev/null)
: >"$tmp/an.out"
"$build/bin/analyzer" --no-browser --port 0 "$tmp/demo.1.er" >"$tmp/an.out" 2>"$tmp/an.err" &
pid=$!
url=
for ((i = 0; i < 100; i++)); do
	url=$(sed -n 's/^Analyzer: //p' "$tmp/an.out")
	[[ -n $url ]] && break
	sleep 0.1
done
[[ -n $url ]] || die "the analyzer printed no URL: $(head -c 300 "$tmp/an.err")"
mkdir -p "$top/docs/images"
node "$top/tests/tools/js/readme_shots.mjs" "$url" "$top/docs/images"
ls -l "$top"/docs/images/analyzer-*.png
