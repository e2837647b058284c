# shellcheck shell=bash
# e2e_lib.sh - the start and end every plain e2e test shares (sourced; the runner skips
# *lib.sh): . e2e_lib.sh NAME makes a scratch directory /tmp/pa-e2e-NAME.XXXXXX ($W,
# removed at exit) and enters it, turns archiving off, and defines ok and bad, which
# count failures, and check WHAT CMD...: ok or bad by CMD's status; e2e_end prints
# the count and exits 1 if any.
set -u
: "${PA_TOP:?run through tests/run.sh}" "${PA_BIN:?}"
W=$(mktemp -d "/tmp/pa-e2e-$1.XXXXXX")
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1
export PA_ARCHIVE=off
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
check() {
	local what=$1
	shift
	if "$@"; then ok "$what"; else bad "$what"; fi
}
e2e_end() {
	echo "$fails failed"
	exit $((fails ? 1 : 0))
}
