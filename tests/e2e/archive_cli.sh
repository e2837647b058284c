#!/usr/bin/env bash
# er_archive's command line and what it writes, on experiments of a fixture
# program compiled here: --help matches docs/man/er_archive.1, usage errors
# exit 2, a missing or corrupt experiment exits 1 naming the file; collect
# archives automatically (not with PA_ARCHIVE=off); archives/index.xml is
# well-formed and the copy is byte-identical with the build-id map.xml
# recorded; a second run skips what is archived and -F rewrites it; -n
# changes nothing; -A off copies nothing; an object rebuilt after collection
# is not archived (warning, not with -q); -A src copies the source files,
# which er_print's source finds there once the original is gone;
# a full disk exits 1 and leaves nothing half-written.
set -u
: "${PA_TOP:?}" "${PA_BIN:?}" "${PA_LIB:?}"
collect=$PA_BIN/collect archive=$PA_BIN/er_archive lib=$PA_LIB/libcollector.so
[[ -x $collect && -x $archive ]] || { echo "no $collect or $archive"; exit 1; }
[[ -f $lib ]] || { echo "skip: $lib not built"; exit 77; }
command -v cc >/dev/null || { echo "skip: no C compiler"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/archive_cli.XXXXXX")
trap 'umount "$tmp/full" 2>/dev/null; rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
export PA_COLLECTOR_LIB=$lib
unset PA_ARCHIVE
failures=0 checks=0
ok() { checks=$((checks + 1)); }
bad() { checks=$((checks + 1)); failures=$((failures + 1)); echo "not ok: $*"; }
check() { # description, command...
	local d=$1; shift
	if "$@"; then ok; else bad "$d"; fi
}
expect_rc() { # want, description, command... ; stdout/stderr kept in out/err
	local want=$1 d=$2; shift 2
	"$@" >out 2>err </dev/null
	local rc=$?
	if ((rc == want)); then ok; else bad "$d: exit $rc, want $want; stderr: $(head -c 300 err)"; fi
}
well_formed() { python3 -c 'import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])' "$1"; }
build_id() { readelf -n "$1" 2>/dev/null | sed -n 's/^ *Build ID: *\([0-9a-f]*\).*/\1/p' | head -n1; }
# index_attr FILE OBJECT-PATH ATTR: the attribute of that object's element, or nothing
index_attr() {
	python3 - "$@" <<'EOF'
import sys, xml.dom.minidom
d = xml.dom.minidom.parse(sys.argv[1])
for o in d.getElementsByTagName("object"):
    if o.getAttribute("path") == sys.argv[2] and o.hasAttribute(sys.argv[3]):
        print(o.getAttribute(sys.argv[3]))
EOF
}

cat >prog.c <<'EOF'
#include <stdio.h>
static volatile double sink;
void archive_fixture_work(long n)
{
	for (long i = 0; i < n; i++)
		sink += (double)i * 0.5;
}
int main(void)
{
	archive_fixture_work(20000000L);
	printf("%g\n", sink);
	return 0;
}
EOF
cc -g -O0 -Wl,--build-id -o prog prog.c || { echo "cannot compile the fixture"; exit 1; }
id=$(build_id prog)
[[ -n $id ]] || { echo "skip: the linker writes no build-id"; exit 77; }

# ---- command line
"$archive" --help >help.txt
check "--help exits 0" test $? = 0
sed -n '/^Usage: /,/^$/p' help.txt | sed '/^$/d; s/^Usage: //; s/^ *//' >help_syn
sed -n '/^\.SH SYNOPSIS/,/^\.SH/p' "$PA_TOP/docs/man/er_archive.1" | grep -v '^\.' |
	sed 's/\\f[BIR]//g; s/\\-/-/g' >man_syn
check "synopsis matches docs/man/er_archive.1" cmp -s help_syn man_syn || diff help_syn man_syn
check "synopsis was compared" test "$(wc -l <help_syn)" -eq 3
expect_rc 0 "-V" "$archive" -V
check "-V prints the version" grep -q '^er_archive (Performance Analyzer for Linux) [0-9]' out
expect_rc 2 "no operand" "$archive"
check "no operand message" grep -q 'er_archive: no experiment named' err
expect_rc 2 "-A bad" "$archive" -A bad x.er
check "-A bad message" grep -qF "er_archive: -A takes on, off, copy or src, not 'bad'" err
expect_rc 2 "unknown option" "$archive" -Z x.er
check "unknown option message" grep -q 'er_archive: unknown option -Z' err
expect_rc 2 "two experiments" "$archive" a.er b.er
expect_rc 1 "missing experiment" "$archive" nosuch.er
check "missing experiment message names it" grep -q 'er_archive: cannot read experiment nosuch.er: No such file' err
check "nothing created for a missing experiment" test ! -e nosuch.er

# ---- collect archives the experiment
expect_rc 0 "collect" "$collect" -o a.er ./prog
check "archives/index.xml exists" test -f a.er/archives/index.xml
check "index.xml well-formed" well_formed a.er/archives/index.xml
check "map.xml recorded the build-id" grep -q "build_id=\"$id\"" a.er/map.xml
check "index names the build-id" test "$(index_attr a.er/archives/index.xml "$tmp/prog" build_id)" = "$id"
check "index names the copy" test "$(index_attr a.er/archives/index.xml "$tmp/prog" file)" = "$id/prog"
check "the copy is identical" cmp -s prog "a.er/archives/$id/prog"
check "index size is the copy's" test "$(index_attr a.er/archives/index.xml "$tmp/prog" size)" = "$(stat -c %s prog)"
check "libc is archived too" grep -q 'path="[^"]*/libc\.so\.6"[^>]* file="' a.er/archives/index.xml
check "the vDSO is not archived" test -z "$(grep -F 'vdso' a.er/archives/index.xml)"
check "no temporary files left" test -z "$(find a.er/archives -name '.*.tmp*')"
check "collect printed no archive warning" test -z "$(grep -E 'er_archive|archived' err)"

# ---- a second run skips, -F rewrites
ino=$(stat -c %i "a.er/archives/$id/prog")
expect_rc 0 "second run" "$archive" a.er
check "second run says already archived" grep -qF "already archived: $tmp/prog" out
check "second run left the copy alone" test "$(stat -c %i "a.er/archives/$id/prog")" = "$ino"
check "second run kept the index entry" test "$(index_attr a.er/archives/index.xml "$tmp/prog" file)" = "$id/prog"
expect_rc 0 "-F" "$archive" -F a.er
check "-F rewrote the copy" test "$(stat -c %i "a.er/archives/$id/prog")" != "$ino"
check "-F copy is identical" cmp -s prog "a.er/archives/$id/prog"

# ---- PA_ARCHIVE=off, -n, -A off
expect_rc 0 "collect with PA_ARCHIVE=off" env PA_ARCHIVE=off "$collect" -o b.er ./prog
check "PA_ARCHIVE=off: no archives" test ! -e b.er/archives
expect_rc 0 "-n" "$archive" -n b.er
check "-n creates nothing" test ! -e b.er/archives
check "-n says what it would link" grep -qF "would link (per-user cache) $tmp/prog -> b.er/archives/$id/prog" out
expect_rc 0 "-A off" "$archive" -A off b.er
check "-A off writes the index" well_formed b.er/archives/index.xml
check "-A off records the build-id" test "$(index_attr b.er/archives/index.xml "$tmp/prog" build_id)" = "$id"
check "-A off copies nothing" test -z "$(index_attr b.er/archives/index.xml "$tmp/prog" file)"
check "-A off made no object directories" test -z "$(find b.er/archives -mindepth 1 -maxdepth 1 -type d)"

# ---- -A src: objects and their source files
expect_rc 0 "-A src" "$archive" -A src b.er
check "-A src copies the objects" cmp -s prog "b.er/archives/$id/prog"
check "-A src copies the source file" cmp -s prog.c "b.er/archives/src$tmp/prog.c"
mv prog.c prog.c.away
"$PA_BIN/er_print" -source main b.er >src.out 2>&1
check "er_print source reads the archived source" grep -q "Source file: .*b.er/archives/src$tmp/prog.c" src.out
mv prog.c.away prog.c

# ---- an object rebuilt after collection is not archived
expect_rc 0 "collect c.er" env PA_ARCHIVE=off "$collect" -o c.er ./prog
sed 's/0\.5/0.25/' prog.c >prog2.c && cc -g -O0 -Wl,--build-id -o prog prog2.c
check "the rebuilt program has another build-id" test "$(build_id prog)" != "$id"
expect_rc 0 "changed object" "$archive" c.er
check "changed object warning" grep -qF "er_archive: warning: $tmp/prog changed since the experiment was recorded; not archived" err
check "changed object not copied" test ! -e "c.er/archives/$id/prog"
check "changed object noted in the index" test -n "$(index_attr c.er/archives/index.xml "$tmp/prog" note)"
check "other objects still archived" grep -q 'path="[^"]*/libc\.so\.6"[^>]* file="' c.er/archives/index.xml
expect_rc 0 "-q" "$archive" -q -F c.er
check "-q prints nothing" test ! -s err -a ! -s out

# ---- damage
# damage well before the end (damage in the last bytes reads as an unfinished collection)
cp -r b.er bad.er && { printf '<map version="1.0"><load id="1" kind="exe"></unload>\n<!-- %0600d -->\n</map>\n' 0; } >bad.er/map.xml
expect_rc 1 "corrupt map.xml" "$archive" bad.er
check "corrupt map.xml message names it" grep -q 'er_archive: cannot read experiment .*bad.er/map.xml: malformed XML' err
mkdir notexp.er
expect_rc 1 "not an experiment" "$archive" notexp.er
check "not an experiment message" grep -q 'er_archive: cannot read experiment .*notexp.er' err

# ---- an unwritable experiment, a full disk
if ((EUID != 0)); then
	cp -r b.er ro.er && rm -rf ro.er/archives && chmod 555 ro.er
	expect_rc 1 "unwritable experiment" "$archive" ro.er
	check "unwritable message names archives" grep -q "cannot create .*ro.er/archives: Permission denied" err
	chmod 755 ro.er
fi
mkdir full
if mount -t tmpfs -o size=1m tmpfs full 2>/dev/null; then
	# the experiment (~0.5 MB) fits; libc (~2 MB) does not
	mkdir full/f.er && find b.er -maxdepth 1 -type f -exec cp {} full/f.er/ \;
	expect_rc 1 "full disk" "$archive" -A copy full/f.er
	check "full disk message" grep -q 'No space left on device' err
	check "full disk: no temporary files left" test -z "$(find full/f.er -name '.*.tmp*')"
	check "full disk: no partial libc" test -z "$(find full/f.er/archives -name libc.so.6 -size -1000k)"
	umount full
else
	echo "# full-disk check skipped (cannot mount a tmpfs)"
fi

echo "$checks checks, $failures failed"
((failures == 0))
