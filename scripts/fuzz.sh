#!/usr/bin/env bash
# Fuzz the decoders with libFuzzer (clang) and grow tests/fuzz/corpus/.
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
# The corpora are replayed by `make check` (tests/fuzz/replay_main.c); this
# script is for developers and is not part of the test suite.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-60}
shift || true
targets=("$@")
((${#targets[@]})) || targets=(datafile experiment colxform)
out=$top/build-fuzz
mkdir -p "$out"
flags=(-std=gnu11 -g -O1 -I"$top" -D_GNU_SOURCE -DPA_VERSION='"fuzz"' -fsanitize=fuzzer,address,undefined)
srcs=("$top"/analysis/*.c "$top"/experiment/*.c "$top"/common/*.c)
for t in "${targets[@]}"; do
	clang "${flags[@]}" "$top/tests/fuzz/fuzz_$t.c" "${srcs[@]}" -lelf -ldw -lexpat -lcapstone -lzstd -lstdc++ -lm -o "$out/fuzz_$t"
	mkdir -p "$top/tests/fuzz/corpus/$t"
	"$out/fuzz_$t" -max_total_time="$secs" -max_len=70000 "$top/tests/fuzz/corpus/$t" || exit 1
	# keep the corpus small: merge into a minimal set
	mkdir -p "$out/min_$t"
	rm -f "$out/min_$t"/*
	"$out/fuzz_$t" -merge=1 "$out/min_$t" "$top/tests/fuzz/corpus/$t" >/dev/null 2>&1
	# regress_* files are inputs that once failed: they stay whatever the merge says
	find "$top/tests/fuzz/corpus/$t" -type f ! -name 'regress_*' -delete
	cp "$out/min_$t"/* "$top/tests/fuzz/corpus/$t/"
done
