#!/usr/bin/env bash
# campaign.sh - run libFuzzer targets for a given number of executions each and print a
# table of what they did, for docs/fuzzing.md.  `make fuzz-campaign` builds the targets
# (make fuzz-bins) and runs this.
#
#   tests/fuzz/campaign.sh [-b FUZZ_BUILD] [-t TEST_BUILD] [-r RUNS] [-o OUTDIR] [TARGET[=RUNS]...]
#
#   -b  the libFuzzer build (default build-fuzz): FUZZ_BUILD/libfuzzer/fuzz_TARGET
#   -t  the test build (default build-test, ASan+UBSan) whose programs the "files" target runs
#   -r  executions per target without its own =RUNS (default 1000000)
#   -o  scratch directory (default FUZZ_BUILD/campaign): OUTDIR/corpus/TARGET is the
#       corpus each run grows (tests/fuzz/corpus/TARGET is only read), OUTDIR/logs/TARGET.log
#       libFuzzer's output, OUTDIR/artifacts/ the inputs that crashed, leaked or timed out
#   TARGET  default: every tests/fuzz/fuzz_*.c, then "files"
#
# "files" is not a libFuzzer target: tests/fuzz/mutate_files.py mutates what the files of
# a few experiments *are* (a FIFO, a link to /dev/zero or out of the experiment, a 1 TiB
# sparse file, a zstd bomb; a load object's path made a FIFO, /dev/zero, a sparse or a
# private file) and runs er_print, er_archive, er_rm, er_cp and the analyzer over each;
# its RUNS caps the mutations (all of them, some 220, by default), its executions are the
# program runs, and a finding is a run that blocked, crashed, peaked over 1 GiB or let
# the file outside through (OUTDIR/files/findings/ keeps each mutated experiment).
#
# One process per target, one after the other, on one core (no -jobs/-workers).  An input
# that runs longer than 10 s counts as a finding (a hang).  A run stops at its first
# finding; the table says so and the exit status is 1.  Add each such input to
# tests/fuzz/corpus/TARGET/ as regress_NAME once it is fixed.
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$top/build-fuzz test_build=$top/build-test runs=1000000 out=
while getopts b:t:r:o: opt; do
	case $opt in
	b) build=$OPTARG ;;
	t) test_build=$OPTARG ;;
	r) runs=$OPTARG ;;
	o) out=$OPTARG ;;
	*) sed -n '2,/^set -euo/p' "$0" | sed '$d' >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[[ $build == /* ]] || build=$top/$build
[[ $test_build == /* ]] || test_build=$top/$test_build
out=${out:-$build/campaign}
targets=("$@")
if ((${#targets[@]} == 0)); then
	for f in "$top"/tests/fuzz/fuzz_*.c; do
		f=${f##*/fuzz_}
		targets+=("${f%.c}")
	done
	targets+=(files)
fi
mkdir -p "$out/logs" "$out/artifacts"

final_stat() { # NAME LOG: libFuzzer's final stat::NAME
	sed -n "s/^stat::$1: *//p" "$2" | tail -n 1
}

# files [RUNS]: the file-level mutations; one table row
files_row() {
	local n=$1 log=$out/logs/files.log start=$SECONDS rc line execs
	[[ -x $test_build/bin/er_print && -x $test_build/tests/tools/mkexp ]] ||
		{ echo "campaign: $test_build/bin/er_print or tests/tools/mkexp missing (make test-bins)" >&2; exit 2; }
	echo "campaign: files, ${n:-all} mutations ..." >&2
	set +e
	python3 "$top/tests/fuzz/mutate_files.py" "$test_build/bin" "$test_build/tests/tools/mkexp" \
		${n:+-n "$n"} -o "$out/files" >"$log" 2>&1
	rc=$?
	set -e
	line=$(grep '^mutations ' "$log" | tail -n 1)
	execs=$(awk '{print $4}' <<<"$line")
	local secs=$((SECONDS - start)) result=ok
	if ((rc != 0)); then
		result="FINDING: $(grep -c '^FINDING' "$log") mutated experiments (see $log)"
		findings=$((findings + 1))
	fi
	total=$((total + ${execs:-0}))
	rows+=("$(printf '| files | %s mutations | %s | %s | %s | - | %s |' "$(awk '{print $2}' <<<"$line")" \
		"${execs:-0}" "$(( ${execs:-0} / (secs > 0 ? secs : 1) ))" "$secs" "$result")")
}

rows=() total=0 findings=0 start_all=$SECONDS
for spec in "${targets[@]}"; do
	t=${spec%%=*} n=$runs
	[[ $spec == *=* ]] && n=${spec#*=}
	if [[ $t == files ]]; then
		[[ $spec == *=* ]] || n=
		files_row "$n"
		continue
	fi
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
