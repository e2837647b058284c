#!/usr/bin/env bash
# Names with control characters (issue #24): a program whose symbols carry ESC
# sequences (colours, a window title), a newline that would start a fake row,
# a C1 CSI and a byte that is not UTF-8, compiled from a source file whose
# name has ESC, a tab and a newline, loaded from an object whose path has a
# newline and a C1 control, recorded into an experiment whose directory name
# clears the screen and whose command line and working directory have a
# newline, a C1 control and a tab; an I/O file name with ESC.  Every text
# report must show them as visible escapes (\x1b, \n, \u009b, \xff) and
# nothing a terminal acts on; valid UTF-8 (café, €) stays; CSV and HTML stay
# well-formed, JSON keeps the names as they are (escaped by JSON itself).
. "$(dirname "$0")/common.bash"
cd "$WORK" || exit 1
E=$ER_PRINT

# The program: placeholder names as long as the final names, patched in the ELF below.
src=$(printf 'sr\033[1m\t\nc.c')
cat >"$src" <<'EOS'
void red(void) __asm__("REDNAME_PLACEHOLDER_XXXXX");
void red(void) { for (volatile int i = 0; i < 100; i++); }
void fake(void) __asm__("FAKENAME_PLACEHOLDER_XX");
void fake(void) { for (volatile int i = 0; i < 100; i++); }
void csi(void) __asm__("CSIN_HOLDX");
void csi(void) { for (volatile int i = 0; i < 100; i++); }
void cafe(void) __asm__("CAFE_HOLD");
void cafe(void) { for (volatile int i = 0; i < 100; i++); }
int main(void) { red(); fake(); csi(); cafe(); return 0; }
EOS
cc -O0 -g "$src" -o prog.tmp || exit 1
cat >s.txt <<EOS
object $WORK/prog.tmp
thread 100
thread 200 100 CSIN_HOLDX
sample 100 200 10000000 REDNAME_PLACEHOLDER_XXXXX+4 main+10
sample 100 100 10000000 FAKENAME_PLACEHOLDER_XX+4 main+15
sample 200 50 10000000 CSIN_HOLDX+4
sample 100 25 10000000 CAFE_HOLD+4 main+20
heap 100 malloc 100 0x1000 REDNAME_PLACEHOLDER_XXXXX+4 main+10
iofile 1 3 open 0 /tmp/data$(printf '\033')[5mblink
io 100 read 1 3 100 0 1000 FAKENAME_PLACEHOLDER_XX+4 main+15
end 100 3250000000
end 200 500000000
EOS
xp=$(printf 'x\033[2Jy.er')
"$MKEXP" "$xp" <s.txt || exit 1
"$MKEXP" base.er <s.txt || exit 1
# the names, each as long as its placeholder
python3 - prog.tmp <<'EOS' || exit 1
import sys
path = sys.argv[1]
d = open(path, "rb").read()
for old, new in [(b"REDNAME_PLACEHOLDER_XXXXX", b"red\x1b[31mRED\x1b[0m\x1b]0;pwned\x07"),
                 (b"FAKENAME_PLACEHOLDER_XX", b"fake\n9.999 99.99   evil"),
                 (b"CSIN_HOLDX", b"csi\xc2\x9b2J\xff\x7f\x01"),
                 (b"CAFE_HOLD", b"caf\xc3\xa9_\xe2\x82\xac")]:
    assert len(new) == len(old) and d.count(old) >= 1, old
    d = d.replace(old, new)
open(path, "wb").write(d)
EOS
# the object's path: a newline and a C1 control (map.xml writes them as character references)
obj=$(printf 'ob\nj\302\233x')
mv prog.tmp "$obj"
for x in "$xp" base.er; do
	python3 - "$x" "$WORK" <<'EOS' || exit 1
import sys
x, work = sys.argv[1], sys.argv[2]
m = open(x + "/map.xml").read().replace(work + "/prog.tmp", work + "/ob&#10;j&#x9b;x")
open(x + "/map.xml", "w").write(m)
l = open(x + "/log.xml").read()
l = l.replace("<arg>prog</arg>", "<arg>prog&#10;9.999 fake&#x9b;</arg>")
l = l.replace('cwd="/synthetic"', 'cwd="/synth&#9;etic&#x85;"')
open(x + "/log.xml", "w").write(l)
EOS
done

# check_text FILE WHAT: nothing a terminal acts on; valid UTF-8
cat >check.py <<'EOS'
import re, sys
path, what = sys.argv[1], sys.argv[2]
b = open(path, "rb").read()
bad = [m.start() for m in re.finditer(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]", b)]
try:
    b.decode("utf-8")
    utf8 = True
except UnicodeDecodeError:
    utf8 = False
if bad or not utf8 or not b:
    print("FAIL: %s: %s" % (what, "empty" if not b else "not UTF-8" if not utf8 else
                            "raw control at bytes %s: %r" % (bad[:5], b[max(0, bad[0] - 20):bad[0] + 20])))
    sys.exit(1)
print("ok: %s has no raw control character" % what)
EOS
check_text() { if python3 check.py "$1" "$2"; then pass "$2: clean"; else fail "$2"; fi; }
has() { if grep -qF -- "$3" "$2"; then pass "$1"; else fail "$1: no '$3' in:"; cat -A "$2" | head -40; fi; }
hasnt_line() { if grep -q -- "$3" "$2"; then fail "$1: a line matches '$3'"; else pass "$1"; fi; }

R='red\x1b[31mRED\x1b[0m\x1b]0;pwned\x07'
F='fake\n9.999 99.99   evil'
C='csi\u009b2J\xff\x7f\x01'
U=$(printf 'caf\303\251_\342\202\254')
O='ob\nj\u009bx'
S='sr\x1b[1m\t\nc.c'

"$E" -functions -callers-callees -calltree -fsummary -objects -object_list "$xp" >fn.txt 2>&1
check_text fn.txt "functions, callers-callees, calltree, fsummary, objects"
has "functions: ESC sequences and BEL escaped" fn.txt "$R"
has "functions: the newline is \\n, no fake row" fn.txt "$F"
hasnt_line "functions: no line starts with the fake row" fn.txt '^9\.999 99\.99'
has "functions: C1 CSI, invalid UTF-8 and DEL escaped" fn.txt "$C"
has "functions: valid UTF-8 stays" fn.txt "$U"
has "calltree: escaped" fn.txt "+-$R"
has "fsummary: the load object's path escaped" fn.txt "Load Object: $WORK/$O"
has "fsummary: the source file escaped" fn.txt "Source File: $WORK/$S"
has "objects: the object's name escaped" fn.txt "<$O>"

"$E" -csingle main -fsingle main -lines -pcs -lsummary "$xp" >ln.txt 2>&1
check_text ln.txt "csingle, fsingle, lines, pcs, lsummary"
has "lines: the function and file names escaped" ln.txt "$F, line"
has "lines: the file's basename escaped" ln.txt "in \"$S\""
has "pcs: escaped" ln.txt "$R + 0x"

"$E" -source main -disasm main "$xp" >src.txt 2>&1
check_text src.txt "source, disasm"
has "source: the header's file name escaped" src.txt "Source file: $WORK/$S"
has "disasm: the header's object escaped" src.txt "Load Object: $WORK/$O"

"$E" -header -thread_list -experiment_list -sample_list -statistics "$xp" >info.txt 2>&1
check_text info.txt "header, thread_list, experiment_list, sample_list, statistics"
has "header: the experiment name escaped" info.txt 'x\x1b[2Jy.er'
has "header: the command line escaped" info.txt "'prog\\n9.999 fake\\u009b 1'"
has "header: the working directory escaped" info.txt 'Current working directory: /synth\tetic\u0085'
has "thread_list: the start routine escaped" info.txt "$C"

"$E" -leaks -allocs -ioactivity -iodetail -iocallstack "$xp" >heap.txt 2>&1
check_text heap.txt "leaks, allocs, ioactivity, iodetail, iocallstack"
has "leaks: the frame escaped" heap.txt "  $R + 0x"
has "ioactivity: the file name escaped" heap.txt '/tmp/data\x1b[5mblink'

"$E" -compare on -functions "$xp" base.er >cmp.txt 2>&1
check_text cmp.txt "compare"
has "compare: the experiment name over its columns escaped" cmp.txt 'x\x1b[2Jy.er'

# error messages name functions too
"$E" -fsingle nosuch "$xp" >err.txt 2>&1
printf 'fsingle %s\n' "$(printf 'a\033[31mb')" | "$E" "$xp" >>err.txt 2>&1
check_text err.txt "error messages"
has "an unknown name in a message is escaped" err.txt "no function named 'a\\x1b[31mb'"

# CSV: one record a line, the names escaped; HTML: no control character; JSON: the names as they are
"$E" -printmode , -functions -lines "$xp" >csv.txt 2>&1
check_text csv.txt "printmode ,"
python3 - csv.txt <<'EOS' && pass "csv: one record a line, all rows as wide" || fail "csv rows"
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1], encoding="utf-8")) if r and r[0][:1].isdigit()]
assert len(rows) == 12 and len(set(map(len, rows))) == 1, rows
assert "fake\\n9.999 99.99   evil" in [r[-1] for r in rows], rows
EOS
"$E" -printmode html -functions -header "$xp" >html.txt 2>&1
check_text html.txt "printmode html"
has "html: escaped name" html.txt 'red\x1b[31mRED\x1b[0m\x1b]0;pwned\x07'
"$E" -printmode json -functions -calltree -source main -fsummary "$xp" >json.txt 2>&1
python3 - json.txt <<'EOS' && pass "json: well-formed, names as they are" || fail "json"
import json, sys
reps = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
names = [r["name"] for t in reps[0]["tables"] for r in t["rows"]]
assert "fake\n9.999 99.99   evil" in names, names
assert any(n.startswith("red\x1b[31mRED") for n in names), names
assert "csi\u009b2J\ufffd\x7f\x01" in names, names
# fsummary is text: its names escaped, and a \x01 in one does not break the capture
text = [r for r in reps if r["report"] == "fsummary"][0]["text"]
assert "csi\\u009b2J\\xff\\x7f\\x01" in text and len(reps) == 4, text
EOS
finish
