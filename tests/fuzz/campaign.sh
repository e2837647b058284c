#!/usr/bin/env bash
# campaign.sh - run libFuzzer targets for a given number of executions each and print a
# table of what they did, for docs/fuzzing.md.  `make fuzz-campaign` builds the targets
# (make fuzz-bins) and runs this.
#
#   tests/fuzz/campaign.sh [-b FUZZ_BUILD] [-r RUNS] [-o OUTDIR] [TARGET[=RUNS]...]
#
#   -b  the libFuzzer build (default build-fuzz): FUZZ_BUILD/libfuzzer/fuzz_TARGET
#   -r  executions per target without its own =RUNS (default 1000000)
#   -o  scratch directory (default FUZZ_BUILD/campaign): OUTDIR/corpus/TARGET is the
#       corpus each run grows (tests/fuzz/corpus/TARGET is only read), OUTDIR/logs/TARGET.log
#       libFuzzer's output, OUTDIR/artifacts/ the inputs that crashed, leaked or timed out
#   TARGET  default: every tests/fuzz/fuzz_*.c
#
# One process per target, one after the other, on one core (no -jobs/-workers).  An input
# that runs longer than 10 s counts as a finding (a hang).  A run stops at its first
# finding; the table says so and the exit status is 1.  Add each such input to
# tests/fuzz/corpus/TARGET/ as regress_NAME once it is fixed.
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$top/build-fuzz runs=1000000 out=
while getopts b:r:o: opt; do
	case $opt in
	b) build=$OPTARG ;;
	r) runs=$OPTARG ;;
	o) out=$OPTARG ;;
	*) sed -n '2,/^set -euo/p' "$0" | sed '$d' >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[[ $build == /* ]] || build=$top/$build
out=${out:-$build/campaign}
targets=("$@")
if ((${#targets[@]} == 0)); then
	for f in "$top"/tests/fuzz/fuzz_*.c; do
		f=${f##*/fuzz_}
		targets+=("${f%.c}")
	done
fi
mkdir -p "$out/logs" "$out/artifacts"

final_stat() { # NAME LOG: libFuzzer's final stat::NAME
	sed -n "s/^stat::$1: *//p" "$2" | tail -n 1
}

rows=() total=0 findings=0 start_all=$SECONDS
for spec in "${targets[@]}"; do
	t=${spec%%=*} n=$runs
	[[ $spec == *=* ]] && n=${spec#*=}
	bin=$build/libfuzzer/fuzz_$t log=$out/logs/$t.log
	[[ -x $bin ]] || { echo "campaign: $bin missing (make fuzz-bins)" >&2; exit 2; }
	mkdir -p "$out/corpus/$t" "$top/tests/fuzz/corpus/$t"
	echo "campaign: $t, $n executions ..." >&2
	start=$SECONDS
	set +e
	"$bin" -runs="$n" -max_len=70000 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$out/artifacts/$t-" "$out/corpus/$t" "$top/tests/fuzz/corpus/$t" >"$log" 2>&1
	rc=$?
	set -e
	secs=$((SECONDS - start))
	execs=$(final_stat number_of_executed_units "$log")
	execs=${execs:-0}
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
	result=ok
	if ((rc != 0)) || grep -q 'Test unit written to' "$log"; then
		result="FINDING: $(grep -o 'Test unit written to .*' "$log" | tail -n 1 | sed 's/Test unit written to //')"
		result="$result ($(grep -m1 -o 'ERROR: [A-Za-z]*: [a-z-]*\|runtime error: .*\|ERROR: libFuzzer: [a-z -]*' "$log" || echo "exit $rc"))"
		findings=$((findings + 1))
	fi
	total=$((total + execs))
	rows+=("$(printf '| %s | %s | %s | %s | %s | %s | %s |' "$t" "$n" "$execs" \
		"$(final_stat average_exec_per_sec "$log")" "$secs" "${cov:-?}" "$result")")
done

echo
echo "Fuzz campaign $(date -u +%Y-%m-%d), commit $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo '?')," \
	"$(clang --version | head -n 1), one core, $((SECONDS - start_all)) s"
echo
echo "| target | runs asked | executions | exec/s | seconds | edges covered | result |"
echo "|---|---:|---:|---:|---:|---:|---|"
printf '%s\n' "${rows[@]}"
echo "| **total** | | **$total** | | $((SECONDS - start_all)) | | $findings finding(s) |"
((findings == 0))
