#!/usr/bin/env bash
# er_archive on an experiment whose map.xml names hostile files (issue 24): it copies only
# regular ELF files (with -F, which archives objects without a recorded build-id, too),
# never widens a file's permissions, never blocks, never fills the disk and never leaves a
# temporary file behind.  mkexp records no build-ids, so every case runs with -F, as an
# attacker's experiment would ask the user to:
#  - a private text file (mode 0640, like /etc/shadow): not archived, nothing copied;
#  - /dev/zero (under ulimit -f, so that a copy stops at 10 MiB instead of filling the disk):
#    refused at once, nothing written;
#  - a FIFO: refused at once (it never blocks), also with -n;
#  - an ELF object of mode 0700 and one of 0640: archived with those modes, not 0755/0644;
#  - the file-size limit hit in the middle of a copy and of the index: "File too large"
#    for the file, exit 1 (before: killed by SIGXFSZ), no temporary stays in archives/
#    or the cache;
#  - -A src archives the sources an object's DWARF names from this machine's copy, never
#    from a copy that came inside the experiment (its DWARF could name ~/.ssh/id_rsa);
#  - after all of it, no hidden .NAME.tmpXXXXXX anywhere.
. "$(dirname "$0")/common.bash"
cd "$WORK" || exit 1
ARCHIVE=$PA_BIN/er_archive
export PA_CACHE_DIR=$WORK/cache
cp "$(fixture_prog)" victim
"$MKEXP" base.er <<EOS || exit 1
object $WORK/victim
thread 1
sample 1 20 10000000 work+4 slow+8 main+8
end 1 300000000
EOS
grep -q "path=\"$WORK/victim\"" base.er/map.xml || { fail "mkexp did not name victim"; finish; }

# naming EXP PATH: a copy of base.er whose object is PATH
naming() { rm -rf "$1" && cp -r base.er "$1" && sed -i "s|path=\"$WORK/victim\"|path=\"$2\"|" "$1/map.xml"; }
# run NAME EXPECTED-EXIT PATTERN COMMAND...: within 20 s, no crash, that exit, PATTERN in the output
run() {
	local name=$1 want=$2 pat=$3 rc
	shift 3
	timeout 20 "$@" >"out.$name" 2>&1 </dev/null
	rc=$?
	if ((rc == 124)); then fail "$name: still running after 20 s (blocked?)"; return; fi
	if grep -q "Sanitizer\|runtime error" "out.$name"; then fail "$name crashed"; cat "out.$name"; return; fi
	if [[ $want != any && $rc != "$want" ]]; then fail "$name: exit $rc, expected $want"; cat "out.$name"; return; fi
	if [[ -z $pat ]] || grep -q -- "$pat" "out.$name"; then pass "$name"; else
		fail "$name: no '$pat'"; cat "out.$name"
	fi
}
no_copy() { # EXP NAME: nothing but index.xml in EXP/archives, nothing in the cache
	local extra
	extra=$(find "$1/archives" "$PA_CACHE_DIR" -type f ! -name index.xml 2>/dev/null)
	[[ -z $extra ]] && pass "$2: nothing copied" || fail "$2: copied: $extra"
}

# ---- a private file that is not an ELF object
printf 'root:$y$j9T$secret:19000:0:99999:7:::\n' >shadow && chmod 0640 shadow
naming shadow.er "$WORK/shadow"
run shadow 0 "er_archive: warning: $WORK/shadow: not an ELF file; not archived" "$ARCHIVE" -F -A copy shadow.er
no_copy shadow.er shadow
grep -rq 'secret' shadow.er && fail "shadow: its text is in the experiment" || pass "shadow: its text is nowhere in the experiment"

# ---- /dev/zero: a copy would never end
naming zero.er /dev/zero
run dev-zero 0 "cannot read /dev/zero: not a regular file (a character device); not archived" \
	bash -c "ulimit -f 10240; exec '$ARCHIVE' -F -A copy zero.er"
no_copy zero.er dev-zero
run dev-zero-cache 0 "not a regular file (a character device)" bash -c "ulimit -f 10240; exec '$ARCHIVE' -F zero.er"
no_copy zero.er dev-zero-cache

# ---- a FIFO: opening it would wait for a writer
mkfifo pipe
naming fifo.er "$WORK/pipe"
run fifo 0 "cannot read $WORK/pipe: not a regular file (a FIFO); not archived" "$ARCHIVE" -F -A copy fifo.er
run fifo-dry-run 0 "not a regular file (a FIFO)" "$ARCHIVE" -n -F fifo.er
no_copy fifo.er fifo

# ---- modes: the copy's never exceed the object's
for mode in 0700 0640; do
	cp victim "obj$mode" && chmod "$mode" "obj$mode"
	naming "mode$mode.er" "$WORK/obj$mode"
	run "mode-$mode" 0 "" "$ARCHIVE" -F -A copy "mode$mode.er"
	copy=$(find "mode$mode.er/archives" -type f -name "obj$mode")
	got=$(stat -c %a "$copy" 2>/dev/null)
	[[ $got == "${mode#0}" ]] && pass "mode $mode: the copy has mode $got" || fail "mode $mode: the copy has mode '$got'"
done

# ---- the file-size limit in the middle of a copy: er_archive ignores SIGXFSZ, says which
# file could not be written and why, and exits 1
naming big.er "$WORK/victim"
run xfsz-copy 1 "cannot write big.er/archives/.*victim: File too large" bash -c "ulimit -f 4; exec '$ARCHIVE' -F -A copy big.er"
[[ -z $(find big.er/archives -name "*victim*") ]] && pass "xfsz-copy: no partial copy" ||
	fail "xfsz-copy: $(find big.er/archives -name "*victim*")"
naming idx.er "$WORK/victim"
# (under ulimit -f 0 even the message cannot reach the output file: the exit status says it)
run xfsz-index 1 "" bash -c "ulimit -f 0; exec '$ARCHIVE' -F -A off idx.er"
[[ ! -e idx.er/archives/index.xml ]] && pass "xfsz-index: no index written" || fail "xfsz-index: an index.xml"

# ---- -A src: the sources an object's DWARF names are copied only from this machine's line
# tables, never from the DWARF of a copy that came inside the experiment (it may name any file)
mkdir -p src && { cat "$PA_TOP/tests/fixtures/cc_prog.c"; echo "/* PA-PRIVATE-SOURCE */"; } >src/v2.c
cc -O0 -g -o v2 src/v2.c || exit 1
naming v2.er "$WORK/v2"
run src-own 0 "" "$ARCHIVE" -F -A src v2.er
[[ -n $(find v2.er/archives/src -name v2.c 2>/dev/null) ]] && pass "-A src: the object's own source is archived" ||
	fail "-A src: no v2.c under v2.er/archives/src"
rm -rf v2c.er && naming v2c.er "$WORK/v2" && "$ARCHIVE" -q -F -A copy v2c.er && mv v2 v2.away
run src-from-copy 0 "its line table is the experiment's own copy" "$ARCHIVE" -F -A src v2c.er
[[ -z $(find v2c.er/archives/src -name v2.c 2>/dev/null) ]] &&
	pass "-A src: nothing copied on the word of the experiment's own DWARF" ||
	fail "-A src: v2.c copied from the DWARF of the experiment's copy"
mv v2.away v2

# ---- no temporary anywhere
left=$(find . "$PA_CACHE_DIR" -name '.*.tmp*' 2>/dev/null)
[[ -z $left ]] && pass "no temporary file left behind" || fail "temporaries left: $left"
# and the normal case still works
naming ok.er "$WORK/victim"
run archive-ok 0 "archived $WORK/victim" "$ARCHIVE" -F -A copy ok.er
[[ -n $(find ok.er/archives -type f -name victim) ]] && pass "the program is archived" || fail "no copy of victim"
finish
