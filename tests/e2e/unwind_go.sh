#!/usr/bin/env bash
# Call stacks of a Go program (cgo, dynamically linked), built at test time from
# tests/fixtures/go_stacks with the system's `go` (skipped, 77, without it:
# scripts/setup-deps.sh installs golang-go).  Two goroutines and the main
# goroutine compute, each locked to a thread, and print the thread CPU time
# their work function took.  Goroutine stacks live in the Go heap, outside the
# threads' stacks, and Go code has no .eh_frame: the collector reads the
# runtime's function table (collector/gopcln.c) and the running goroutine's
# stack bounds (runtime.tlsg).
#  1. the rows read from .gopclntab agree with readelf's reading of the
#     linker's .debug_frame at every row of every Go function;
#  2. -p hi: each work function's inclusive CPU is what the program measured
#     (within 3 % + 5 ms), no stack holding one is truncated, under 2 % of
#     all the time is in truncated stacks (the runtime's scheduler on the
#     thread's g0 stack after a stack switch);
#  3. the call tree: main.main right under runtime.main, runtime.main and the
#     goroutines' functions right under runtime.goexit, workA (which calls a
#     frameless leaf) under main.measured;
#  4. GOMAXPROCS=1, so the runtime preempts the three goroutines
#     asynchronously (a signal makes them call runtime.asyncPreempt): stacks
#     through asyncPreempt are whole and show the preempted function;
#  5. the same program stripped (-ldflags=-s: no symbols, .gopclntab only):
#     under 2 % of the time in truncated stacks.
. "$(dirname "$0")/e2e_lib.sh" unwind-go
: "${PA_BUILD:?run through tests/run.sh}"
if ! command -v go >/dev/null 2>&1; then
	echo "skip: go not installed (scripts/setup-deps.sh installs golang-go)"
	exit 77
fi
export GOCACHE=$W/gocache GOPATH=$W/gopath GOFLAGS='' GO111MODULE=on CGO_ENABLED=1 GOTOOLCHAIN=local
unset GODEBUG
cp -r "$PA_TOP/tests/fixtures/go_stacks" src || exit 1
(cd src && go build -o ../go_stacks . && go build -ldflags=-s -o ../go_stacks_s .) >build.log 2>&1 || {
	cat build.log
	bad "go build of tests/fixtures/go_stacks"
	e2e_end
}
er=$PA_BIN/er_print
py() { python3 -c "import sys; sys.exit(0 if ($1) else 1)"; }

# 1. the rows against the linker's .debug_frame (readelf decompresses it)
"$PA_BUILD/tests/tools/gopcln_rows" go_stacks >rows.txt 2>rows.err || cat rows.err
readelf --debug-dump=frames-interp go_stacks >frames.txt 2>/dev/null
python3 - rows.txt frames.txt >oracle.txt <<'EOF'
import bisect, re, sys
rows = [l.split() for l in open(sys.argv[1]) if not l.startswith('#')]
rows = [(int(a, 16), int(b, 16), k, int(o)) for a, b, k, o in rows]
starts = [r[0] for r in rows]
checked = wrong = special = 0
fde, in_df = None, False
for l in open(sys.argv[2]):
    if 'Contents of the .debug_frame' in l:
        in_df = True
    m = re.search(r'FDE cie=\S+ pc=([0-9a-f]+)\.\.([0-9a-f]+)', l) if in_df else None
    if m:
        fde = (int(m.group(1), 16), int(m.group(2), 16))
        continue
    m = re.match(r'^([0-9a-f]{16}) (\S+)', l) if in_df and fde else None
    if not m or not fde[0] <= int(m.group(1), 16) < fde[1]:
        continue
    pc, i = int(m.group(1), 16), bisect.bisect_right(starts, int(m.group(1), 16)) - 1
    r = rows[i] if i >= 0 and pc < rows[i][1] else None
    if r and r[2] in ('outermost', 'stop'):
        special += 1
        continue
    checked += 1
    if not r or m.group(2) != 'rsp+%d' % r[3]:
        wrong += 1
        print('differs at %x: readelf %s, ours %s' % (pc, m.group(2), r))
print('checked %d wrong %d special %d' % (checked, wrong, special))
EOF
read -r _ checked _ wrong _ special < <(tail -n1 oracle.txt)
check "pclntab rows: ${checked:-0} .debug_frame rows checked, ${wrong:-?} differ (${special:-0} in stack tops/switchers)" \
	py "${checked:-0} >= 1000 and '${wrong:-x}' == '0'"
grep -m5 differs oracle.txt

# 2. inclusive times against the program's own, and truncation
"$PA_BIN/collect" -p hi -o go.er ./go_stacks >out.txt 2>collect.err || { cat collect.err; bad "collect exited $?"; }
"$er" -functions go.er >functions.txt 2>&1 || bad "er_print -functions"
"$er" -calltree go.er >tree.txt 2>&1 || bad "er_print -calltree"
"$er" -export folded folded.txt go.er >/dev/null 2>&1 || bad "er_print -export folded"
incl() { awk -v f="$2" '$NF == f && NF >= 5 { print $3; exit }' "$1"; }
for f in main.workA main.workB main.mainWork; do
	self=$(awk -v f="$f" '$1 == "work" && $2 == f { print $3 }' out.txt)
	got=$(incl functions.txt "$f")
	check "$f: ${got:-no} s inclusive, the program measured ${self:-nothing} s (3 % + 5 ms)" \
		py "'$self' != '' and '$got' != '' and abs($got - $self) <= 0.03 * $self + 0.005"
done
trunc_share() { # FOLDED [PATTERN]: % of the time in truncated stacks (holding PATTERN)
	awk -v p="${2:-}" '{ v = $NF; t += v; if (index($0, "<Truncated-stack>") && (p == "" || index($0, p))) x += v }
		END { printf "%.3f\n", t ? 100 * x / t : 100 }' "$1"
}
for f in main.workA main.workB main.mainWork; do
	s=$(trunc_share folded.txt "$f")
	check "$f: ${s} % of the time in truncated stacks holding it" py "$s == 0"
done
s=$(trunc_share folded.txt)
check "all truncated stacks: ${s} % of the time (< 2 %)" py "$s < 2"

# 3. the call tree
tree_parent() { # CHILD PARENT: CHILD is in the tree, and each CHILD line is right under a PARENT line
	awk -v c="$1" -v p="$2" '{ d = index($0, "+-"); if (!d) next; name = substr($0, d + 2)
		while (k > 0 && at[k] >= d) k--
		if (name == c) { n++; if (k == 0 || up[k] != p) bad++ }
		at[++k] = d; up[k] = name } END { exit !(n > 0 && bad == 0) }' tree.txt
}
check "call tree: main.main right under runtime.main" tree_parent main.main runtime.main
check "call tree: runtime.main right under runtime.goexit" tree_parent runtime.main runtime.goexit.abi0
check "call tree: main.main.func2 (a goroutine) right under runtime.goexit" tree_parent main.main.func2 runtime.goexit.abi0
check "call tree: main.workA (calls a frameless leaf) right under main.measured" tree_parent main.workA main.measured
check "call tree: main.workB right under main.measured" tree_parent main.workB main.measured
check "call tree: main.leafB right under main.midB" tree_parent main.leafB main.midB
[ "$fails" = 0 ] || head -40 tree.txt

# 4. asynchronous preemption
GOMAXPROCS=1 "$PA_BIN/collect" -p hi -o pre.er ./go_stacks >/dev/null 2>&1 || bad "collect (GOMAXPROCS=1) exited $?"
"$er" -export folded pre.txt pre.er >/dev/null 2>&1 || bad "er_print -export folded (GOMAXPROCS=1)"
n=$(grep -c 'runtime\.asyncPreempt' pre.txt)
t=$(grep 'runtime\.asyncPreempt' pre.txt | grep -c '<Truncated-stack>')
w=$(grep 'runtime\.asyncPreempt' pre.txt | grep -vc 'main\.[a-zA-Z]*;runtime\.asyncPreempt')
if ((n == 0)); then
	echo "note: no sample inside runtime.asyncPreempt this run"
else
	check "GOMAXPROCS=1: $n stacks through asyncPreempt, $t truncated, $w not under a main function" \
		py "$t == 0 and $w == 0"
fi
s=$(trunc_share pre.txt)
check "GOMAXPROCS=1: ${s} % of the time in truncated stacks (< 2 %)" py "$s < 2"

# 5. stripped: the function table is all there is
"$PA_BIN/collect" -p hi -o strip.er ./go_stacks_s >/dev/null 2>&1 || bad "collect (stripped) exited $?"
"$er" -export folded strip.txt strip.er >/dev/null 2>&1 || bad "er_print -export folded (stripped)"
s=$(trunc_share strip.txt)
check "stripped: ${s} % of the time in truncated stacks (< 2 %)" py "$s < 2"
check "stripped: no go_unwind warning in log.xml" py "$(grep -c go_unwind strip.er/log.xml) == 0"
e2e_end
