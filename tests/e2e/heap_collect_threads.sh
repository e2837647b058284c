#!/usr/bin/env bash
# collect -H on -p hi with the real collector on tests/fixtures/heap_threads.c:
# 8 threads allocate, free and map at once while clock samples are taken;
# every call is recorded exactly once under its own thread, every block a
# thread hands to another is freed there, and nothing is damaged or dropped.
set -u
. "$(dirname "$0")/heap_lib.sh" heap_collect_threads

gcc -O0 -g -fno-builtin -fno-omit-frame-pointer -pthread -o heap_threads "$PA_TOP/tests/fixtures/heap_threads.c" ||
	{ echo "cannot build heap_threads"; exit 1; }
out=$("$collect" -H on -p hi -o t.er ./heap_threads 2>err) && rc=0 || rc=$?
check "output '$out' rc=$rc (stderr: $(head -c 300 err))" test "$out:$rc" = "heap_threads done:0"
check "nothing dropped" grep -q '<collector_end [^>]*block_failures="0" heap_records="[0-9]*" heap_dropped="0" heap_stackless="0"' t.er/log.xml
"$expdump" t.er/heaptrace >heap.txt && "$expdump" t.er/stacks >stacks.txt || { echo "expdump failed"; exit 1; }
check "heaptrace and stacks undamaged" \
	test "$(grep -c '^damage .* bad_blocks=0 torn_bytes=0 bad_records=0$' heap.txt stacks.txt | grep -c ':1$')" = 2
grep '^heap ' heap.txt | awk '{ sub(/^seq=/, "", $3); print $3, $0 }' | sort -n -s -k1,1 | cut -d' ' -f2- >sorted.txt
awk '
FILENAME == ARGV[1] { if ($1 == "stack_slot") { split($2, sp, "="); named[sp[2]] = 1 } next }
{	delete f; for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
	op = f["op"]; size = f["size"]; addr = f["addr"]
	count[op " " size]++; tids[op " " size, f["tid"]] = 1
	if ("slot" in f && !(f["slot"] in named)) bad++
	if (op == "malloc" || op == "mmap") { live[addr] = size; ltid[addr] = f["tid"] }
	else if (op == "free" || op == "munmap") {
		if (addr in live) { freed[live[addr]]++; if (ltid[addr] != f["tid"]) cross[live[addr]]++; delete live[addr] }
	}
}
END {	for (k in count) print "count " k " " count[k]
	for (k in tids) { split(k, p, SUBSEP); ntid[p[1]]++ } for (k in ntid) print "tids " k " " ntid[k]
	for (s in freed) print "freed " s " " freed[s]
	for (s in cross) print "cross " s " " cross[s]
	for (ad in live) leak[live[ad]]++; for (s in leak) print "leak " s " " leak[s]
	print "badslot " bad + 0 }
' stacks.txt sorted.txt >facts.txt
fact() { awk -v k="$1" 'index($0, k " ") == 1 { print substr($0, length(k) + 2) }' facts.txt; }
expect() {
	local got
	got=$(fact "$1")
	check "$1: want ${2:-nothing}, got ${got:-nothing}" test "$got" = "$2"
}
expect badslot 0
for t in 0 1 2 3 4 5 6 7; do
	a=$((1300 + t)) b=$((1400 + t)) m=$(((20 + t) * 4096))
	expect "count malloc $a" 5000
	expect "tids malloc $a" 1
	expect "freed $a" 5000
	expect "cross $a" 5000
	expect "leak $a" ""
	expect "count malloc $b" 5000
	expect "freed $b" 5000
	expect "cross $b" ""
	expect "count mmap $m" 100
	expect "count munmap $m" 100
	expect "freed $m" 100
done
echo "# $(grep -c '^heap ' heap.txt) heap records, $(grep -c '^clock ' <("$expdump" t.er/profile)) clock samples"
echo "$checks checks, $failures failed"
((failures == 0))
