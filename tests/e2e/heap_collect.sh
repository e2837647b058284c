#!/usr/bin/env bash
# collect -H on with the real collector on tests/fixtures/heap_exact.c (+ its
# C++ part): every heap call of the fixture is in heaptrace, exactly, with
# its call site's stack named by a stack-table slot (STACK_SLOT record ->
# STACK record); frees pair with their allocations (a free from another
# thread included), the leaks are exactly the blocks never freed, and a file
# mapping is not an allocation.  -H off and no -H write no heaptrace and do
# not preload libcollector-heap.so.  The target's output and exit status are
# unchanged in every case.
set -u
export PA_COMPRESS=off # the checks read the raw heaptrace; the default (.zst) is checked at the end
command -v g++ >/dev/null || { echo "skip: no g++"; exit 77; }
. "$(dirname "$0")/heap_lib.sh" heap_collect

# -O0, no builtins, pointers kept in a volatile array: no call is elided
gcc -O0 -g -fno-builtin -fno-omit-frame-pointer -shared -fPIC -o libheapx.so "$PA_TOP/tests/fixtures/heap_exact_lib.c" &&
	gcc -O0 -g -fno-builtin -fno-omit-frame-pointer -pthread -c "$PA_TOP/tests/fixtures/heap_exact.c" -o a.o &&
	g++ -O0 -g -fno-builtin -fno-omit-frame-pointer -c "$PA_TOP/tests/fixtures/heap_exact_cxx.cc" -o b.o &&
	g++ -pthread -o heap_exact a.o b.o -L. -lheapx -Wl,-rpath,'$ORIGIN' || { echo "cannot build heap_exact"; exit 1; }

out=$(./heap_exact) && rc=0 || rc=$?
check "plain run: output '$out' rc=$rc" test "$out:$rc" = "heap_exact done:7"

# ---- -H on
out=$("$collect" -H on -o on.er ./heap_exact 2>err) && rc=0 || rc=$?
check "-H on: output '$out' rc=$rc (stderr: $(head -c 300 err))" test "$out:$rc" = "heap_exact done:7"
check "-H on: heaptrace written" test -s on.er/heaptrace
check "-H on: params say heap=on" grep -q '<params [^>]*descriptor="[^"]*;H=1" heap="on"' on.er/log.xml
check "-H on: collector_start says heap=on" grep -q '<collector_start [^>]*heap="on"' on.er/log.xml
check "-H on: nothing dropped" grep -q '<collector_end [^>]*heap_dropped="0" heap_stackless="0"' on.er/log.xml
"$expdump" on.er/heaptrace >heap.txt && "$expdump" on.er/stacks >stacks.txt ||
	{ echo "expdump failed"; exit 1; }
check "heaptrace and stacks undamaged" \
	test "$(grep -c '^damage .* bad_blocks=0 torn_bytes=0 bad_records=0$' heap.txt stacks.txt | grep -c ':1$')" = 2
records=$(grep -c '^heap ' heap.txt)
note "heaptrace: $records records"

# function ranges (load base + symbol value : size) of the fixture and its library, from map.xml
ranges() { # file load-path-pattern function-regex
	local base
	base=$(grep -o "<load [^>]*path=\"[^\"]*$2\"[^>]*" on.er/map.xml | sed -n 's/.* base="\(0x[0-9a-f]*\)".*/\1/p')
	[[ -n $base ]] || return
	nm -S "$1" | awk -v re="^($3)\$" '$4 ~ re { print $4, $1, $2 }' | while read -r name start size; do
		printf '%s=%x:%s ' "$name" $((base + 0x$start)) "$size"
	done
}
funcs="$(ranges heap_exact /heap_exact 'before_main|site_a|site_b|realloc_chain|aligned|maps|threads|worker|cxx_work')"
funcs+="$(ranges libheapx.so /libheapx.so 'lib_before_main|heap_lib_work')"
base=0
grep '^heap ' heap.txt | awk '{ sub(/^seq=/, "", $3); print $3, $0 }' | sort -n -s -k1,1 | cut -d' ' -f2- >sorted.txt
# one line per fact: "count OP SIZE N", "slots OP SIZE N", "site OP SIZE FUNC",
# "freed SIZE N", "cross SIZE N", "leak SIZE N", "unmatched OP N", "badref ..."
awk -v base="$base" -v funcs="$funcs" '
function hex(s,   i, c, v) { v = 0; s = tolower(s); sub(/^0x/, "", s)
	for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c }
	return v }
BEGIN { b = hex(base); n = split(funcs, F, " ")
	for (i = 1; i <= n; i++) { split(F[i], kv, "="); split(kv[2], r, ":"); fname[i] = kv[1]; flo[i] = hex(r[1]); fhi[i] = flo[i] + hex(r[2]) }
	nf = n }
FILENAME == ARGV[1] && /^stack_slot / { split($2, a, "="); split($3, c, "="); slotid[a[2]] = c[2]; next }
FILENAME == ARGV[1] && /^stack / { split($2, a, "="); split($5, p, "="); pcs[a[2]] = p[2]; next }
FILENAME == ARGV[1] { next }
{	delete f; for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
	op = f["op"]; size = f["size"]; addr = f["addr"]; key = op " " size
	count[key]++
	id = ""
	if ("slot" in f) { if (!(f["slot"] in slotid)) { print "badref slot " f["slot"]; next } id = slotid[f["slot"]] }
	if ("stack" in f) id = f["stack"]
	if (id != "" && !(id in pcs)) print "badref stack " id
	if (id != "" && !((key, id) in seen)) {
		seen[key, id] = 1; slots[key]++
		np = split(pcs[id], P, ",")
		for (j = 1; j <= np; j++) { off = hex(P[j]) - b
			for (k = 1; k <= nf; k++) if (off >= flo[k] && off < fhi[k] && !((key, fname[k]) in sited)) { sited[key, fname[k]] = 1; print "site " key " " fname[k] } }
	}
	if (op == "malloc" || op == "calloc" || op == "memalign" || op == "mmap") { live[addr] = size; ltid[addr] = f["tid"] }
	else if (op == "realloc") {
		if (f["old"] != "0x0") { if (f["old"] in live) delete live[f["old"]]; else unmatched["realloc"]++ }
		live[addr] = size; ltid[addr] = f["tid"]
	} else if (op == "free" || op == "munmap") {
		if (addr in live) { freed[live[addr]]++; if (ltid[addr] != f["tid"]) cross[live[addr]]++; delete live[addr] }
		else unmatched[op]++
	}
}
END {	for (k in count) print "count " k " " count[k]
	for (k in slots) print "slots " k " " slots[k]
	for (s in freed) print "freed " s " " freed[s]
	for (s in cross) print "cross " s " " cross[s]
	for (ad in live) leak[live[ad]]++
	for (s in leak) print "leak " s " " leak[s]
	for (o in unmatched) print "unmatched " o " " unmatched[o] }
' stacks.txt sorted.txt >facts.txt
fact() { awk -v k="$1" 'index($0, k " ") == 1 { print substr($0, length(k) + 2) }' facts.txt; }
expect() { # fact-prefix value
	local got
	got=$(fact "$1")
	check "$1: want ${2:-nothing}, got ${got:-nothing}" test "$got" = "$2"
}
check "every slot has a STACK_SLOT record and every id a STACK" test -z "$(grep '^badref' facts.txt)"
# exact counts per call (op and size), each from one call site (one stack)
for k in "malloc 1077:7" "malloc 1025:1000" "calloc 1010:300" "realloc 1111:1" "realloc 2222:1" \
	"realloc 3333:1" "memalign 1201:1" "memalign 1280:1" "memalign 1203:1" "memalign 1204:1" \
	"memalign 1205:1" "calloc 1221:1" "mmap 12288:1" "munmap 12288:1" "malloc 1048:50" "malloc 1056:20" \
	"malloc 1052:10" "malloc 1072:3" "malloc 1099:3" "malloc 1098:4"; do
	expect "count ${k%:*}" "${k#*:}"
	[[ ${k%:*} == munmap* ]] || expect "slots ${k%:*}" 1
done
expect "count mmap 4096" "" # a file mapping is not an allocation
for k in "malloc 1077:before_main" "malloc 1025:site_a" "calloc 1010:site_b" "realloc 2222:realloc_chain" \
	"memalign 1201:aligned" "calloc 1221:aligned" "mmap 12288:maps" "malloc 1048:threads" \
	"malloc 1056:worker" "malloc 1052:cxx_work" "malloc 1072:cxx_work" "malloc 1099:lib_before_main" \
	"malloc 1098:heap_lib_work"; do
	expect "site ${k%:*}" "${k#*:}"
done
# frees pair with allocations: site A, the blocks the worker frees for main,
# the realloc chain's realloc(p, 0), the memalign family, C++ delete[]
for k in 1025:1000 1048:50 1056:20 1052:10 3333:1 1201:1 1280:1 1203:1 1204:1 1205:1 1221:1 12288:1; do
	expect "freed ${k%:*}" "${k#*:}"
done
expect "cross 1048" 50 # freed by another thread than the one that allocated them
expect "cross 1025" ""
for k in 1010:300 1077:7 1072:3 1099:3 1098:4 1025: 1048: 1056: 1052: 3333: 1111: 1221: 12288:; do
	expect "leak ${k%:*}" "${k#*:}"
done
expect "unmatched realloc" ""
# no record from the collector itself: its stacks never start outside libcollector*.so
check "no free the fixture did not make" test "$(grep -c 'op=free' heap.txt)" = 1087

# event bytes per heap call: the blocks' used bytes / events
bytes=$(awk '/^heap_block / { sub(/^bytes=/, "", $3); n += $3 } END { print n + 0 }' heap.txt)
note "heaptrace: $bytes event bytes for $records calls: $(awk -v b="$bytes" -v r="$records" 'BEGIN { printf "%.1f", b / r }') bytes per call"
check "seq numbers are distinct" test "$(grep '^heap ' heap.txt | awk '{ print $3 }' | sort | uniq -d | wc -l)" = 0
note "stacks: $(grep -c '^stack ' stacks.txt) stacks, $(grep -c '^stack_slot ' stacks.txt) slots"

# ---- -H off and no -H: no heaptrace, no heap library in the target
for opt in "-H off" ""; do
	# shellcheck disable=SC2086
	out=$("$collect" $opt -o off.er sh -c 'cat /proc/self/maps; echo "LD_PRELOAD=$LD_PRELOAD"; exit 5' 2>err) &&
		rc=0 || rc=$?
	check "'$opt': rc $rc" test "$rc" = 5
	check "'$opt': libcollector.so preloaded" grep -q 'libcollector\.so$' <<<"$out"
	check "'$opt': heap library not mapped" test "$(grep -c 'libcollector-heap' <<<"$out")" = 0
	check "'$opt': no heaptrace" test ! -e off.er/heaptrace
	check "'$opt': no heap=on" test "$(grep -c 'heap="on"' off.er/log.xml)" = 0
	out=$("$collect" $opt -o off2.er ./heap_exact 2>/dev/null) && rc=0 || rc=$?
	check "'$opt' heap_exact: output '$out' rc=$rc" test "$out:$rc" = "heap_exact done:7"
	rm -rf off.er off2.er
done
out=$("$collect" -H on -o on2.er sh -c 'cat /proc/self/maps; exit 0' 2>/dev/null)
check "-H on: heap library mapped" grep -q 'libcollector-heap\.so$' <<<"$out"
"$collect" -H maybe true 2>err
check "-H maybe: usage error" test $? = 2
check "-H maybe: message" grep -q "collect: -H: invalid value 'maybe' (expected on or off)" err
out=$("$collect" -n -H on true)
check "-n -H on says heap tracing" grep -q 'heap tracing enabled' <<<"$out"

# inline on (the default): a function of a load object is listed once, even where
# gcc inlined a copy of it into itself (glibc's _IO_doallocbuf, which allocates
# stdout's buffer); two objects may each have their own (call_init in ld.so and libc)
"$PA_BIN/er_print" -metrics i.heapalloccnt:address:name -functions on.er >"fi" 2>&1
dups=$(awk 'NR > 4 && NF >= 3 { $1 = ""; sub(/:0x[0-9a-f]+/, "", $2); print }' "fi" | sort | uniq -d)
check "inline on: no function listed twice (${dups:-none})" test -z "$dups"

# by default collect stores the heap trace compressed, and the reports read it
rm -rf z.er
PA_COMPRESS='' "$collect" -H on -o z.er ./heap_exact >/dev/null 2>&1
check "default: heaptrace.zst replaces heaptrace" test -f z.er/heaptrace.zst -a ! -e z.er/heaptrace
"$PA_BIN/er_print" -leaks z.er >zl 2>&1
check "er_print reads heaptrace.zst" grep -q "^Summary Results: Distinct Leaks = " zl
head -c $(($(stat -c %s z.er/heaptrace.zst) / 2)) z.er/heaptrace.zst >z.er/cut && mv z.er/cut z.er/heaptrace.zst
"$PA_BIN/er_print" -header z.er >zh 2>&1
check "a truncated heaptrace.zst is a clear warning" grep -q "heaptrace.zst: corrupt or truncated zstd data; ignored" zh

echo "$checks checks, $failures failed"
((failures == 0))
