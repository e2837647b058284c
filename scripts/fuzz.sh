#!/usr/bin/env bash
# Fuzz the decoders with libFuzzer (clang) and grow tests/fuzz/corpus/.
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
# TARGET defaults to every tests/fuzz/fuzz_*.c; the binaries come from `make fuzz-bins`.
# The corpora are replayed by `make check` (tests/fuzz/replay_main.c); this
# script is for developers and is not part of the test suite.  For a campaign
# of a set number of executions, see tests/fuzz/campaign.sh (make fuzz-campaign).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-60}
shift || true
targets=("$@")
if ((${#targets[@]} == 0)); then
	for f in "$top"/tests/fuzz/fuzz_*.c; do
		f=${f##*/fuzz_}
		targets+=("${f%.c}")
	done
fi
out=$top/build-fuzz
make -C "$top" --no-print-directory fuzz-bins >/dev/null
for t in "${targets[@]}"; do
	mkdir -p "$top/tests/fuzz/corpus/$t"
	"$out/libfuzzer/fuzz_$t" -max_total_time="$secs" -max_len=70000 -timeout=10 \
		-artifact_prefix="$out/$t-" "$top/tests/fuzz/corpus/$t" || exit 1
	# keep the corpus small: merge into a minimal set
	mkdir -p "$out/min_$t"
	rm -f "$out/min_$t"/*
	"$out/libfuzzer/fuzz_$t" -merge=1 "$out/min_$t" "$top/tests/fuzz/corpus/$t" >/dev/null 2>&1
	# regress_* files are inputs that once failed: they stay whatever the merge says
	find "$top/tests/fuzz/corpus/$t" -type f ! -name 'regress_*' -delete
	cp "$out/min_$t"/* "$top/tests/fuzz/corpus/$t/"
done
