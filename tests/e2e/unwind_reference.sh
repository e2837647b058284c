#!/usr/bin/env bash
# The collector's CFI unwinder (collector/cfi.c, gopcln.c, unwtab.c, unwind.c) against a
# reference unwinder, libunwind, on the same signal contexts (issue #3, items 5
# and 6).  tests/unwind/build.sh compiles the four files and their helpers into a test-only
# libunwcheck.so (not libcollector.so) whose SIGPROF handler runs both
# unwinders on every sample and compares them (tests/unwind/unwcheck.h).
#  1. fix_mix (-O2, no frame pointers; 4 threads: recursion 3/30/150, qsort
#     callbacks, frameless leaves, a SIGUSR1 handler, vDSO clock_gettime,
#     memcpy/memset, a dlopen'ed library, 8 samples inside lazy binding, where
#     ld.so's trampoline has its CFA in %rbx): >= 10000 samples, >= 99.9 %
#     agree (identical frames as far as ours goes), and every sample whose
#     reference stack reaches main / the thread's start routine reaches it in
#     ours, complete (flags 0);
#  2. fix_mix_fp: the same built with frame pointers: same criteria, >= 1000 samples;
#  3. fix_dlstress: dlopen/dlclose of 3 libraries in a loop, tables rebuilt each
#     time, while 3 threads are sampled: no crash, no PC in a library range
#     outside its load..unload window, table memory back to its initial level;
#  4. negative control: UNWCHECK_SELFTEST=1 corrupts 1 % of our stacks; the
#     harness must report them.
# Samples come from 1 ms CPU-time timers (the kernel caps them at HZ per
# thread) plus tgkill "kicks" from a helper thread every 200 us, to reach
# 10000+ samples in seconds on 2 CPUs.  Skipped (77) without libunwind-dev.
set -euo pipefail
PA_TOP=${PA_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d /tmp/pa-unw.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
note() { echo "# $*"; }

set +e
bash "$PA_TOP/tests/unwind/build.sh" "$tmp" >"$tmp/build.log" 2>&1
rc=$?
set -e
if ((rc == 77)); then
	echo "skip: $(tail -n1 "$tmp/build.log")"
	exit 77
fi
((rc == 0)) || { cat "$tmp/build.log" >&2; fail "cannot build the harness"; }

res=$tmp/results.txt
run() { # tag seconds-limit prog args...: run one fixture under the harness
	local tag=$1 limit=$2; shift 2
	set +e
	UNWCHECK_OUT=$res UNWCHECK_TAG=$tag UNWCHECK_KICK_US=${KICK_US:-200} timeout "$limit" "$@" \
		>"$tmp/$tag.out" 2>"$tmp/$tag.err"
	local rc=$?
	set -e
	grep '^unwcheck\[' "$tmp/$tag.err" | sed 's/^/# /'
	((rc == 0)) || { tail -n 60 "$tmp/$tag.err" >&2; fail "$tag exited $rc (124: hung, >128: crashed)"; }
	grep -q "^run $tag " "$res" || fail "$tag: no results (destructor did not run)"
}
val() { # tag key
	grep "^run $1 " "$res" | tr ' ' '\n' | sed -n "s/^$2=//p"
}
check_agreement() { # tag min-samples
	local tag=$1 min=$2 n c a rt ro
	n=$(val "$tag" samples) c=$(val "$tag" compared) a=$(val "$tag" agree)
	rt=$(val "$tag" root_total) ro=$(val "$tag" root_ok)
	note "$tag: $n samples, $c compared, $a agree ($(awk -v a="$a" -v c="$c" 'BEGIN{printf "%.3f", c ? 100*a/c : 0}') %)," \
		"reference reaches the root in $rt, ours complete in $ro"
	((c >= min)) || fail "$tag: only $c samples compared, want >= $min"
	# agree / compared >= 99.9 %
	((a * 1000 >= c * 999)) || { grep -A60 '^--- sample' "$tmp/$tag.err" | head -n 150 >&2; fail "$tag: agreement below 99.9 %"; }
	((ro == rt)) || { grep -A60 '^--- sample' "$tmp/$tag.err" | head -n 150 >&2; fail "$tag: $((rt - ro)) stacks reach the root in libunwind but not (complete) in ours"; }
	(($(val "$tag" stale) == 0)) || fail "$tag: PCs attributed to a library outside its load window"
}

run mix 60 "$tmp/fix_mix" 6 4 "$tmp/libfixlib1.so" "$tmp/libfixlazy.so"
check_agreement mix 10000
lazy=$(sed -n 's/^fix_mix: \([0-9-]*\) lazy-binding samples$/\1/p' "$tmp/mix.out")
note "mix: $lazy samples taken inside lazy binding (ld.so's %rbx-based trampoline), all in the agreement above"
[[ $lazy == 8 ]] || fail "mix: want 8 lazy-binding samples, got '${lazy:-none}'"
(($(val mix sigframe) >= 100)) || fail "mix: too few samples through a signal frame ($(val mix sigframe))"

run mix_fp 30 "$tmp/fix_mix_fp" 1.5 4 "$tmp/libfixlib1.so"
check_agreement mix_fp 1000

run dlstress 40 "$tmp/fix_dlstress" 3 2 "$tmp/libfixlib1.so" "$tmp/libfixlib2.so" "$tmp/libfixlib3.so"
cycles=$(sed -n 's/^fix_dlstress: \([0-9]*\) dlopen.*/\1/p' "$tmp/dlstress.out")
note "dlstress: $cycles dlopen/dlclose cycles; $(val dlstress munmaps) munmaps;" \
	"table memory $(val dlstress map_live) bytes at exit, $(val dlstress map_after_init) after init, peak $(val dlstress map_peak)"
((cycles >= 100)) || fail "dlstress: only $cycles dlopen/dlclose cycles"
check_agreement dlstress 1000
(($(val dlstress unknown) == 0)) || fail "dlstress: $(val dlstress unknown) samples with a PC outside every loaded object"
note "dlstress: loader-thread samples inside dlopen/dlclose (no reference: libunwind would deadlock on" \
	"the loader lock): $(val dlstress noref), ours complete to the root in $(val dlstress noref_root)"
# freed: after the last rescan (no sampled thread left) the retired tables are all unmapped
(($(val dlstress map_live) <= $(val dlstress map_after_init) + 4096)) ||
	fail "dlstress: table memory grew from $(val dlstress map_after_init) to $(val dlstress map_live) bytes"
# bounded while running: a handler preempted while it holds a snapshot delays frees; unwtab
# keeps at most 512 retired items (arenas of >= 256 KiB each)
(($(val dlstress map_peak) <= $(val dlstress map_after_init) + 128 * 1048576)) ||
	fail "dlstress: table memory peaked at $(val dlstress map_peak) bytes"

# negative control: the comparison must see injected differences (1 sample in 100)
UNWCHECK_SELFTEST=1 run selftest 30 "$tmp/fix_mix" 1 2 "$tmp/libfixlib1.so"
mm=$(val selftest mismatch) n=$(val selftest compared)
note "selftest: $mm of $n samples reported as mismatches (1 % injected)"
((n >= 200 && mm * 100 >= n * 8 / 10)) || fail "negative control: only $mm mismatches found in $n samples"

note "ours in the handler (mix): ns/sample p50 $(val mix ns_p50) p99 $(val mix ns_p99)," \
	"ns/frame p50 $(awk -v p="$(val mix ps_frame_p50)" 'BEGIN{print p/1000}')," \
	"$(val mix frames_avg) frames/sample"
echo "PASS unwind_reference"
