#!/usr/bin/env bash
# Run every test and print "N passed, N failed" as the last line.
#   tests/run.sh BUILD_DIR [PATTERN]
# Each test is one executable (unit test, fuzz-corpus replay) or one script
# (tests/component/*.sh, tests/e2e/*.sh); exit status 0 = pass, 77 = skip.
set -u
build=${1:-build-test}
pattern=${2:-}
top=$(cd "$(dirname "$0")/.." && pwd)
export PA_TOP=$top PA_BUILD=$top/$build PA_BIN=$top/$build/bin PA_LIB=$top/$build/lib
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# er_archive links objects from a per-user cache: tests get one of their own
if [[ -z ${PA_CACHE_DIR:-} ]]; then
	PA_CACHE_DIR=$(mktemp -d "${TMPDIR:-/tmp}/pa-test-cache.XXXXXX") || exit 1
	trap 'rm -rf "$PA_CACHE_DIR"' EXIT
fi
export PA_CACHE_DIR
logdir=$top/$build/test-logs
mkdir -p "$logdir"
pass=0 fail=0 skip=0 failed=()

run_one() { # name, command...
	local name=$1; shift
	[[ -n $pattern && $name != *$pattern* ]] && return
	local log=$logdir/${name//\//_}.log start=$SECONDS rc
	timeout 600 "$@" >"$log" 2>&1
	rc=$?
	local dt=$((SECONDS - start))
	if ((rc == 0)); then
		pass=$((pass + 1)); printf 'PASS %-50s %3ds\n' "$name" "$dt"
	elif ((rc == 77)); then
		skip=$((skip + 1)); printf 'SKIP %-50s %s\n' "$name" "$(tail -n1 "$log")"
	else
		fail=$((fail + 1)); failed+=("$name")
		printf 'FAIL %-50s %3ds (exit %d)\n' "$name" "$dt" "$rc"
		sed 's/^/    | /' "$log" | tail -n 40
	fi
}

for t in "$top/$build"/tests/unit/test_*; do
	[[ -x $t ]] && run_one "unit/$(basename "$t")" "$t"
done
for t in "$top/$build"/tests/fuzz/fuzz_*; do
	[[ -x $t ]] || continue
	n=$(basename "$t")
	run_one "fuzz-replay/$n" "$t" "$top/tests/fuzz/corpus/${n#fuzz_}"
done
for kind in component e2e; do
	for t in "$top"/tests/$kind/*.sh; do
		[[ -f $t ]] || continue
		[[ $(basename "$t") == *lib.sh ]] && continue # sourced helpers, not tests
		run_one "$kind/$(basename "$t" .sh)" bash "$t"
	done
done

for f in "${failed[@]}"; do echo "failed: $f"; done
echo "$pass passed, $fail failed, $skip skipped"
((fail == 0))
