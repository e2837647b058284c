#!/usr/bin/env bash
# demo.sh - build the bundled demo program, profile it with collect, print the reports.
#
#   scripts/demo.sh [BUILD_DIR]        (default: build; `make demo` runs it after `make all`)
#
# Builds demo/demo.c into BUILD_DIR/demo/demo (-O2 -g -pthread), runs
# `BUILD_DIR/bin/collect -o demo.1.er ./demo` in BUILD_DIR/demo (an old demo.*.er is removed
# first, so the name is always demo.1.er), then prints er_print's -functions,
# -callers-callees, -calltree, -header and -statistics reports, each under a
# "==> er_print -CMD demo.1.er" heading.  Exits 1 if collect or er_print is not built or
# any step fails (the remaining reports are still printed).
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-build}
[[ $build == /* ]] || build=$top/$build
collect=$build/bin/collect
er_print=$build/bin/er_print
out=$build/demo
exp=demo.1.er
# Built the way distributions build code (-O2, no frame pointers): the
# collector unwinds from CFI.
DEMO_CFLAGS=(-O2 -g -pthread)

die() { printf 'demo: error: %s\n' "$*" >&2; exit 1; }

for tool in "$collect" "$er_print"; do
	[[ -x $tool ]] || die "$tool is not built yet; run 'make' (or 'make demo') first, or wait until $(basename "$tool") exists"
done

mkdir -p "$out"
if [[ ! -x $out/demo || $top/demo/demo.c -nt $out/demo ]]; then
	echo "==> ${CC:-cc} ${DEMO_CFLAGS[*]} -o $out/demo demo/demo.c"
	"${CC:-cc}" "${DEMO_CFLAGS[@]}" -o "$out/demo" "$top/demo/demo.c" || die "compiling demo/demo.c failed"
fi

cd "$out"
rm -rf demo.*.er
echo "==> collect -o $exp ./demo   (in $out)"
"$collect" -o "$exp" ./demo || die "collect failed (exit $?)"
[[ -d $exp ]] || die "collect did not create $out/$exp"

status=0
for cmd in functions callers-callees calltree header statistics; do
	echo
	echo "==> er_print -$cmd $exp"
	if ! "$er_print" "-$cmd" "$exp"; then
		echo "demo: error: er_print -$cmd $exp failed" >&2
		status=1
	fi
done
echo
echo "demo: experiment in $out/$exp"
exit "$status"
