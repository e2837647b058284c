#!/usr/bin/env bash
# plumbing_layers: the tree obeys the layer rule, the elfutils rule, the no-cycle rule
# among a directory's modules and includes no .c file, the built collector's libraries
# export only the names of their version scripts (collector/libcollector.map, ...); and
# each of these checks does fail on a small synthetic tree that breaks it.
set -euo pipefail
top=${PA_TOP:?run through tests/run.sh}
build=${PA_BUILD:?run through tests/run.sh}
check=$top/scripts/layers-check.sh

# 1. The real tree (and $PA_BUILD/lib/libcollector.so if built).
bash "$check" "$build"
[[ -f $build/lib/libcollector.so ]] || echo "note: $build/lib/libcollector.so not built; export check not run"

# 2. A synthetic tree with one violation of each kind must produce exactly those.
tmp=$build/plumbing-layers.tmp
rm -rf "$tmp" && mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
t=$tmp/tree
mkdir -p "$t"/{common,experiment,collector,collect,analysis,er_print,tests/unit,fakebuild/lib}
echo '#include "experiment/record.h"' >"$t/common/bad_up.h"               # up
printf '#include <stdint.h>\n#include "common/v.h"\n' >"$t/experiment/record.h" # ok
echo '#include "collect/x.h"' >"$t/collector/bad_sibling.c"               # sibling
echo '#include "er_print/cli.h"' >"$t/analysis/bad_up2.c"                 # up
echo '#include <gelf.h>' >"$t/collector/bad_elf.c"                        # elfutils
echo '#include <elfutils/libdw.h>' >"$t/analysis/metrics.c"               # elfutils
echo '#include <libelf.h>' >"$t/analysis/symtab.c"                        # ok
echo '#include "analysis/symtab.h"' >"$t/er_print/ok.c"                   # ok
echo '#include "../experiment/record.h"' >"$t/er_print/ok_rel.c"          # ok
echo '#include "own.h"' >"$t/collect/ok_own.c"                            # ok
touch "$t/collect/own.h" "$t/common/v.h"
echo '#include "collect/cyc_b.h"' >"$t/collect/cyc_a.c"                   # module cycle a -> b -> a
echo '#include "collect/cyc_a.h"' >"$t/collect/cyc_b.h"
printf '#include "collect/own.h"\n' >"$t/collect/cyc_a.h"                 # ok: a -> own
echo '#include "er_print/cli.h"' >"$t/tests/unit/ok_any.c"                # ok: tests
echo '#include <gelf.h>' >"$t/tests/unit/ok_elf.c"                        # ok: tests
echo '#include "collector/cfi.c"' >"$t/tests/unit/bad_src.c"             # a .c file
printf '{\n  global:\n    sigaction; /* c */\n  local:\n    *;\n};\n' >"$t/collector/libcollector.map"
cat >"$tmp/c.c" <<'C'
__attribute__((visibility("default"))) int sigaction(void) { return 0; }
__attribute__((visibility("default"))) int leaked_helper(void) { return 1; }
int col_missing(void);
__attribute__((visibility("hidden"))) int col_uses_missing(void) { return col_missing(); }
C
# Linked without the version script, as a broken link line would be.
${CC:-cc} -shared -fPIC -o "$t/fakebuild/lib/libcollector.so" "$tmp/c.c"
# and a preloaded tracing library (collector/heap/) that leaks a helper too
mkdir -p "$t/collector/heap"
printf '{\n  global:\n    malloc;\n  local:\n    *;\n};\n' >"$t/collector/heap/libcollector-heap.map"
cat >"$tmp/h.c" <<'C'
__attribute__((visibility("default"))) void *malloc(unsigned long n) { (void)n; return 0; }
__attribute__((visibility("default"))) int heap_leaked(void) { return 2; }
C
${CC:-cc} -shared -fPIC -fno-builtin -o "$t/fakebuild/lib/libcollector-heap.so" "$tmp/h.c"

set +e
out=$(bash "$check" -C "$t" fakebuild 2>&1)
rc=$?
set -e
echo "$out"
((rc == 1)) || { echo "expected exit 1, got $rc"; exit 1; }
expect=(
	'common/bad_up.h:1: includes "experiment/record.h"'
	'collector/bad_sibling.c:1: includes "collect/x.h"'
	'analysis/bad_up2.c:1: includes "er_print/cli.h"'
	'collector/bad_elf.c:1: includes elfutils header <gelf.h>'
	'analysis/metrics.c:1: includes elfutils header <elfutils/libdw.h>'
	'exports "leaked_helper"'
	'libcollector-heap.so: exports "heap_leaked" (T), which is not in the global: list of collector/heap/libcollector-heap.map'
	'needs "col_missing"'
	'collect/: its modules include each other in a cycle: '
	'tests/unit/bad_src.c:1: includes the source file collector/cfi.c'
)
for e in "${expect[@]}"; do
	grep -qF "$e" <<<"$out" || { echo "missing violation: $e"; exit 1; }
done
nviol=$(grep -c ': ' <<<"$out" | tr -d ' ')
grep -q "layers-check: ${#expect[@]} violation(s)" <<<"$out" ||
	{ echo "expected exactly ${#expect[@]} violations"; exit 1; }
if grep -qE 'ok[_a-z]*\.c|symtab\.c|record\.h:|exports "(sigaction|malloc)"|needs "[a-z_]*@' <<<"$out"; then
	echo "a permitted include or export was reported"; exit 1
fi
echo "ok: real tree clean; synthetic violations all reported ($nviol lines)"
