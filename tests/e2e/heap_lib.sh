# shellcheck shell=bash
# Shared by the heap e2e tests (sourced; the runner skips *lib.sh): the
# collector binaries, expdump (built when missing), a scratch directory
# removed at exit, and check/note.  Usage: . heap_lib.sh NAME
: "${PA_BIN:?}" "${PA_LIB:?}" "${PA_TOP:?}" "${PA_BUILD:?}"
collect=$PA_BIN/collect
lib=$PA_LIB/libcollector.so
heaplib=$PA_LIB/libcollector-heap.so
expdump=$PA_BUILD/tests/tools/expdump
[[ -x $collect ]] || { echo "no $collect"; exit 1; }
[[ -f $lib && -f $heaplib ]] || { echo "skip: $lib or $heaplib not built"; exit 77; }
if [[ ! -x $expdump ]]; then
	make -s -C "$PA_TOP" BUILD="$PA_BUILD" "$expdump" >/dev/null || { echo "cannot build expdump"; exit 1; }
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
export PA_COLLECTOR_LIB=$lib PA_ARCHIVE=off
failures=0 checks=0
check() {
	local d=$1; shift
	checks=$((checks + 1))
	"$@" || { failures=$((failures + 1)); echo "not ok: $d"; }
}
note() { echo "# $*"; }
