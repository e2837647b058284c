#!/usr/bin/env bash
# collect -i on (I/O tracing): `dd if=A of=B bs=64k` on a 3 MiB file
# reports exactly 3 MiB read and written (48 writes, 48 full reads and the
# read at EOF), whatever the machine's load; the collector's own files are not
# traced (dd's other calls are its opens, dup2s, closes and lseek only).
# `cp A C` reports exactly 3 MiB read and written by copy_file_range.
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
"$PA_BIN/collect" -o plain.er true
check "no iotrace without -i" test ! -e plain.er/iotrace -a ! -e plain.er/iotrace.zst
check "io on in log.xml" grep -q '<collector_start [^>]*io="on"' dd.er/log.xml
echo "# $checks checks, $failures failed"
exit $((failures ? 1 : 0))
