#!/usr/bin/env bash
# Hostile targets (issue 24): a file size limit (RLIMIT_FSIZE, `ulimit -f`, run in a
# subshell) binds the target, its collector and collect alike.  The collector checks the
# limit before each data block it claims and each line it appends to an XML file, so it
# never makes the target pass it (SIGXFSZ, exit 153, was what `ulimit -f 64` gave);
# a block that would pass it stops recording like a full disk, with its own reason.
# Checked with tests/fixtures/fsize_limit.c, plain and under collect -H on (heap tracing
# fills the data files fast), each time the same standard output and exit status:
#   - ulimit -f 64 and -f 8: no data block fits (a data file needs 128 KiB): collect and
#     er_print -header say at once that collection is off and why; collect survives its
#     own writes past the limit (the 16 KiB space reserve at -f 8; log.xml's end at -f 1);
#   - ulimit -f 1024: recording stops at the limit, said in one line by collect and in
#     er_print's header; the data before is there (before_work within 15% at -p hi; at
#     -p on, 85 ms is 8 intervals, and a late signal on a loaded machine moves one), and the raw
#     data files (PA_COMPRESS=off) reach the limit without passing it;
#   - the program lowers its own soft limit during the run: recording stops there; below
#     the size of log.xml (to 512 bytes), the collector's appends are left out rather
#     than made (a write that starts past the limit is what raises SIGXFSZ); below
#     map.xml's, a warning says what map.xml is missing; processes.xml at the limit
#     of a tree (132 KiB), each child left out of it says so;
#   - a process tree under a soft limit of 1024 KiB: a child that raises it records
#     everything, one that lowers it to 256 KiB stops at 256 KiB, the parent at 1024 KiB;
#     collect cannot write the raising child's compressed heap trace under its own limit,
#     keeps the raw file and says so, and er_print reads it;
#   - the program's own writes past the limit still meet SIGXFSZ (exit 153) under collect,
#     or EFBIG when it ignores the signal;
#   - er_print to a full disk (/dev/full) or past its own limit, and er_cp past its own
#     limit, say what they could not write and exit 1 (not killed, not silent), and er_cp
#     leaves no partial copy.
set -u
. "$(dirname "$0")/e2e_lib.sh" fsize
TOL=0.15
cc -O1 -g "$PA_TOP/tests/fixtures/fsize_limit.c" -o fsize_limit || exit 1

plain() { # NAME ULIMIT-ARGS -- ARGS...: ./fsize_limit ARGS under `ulimit ULIMIT-ARGS` -> NAME.plain.out, .err, .rc
	local n=$1 lim=()
	shift
	while [[ $1 != -- ]]; do
		lim+=("$1")
		shift
	done
	shift
	(
		ulimit "${lim[@]}" || exit 99
		(./fsize_limit "$@" >"$n.plain.out" 2>"$n.plain.err") 2>/dev/null # no note from bash on SIGXFSZ
		echo $? >"$n.plain.rc"
	)
}

collected() { # NAME ULIMIT-ARGS -- COLLECT-OPTIONS -- ARGS...: the same under collect -o NAME.er
	local n=$1 lim=() opts=()
	shift
	while [[ $1 != -- ]]; do
		lim+=("$1")
		shift
	done
	shift
	while [[ $1 != -- ]]; do
		opts+=("$1")
		shift
	done
	shift
	(
		ulimit "${lim[@]}" || exit 99
		"$PA_BIN/collect" "${opts[@]}" -o "$n.er" ./fsize_limit "$@" >"$n.out" 2>"$n.err"
		echo $? >"$n.rc"
	)
}

same() { # NAME: the same standard output and exit status, plain and under collect
	local n=$1
	if [[ $(cat "$n.rc") != "$(cat "$n.plain.rc")" ]]; then
		bad "$n: exit status $(cat "$n.rc") under collect, $(cat "$n.plain.rc") plain"
		sed 's/^/    | /' "$n.err" | tail -5
	elif ! diff "$n.plain.out" "$n.out" >"$n.diff"; then
		bad "$n: standard output differs under collect"
		sed 's/^/    | /' "$n.diff"
	else
		ok "$n: the same output ($(grep -c . "$n.out") lines) and exit status $(cat "$n.rc")"
	fi
}

says() { # NAME REGEX WHAT: collect's standard error has exactly one line matching REGEX
	local k
	k=$(grep -cE "$2" "$1.err")
	if ((k == 1)); then
		ok "$1: collect says $3: $(grep -E "$2" "$1.err" | cut -c1-150)"
	else
		bad "$1: collect has $k lines on $3 (want 1)"
		sed 's/^/    | /' "$1.err"
	fi
}

no_signal() { # NAME: collect was not killed, and says nothing of a signal
	if grep -qi 'signal\|File size limit exceeded' "$1.err"; then
		bad "$1: $(grep -i -m1 'signal\|File size limit exceeded' "$1.err")"
	else
		ok "$1: no signal"
	fi
}

header() { # EXP REGEX WHAT: er_print -header reads EXP and has a line matching REGEX
	local h=$1.header
	if ! "$PA_BIN/er_print" -header "$1" >"$h" 2>&1; then
		bad "$1: er_print -header failed"
		sed 's/^/    | /' "$h" | head -20
	elif ! grep -qE "$2" "$h"; then
		bad "$1: the header does not say $3"
		sed 's/^/    | /' "$h" | head -20
	else
		ok "$1: the header says $3: $(grep -m1 -E "$2" "$h" | cut -c1-150)"
	fi
}

within_limit() { # DIR BYTES: no file in DIR (and its subexperiments) is larger than BYTES
	local big
	big=$(find "$1" -type f -size +"$2"c -printf '%s %p\n')
	[[ -z $big ]] && ok "$1: no file is larger than $2 bytes" || bad "$1: larger than the limit: $big"
}

near_before() { # NAME: before_work in NAME.er within TOL of what the program measured
	local want got
	want=$(awk '$1 == "cpu" && $2 == "before_work" { v = $3 } END { print v }' "$1.err")
	got=$("$PA_BIN/er_print" -metrics i.totalcpu:name -functions "$1.er" 2>&1 | awk '$NF == "before_work" { print $1; exit }')
	if awk -v g="${got:-}" -v w="$want" -v t="$TOL" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(g != "" && d <= t * w) }'; then
		ok "$1.er: before_work recorded $got s of $want s"
	else
		bad "$1.er: before_work recorded '${got:-nothing}' s, the program measured $want s"
	fi
}

off='nothing can be recorded; collection is off'
for kib in 64 8; do
	n=f$kib
	plain $n -f $kib -- work 50 300000
	collected $n -f $kib -- -H on -- work 50 300000
	same $n
	no_signal $n
	says $n "file size limit \(ulimit -f $kib KiB\) is below the 128 KiB each data file needs.*$off" "collection is off at the start"
	header $n.er "^\*\*\* Collector Error: the file size limit \(ulimit -f $kib KiB\).*$off" "collection is off"
	within_limit $n.er $((kib * 1024))
done

# 1 KiB: not even log.xml's end fits; collect says so and goes on
n=f1
plain $n -f 1 -- work 50 300000
collected $n -f 1 -- -H on -- work 50 300000
same $n
no_signal $n
says $n "log.xml reached collect's file size limit \(ulimit -f 1 KiB\): the experiment's end \(exit status, resource usage\) is not recorded" "that log.xml has no end"
"$PA_BIN/er_print" -header $n.er >$n.header 2>&1 && ok "$n: er_print reads it: $(grep -m1 'not closed' $n.header)" ||
	bad "$n: er_print -header: $(head -3 $n.header)"

n=f1024
plain $n -f 1024 -- work 50 2000000
collected $n -f 1024 -- -p hi -H on -- work 50 2000000
same $n
no_signal $n
stop='recording stopped at [0-9.]+ s at the file size limit \(ulimit -f 1024 KiB, EFBIG\)'
says $n "$stop in 1 process; not recorded: .* heap calls; the data before is complete" "where recording stopped"
header $n.er "^\*\*\* Warning: data lost: $stop; not recorded: .* heap calls; the data before is complete" "data lost"
near_before $n
grep -q 'could not compress' $n.err && bad "$n: $(grep -m1 'could not compress' $n.err)"

# the raw files: the heap trace reaches the limit (to its last block), never past it
n=raw
plain $n -f 1024 -- work 50 2000000
PA_COMPRESS=off collected $n -f 1024 -- -H on -- work 50 2000000
same $n
within_limit $n.er $((1024 * 1024))
size=$(stat -c %s $n.er/heaptrace 2>/dev/null || echo 0)
((size > (1024 - 64) * 1024)) && ok "$n: heaptrace took the limit to its last block ($size bytes)" ||
	bad "$n: heaptrace is $size bytes: recording stopped before the limit"
"$PA_BIN/er_print" -heap $n.er >$n.heap 2>&1 && grep -q '^Instances = ' $n.heap &&
	ok "$n: er_print -heap reads the raw files" || bad "$n: er_print -heap: $(head -3 $n.heap)"

# the program lowers its own limit half way
n=lower
plain $n -f unlimited -- lower 50 2000000 524288
collected $n -f unlimited -- -p hi -H on -- lower 50 2000000 524288
same $n
no_signal $n
says $n 'recording stopped at [0-9.]+ s at the file size limit \(ulimit -f 512 KiB, EFBIG\) in 1 process' "where recording stopped"
near_before $n

# ... below the size of log.xml itself: the collector's appends are left out, not made
n=lower512
plain $n -f unlimited -- lower 50 300000 512
collected $n -f unlimited -- -H on -- lower 50 300000 512
same $n
no_signal $n
header $n.er "^\*\*\* Collector Warning: the collector could not record the end .*lowered its file size limit below the size of log.xml" "why the end is missing"
header $n.er "^Target exited with status 0" "how the target ended"

# ... below map.xml's size, not log.xml's: one warning says what map.xml is missing
n=lower_map
plain $n -f unlimited -- lower 50 300000 3000 dlopen
collected $n -f unlimited -- -H on -- lower 50 300000 3000 dlopen
same $n
no_signal $n
header $n.er "^\*\*\* Collector Warning: map.xml reached the file size limit \(3000 bytes\): load objects mapped from now on are not in it" "what map.xml is missing"
says $n "map.xml reached the file size limit \(3000 bytes\): load objects mapped from now on are not in it" "what map.xml is missing"
grep -q '<collector_end [^>]* fsize_dropped="[1-9]' $n.er/log.xml && ok "$n: <collector_end> counts the appends left out" ||
	bad "$n: no fsize_dropped in <collector_end>"
[[ $(stat -c %s $n.er/map.xml) -le 3000 ]] && ok "$n: map.xml stayed within the limit" || bad "$n: map.xml is $(stat -c %s $n.er/map.xml) bytes"

# processes.xml at the limit (each child's line is long: its argument is 2040 '&'): the
# children whose line is left out say so in their own log.xml, and collect sums it up
n=forks
pad=$(printf '&%.0s' $(seq 2040))
plain $n -f 132 -- forks 20 "$pad"
collected $n -f 132 -- -- forks 20 "$pad"
same $n
no_signal $n
within_limit $n.er $((132 * 1024))
k=$(grep -l '<warning id="file_size_limit"[^>]* file="processes.xml"' $n.er/_*.er/log.xml 2>/dev/null | wc -l)
((k > 0 && k < 20)) && ok "$n: $k children say that their line is not in processes.xml" || bad "$n: $k children say so"
says $n "in $k processes: processes.xml reached the file size limit \(ulimit -f 132 KiB\): this process, and those started after it, may be missing from it" "what processes.xml is missing"

# a tree under a soft limit: one child raises it, one lowers it
if [[ $(ulimit -H -f) != unlimited ]]; then
	echo "note: the hard file size limit is $(ulimit -H -f): the tree is not checked"
else
	n=tree
	plain $n -S -f 1024 -- tree 50 1000000 256
	collected $n -S -f 1024 -- -H on -- tree 50 1000000 256
	same $n
	no_signal $n
	grep -q 'fsize_limit_bytes\|lost_errno' $n.er/_f1.er/log.xml &&
		bad "$n: the child that raised its limit lost data: $(grep -m1 'data_lost\|lost_errno' $n.er/_f1.er/log.xml | cut -c1-150)" ||
		ok "$n: the child that raised its limit lost nothing"
	recs=$(sed -n 's/.*<collector_end [^>]*heap_records="\([0-9]*\)".*/\1/p' $n.er/_f1.er/log.xml)
	((${recs:-0} >= 2000000)) && ok "$n: it recorded its $recs heap calls" || bad "$n: it recorded '${recs:-}' heap calls of 2000000"
	grep -q '<warning id="data_lost"[^>]* errno="EFBIG" fsize_limit_bytes="262144"' $n.er/_f2.er/log.xml &&
		ok "$n: the child that lowered its limit to 256 KiB stopped there" ||
		bad "$n: the lowering child: $(grep -m1 'data_lost' $n.er/_f2.er/log.xml | cut -c1-150)"
	grep -q '<warning id="data_lost"[^>]* errno="EFBIG" fsize_limit_bytes="1048576"' $n.er/log.xml &&
		ok "$n: the parent stopped at its 1024 KiB" || bad "$n: the parent: $(grep -m1 'data_lost' $n.er/log.xml | cut -c1-150)"
	says $n "in 2 processes; not recorded: .*the data before is complete" "where recording stopped"
	says $n "could not compress .*_f1.er/heaptrace: the compressed file would pass collect's file size limit \(ulimit -f 1024 KiB\); the data stays uncompressed" "which file stays uncompressed"
	[[ -f $n.er/_f1.er/heaptrace && ! -e $n.er/_f1.er/heaptrace.zst && ! -e $n.er/_f1.er/heaptrace.zst.tmp ]] &&
		ok "$n: the raw heap trace stays, nothing half written beside it" || bad "$n: $(ls $n.er/_f1.er)"
	"$PA_BIN/er_print" -heap $n.er/_f1.er >$n.heap 2>&1 && grep -q '^Instances = 1000001 ' $n.heap &&
		ok "$n: er_print reads the raw heap trace: $(grep -m1 '^Instances' $n.heap)" ||
		bad "$n: er_print -heap _f1.er: $(head -3 $n.heap)"
	header $n.er/_f2.er "^\*\*\* Warning: data lost: recording stopped at [0-9.]+ s at the file size limit \(ulimit -f 256 KiB, EFBIG\)" "data lost"
fi

# the program's own writes past the limit: SIGXFSZ as without collect, or EFBIG when ignored
n=own
plain $n -f 1024 -- own 2000000
collected $n -f 1024 -- -H on -- own 2000000
same $n
[[ $(cat $n.rc) == 153 ]] && ok "$n: the program's own write past the limit got SIGXFSZ (153)" || bad "$n: exit status $(cat $n.rc)"
grep -q 'target terminated by signal 25' $n.err && ok "$n: collect names the signal" || bad "$n: $(tail -2 $n.err)"
header $n.er "^Target terminated by signal 25 \(SIGXFSZ\)" "how the target ended"
n=own_ignore
plain $n -f 1024 -- own 2000000 ignore
collected $n -f 1024 -- -H on -- own 2000000 ignore
same $n
grep -q '^own: write failed after 1048576 bytes: EFBIG$' $n.out && ok "$n: $(tail -1 $n.out)" || bad "$n: $(cat $n.out)"

# the tools themselves on a full disk or past their own limit: a clear error, exit 1
"$PA_BIN/er_print" -functions own.er >/dev/full 2>full.err
rc=$?
[[ $rc == 1 ]] && grep -q 'cannot write the reports to standard output: No space left on device' full.err &&
	ok "er_print on a full disk: $(cat full.err)" || bad "er_print >/dev/full: exit $rc: $(head -2 full.err)"
(
	ulimit -f 1
	exec "$PA_BIN/er_print" -outfile big.txt -calltree -callers-callees -functions own.er
) >/dev/null 2>big.err
rc=$?
[[ $rc == 1 ]] && grep -q "cannot write the reports to 'big.txt': File too large" big.err &&
	ok "er_print past ulimit -f 1: $(cat big.err)" || bad "er_print -outfile under ulimit -f 1: exit $rc: $(head -2 big.err)"
PA_COMPRESS=off "$PA_BIN/collect" -o raw.er -H on ./fsize_limit own 200000 >/dev/null 2>&1 # 128 KiB data files
(
	ulimit -f 64
	exec "$PA_BIN/er_cp" raw.er copy.er
) >/dev/null 2>cp.err
rc=$?
[[ $rc == 1 ]] && grep -q 'File too large' cp.err && [[ ! -e copy.er ]] &&
	ok "er_cp past ulimit -f 64: $(head -1 cp.err)" || bad "er_cp under ulimit -f 64: exit $rc: $(head -2 cp.err); $(ls -d copy.er 2>&1)"

e2e_end
