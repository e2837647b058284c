#!/usr/bin/env bash
# build.sh OUTDIR - build the unwinder test harness and its fixtures into OUTDIR:
#   libunwcheck.so     collector/cfi.c + gopcln.c + unwtab.c + unwind.c + buildid.c + cfishare.c + fsize.c + tests/unwind/unwcheck.c
#                      + the common/ decoders they use (dwarf_eh.c, elfnote.c)
#                      (test-only; never libcollector.so), linked with libunwind
#   libfixlib{1,2,3}.so  the dlopen'ed library, three copies for the dlopen stress
#   libfixlazy.so      IFUNC calls resolved lazily, for samples inside ld.so's trampoline
#   fix_mix, fix_mix_fp  the mixed workload, -O2 without / with frame pointers
#   fix_dlstress       dlopen/dlclose while sampling
#   unwbench           bench/unwind/unwbench.c (depth sweep, table report)
# Used by tests/e2e/unwind_reference.sh and bench/bench.mk (bench-unwind).
# Exit 77 when libunwind's headers are missing (Debian: libunwind-dev).
set -euo pipefail
out=${1:?usage: build.sh OUTDIR}
top=$(cd "$(dirname "$0")/../.." && pwd)
cc=${CC:-cc}
mkdir -p "$out"

if ! echo '#include <libunwind.h>' | $cc -E -x c - >/dev/null 2>&1; then
	echo "libunwind headers missing: install libunwind-dev (scripts/setup-deps.sh)"
	exit 77
fi

std=(-std=gnu11 -D_GNU_SOURCE -I"$top" -Wall -Wextra -Wno-missing-field-initializers)
# The collector's sources are compiled as the collector compiles them (-O2, frame pointers).
$cc "${std[@]}" -O2 -g -fPIC -shared -fno-omit-frame-pointer -o "$out/libunwcheck.so" \
	"$top/tests/unwind/unwcheck.c" "$top/collector/cfi.c" "$top/collector/gopcln.c" "$top/collector/unwtab.c" "$top/collector/unwind.c" \
	"$top/collector/buildid.c" "$top/collector/cfishare.c" "$top/collector/fsize.c" \
	"$top/common/dwarf_eh.c" "$top/common/elfnote.c" \
	-Wl,--wrap=mmap -Wl,--wrap=munmap -Wl,--no-undefined -lunwind -pthread -ldl

# Fixtures: -O2 -g without frame pointers (Debian's default), -rdynamic for dladdr names.
fix=(-O2 -g -fomit-frame-pointer)
for k in 1 2 3; do
	$cc "${std[@]}" "${fix[@]}" -fPIC -shared -o "$out/libfixlib$k.so" "$top/tests/unwind/fixlib.c"
done
# lazy binding (no -z now): its IFUNC resolvers run inside ld.so's trampoline
$cc "${std[@]}" "${fix[@]}" -fPIC -shared -Wl,-z,lazy -o "$out/libfixlazy.so" "$top/tests/unwind/fixlazy.c"
# shellcheck disable=SC2054 # -Wl,-rpath,DIR is one argument
link=(-rdynamic -pthread -L"$out" -lunwcheck -Wl,-rpath,"$out" -ldl)
$cc "${std[@]}" "${fix[@]}" -o "$out/fix_mix" "$top/tests/unwind/fix_mix.c" "${link[@]}"
$cc "${std[@]}" -O2 -g -fno-omit-frame-pointer -o "$out/fix_mix_fp" "$top/tests/unwind/fix_mix.c" "${link[@]}"
$cc "${std[@]}" "${fix[@]}" -o "$out/fix_dlstress" "$top/tests/unwind/fix_dlstress.c" "${link[@]}"
$cc "${std[@]}" "${fix[@]}" -o "$out/unwbench" "$top/bench/unwind/unwbench.c" "${link[@]}" -lm
