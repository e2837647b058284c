#!/usr/bin/env bash
# I/O tracing reports on a synthetic experiment with known numbers (the
# figures of tests/unit/test_report_io.c's script, with real functions as
# frames): three lives of data.txt (fd 3, its duplicate fd 4, fd 3 reopened),
# a failed open of /missing, a write on no known descriptor, an inherited
# stdin without a name, a copy in the kernel.  Hand-computed:
#   data.txt  read 11264 B in 4 calls (1600 ns), write 7148 B in 3 (5900 ns), other 3 (1150 ns)
#   /missing  1 error (300 ns); <unknown descriptor> write 10 B; <descriptor 0> read 5 B
. "$(dirname "$0")/common.bash"
prog=$(fixture_prog)
cat >"$WORK/s.txt" <<EOS
object $prog
thread 100
thread 200 100
sample 100 10 10000000 work+10 slow+9 main+42
iofile 1 3 open 0 data.txt
io 100 open 1 3 0 0 1000 fast+9 both+8 main+16
io 100 write 1 3 100 0 2000 work+10 slow+9 main+42
io 100 write 1 3 5000 0 3000 work+10 slow+9 main+42
io 200 read 1 3 0 0 500 slow+9 main+42
iofile 2 4 dup 1 -
io 100 dup 2 4 0 0 100 both+8 main+16
io 200 read 2 4 8192 0 700 slow+9 main+42
io 100 close 1 3 0 0 50 both+8 main+16
iofile 3 3 open 0 data.txt
io 100 read 3 3 1024 0 400 slow+9 main+42
io 100 copy_file_range 3 3 2048 0 900 main+42
iofile 4 -1 failed 0 /missing
io 100 open 4 -1 0 2 300 fast+9 both+8 main+16
io 100 write 0 70000 10 0 60 work+10 slow+9 main+42
iofile 5 0 inherited 0 -
io 100 read 5 0 5 0 20 slow+9 main+42
end 100 100000000
end 200 1000000
EOS
"$MKEXP" "$WORK/i.er" <"$WORK/s.txt" || exit 1
cd "$WORK" || exit 1
has() { grep -qF -- "$3" "$2" && pass "$1" || { fail "$1: no '$3' in:"; cat "$2"; }; }
hasx() { grep -qx -- "$3" "$2" && pass "$1" || { fail "$1: no line '$3' in:"; cat "$2"; }; }

cat >act.scr <<'EOS'
metrics e.ioreadbytes:e.ioreadcnt:e.iowritebytes:e.iowritecnt:e.ioothercnt:e.ioerrorcnt:name
ioactivity
iodetail
EOS
"$ER_PRINT" -script act.scr i.er >act 2>&1
hasx "ioactivity: <Total>" act "11269      5   7158      4          3          1   <Total>"
hasx "ioactivity: data.txt's three lives in one row" act "11264      4   7148      3          3          0   data.txt"
hasx "ioactivity: the failed open by its path" act "    0      0      0      0          0          1   /missing"
hasx "ioactivity: a call on no known descriptor" act "    0      0     10      1          0          0   <unknown descriptor>"
hasx "ioactivity: an inherited descriptor without a name" act "    5      1      0      0          0          0   <descriptor 0>"
hasx "iodetail: the first life of fd 3" act "    0      1   5100      2          2          0   data.txt (IOVFD=1, FD=3)"
hasx "iodetail: its duplicate, named as its original" act " 8192      1      0      0          1          0   data.txt (IOVFD=2, FD=4)"
hasx "iodetail: fd 3 reopened is another life" act " 3072      2   2048      1          0          0   data.txt (IOVFD=3, FD=3)"
hasx "iodetail: a failed open has no descriptor" act "    0      0      0      0          0          1   /missing (IOVFD=4)"

"$ER_PRINT" -ioactivity i.er >def 2>&1
has "ioactivity: gprofng's four times by default" def "Read   Write  Other     Error"
[[ $(grep -c . def) -ge 9 ]] && pass "ioactivity default: header and 5 rows" || fail "default: $(cat def)"
"$ER_PRINT" -functions i.er >fn 2>&1
has "functions: the I/O times in the default metrics" fn "Incl.  Incl.  Incl.     Incl. I/O   Name"

"$ER_PRINT" -iocallstack i.er >cs 2>&1
[[ $(sed -n 1,5p cs) == $'<Total>\nWrite Time=0.000006 (secs.)  Write Bytes=7158  Write Count=4\nRead Time=0.000002 (secs.)  Read Bytes=11269  Read Count=5\nOther I/O Time=0.000001 (secs.)  Other I/O Count=3\nI/O Error Time=0.000000 (secs.)  I/O Error Count=1' ]] &&
	pass "iocallstack: <Total> block" || { fail "iocallstack total"; cat cs; }
[[ $(grep -c "^Stack 0x" cs) == 5 ]] && pass "iocallstack: 5 stacks" || fail "iocallstack stacks: $(cat cs)"
# the most I/O time first: the writes from work (5060 ns)
[[ $(grep -A2 -m1 "^Stack 0x" cs | tail -2) == $'Write Time=0.000005 (secs.)  Write Bytes=5110  Write Count=3\n  work + 0x0000000A'* ]] &&
	pass "iocallstack: the most time first, leaf first" || { fail "iocallstack first stack"; cat cs; }

"$ER_PRINT" -iostat i.er >st 2>&1
hasx "iostat: small writes" st "  0KB - 1KB                       2"
hasx "iostat: smallest write" st "Smallest write bytes              10"
hasx "iostat: largest read" st "Largest read bytes                8192"
hasx "iostat: smallest read leaves out end of file" st "Smallest read bytes               5"
hasx "iostat: reads" st "Total calls                       5"
hasx "iostat: other calls" st "Total calls                       3 "
hasx "iostat: errors" st "Total calls                       1 "

"$ER_PRINT" -printmode json -iostat i.er >js 2>&1
python3 - js <<'EOP' && pass "iostat json" || fail "iostat json: $(cat js)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["report"] == "iostat" and d["write"]["bytes"] == 7158 and d["read"]["calls"] == 5
assert d["read"]["sizes"] == [{"range": "0KB - 1KB", "calls": 3}, {"range": "1KB - 8KB", "calls": 2}]
assert d["error"] == {"calls": 1, "time_ns": 300}
EOP
"$ER_PRINT" -printmode json -iocallstack i.er >jc 2>&1
python3 - jc <<'EOP' && pass "iocallstack json" || fail "iocallstack json: $(cat jc)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["distinct_stacks"] == 5 and d["total"]["calls"] == 12 and d["total"]["ioreadbytes"] == 11269
s = d["stacks"][0]
assert s["iowritebytes"] == 5110 and s["frames"][0]["function"] == "work", s
EOP
"$ER_PRINT" -header i.er >hd 2>&1
hasx "header: IO tracing" hd "  IO tracing"

# thread 200 alone: its two reads of data.txt
printf 'thread_select 2\nmetrics e.ioreadbytes:e.ioreadcnt:name\nioactivity\n' >sel.scr
"$ER_PRINT" -script sel.scr i.er >sel 2>&1
hasx "thread selection applies" sel " 8192      2   data.txt"
[[ $(grep -c "data.txt" sel) == 1 && $(grep -c "missing" sel) == 0 ]] && pass "selection: only data.txt" || fail "selection: $(cat sel)"

# no I/O data: one clear message, exit status 1
printf 'object %s\nthread 1\nsample 1 1 10000000 main\nend 1 10000000\n' "$prog" >n.txt
"$MKEXP" n.er <n.txt || exit 1
for c in ioactivity iodetail iocallstack iostat; do
	"$ER_PRINT" -$c n.er >no 2>&1
	rc=$?
	[[ $rc != 0 ]] && grep -q "no I/O tracing data in the experiments (record with collect -i on)" no &&
		pass "$c without I/O data: message" || fail "$c without I/O data (rc $rc): $(cat no)"
done
finish
