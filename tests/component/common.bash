# Shared helpers for component tests: build the fixture program, make
# synthetic experiments with mkexp, compare er_print output with golden files.
set -u
: "${PA_TOP:?run through tests/run.sh}" "${PA_BUILD:?}" "${PA_BIN:?}"
# shellcheck disable=SC2034 # the tests that source this file use them
ER_PRINT=$PA_BIN/er_print
# shellcheck disable=SC2034 # likewise
MKEXP=$PA_BUILD/tests/tools/mkexp
WORK=$(mktemp -d /tmp/pa-component.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
FAILS=0
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }
pass() { echo "ok: $*"; }
# build the reference-example fixture (only its symbols are used)
fixture_prog() {
	[[ -x $WORK/prog ]] || cc -O0 -g "$PA_TOP/tests/fixtures/cc_prog.c" -o "$WORK/prog" || exit 1
	echo "$WORK/prog"
}
# expect_same NAME ACTUAL_FILE: compare with tests/component/expected/NAME
expect_same() {
	local exp=$PA_TOP/tests/component/expected/$1
	if diff -u "$exp" "$2" >"$WORK/diff" 2>&1; then pass "$1"; else fail "$1 differs:"; cat "$WORK/diff"; fi
}
finish() { ((FAILS == 0)) && echo "all passed" || { echo "$FAILS failed"; exit 1; }; }
