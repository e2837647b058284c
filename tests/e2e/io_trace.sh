#!/usr/bin/env bash
# collect -i on (I/O tracing): `dd if=A of=B bs=64k` on a 3 MiB file
# reports exactly 3 MiB read and written (48 writes, 48 full reads and the
# read at EOF), whatever the machine's load; the collector's own files are not
# traced (dd's other calls are its opens, dup2s, closes and lseek only).
# `cp A C` reports exactly 3 MiB read and written by copy_file_range.
# tests/fixtures/io_ops.c: exact bytes and counts per function (short reads
# at EOF, a failed open, an EINTR, a reopened descriptor number, a socketpair,
# a pipe, vectored calls, kernel copies).
# Without -i there is no iotrace file.
set -u
. "$(dirname "$0")/heap_lib.sh" io_trace
[[ -f $PA_LIB/libcollector-io.so ]] || { echo "skip: libcollector-io.so not built"; exit 77; }
erprint=$PA_BIN/er_print
head -c 3145728 /dev/urandom >A
"$PA_BIN/collect" -i on -o dd.er dd if=A of=B bs=64k 2>dd.err || { cat dd.err; echo "collect failed"; exit 1; }
check "dd copied" cmp -s A B
tot=$("$erprint" -metrics e.iowritebytes:e.iowritecnt:e.ioreadbytes:e.ioreadcnt:e.ioerrorcnt -functions dd.er 2>/dev/null |
	awk '$NF == "<Total>" {print $1, $2, $3, $4, $5}')
check "dd: 3 MiB written in 48 writes, read in 49 reads, no error ($tot)" test "$tot" = "3145728 48 3145728 49 0"
wr=$("$erprint" -metrics e.iowritebytes:e.iowritecnt -functions dd.er 2>/dev/null | awk '$NF == "write" {print $1, $2}')
check "dd: the writes are charged to write ($wr)" test "$wr" = "3145728 48"
# coreutils' cp copies in the kernel with copy_file_range: a read and a write of the same bytes
"$PA_BIN/collect" -i on -o cp.er cp A C 2>cp.err || { cat cp.err; echo "collect cp failed"; exit 1; }
check "cp copied" cmp -s A C
cfr=$("$erprint" -metrics e.iowritebytes:e.ioreadbytes -functions cp.er 2>/dev/null |
	awk '$NF == "copy_file_range" {print $1, $2}')
check "cp: 3 MiB written and read by copy_file_range ($cfr)" test "$cfr" = "3145728 3145728"
tot=$("$erprint" -metrics e.iowritebytes:e.ioreadbytes -functions cp.er 2>/dev/null | awk '$NF == "<Total>" {print $1, $2}')
check "cp: 3 MiB written and read in all ($tot)" test "$tot" = "3145728 3145728"
# tests/fixtures/io_ops.c: every op_* function's calls are known (its comments), so
# the inclusive metrics of each are exact, their sum is the total (nothing else is
# traced), and the functions it alone calls have exact exclusive metrics.
gcc -O1 -g -fno-inline -fno-omit-frame-pointer -o io_ops "$PA_TOP/tests/fixtures/io_ops.c" ||
	{ echo "cannot build io_ops"; exit 1; }
mkdir run && (cd run && "$PA_BIN/collect" -i on -o ../ops.er ../io_ops) 2>ops.err ||
	{ cat ops.err; echo "collect io_ops failed"; exit 1; }
m=iowritebytes:iowritecnt:ioreadbytes:ioreadcnt:ioothercnt:ioerrorcnt
"$erprint" -metrics "i.${m//:/:i.}" -functions ops.er >ops_incl.txt 2>&1
"$erprint" -metrics "e.${m//:/:e.}" -functions ops.er >ops_excl.txt 2>&1
# stdin: a function's name, then its written bytes, writes, read bytes, reads, other calls, errors
rows() {
	local fn want got
	while read -r fn want; do
		got=$(awk -v n="$fn" '$NF == n {print $1, $2, $3, $4, $5, $6}' "$1")
		check "io_ops: $fn $2 ($got)" test "$got" = "$want"
	done
}
rows ops_incl.txt inclusive <<'EOF_OPS'
op_make 10000 1 0 0 2 0
op_short_reads 0 0 10000 4 2 0
op_failed_open 0 0 0 0 0 1
op_reopen 300 2 0 0 4 0
op_socketpair 230 3 230 3 3 0
op_pipe 512 1 512 1 3 0
op_vectored 300 1 300 1 2 0
op_copies 20000 2 20000 2 6 0
op_eintr 0 0 0 0 3 1
<Total> 31342 10 31042 11 25 2
EOF_OPS
rows ops_excl.txt exclusive <<'EOF_OPS'
sendfile 10000 1 10000 1 0 0
copy_file_range 10000 1 10000 1 0 0
pwritev 300 1 0 0 0 0
preadv2 0 0 300 1 0 0
send 77 1 0 0 0 0
recv 0 0 77 1 0 0
sendmsg 30 1 0 0 0 0
recvmsg 0 0 30 1 0 0
socketpair 0 0 0 0 1 0
pipe 0 0 0 0 2 0
EOF_OPS
# the same descriptor number reopened is another file: its own virtual id and name
"$expdump" ops.er/iotrace >ops_dump.txt 2>&1
f1=$(awk '/^io_file / && / name=reopen1$/ {print $2, $3}' ops_dump.txt)
f2=$(awk '/^io_file / && / name=reopen2$/ {print $2, $3}' ops_dump.txt)
check "reopen: same fd, new vfd ($f1 / $f2)" test -n "$f1" -a -n "$f2" -a "${f1#* }" = "${f2#* }" -a "${f1% *}" != "${f2% *}"
w1=$(awk '/^io / && / func=write / && / bytes=100 / {print $7}' ops_dump.txt)
w2=$(awk '/^io / && / func=write / && / bytes=200 / {print $7}' ops_dump.txt)
check "reopen: each write names its file's vfd ($w1 $w2)" test "$w1 $w2" = "${f1% *} ${f2% *}"
"$PA_BIN/collect" -o plain.er true
check "no iotrace without -i" test ! -e plain.er/iotrace -a ! -e plain.er/iotrace.zst
check "io on in log.xml" grep -q '<collector_start [^>]*io="on"' dd.er/log.xml
echo "# $checks checks, $failures failed"
exit $((failures ? 1 : 0))
