#!/usr/bin/env bash
# collect -i on (I/O tracing): `dd if=A of=B bs=64k` on a 3 MiB file
# reports exactly 3 MiB read and written (48 writes, 48 full reads and the
# read at EOF), whatever the machine's load; the collector's own files are not
# traced (dd's other calls are its opens, dup2s, closes and lseek only).
# `cp A C` reports exactly 3 MiB read and written by copy_file_range.
# tests/fixtures/io_ops.c: exact bytes and counts per function (short reads
# at EOF, a failed open, an EINTR, a reopened descriptor number, a socketpair,
# a pipe, vectored calls, kernel copies, the stdio family counted once at the
# stdio level and not again under write or read, a stream reopened by freopen,
# mkstemp, tmpfile, fdopen, glibc's compatibility llseek); threads that close
# and open the same descriptor number at once keep their files apart.
# Without -i there is no iotrace file.
set -u
. "$(dirname "$0")/heap_lib.sh" io_trace
[[ -f $PA_LIB/libcollector-io.so ]] || { echo "skip: libcollector-io.so not built"; exit 77; }
erprint=$PA_BIN/er_print
head -c 3145728 /dev/urandom >A
"$PA_BIN/collect" -i on -o dd.er dd if=A of=B bs=64k 2>dd.err || { cat dd.err; echo "collect failed"; exit 1; }
check "dd copied" cmp -s A B
# dd also writes its summary to stderr with __fprintf_chk (and a newline with an
# inlined putc_unlocked, which calls no function): those bytes count too, under fprintf
"$erprint" -metrics e.iowritebytes:e.ioreadbytes:e.ioreadcnt:e.ioerrorcnt -functions dd.er >dd_fn.txt 2>/dev/null
tot=$(awk '$NF == "<Total>" {print $1, $2, $3, $4}' dd_fn.txt)
fp=$(awk '$NF ~ /printf/ {s += $1} END {print s + 0}' dd_fn.txt) # __fprintf_chk: dd is built with _FORTIFY_SOURCE
summary=$(grep -v '^Creating experiment directory' dd.err | wc -c)
check "dd: its summary written by the printf family (${fp:-0} of $summary bytes)" test "${fp:-0}" -gt 0 -a "${fp:-0}" -le "$summary"
check "dd: 3 MiB and the summary written, 3 MiB read in 49 reads, no error ($tot)" \
	test "$tot" = "$((3145728 + ${fp:-0})) 3145728 49 0"
wr=$("$erprint" -metrics e.iowritebytes:e.iowritecnt -functions dd.er 2>/dev/null | awk '$NF == "write" {print $1, $2}')
check "dd: the writes are charged to write ($wr)" test "$wr" = "3145728 48"
# every call lies inside its thread's life: the records' times are exact, not drifting
# (each IO record's time is a delta from the one before it in its block)
"$expdump" dd.er/iotrace >dd_dump.txt 2>&1 && "$expdump" dd.er/profile >dd_prof.txt 2>&1
bounds=$(awk '/^thread_start / { for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] } s[f["tid"]] = f["start"] }
	/^thread_end / { for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] } e[f["tid"]] = f["end"] }
	/^io / { for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] } n++
		if (!(f["tid"] in s) || !(f["tid"] in e) || f["ts"] < s[f["tid"]] || f["ts"] + f["dur"] > e[f["tid"]]) bad++ }
	END { print n + 0, bad + 0 }' dd_prof.txt dd_dump.txt)
check "dd: each of the calls (${bounds% *} calls, outside: ${bounds#* }) lies inside its thread's life" \
	test "${bounds#* }" = 0 -a "${bounds% *}" -gt 90
# gcc -S: cc1 writes its assembly with fprintf, fputs, fwrite and putc (per character):
# the bytes written to the file are its size
if command -v gcc >/dev/null; then
	"$PA_BIN/collect" -i on -o gcc.er gcc -O2 -S "$PA_TOP/tests/fixtures/cc_prog.c" -o x.s 2>gcc.err ||
		{ cat gcc.err; echo "collect gcc failed"; exit 1; }
	xs=$("$erprint" -metrics e.iowritebytes:name -ioactivity gcc.er 2>/dev/null | awk '$NF == "x.s" {print $1}')
	check "gcc -S: the bytes written to x.s (${xs:-none}) are its size ($(stat -c %s x.s))" \
		test "${xs:-0}" = "$(stat -c %s x.s)"
	pc=$("$erprint" -metrics e.iowritecnt:name -functions gcc.er 2>/dev/null | awk '$NF == "putc" {print $1}')
	check "gcc -S: putc is traced (${pc:-0} calls)" test "${pc:-0}" -gt 0
fi
# coreutils' cp copies in the kernel with copy_file_range: a read and a write of the same bytes
"$PA_BIN/collect" -i on -o cp.er cp A C 2>cp.err || { cat cp.err; echo "collect cp failed"; exit 1; }
check "cp copied" cmp -s A C
cfr=$("$erprint" -metrics e.iowritebytes:e.ioreadbytes -functions cp.er 2>/dev/null |
	awk '$NF == "copy_file_range" {print $1, $2}')
check "cp: 3 MiB written and read by copy_file_range ($cfr)" test "$cfr" = "3145728 3145728"
tot=$("$erprint" -metrics e.iowritebytes -functions cp.er 2>/dev/null | awk '$NF == "<Total>" {print $1}')
check "cp: 3 MiB written in all ($tot)" test "$tot" = "3145728"
# (cp's libselinux also reads /proc/filesystems with getline: on A and C, only the copy)
"$expdump" cp.er/iotrace >cp_dump.txt 2>&1
ac=$(awk '/^io_file / && ($6 == "name=A" || $6 == "name=C") { split($2, v, "="); ours[v[2]] = 1 }
	/^io / { split($7, v, "="); split($8, b, "="); if (v[2] in ours) sum += b[2] } END { print sum + 0 }' cp_dump.txt)
check "cp: 3 MiB moved on A and C in all ($ac)" test "$ac" = "3145728"
# tests/fixtures/io_ops.c: every op_* function's calls are known (its comments), so
# the inclusive metrics of each are exact, their sum is the total (nothing else is
# traced), and the functions it alone calls have exact exclusive metrics.
gcc -O1 -g -fno-inline -fno-omit-frame-pointer -o io_ops "$PA_TOP/tests/fixtures/io_ops.c" ||
	{ echo "cannot build io_ops"; exit 1; }
mkdir run && (cd run && "$PA_BIN/collect" -i on -o ../ops.er ../io_ops) >ops.out 2>ops.err ||
	{ cat ops.err; echo "collect io_ops failed"; exit 1; }
check "io_ops: its standard output unchanged" test "$(cat ops.out)" = $'42:abcdef\nabcdef'
check "io_ops: the stdio file as written" test "$(tail -c 33 run/stdio)" = "12345:abcdef"$'\n'"yyyyyyyyyyyyyyyyyyy"
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
op_stdio 3033 5 3033 4 5 0
op_stdout 17 2 0 0 1 0
op_freopen 20 2 0 0 3 0
op_mkstemp 106 3 0 0 6 0
op_chars 15 15 15 16 4 0
<Total> 34533 37 34090 31 44 2
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
fwrite 3032 4 0 0 0 0
fprintf 13 1 0 0 0 0
fputs 50 4 0 0 0 0
printf 10 1 0 0 0 0
puts 7 1 0 0 0 0
fread 0 0 3000 1 0 0
fgets 0 0 13 1 0 0
getline 0 0 20 2 0 0
fflush 0 0 0 0 2 0
fclose 0 0 0 0 7 0
fputc 10 10 0 0 0 0
putc 5 5 0 0 0 0
getc 0 0 15 16 0 0
freopen 0 0 0 0 1 0
fdopen 0 0 0 0 1 0
mkstemp 0 0 0 0 1 0
write 10999 6 0 0 0 0
read 0 0 10635 6 0 1
EOF_OPS
# (write and read: the program's own calls only, none made inside a stdio call)
# the same descriptor number reopened is another file: its own virtual id and name
"$expdump" ops.er/iotrace >ops_dump.txt 2>&1
f1=$(awk '/^io_file / && / name=reopen1$/ {print $2, $3}' ops_dump.txt)
f2=$(awk '/^io_file / && / name=reopen2$/ {print $2, $3}' ops_dump.txt)
check "reopen: same fd, new vfd ($f1 / $f2)" test -n "$f1" -a -n "$f2" -a "${f1#* }" = "${f2#* }" -a "${f1% *}" != "${f2% *}"
w1=$(awk '/^io / && / func=write / && / bytes=100 / {print $7}' ops_dump.txt)
w2=$(awk '/^io / && / func=write / && / bytes=200 / {print $7}' ops_dump.txt)
check "reopen: each write names its file's vfd ($w1 $w2)" test "$w1 $w2" = "${f1% *} ${f2% *}"
# functions that share their address with another name in libc (fopen and
# fopen64, tmpfile and tmpfile64, llseek and lseek64): counted by the record's func
n_func() { awk -v f="func=$1" '/^io / && $5 == f' ops_dump.txt | wc -l; }
check "fopen: 5 calls ($(n_func fopen))" test "$(n_func fopen)" = 5
check "tmpfile: 1 call ($(n_func tmpfile))" test "$(n_func tmpfile)" = 1
check "llseek: 1 call ($(n_func llseek))" test "$(n_func llseek)" = 1
tf=$(awk '/^io_file / && / name=<tmpfile>$/ {print $5}' ops_dump.txt)
check "tmpfile: its own how ($tf)" test "$tf" = "how=6"
mk=$(awk '/^io_file / && $NF ~ /^name=tmp/ {print $NF}' ops_dump.txt)
check "mkstemp: the generated name ($mk)" test "${#mk}" = 14 -a "$mk" != "name=tmpXXXXXX"
# freopen: the same descriptor number, another file, and each fputs names its own
g1=$(awk '/^io_file / && / name=fre1$/ {print $2, $3}' ops_dump.txt)
g2=$(awk '/^io_file / && / name=fre2$/ {print $2, $3}' ops_dump.txt)
check "freopen: same fd, new vfd ($g1 / $g2)" test -n "$g1" -a -n "$g2" -a "${g1#* }" = "${g2#* }" -a "${g1% *}" != "${g2% *}"
p=$(awk '/^io / && $5 == "func=fputs" && / bytes=10 / {print $7}' ops_dump.txt | head -2 | tr '\n' ' ')
check "freopen: each fputs names its file's vfd ($p)" test "$p" = "${g1% *} ${g2% *} "
# the close race: one thread's close and another's open of the same number
# overlap; each close ends the id its descriptor had when it was called, so
# every write names the file it went to, opened by name (not met afresh)
gcc -O1 -g -pthread -o race "$PA_TOP/tests/fixtures/io_close_race.c" || { echo "cannot build io_close_race"; exit 1; }
"$PA_BIN/collect" -i on -o race.er ./race 2>race.err || { cat race.err; echo "collect io_close_race failed"; exit 1; }
"$expdump" race.er/iotrace >race_dump.txt 2>&1
rc=$(awk '/^io_file / { split($2, v, "="); split($5, h, "="); n = $6; sub(/^name=/, "", n); nm[v[2]] = n; how[v[2]] = h[2] }
	/^io / && $5 == "func=write" { split($7, v, "="); split($8, b, "="); all++
		if (nm[v[2]] != "race" (b[2] - 1) || how[v[2]] != 0) bad++ }
	END { print all + 0, bad + 0 }' race_dump.txt)
check "close race: 12000 writes, each to its own file's id ($rc)" test "$rc" = "12000 0"
"$PA_BIN/collect" -o plain.er true
check "no iotrace without -i" test ! -e plain.er/iotrace -a ! -e plain.er/iotrace.zst
check "io on in log.xml" grep -q '<collector_start [^>]*io="on"' dd.er/log.xml
echo "# $checks checks, $failures failed"
exit $((failures ? 1 : 0))
