#!/usr/bin/env bash
# collect -i on remembers a traced call's stack walk and replays it while the
# stack words the walk read are unchanged (collector/unwind.c, the memo):
# tests/fixtures/io_samesite.c reaches one write() call site through paths
# that leave the stack pointer the same and differ only in a return address
# one or three frames up, or by alloca'd frames, interleaved with a read, on
# two threads.  Every path's writes are charged to it exactly, and log.xml's
# io_calls (counted per thread, summed at the end) is every call: 2 x 1000
# rounds of 12, and each thread's 2 opens and 2 closes.
set -u
. "$(dirname "$0")/heap_lib.sh" io_stack_memo
[[ -f $PA_LIB/libcollector-io.so ]] || { echo "skip: libcollector-io.so not built"; exit 77; }
gcc -O1 -g -fno-inline -fno-omit-frame-pointer -pthread -o samesite "$PA_TOP/tests/fixtures/io_samesite.c" ||
	{ echo "cannot build io_samesite"; exit 1; }
"$collect" -i on -o s.er ./samesite 2>s.err || { cat s.err; echo "collect samesite failed"; exit 1; }
"$PA_BIN/er_print" -metrics i.iowritecnt:i.ioreadcnt -functions s.er >incl.txt 2>&1
# 2 threads x 1000 rounds (the fixture's comment): name, writes, reads
while read -r fn want; do
	got=$(awk -v n="$fn" '$NF == n {print $1, $2}' incl.txt)
	check "$fn: $want ($got)" test "$got" = "$want"
done <<'EOF_ROWS'
put 22000 0
via_a 16000 0
via_b 4000 0
outer_x 6000 0
outer_y 8000 0
deep 2000 0
take 0 2000
rounds 22000 2000
EOF_ROWS
calls=$(grep -o 'io_calls="[0-9]*"' s.er/log.xml)
check "log.xml $calls: 24008" test "$calls" = 'io_calls="24008"'
echo "# $checks checks, $failures failed"
exit $((failures ? 1 : 0))
