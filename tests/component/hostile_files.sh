#!/usr/bin/env bash
# Hostile files in and around an experiment (issue 24): every reader opens only regular
# files, never blocks, and bounds what it allocates by the file's real size and the
# documented ceiling; each refusal is one message naming the file and what it is.
#  - a FIFO as notes, log.xml, map.xml, processes.xml, a data file or its .zst, and as a
#    load object's recorded path: er_print, er_rm and the analyzer answer at once;
#  - links out of the experiment (log.xml, notes to a file outside; a data file to
#    /dev/zero; a subexperiment directory that is a link elsewhere; a source in
#    archives/src): refused, not read;
#  - a sparse 1 GiB data file (128 KiB stored): refused as sparse, at no memory cost;
#    the same experiment copied with cp --sparse=always (holes in every block) is not;
#  - zstd bombs: a frame that declares 16 GiB (refused from its header), a 16 KiB frame
#    that does not say and expands to 512 MiB (refused at PA_MAX_DATA_BYTES=64M after
#    counting, keeping nothing), a .zst of 512 MiB of zeros that is legal under the
#    ceiling (read without a page of memory per page of zeros);
#  - .er.rc as /dev/zero, a FIFO, a file past 1 MiB: named and skipped;
#  - er_rm and er_cp on a FIFO log.xml and a FIFO or sparse data file; a log.xml that
#    declares an entity is called that, not "no <experiment> root element".
# er_archive's side (/etc/shadow-like files, /dev/zero, FIFOs, modes, temporaries) is
# tests/component/hostile_archive.sh.
. "$(dirname "$0")/common.bash"
prog=$(fixture_prog)
cd "$WORK" || exit 1
cat >s.txt <<EOS
object $prog
thread 100
sample 100 3000 10000000 work+10 slow+9 main+42
end 100 40000000000
EOS
"$MKEXP" good.er <s.txt || exit 1
echo "some notes" >good.er/notes
ER_RM=$PA_BIN/er_rm ER_CP=$PA_BIN/er_cp
export PA_CACHE_DIR=$WORK/cache

# run NAME EXPECTED-EXIT PATTERN PROGRAM ARGS...: within 20 s, no crash, that exit, PATTERN
run() {
	local name=$1 want=$2 pat=$3 rc
	shift 3
	timeout 20 "$@" >"out.$name" 2>&1 </dev/null
	rc=$?
	if ((rc == 124)); then fail "$name: still running after 20 s (blocked?)"; return; fi
	if ((rc >= 128)) || grep -q "Sanitizer\|runtime error" "out.$name"; then
		fail "$name crashed (rc $rc)"; cat "out.$name"; return
	fi
	if [[ $want != any && $rc != "$want" ]]; then fail "$name: exit $rc, expected $want"; cat "out.$name"; return; fi
	if [[ -z $pat ]] || grep -q -- "$pat" "out.$name"; then pass "$name"; else
		fail "$name: no '$pat'"; cat "out.$name"
	fi
}
# maxrss NAME LIMIT_KB PROGRAM ARGS...: run it (20 s at most); its peak RSS must stay under LIMIT_KB
maxrss() {
	local name=$1 limit=$2 kb
	shift 2
	kb=$(python3 -c '
import resource, subprocess, sys
try:
    subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=20)
except subprocess.TimeoutExpired:
    pass
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$@")
	if ((kb < limit)); then pass "$name: peak RSS $kb KB"; else fail "$name: peak RSS $kb KB (limit $limit KB)"; fi
}
# plant DIR FILE: a copy of good.er as DIR whose FILE is then replaced by the caller
plant() { rm -rf "$1" && cp -r good.er "$1" && rm -f "$1/$2"; }

# ---- FIFOs where files should be
for f in notes log.xml map.xml processes.xml profile; do
	plant "fifo-${f%.xml}.er" "$f" && mkfifo "fifo-${f%.xml}.er/$f"
done
run fifo-notes 0 "notes: not a regular file (a FIFO); not shown" "$ER_PRINT" -header fifo-notes.er
run fifo-log 1 "^er_print: cannot read experiment fifo-log.er: fifo-log.er/log.xml: not a regular file (a FIFO)$" \
	"$ER_PRINT" -header fifo-log.er
run fifo-map 1 "fifo-map.er/map.xml: not a regular file (a FIFO)" "$ER_PRINT" -functions fifo-map.er
run fifo-processes 0 "processes.xml: not a regular file (a FIFO); the descendant processes are not listed" \
	"$ER_PRINT" -header fifo-processes.er
run fifo-profile 0 "profile: not a regular file (a FIFO); ignored" "$ER_PRINT" -header -functions fifo-profile.er
plant fifo-zst.er profile && mkfifo fifo-zst.er/profile.zst
run fifo-zst 0 "profile.zst: not a regular file (a FIFO); ignored" "$ER_PRINT" -header fifo-zst.er
# the recorded program itself (a load object's path in map.xml)
mkfifo prog.fifo
plant fifo-obj.er map.xml && sed "s|path=\"$prog\"|path=\"$WORK/prog.fifo\"|" good.er/map.xml >fifo-obj.er/map.xml
run fifo-object 0 "cannot read symbols of $WORK/prog.fifo: not a regular file (a FIFO)" \
	"$ER_PRINT" -functions fifo-obj.er
run fifo-object-source any "" "$ER_PRINT" -source work fifo-obj.er
run fifo-object-disasm any "" "$ER_PRINT" -disasm work fifo-obj.er
run er_rm-fifo-log 1 "er_rm: fifo-log.er: not an experiment: cannot read its log.xml: not a regular file (a FIFO)" \
	"$ER_RM" fifo-log.er
[[ -d fifo-log.er ]] && pass "er_rm: the refused experiment is still there" || fail "er_rm removed fifo-log.er"
run er_cp-fifo-profile 1 "fifo-profile.er/profile: not a regular file (a FIFO)" "$ER_CP" fifo-profile.er copy.er
[[ ! -e copy.er ]] && pass "er_cp: no partial copy" || fail "er_cp left copy.er"
# the analyzer reads the experiment before it serves: it must come up
"$PA_BIN/analyzer" --no-browser --port 0 fifo-notes.er >an.out 2>an.err &
an=$!
for ((i = 0; i < 200; i++)); do grep -q '^Analyzer: http' an.out && break; sleep 0.1; done
grep -q '^Analyzer: http' an.out && pass "analyzer: serves an experiment whose notes are a FIFO" ||
	{ fail "analyzer: no URL after 20 s"; cat an.out an.err; }
kill "$an" 2>/dev/null
wait "$an" 2>/dev/null

# ---- links out of the experiment
cp good.er/log.xml outside.xml && echo "a secret" >secret.txt
plant out-log.er log.xml && ln -s "$WORK/outside.xml" out-log.er/log.xml
run link-out-log 1 "out-log.er/log.xml: a symbolic link that leads out of the experiment" \
	"$ER_PRINT" -header out-log.er
plant out-notes.er notes && ln -s ../secret.txt out-notes.er/notes
run link-out-notes 0 "notes: a symbolic link that leads out of the experiment; not shown" \
	"$ER_PRINT" -header out-notes.er
grep -q "a secret" out.link-out-notes && fail "link-out-notes: the file outside was shown" ||
	pass "link-out-notes: the file outside is not shown"
plant in-notes.er notes && echo "notes kept aside" >in-notes.er/notes.txt && ln -s notes.txt in-notes.er/notes
run link-in-notes 0 "notes kept aside" "$ER_PRINT" -header in-notes.er
plant zero.er profile && ln -s /dev/zero zero.er/profile
run link-dev-zero 0 "profile: not a regular file (a character device); ignored" "$ER_PRINT" -header zero.er
rm -rf linked.er elsewhere && cp -r good.er linked.er && cp -r good.er elsewhere && ln -s ../elsewhere linked.er/_f1.er
run link-subexperiment 0 "" "$ER_PRINT" -header linked.er
grep -q "_f1.er" out.link-subexperiment && fail "a linked subexperiment was read" ||
	pass "a subexperiment that is a link elsewhere is not read"

# the vDSO's image (map.xml names it relative to the experiment) is a file of the experiment too
cp "$prog" vd
printf 'object %s\nobject %s\nthread 100\nsample 100 30 10000000 0x200001000 main+42\nend 100 400000000\n' \
	"$prog" "$WORK/vd" | "$MKEXP" vdso.er || exit 1
sed -i "s|kind=\"lib\" path=\"$WORK/vd\"|kind=\"vdso\" path=\"vdso.so\"|" vdso.er/map.xml
grep -q 'kind="vdso" path="vdso.so"' vdso.er/map.xml || fail "vdso.er: no vDSO in map.xml"
ln -s "$WORK/vd" vdso.er/vdso.so
run vdso-link-out 0 "cannot read symbols of vdso.er/vdso.so: a symbolic link that leads out of the experiment" \
	"$ER_PRINT" -functions vdso.er
# a vDSO path that climbs out of the experiment is taken by its last part, inside it
rm -rf vdso2.er && cp -r vdso.er vdso2.er && rm vdso2.er/vdso.so
sed -i 's|kind="vdso" path="vdso.so"|kind="vdso" path="../vdso.er/../vd"|' vdso2.er/map.xml
run vdso-path-out 0 "cannot read symbols of vdso2.er/vd: " "$ER_PRINT" -functions vdso2.er

# archives/src (er_archive -A src) is a part of the experiment: a link there that leads out is
# not shown as the source of a file that is gone; a real copy there is
mkdir -p gone && cp "$PA_TOP/tests/fixtures/cc_prog.c" gone/g.c && cc -O0 -g -o gprog gone/g.c && rm gone/g.c
sed "s|$prog|$WORK/gprog|" s.txt | "$MKEXP" src.er || exit 1
mkdir -p "src.er/archives/src$WORK/gone" && ln -s "$WORK/secret.txt" "src.er/archives/src$WORK/gone/g.c"
run source-link-out any "" "$ER_PRINT" -source work src.er
grep -q "a secret" out.source-link-out && fail "source-link-out: the file outside was shown as the source" ||
	pass "source-link-out: a link out of archives/src is not read"
rm "src.er/archives/src$WORK/gone/g.c" && cp "$PA_TOP/tests/fixtures/cc_prog.c" "src.er/archives/src$WORK/gone/g.c"
run source-archived 0 "Source file: .*src.er/archives/src$WORK/gone/g.c" "$ER_PRINT" -source work src.er

# ---- a sparse data file: 1 GiB long, 128 KiB stored
plant sparse.er profile && cp good.er/profile sparse.er/profile && truncate -s 1G sparse.er/profile
run sparse 0 "profile: data file is sparse: 1 GiB long, [0-9.]* KiB stored; ignored" "$ER_PRINT" -header sparse.er
maxrss sparse-memory 300000 "$ER_PRINT" -functions sparse.er
# what cp makes of an experiment with a block per thread: holes in every block, 16 to 1 at most
{
	echo "object $prog"
	for t in $(seq 1 200); do echo "thread $t"; done
	for t in $(seq 1 200); do echo "sample $t 1 10000000 work+10 slow+9 main+42"; done
	for t in $(seq 1 200); do echo "end $t 10000000"; done
} >many.txt
"$MKEXP" many.er <many.txt || exit 1
cp -r --sparse=always many.er many-cp.er
"$ER_PRINT" -header -functions many.er >many.txt.out 2>&1
run cp-sparse-always 0 "" "$ER_PRINT" -header -functions many-cp.er
if grep -q "sparse" out.cp-sparse-always; then fail "the cp'd experiment was called sparse"; else
	pass "cp --sparse=always: not called sparse ($(du -k many-cp.er/profile | cut -f1) KB of $(($(stat -c %s many-cp.er/profile) / 1024)) KB stored)"
fi
diff <(sed 's/many-cp/many/g' out.cp-sparse-always) many.txt.out >/dev/null && pass "cp'd experiment: the same report" ||
	fail "cp'd experiment: another report"
run er_cp-sparse 1 "sparse.er/profile: a sparse file (its length is mostly holes)" "$ER_CP" sparse.er sparse2.er
[[ ! -e sparse2.er ]] && pass "er_cp: the sparse file was not written out" || fail "er_cp wrote sparse2.er"

# ---- zstd bombs
# zst OUT DECLARED_BYTES|- BLOCKS: a zstd frame of BLOCKS RLE blocks of 128 KiB of zeros,
# declaring DECLARED_BYTES as its content size ("-": no size in the header)
zst() {
	python3 - "$@" <<'EOF'
import struct, sys
out, declared, blocks = sys.argv[1], sys.argv[2], int(sys.argv[3])
hdr = b"\x28\xb5\x2f\xfd"
hdr += bytes([0xC0, 0x38]) + struct.pack("<Q", int(declared)) if declared != "-" else bytes([0x00, 0x38])
body = bytearray()
for i in range(blocks):
    h = (131072 << 3) | (1 << 1) | (1 if i == blocks - 1 else 0)
    body += struct.pack("<I", h)[:3] + b"\x00"
open(out, "wb").write(hdr + body)
EOF
}
plant bomb16.er profile && zst bomb16.er/profile.zst $((16 << 30)) 1
run bomb-declared 0 "profile.zst: decompresses past the ceiling of 8 GiB (PA_MAX_DATA_BYTES): its frames declare 16 GiB; ignored" \
	"$ER_PRINT" -header bomb16.er
plant bomb512.er profile && zst bomb512.er/profile.zst - 4096
((($(stat -c %s bomb512.er/profile.zst)) < 20000)) || fail "bomb512: the bomb is not small"
run bomb-counted 0 "profile.zst: decompresses past the ceiling of 64 MiB (PA_MAX_DATA_BYTES); ignored" \
	env PA_MAX_DATA_BYTES=64M "$ER_PRINT" -header bomb512.er
maxrss bomb-counted-memory 300000 env PA_MAX_DATA_BYTES=64M "$ER_PRINT" -header bomb512.er
# under the ceiling a file of zeros is read, and its zero pages cost nothing
run bomb-zeros 0 "profile.zst: not an experiment data file, or its header is damaged; ignored" \
	"$ER_PRINT" -header bomb512.er
maxrss bomb-zeros-memory 300000 "$ER_PRINT" -header bomb512.er
# a heaptrace.zst whose column transform is 8192 zero units (512 MiB of unused blocks): read
# without a page of memory per page of zeros either
plant heapz.er heaptrace && python3 -c '
import sys
n = 8192
total = n * 65536
v = bytearray()
while True:
    b = total & 0x7f
    total >>= 7
    v.append(b | (0x80 if total else 0))
    if not total:
        break
sys.stdout.buffer.write(b"PAHCOLS1" + b"\x02" * n + b"\x04" + bytes(v))' | zstd -q >heapz.er/heaptrace.zst
run colx-zeros 0 "heaptrace.zst: not an experiment data file, or its header is damaged; ignored" \
	"$ER_PRINT" -header heapz.er
maxrss colx-zeros-memory 300000 "$ER_PRINT" -header heapz.er
# a real .zst (as collect leaves it) still reads
plant zgood.er profile && zstd -q good.er/profile -o zgood.er/profile.zst
"$ER_PRINT" -functions good.er >zgood.want 2>&1
run zst-good 0 "" "$ER_PRINT" -functions zgood.er
diff <(sed 's/zgood/good/g' out.zst-good) zgood.want >/dev/null && pass "a real .zst: the same report" ||
	fail "a real .zst: another report"

# ---- defaults files
mkdir -p home && ln -s /dev/zero home/.er.rc
mkfifo .er.rc
run rc-devzero-fifo 0 "cannot read $WORK/home/.er.rc: not a regular file (a character device)" \
	env HOME="$WORK/home" "$ER_PRINT" -functions good.er
grep -q "cannot read .er.rc: not a regular file (a FIFO)" out.rc-devzero-fifo && pass "rc: the FIFO is named" ||
	{ fail "rc: no message for the FIFO .er.rc"; cat out.rc-devzero-fifo; }
grep -q "   work$" out.rc-devzero-fifo && pass "rc: the report still comes" || fail "rc: no report"
rm -f .er.rc && truncate -s 2M .er.rc
run rc-large 0 "cannot read .er.rc: longer than 1024 KiB" env HOME="$WORK/nohome" "$ER_PRINT" -functions good.er
rm -f .er.rc

# ---- er_rm / er_cp on a log.xml that declares an entity
plant entity.er log.xml
{ printf '<?xml version="1.0"?>\n<!DOCTYPE experiment [<!ENTITY a "b">]>\n'; sed 1d good.er/log.xml; } >entity.er/log.xml
run er_rm-entity 1 "er_rm: entity.er: its log.xml declares an entity (entity declarations are refused)" "$ER_RM" entity.er
run er_cp-entity 1 "er_cp: entity.er: its log.xml declares an entity (entity declarations are refused)" \
	"$ER_CP" entity.er e2.er
plant dtd.er log.xml
{ printf '<?xml version="1.0"?>\n<!DOCTYPE experiment SYSTEM "http://127.0.0.1:9/x.dtd">\n'; sed 1d good.er/log.xml; } >dtd.er/log.xml
run er_rm-dtd 1 "er_rm: dtd.er: its log.xml names an external DTD (external DTDs are refused)" "$ER_RM" dtd.er
plant doctype.er log.xml
{ printf '<?xml version="1.0"?>\n<!DOCTYPE experiment>\n'; sed 1d good.er/log.xml; } >doctype.er/log.xml
run er_rm-doctype 0 "" "$ER_RM" doctype.er
[[ ! -e doctype.er ]] && pass "er_rm: a plain DOCTYPE is an experiment (removed)" || fail "er_rm kept doctype.er"
finish
